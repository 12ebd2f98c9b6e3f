"""The fast test set (``make test``: ``pytest -m "not slow"``) runs the Verilator-vs-model cocotb
comparison of every router variant at its smallest network: V = 1, V > 1 (metacube and hierarchical),
per-output queues (VOQ), the pipelined router, adaptive routing with run-time faults, each broadcast algorithm
(binomial B, enhanced D, PDN Algorithm 3, metacube), the safety-level broadcast under each of SL(1), SL(2),
DSL(1), DSL(2), the fair arbiter, and the routers without loopback (one cycle per hop and pipelined).

Checked on what pytest itself collects and deselects from tests/test_cocotb_*.py with ``-m "not slow"``
(in a subprocess), so moving one of them to ``@slow`` (or skipping it) fails here."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# variant: a pattern one collected, not skipped, non-slow test id must match (docs/verification.md)
REQUIRED = {
    "V = 1 (hypercube)": r"test_cocotb_network\.py::test_network_matches_model\[hypercube_n3\]",
    "V > 1 metacube": r"test_cocotb_vc\.py::test_vc_network_matches_model\[metacube_mc11\]",
    "per-output queues (VOQ)": r"test_cocotb_voq\.py::test_voq_network_matches_model\[enhanced_q30\]",
    "pipelined router": r"test_cocotb_pipeline\.py::test_pipelined_network_matches_model\[q3\]",
    "V > 1 hierarchical": r"test_cocotb_families\.py::test_family_network_matches_model\[hin_bh(2_br4|1_ccc2)\]",
    "adaptive with faults (PDN)": r"test_cocotb_adaptive\.py::test_pdn7_availability_with_runtime_faults$",
    "adaptive with faults (hierarchical)": r"test_cocotb_adaptive\.py::test_hin_least_used_with_runtime_faults$",
    "broadcast: Algorithm B (binomial)": r"test_cocotb_broadcast\.py::test_broadcast_matches_model\[alg_b_",
    "broadcast: Algorithm D (enhanced)": r"test_cocotb_broadcast\.py::test_broadcast_matches_model\[alg_d_",
    "broadcast: PDN Algorithm 3": r"test_cocotb_broadcast\.py::test_broadcast_matches_model\[pdn_alg3_",
    "broadcast: metacube": r"test_cocotb_broadcast\.py::test_broadcast_matches_model\[metacube_",
    "broadcast: PDN H^2 (row, then column)": r"test_cocotb_broadcast\.py::test_broadcast_matches_model\[pdn_h2_",
    "safety broadcast SL(1)": r"test_cocotb_safety_broadcast\.py::test_\w+\[SL1\]",
    "safety broadcast SL(2)": r"test_cocotb_safety_broadcast\.py::test_\w+\[SL2\]",
    "safety broadcast DSL(1)": r"test_cocotb_safety_broadcast\.py::test_\w+\[DSL1\]",
    "safety broadcast DSL(2)": r"test_cocotb_safety_broadcast\.py::test_\w+\[DSL2\]",
    "fair arbitration (constant weights)": r"test_cocotb_fair\.py::test_fair_network_matches_model\[hypercube_n3\]",
    "fair arbitration (weight ROM, V = 2)": r"test_cocotb_fair\.py::test_fair_network_matches_model\[mc11\]",
    "no loopback": r"test_cocotb_network\.py::test_network_without_loopback_matches_model\[one_cycle\]",
    "no loopback, pipelined": r"test_cocotb_network\.py::test_network_without_loopback_matches_model\[pipelined\]",
}

# run in a fresh interpreter: collect with -m "not slow", report the selected items (with their skip
# marks) and the deselected ones as JSON
_COLLECT = r"""
import json, sys
import pytest

class Report:
    def __init__(self):
        self.selected, self.deselected = [], []

    def pytest_deselected(self, items):
        self.deselected += [i.nodeid for i in items]

    def pytest_collection_finish(self, session):
        for i in session.items:
            skip = any(m.name in ("skip", "skipif", "xfail") for m in i.iter_markers())
            self.selected.append([i.nodeid, skip, i.get_closest_marker("slow") is not None])

r = Report()
code = pytest.main(["--collect-only", "-q", "-m", "not slow", "-p", "no:cacheprovider", "-p", "no:xdist",
                    *sys.argv[2:]], plugins=[r])
with open(sys.argv[1], "w") as f:
    json.dump({"code": int(code), "selected": r.selected, "deselected": r.deselected}, f)
"""


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_cocotb_*.py"))
    assert len(files) >= 7, files
    out = tmp_path_factory.mktemp("collect") / "items.json"
    proc = subprocess.run([sys.executable, "-c", _COLLECT, str(out), *files], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0 and out.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    got = json.loads(out.read_text())
    assert got["code"] == 0, got
    return got


def test_fast_set_has_every_variant(collected):
    selected = collected["selected"]
    assert selected and not any(slow for _id, _skip, slow in selected)      # the -m filter did apply
    missing = []
    for variant, pattern in REQUIRED.items():
        hits = [nodeid for nodeid, skip, _slow in selected if re.search(pattern, nodeid) and not skip]
        if not hits:
            missing.append(f"{variant}: no non-slow, non-skipped test id matches {pattern!r}")
    assert not missing, "\n".join(missing)


def test_slow_cases_are_deselected(collected):
    """The larger networks stay slow (and the check above would see it if the marker did not work)."""
    deselected = set(collected["deselected"])
    for nodeid in ("tests/test_cocotb_broadcast.py::test_broadcast_matches_model[alg_b_q4]",
                   "tests/test_cocotb_broadcast.py::test_broadcast_matches_model[alg_d_q4k1]",
                   "tests/test_cocotb_safety_broadcast.py::test_q4_distance2[SL2]"):
        assert nodeid in deselected, sorted(deselected)
