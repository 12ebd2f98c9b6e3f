"""Safety-level broadcast (Wu Sec. 2.2): exactly one copy per non-faulty node over shortest paths."""
import random

import pytest

from cubenoc.errors import CubenocError
from cubenoc.sim.analysis.safety import FIGURES
from cubenoc.sim.broadcast.safety import SafetyBroadcast, check_broadcast
from cubenoc.sim.safety import MODELS, FaultSet, parse_address


def random_set(rng, n, nodes, links):
    N = 1 << n
    fn = rng.sample(range(N), nodes)
    fl = [(rng.randrange(N), rng.randrange(n)) for _ in range(links)]
    return FaultSet.build(n, fn, fl)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("n", [4, 5])
def test_every_safe_source_and_every_handoff(model, n):
    rng = random.Random(100 * n + MODELS.index(model))
    checked = 0
    for _ in range(12 if n == 4 else 6):
        f = rng.randint(1, n + 1)
        k = rng.randint(0, f)
        fs = random_set(rng, n, k, f - k)
        alg = SafetyBroadcast(fs, model)
        for src in range(1 << n):
            if src in fs.nodes or (not alg.safe(src) and alg.handoff_neighbour(src) is None):
                continue
            ok, trace, msg = check_broadcast(alg, src)
            assert ok, (fs.describe(), src, msg)
            checked += 1
    assert checked > 50


def test_figure_1_tree_from_111():
    """Fig. 1: from 111 the subcubes 0** and 10* go to 011 and 101; the faulty 110 gets nothing."""
    fs = FIGURES["1"]
    alg = SafetyBroadcast(fs, "SL1")
    hops = alg.start(parse_address("111", 3))
    assert [(h.port, h.header["label"]) for h in hops] == [(0, 0b110), (1, 0b100)]
    assert check_broadcast(alg, parse_address("111", 3))[0]


def test_figure_2b_dsl2_safe_sources():
    alg = SafetyBroadcast(FIGURES["2b"], "DSL2")
    safe = [v for v in range(16) if alg.safe(v)]
    assert len(safe) == 7
    for src in range(16):
        if src not in FIGURES["2b"].nodes:
            assert check_broadcast(alg, src)[0]


def test_unsafe_source_hands_off():
    fs = FIGURES["2b"]
    alg = SafetyBroadcast(fs, "DSL2")
    src = parse_address("0010", 4)          # GSL 1 under DSL(2)
    assert not alg.safe(src)
    (hop,) = alg.start(src)
    assert hop.header["handoff"] == 1
    ok, trace, _ = check_broadcast(alg, src)
    assert ok and trace.copies[src] == 1


def test_distance_2_swap_is_needed():
    """Without the last-two swap the d = 2 broadcast loses a node (docs/papers/safety.md)."""
    fs = FaultSet.parse(5, "", "01000-01100,11100-11110,00110-01110,01001-01101,11101-11111,00011-10011,10111-11111")
    for model in ("SL2", "DSL2"):
        alg = SafetyBroadcast(fs, model)
        src = 19
        assert alg.safe(src) and check_broadcast(alg, src)[0]


def test_faulty_source_is_an_error():
    alg = SafetyBroadcast(FIGURES["2a"], "SL1")
    with pytest.raises(CubenocError, match="faulty"):
        alg.start(0)
