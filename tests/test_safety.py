"""Safety levels (Wu): the local rules, hand-checkable cases, the round bounds, safe => r-node."""
import itertools

import numpy as np
import pytest

from cubenoc.errors import CubenocError
from cubenoc.sim.safety import (MODELS, FaultSet, adjust, compute, decide, dsl_rule, format_address,
                                global_level, initial_levels, parse_address, parse_link,
                                reference, sl_rule)
from cubenoc.sim.safety_opt import r_node_order, r_nodes


def random_faults(rng, n, trials, p_node=0.08, p_link=0.05):
    N = 1 << n
    NF = rng.random((trials, N)) < p_node
    LF = np.zeros((trials, N, n), bool)
    for d in range(n):
        x = (rng.random((trials, N)) < p_link) & ((np.arange(N) >> d & 1) == 0)
        LF[:, :, d] = x | x[:, np.arange(N) ^ (1 << d)]
    return NF, LF


def test_address_notation_is_dimension_0_first():
    assert parse_address("0001", 4) == 8 and format_address(8, 4) == "0001"
    assert parse_link("0000-0001", 4) == (0, 3)
    assert parse_link("1000-1010", 4) == (1, 2)


@pytest.mark.parametrize("bad,msg", [("001", "4 binary digits"), ("00a1", "4 binary digits"),
                                     ("00000", "4 binary digits")])
def test_bad_address(bad, msg):
    with pytest.raises(CubenocError, match=msg):
        parse_address(bad, 4)


def test_bad_links_and_sets():
    with pytest.raises(CubenocError, match="not a hypercube edge"):
        parse_link("0000-0011", 4)
    with pytest.raises(CubenocError, match="not a hypercube edge"):
        parse_link("0000-0000", 4)
    with pytest.raises(CubenocError, match="ADDR-ADDR"):
        parse_link("0000", 4)
    with pytest.raises(CubenocError, match="too many faulty nodes"):
        FaultSet.build(2, range(4))
    with pytest.raises(CubenocError, match="link dimension"):
        FaultSet.build(3, [], [(0, 3)])


def test_decision_process_definition_2():
    ref = reference(4, 1)
    assert decide([3, 3, 3, 3], ref, 4) == 4
    assert decide([0, 1, 2, 3], ref, 4) == 4
    assert decide([0, 0, 4, 4], ref, 4) == 1          # two faulty neighbours -> 1-safe (Lemma 1a)
    assert decide([0, 1, 1, 4], ref, 4) == 2
    assert decide([4, 2, 0, 2], ref, 4) == 4 and decide([0, 1, 2, 2], ref, 4) == 3
    assert reference(5, 2) == (0, 0, 2, 3, 4)
    assert decide([0, 0, 1, 4], reference(4, 2), 4) == 2   # Sec. 3.2, node 0100 of Fig. 2(b)
    assert decide([0, 0, 0, 4], reference(4, 2), 4) == 2   # the case the paper's wording leaves open


def test_sec_2_3_example_node_101():
    """Fig. 1(a): 101 stays 3-safe with neighbour levels (3,3,3) then (3,3,1)."""
    assert sl_rule(None, [3, 3, 3], 3, 1) == 3 and sl_rule(None, [3, 3, 1], 3, 1) == 3
    assert sl_rule(0, [3, 3, 3], 3, 1) == 0


def test_sec_3_3_example_node_0001_rounds():
    """DSL(1) of 0001 in Fig. 2(b): (3,3,3,3) after round 1, (3,3,2,3) after round 2."""
    free = [None] * 4
    assert dsl_rule(free, [3, 3, 3, 0], 4, 1) == (3, 3, 3, 3)
    assert dsl_rule(free, [1, 1, 3, 0], 4, 1) == (3, 3, 2, 3)


def test_sec_3_3_adjustment_example():
    """The 4-round adjustment of node 0001: ADSL (0,3,3,3), partition order 2, 1, 0, 3; GSL 4."""
    ns = [[1, 3, 1, 3], [3, 1, 3, 1], [3, 3, 3, 3], [0, 0, 0, 0]]
    adsl, order = adjust(ns)
    assert adsl == (0, 3, 3, 3) and order == (2, 1, 0, 3)
    assert global_level((3, 3, 2, 3), adsl, 4, 1) == 4


def test_adjust_greedy_is_best_over_all_partitions():
    """The greedy adjustment reaches the highest ADSL any partition order/column choice reaches
    (checked exhaustively on random matrices of levels that the rounds can produce)."""
    rng = np.random.default_rng(5)
    for _ in range(150):
        ns = rng.integers(0, 4, size=(4, 4)).tolist()
        best = set()
        for perm in itertools.permutations(range(4)):
            for qs in itertools.product(*[list(perm[:t]) + [p] for t, p in enumerate(perm)]):
                prev, seq = 4, []
                for p, q in zip(perm, qs):
                    prev = min(prev, ns[p][q])
                    seq.append(prev)
                best.add(tuple(reversed(seq)))
        ours = adjust(ns)[0]
        assert ours in best
        assert all(not all(b >= a for a, b in zip(ours, o)) or o == ours for o in best), (ns, ours)


