"""The Python side of the safety-level broadcast fork (sim/broadcast/safety.py): levels given at run time
give the same decisions as computed ones, bad levels are refused, and the worked example of
docs/safety_hw.md (tree text, step counts) is what the code computes."""
from pathlib import Path

import numpy as np
import pytest

from cubenoc.errors import CubenocError
from cubenoc.sim.broadcast.safety import SafetyBroadcast, check_broadcast, fork, levels_of, subcube, tree_lines
from cubenoc.sim.safety import MODELS, FaultSet, compute, parse_address

EXAMPLE = FaultSet.parse(4, "0110,1011", "0000-1000")


@pytest.mark.parametrize("model", MODELS)
def test_given_levels_equal_computed(model):
    sets = [EXAMPLE, FaultSet.parse(4, "0011", "1000-1100,0101-0111")]
    batch = compute(np.stack([s.arrays()[0] for s in sets]), np.stack([s.arrays()[1] for s in sets]), model)
    for b, fs in enumerate(sets):
        a, g = SafetyBroadcast(fs, model), SafetyBroadcast(fs, model, levels_of(batch, b))
        for v in range(16):
            assert a.view(v) == g.view(v)
            if v not in fs.nodes and (a.safe(v) or a.handoff_neighbour(v) is not None):
                assert a.start(v) == fork(g.view(v), None, True)[1]


def test_levels_of_another_model_are_refused():
    nf, lf = EXAMPLE.arrays()
    with pytest.raises(CubenocError, match="settled DSL1 levels"):
        SafetyBroadcast(EXAMPLE, "DSL1", compute(nf, lf, "SL1"))


def test_worked_example_of_the_docs():
    alg = SafetyBroadcast(EXAMPLE, "SL1")
    lines = tree_lines(alg, 15)
    assert lines[0] == "1111 source, level 4, cs 0 2 3 1"
    assert len(lines) == 1 + 13                      # 13 non-faulty receivers
    ok, trace, _ = check_broadcast(alg, 15)
    assert ok and trace.steps == 4 and trace.messages == 13
    src = parse_address("0000", 4)
    lines = tree_lines(alg, src)
    assert "hand-over (back along 3)" in lines[1] and lines[-1].endswith("0000  no copy")
    ok, trace, _ = check_broadcast(alg, src)
    assert ok and trace.steps == 5 and trace.copies[src] == 1
    assert subcube(parse_address("1101", 4), 0b1010, 4) == "1*0*"
    text = (Path(__file__).resolve().parents[1] / "docs" / "safety_hw.md").read_text()
    assert "\n".join(tree_lines(alg, 15)) in text and "\n".join(tree_lines(alg, src)) in text
