"""Wu, directed safety levels: the exact r-level, Lemmas 1a and 3a, and the round bounds, each against
an independent computation at a small size."""
import itertools

from cubenoc.cli import main
from cubenoc.sim.analysis import safety_claims as C
from cubenoc.sim.safety import FaultSet
from cubenoc.sim.safety_opt import r_levels, r_node_order


def _r_level_by_search(faults: FaultSet, u: int) -> int:
    """Independent: the recursive tree search of r_node_order over every subcube through u."""
    n = faults.n
    for k in range(1, n + 1):
        for dims in itertools.combinations(range(n), k):
            if r_node_order(faults, u, sum(1 << d for d in dims)) is None:
                return k - 1
    return n


def test_r_level_matches_the_tree_search_and_bounds_the_safety_level():
    fs = FaultSet.build(4, nodes=[0b0011, 0b0101, 0b1110], links=[(0b0000, 3)])
    nf, lf = fs.arrays()
    rl = r_levels(nf, lf)[0]
    for u in range(16):
        if u not in fs.nodes:
            assert rl[u] == _r_level_by_search(fs, u)
    assert rl[0b0011] == 0
    rows = C.r_level_check(5, faults=(2, 5), trials=10)
    assert all(r["sl_le_r_level"] and r["gsl_safe_are_r_nodes"] for r in rows)


def test_lemma_3a_at_most_three_distinct_levels():
    rows = C.lemma_3a(5)
    assert [r["sequences"] for r in rows] == [2 * 10, 2 * 35, 2 * 126]      # C(2n-1, n) sequences, d = 1 and 2
    assert all(r["most_distinct"] <= 3 for r in rows)
    st = C.settled_distinct(5, trials=5)
    assert all(v <= 3 for v in st["most_distinct"].values())


def test_lemma_1a_and_round_bounds():
    assert C.lemma_1a(5, faults=(2, 4), trials=10)["holds"]
    for r in C.complexity(ns=(5,), trials=10):
        assert r["worst_rounds"] <= r["paper_bound"]


def test_cli_safety_claims_is_one_mode(capsys):
    assert main(["analyze", "safety", "--claims", "--fault-counts", "3"]) == 2
    assert capsys.readouterr().err.startswith("cubenoc: error:")


def test_safe_nodes_capture_the_r_nodes_and_a_safe_neighbour_exists():
    """Wu's safety-level paper as cited: safe nodes are r-nodes and capture over 99 % of them (n < 10,
    fewer than n node faults); an unsafe node has a safe neighbour while fewer than n nodes are faulty,
    here over every fault set of the 3- and 4-cubes, checked by brute force beside the claim's function."""
    rows = C.r_node_capture(ns=(4, 6), trials=20)
    assert all(r["verdict"] == "holds" and r["captured"] > 0.99 for r in rows)
    from cubenoc.sim.safety import compute
    import numpy as np
    for n in (3, 4):
        N = 1 << n
        for f in range(n):
            for faulty in itertools.combinations(range(N), f):
                nf = np.zeros((1, N), bool)
                nf[0, list(faulty)] = True
                sl = compute(nf, np.zeros((1, N, n), bool), "SL1").gsl[0]
                for u in range(N):
                    if u not in faulty and sl[u] < n:
                        assert any(sl[u ^ 1 << d] == n for d in range(n)), (n, faulty, u)
    assert all(r["verdict"] == "holds" for r in C.safe_neighbour(exhaustive=(3, 4), sampled=(6,), trials=50))