def test_vectorised_rounds_equal_the_local_rules():
    rng = np.random.default_rng(2)
    n = 4
    NF, LF = random_faults(rng, n, 30)
    for m in MODELS:
        lv = compute(NF, LF, m)
        d = 2 if m.endswith("2") else 1
        for b in range(len(NF)):
            init = initial_levels(NF[b:b + 1], LF[b:b + 1], m)[0]
            cur = init.copy()
            for _ in range(n):
                if m.startswith("SL"):
                    cur = np.array([sl_rule(int(init[v]) if init[v] < d else None,
                                            [int(cur[v ^ 1 << k]) for k in range(n)], n, d) for v in range(16)])
                else:
                    cur = np.array([dsl_rule([int(x) if x < d else None for x in init[v]],
                                             [int(cur[v ^ 1 << k, k]) for k in range(n)], n, d)
                                    for v in range(16)])
            assert (cur == lv.level[b]).all()
            if m.startswith("DSL"):
                for v in range(16):
                    adsl, _ = adjust([[int(x) for x in cur[v ^ 1 << i]] for i in range(n)])
                    assert adsl == tuple(lv.adsl[b, v])
                    assert global_level(tuple(int(x) for x in init[v]), adsl, n, d) == lv.gsl[b, v]


def test_link_fault_initialisation():
    """A single faulty link: SL(1)/DSL(1) treat both ends as faulty; SL(2)/DSL(2) do not."""
    fs = FaultSet.parse(4, "", "0000-0001")
    nf, lf = fs.arrays()
    assert initial_levels(nf[None], lf[None], "SL1")[0, [0, 8]].tolist() == [0, 0]
    assert initial_levels(nf[None], lf[None], "SL2")[0, [0, 8]].tolist() == [0, 0]
    d2 = initial_levels(nf[None], lf[None], "DSL2")[0]
    assert d2[0].tolist() == [0, 0, 0, 3] and d2[8].tolist() == [0, 0, 0, 3]
    lv = compute(nf, lf, "DSL2")
    assert lv.gsl[0, 0] == 0 and lv.safe[0].sum() == 14
    assert r_nodes(nf, lf)[0].sum() == 14        # every node but the two ends is an r-node


def test_blocked_distance_2_node_assigns_1():
    """u = 0000 with faulty 1000 and faulty link 0100-1100: 1100 is unreachable over shortest paths."""
    fs = FaultSet.parse(4, "1000", "0100-1100")
    nf, lf = fs.arrays()
    assert initial_levels(nf[None], lf[None], "SL2")[0, 0] == 1
    assert initial_levels(nf[None], lf[None], "DSL2")[0, 0].tolist() == [3, 3, 1, 1]
    assert not r_nodes(nf, lf)[0, 0]


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7])
def test_rounds_settle_within_the_papers_bounds(n):
    """Lemma 1a: SL(1) settles in n-1 rounds; SL(2) and DSL(1) in n-2; DSL(2) in n-3."""
    rng = np.random.default_rng(n)
    bound = {"SL1": n - 1, "SL2": n - 2, "DSL1": n - 2, "DSL2": n - 3}
    for p_node, p_link in ((0.1, 0.0), (0.0, 0.08), (0.06, 0.04), (0.2, 0.1)):
        NF, LF = random_faults(rng, n, 200 if n <= 5 else 40, p_node, p_link)
        for m in MODELS:
            assert compute(NF, LF, m).rounds.max() <= bound[m], m


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_safe_nodes_are_r_nodes_and_models_are_ordered(n):
    """Every safe node (each model) is an r-node; DSL(d) >= SL(d) and d = 2 >= d = 1 in safe-node sets
    on the same fault sets is NOT guaranteed node by node, so only safe => Opt is asserted strictly,
    and the totals follow the paper's order SL(1) <= DSL(1), SL(2) <= DSL(2) <= Opt."""
    rng = np.random.default_rng(10 + n)
    NF, LF = random_faults(rng, n, 300)
    opt = r_nodes(NF, LF)
    safe = {m: compute(NF, LF, m).safe for m in MODELS}
    for m in MODELS:
        assert not (safe[m] & ~opt).any(), m
    tot = {m: int(safe[m].sum()) for m in MODELS}
    assert tot["SL1"] <= tot["DSL1"] and tot["SL2"] <= tot["DSL2"] <= int(opt.sum())


def test_r_nodes_against_explicit_trees():
    """The DP's r-nodes have an explicit incomplete spanning binomial tree; the others have none."""
    rng = np.random.default_rng(7)
    for n in (3, 4):
        NF, LF = random_faults(rng, n, 40, 0.15, 0.1)
        R = r_nodes(NF, LF)
        for b in range(len(NF)):
            nodes = [v for v in range(1 << n) if NF[b, v]]
            links = [(u, d) for u in range(1 << n) for d in range(n) if LF[b, u, d] and not u >> d & 1]
            fs = FaultSet.build(n, nodes, links)
            for u in range(1 << n):
                tree = r_node_order(fs, u)
                assert (tree is not None) == bool(R[b, u])


def test_r_node_trees_reach_every_non_faulty_node_once_over_shortest_paths():
    rng = np.random.default_rng(11)
    n = 4
    for _ in range(30):
        NF, LF = random_faults(rng, n, 1, 0.15, 0.1)
        nodes = [v for v in range(16) if NF[0, v]]
        links = [(u, d) for u in range(16) for d in range(n) if LF[0, u, d] and not u >> d & 1]
        fs = FaultSet.build(n, nodes, links)
        for u in range(16):
            tree = r_node_order(fs, u)
            if tree is None:
                continue
            reached, stack = {u: 0}, [(u, (1 << n) - 1, 0)]
            while stack:
                v, R, depth = stack.pop()
                for d in tree.get(v, ()):
                    R ^= 1 << d
                    w = v ^ (1 << d)
                    if w in tree or (not NF[0, w] and R == 0):
                        assert not LF[0, v, d] and w not in reached
                        reached[w] = depth + 1
                        if w in tree:
                            stack.append((w, R, depth + 1))
            alive = [v for v in range(16) if not NF[0, v]]
            assert sorted(reached) == alive
            assert all(reached[v] == bin(u ^ v).count("1") for v in alive)
