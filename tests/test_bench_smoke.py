"""Every ``cubenoc bench NAME`` runs at its smallest size (issue 16): the benchmark package's modules are
commands, and each one is exercised here end to end, with what it prints checked for its table."""
from __future__ import annotations

import pytest

from cubenoc.bench import BENCHES
from cubenoc.cli import main

SMALLEST = {
    "area": (["--family", "hypercube", "--n", "2", "--targets", "ice40"], "| Hypercube(n=2) | 3 |"),
    "latency": (["--n", "2", "--k", "0", "--packet-len", "1"], "| Hypercube(n=2) | 2 |"),
    "throughput": (["--n", "3", "--k", "0", "--loads", "0.2", "--window", "300", "--packet-len", "1",
                    "--queues", "fifo"], "| EnhancedHypercube(n=3, k=0) | V=1 (RTL, verified) | 1 flit |"),
    "model-speed": (["--network", "hypercube:n=2", "--loads", "0.1", "--cycles", "500"], "| 4 | 0.1 | 500 |"),
    "families": (["--only", "PDN {0,1,3} (7)", "--no-area", "--loads", "0.2", "--window", "300",
                  "--packet-len", "1"], "| PDN {0,1,3} (7) | pdn_oblivious | 1 |"),
    "vc-area": (["--targets", "ice40", "--limit", "1"], "| Metacube(k=1, m=2) |"),
    "vc-throughput": (["--loads", "0.2", "--packet-len", "1", "--window", "300", "--limit", "1"],
                      "| Metacube(k=1, m=2) |"),
    "broadcast-area": (["--targets", "ice40", "--limit", "1"], "| Hypercube(n=4) |"),
    "adaptive": (["--throughput", "--loads", "0.2", "--packet-len", "1", "--window", "300"],
                 "Algorithm 2, availability selection"),
    "fair-area": (["--network", "hypercube:n=2"], "| Hypercube(n=2) | fair |"),
    "safety-area": (["--unit", "fork", "--n", "2"], "| SL1 | 2 |"),
}


def test_every_benchmark_has_a_smoke_case():
    assert set(SMALLEST) == set(BENCHES)


@pytest.mark.parametrize("name", sorted(SMALLEST))
def test_benchmark_runs_at_its_smallest_size(name, capsys):
    argv, expect = SMALLEST[name]
    assert main(["bench", name, *argv]) == 0
    assert expect in capsys.readouterr().out
