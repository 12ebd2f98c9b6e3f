"""Every ``cubenoc bench NAME`` runs at its smallest size: the benchmark package's modules are
commands, and each one is exercised here end to end in one run: ``--format json`` on stdout (parsed, a
known row checked), the Markdown of the same tables (what ``--format md`` and ``--write`` print,
checked for a known table line) and the results file the run writes (the same rows)."""
from __future__ import annotations

import importlib
import json
from dataclasses import fields

import pytest

from cubenoc.bench import BENCHES
from cubenoc.cli import main
from cubenoc.sim.catalog import NetworkSpec
from cubenoc.sim.router_config import RouterConfig

#: name -> (arguments, a line of the Markdown, (key, value) of a JSON row)
SMALLEST = {
    "area": (["--family", "hypercube", "--n", "2", "--targets", "ice40"], "| Hypercube(n=2) | 3 |",
             ("ports", 3)),
    "latency": (["--n", "2", "--k", "0", "--packet-len", "1"], "| Hypercube(n=2) | 2 | 3.00 | 3.00 |", ("hops", 2)),
    "throughput": (["--n", "3", "--k", "0", "--loads", "0.2", "--window", "300", "--packet-len", "1",
                    "--queues", "fifo"], "| EnhancedHypercube(n=3, k=0) | V=1 (RTL, verified) | 1 flit |",
                   ("queues", "fifo")),
    "model-speed": (["--network", "hypercube:n=2", "--loads", "0.1", "--cycles", "500"], "| 4 | 0.1 | 500 |",
                    ("nodes", 4)),
    "families": (["--only", "PDN {0,1,3} (7)", "--no-area", "--loads", "0.2", "--window", "300",
                  "--packet-len", "1"], "| PDN {0,1,3} (7) | pdn_oblivious | 1 | 0: 5 | - | - | 1.14 |",
                 ("spec", "pdn:set=0,1,3")),
    "vc-area": (["--targets", "ice40", "--limit", "1"], "| Metacube(k=1, m=2) | `metacube_whp_1vc` | 1 | 4 |",
                ("vcs", 1)),
    "vc-throughput": (["--loads", "0.2", "--packet-len", "1", "--window", "300", "--limit", "1"],
                      "| Metacube(k=1, m=2) | `metacube_whp_2vc` | 2 | 1 flit |", ("routing", "metacube_whp_1vc")),
    "broadcast-area": (["--targets", "ice40", "--limit", "1"], "| Hypercube(n=4) | `ecube` | `algorithm_b` | 5 |",
                       ("broadcast", "algorithm_b")),
    "adaptive": (["--throughput", "--loads", "0.2", "--packet-len", "1", "--window", "300"],
                 "| Algorithm 2, availability selection + fault inputs | 2 | 1 flit |", ("vcs", 2)),
    "fair-area": (["--network", "hypercube:n=2"], "| Hypercube(n=2) | fair | ", ("arbitration", "fair")),
    "safety-area": (["--unit", "fork", "--n", "2"], "| SL1 | 2 |", ("model", "DSL2")),
    "sim-speed": (["--network", "hypercube:n=2", "--loads", "0.1", "--cycles", "200", "--repeat", "1"],
                  "| Hypercube(n=2) | 4 | 0.10 | 200 |", ("nodes", 4)),
    "anynet-speed": (["--network", "hypercube:n=2", "--rate", "0.1", "--cycles", "200", "--repeat", "1", "--size",
                      "hypercube:n=3"], "| hypercube:n=2 | 4 | 0.10 |", ("nodes", 4)),
}


#: the benchmarks that measure no router (the safety-level unit and fork alone)
NO_ROUTER = {"safety-area"}
CONFIG_FIELDS = {f.name for f in fields(RouterConfig)}


def test_every_benchmark_has_a_smoke_case():
    assert set(SMALLEST) == set(BENCHES)


@pytest.mark.parametrize("name", sorted(SMALLEST))
def test_benchmark_runs_at_its_smallest_size_in_md_and_json(name, capsys, monkeypatch, tmp_path):
    argv, line, (key, value) = SMALLEST[name]
    mod = importlib.import_module(f"cubenoc.bench.{BENCHES[name][0]}")
    tables = []

    def keep(t, args, *command):
        tables.extend(t if isinstance(t, list) else [t])
        return real(t, args, *command)
    real = mod.publish
    monkeypatch.setattr(mod, "publish", keep)
    monkeypatch.chdir(tmp_path)
    assert main(["bench", name, *argv, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = out if isinstance(out, list) else [r for rs in out.values() for r in rs]
    assert rows and any(r.get(key) == value for r in rows), rows
    if name not in NO_ROUTER:                   # every row says which routers it measured: every field, resolved
        assert all(set(r["router_config"]) == CONFIG_FIELDS for r in rows), rows
    assert line in "\n\n".join(t.markdown() for t in tables)
    # and the run's results file (build/results/) holds the same rows, with its command and provenance
    saved = [json.loads(f.read_text()) for f in (tmp_path / "build" / "results").glob("*.json")]
    assert saved and all(s["command"].startswith(f"cubenoc bench {name}") and s["tools"] for s in saved)
    assert sorted(json.dumps(r, sort_keys=True, default=str) for s in saved for t in s["tables"] for r in t["rows"]) \
        == sorted(json.dumps(r, sort_keys=True, default=str) for r in json.loads(json.dumps(rows, default=str)))


def test_model_benchmark_rows_record_the_spec_and_the_resolved_depth(capsys, monkeypatch, tmp_path):
    """``--depth 3`` reaches every row's router_config, and its spec builds the same network and routers."""
    monkeypatch.chdir(tmp_path)
    assert main(["bench", "latency", "--network", "hypercube:n=2", "--depth", "3", "--packet-len", "1",
                 "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all(RouterConfig(**r["router_config"]) == RouterConfig(fifo_depth=3) for r in rows)
    assert {NetworkSpec.parse(r["spec"]) for r in rows} == {NetworkSpec.parse("hypercube:n=2,depth=3")}
