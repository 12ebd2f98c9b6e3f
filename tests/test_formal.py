"""Formal proofs with SymbiYosys from pip (rtl/formal/, docs/formal.md): the round-robin arbiter of every
output is fair for every request sequence (k-induction), and a seeded bug makes the proof fail with a
counterexample trace that names the broken property."""
from __future__ import annotations

import pytest

from cubenoc.rtl.formal.arbiter import ArbiterHarness
from cubenoc.rtl.formal.runner import prove

SHAPES = {                       # (positions, size): the arbiters the routers build
    "q2_output_p3": ([0, 1, 2], 3),
    "q4_pruned_output": ([0, 2, 3, 4], 5),                 # a turn-pruned output of a 5-port router
    "vc2_lanes": ([0, 1, 2, 3, 4, 5, 8, 9], 10),          # (input, VC) lanes j = i * 2 + c, local lane 8
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_arbiter_is_fair_by_induction(shape, tmp_path):
    positions, size = SHAPES[shape]
    res = prove(ArbiterHarness(positions, size), f"arbiter_{shape}", tmp_path, depth=len(positions) + 2)
    assert res.passed and res.mode == "prove", res.log[-1500:]
    assert "successful proof by k-induction" in res.log


def test_seeded_bug_fails_and_names_the_property(tmp_path):
    positions, size = SHAPES["q4_pruned_output"]
    res = prove(ArbiterHarness(positions, size, seeded_bug="stuck pointer"), "arbiter_bug", tmp_path, depth=8)
    assert not res.passed
    assert res.failed == ["bounded waiting"]
    assert res.trace is not None and res.trace.exists() and res.trace.read_text().startswith("$")


def test_bad_mode_is_a_clear_error(tmp_path):
    from cubenoc.errors import CubenocError
    with pytest.raises(CubenocError, match="mode must be prove or bmc"):
        prove(ArbiterHarness([0, 1], 2), "x", tmp_path, mode="pdr")
