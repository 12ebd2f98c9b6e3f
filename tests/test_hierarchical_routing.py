"""Hierarchical routing (Dandamudi and Eager): every pair delivered, shortest within the hierarchy (= BFS on the HIN) for BH/BR/CC,
the CCC sweep against BFS, Sec. IV-B balancing, and the deadlock checker with and without VCs."""
import numpy as np
import pytest

from cubenoc.errors import CubenocError
from cubenoc.sim.deadlock import check_deadlock
from cubenoc.sim.routing.hierarchical import BalancedHierarchicalRouting, HierarchicalRouting, LeastUsedSelector
from cubenoc.sim.routing.level2 import Level2Routing
from cubenoc.sim.topology import CompleteGraph, CubeConnectedCycles, Hierarchical, Hypercube, Ring

SHORTEST_L2 = [Hypercube(1), Hypercube(3), Ring(2), Ring(5), Ring(8), CompleteGraph(5), CubeConnectedCycles(2)]


def hop_matrix(routing):
    t = routing.topology
    return np.array([[routing.hops(s, d) for d in t.nodes()] for s in t.nodes()])


@pytest.mark.parametrize("l2", SHORTEST_L2, ids=repr)
@pytest.mark.parametrize("cls", [HierarchicalRouting, BalancedHierarchicalRouting])
def test_routes_are_shortest_in_the_hin(l2, cls):
    """Every message goes cluster -> interface -> level 2 -> interface -> cluster, the only way between
    clusters, so with a shortest level-2 rule the routed length equals the BFS distance."""
    h = Hierarchical(Hypercube(2), l2, replication=2)
    r = cls(h)
    assert np.array_equal(hop_matrix(r), h.distance_matrix())


def test_paths_follow_the_three_phases():
    h = Hierarchical(Hypercube(3), Hypercube(2))
    r = HierarchicalRouting(h)
    src, dst = h.parse_node("10.111"), h.parse_node("01.011")
    path = [h.format_node(v) for v in r.path(src, dst)]
    # e-cube to the interface (highest dimension first), e-cube over the clusters, e-cube down
    assert path == ["10.111", "10.011", "10.001", "10.000", "00.000", "01.000", "01.010", "01.011"]
    assert r.inject(src, dst) == {"dest_node": 0b011, "dest_cluster": 0b01}
    assert r.layout.width == 5


def test_ccc_sweep_against_bfs():
    """The CCC rule delivers every pair; it is shortest on CCC(2) and at most D_c - 2 hops longer than BFS
    on larger ones (mean excess 10.8 % for D_c = 3 and 4)."""
    for dc, worst_extra in ((2, 0), (3, 1), (4, 2)):
        t = CubeConnectedCycles(dc)
        hops, dist = hop_matrix(Level2Routing(t)), t.distance_matrix()
        assert (hops >= dist).all()
        assert (hops - dist).max() == worst_extra
        assert hops.max() <= dc + (dc - 1) + dc // 2      # cube hops + clockwise sweep + return
        if dc > 2:
            assert 1.05 < hops.sum() / dist.sum() < 1.15


def test_ring_ties_split_by_parity():
    r = Level2Routing(Ring(6))
    assert r.path(0, 3) == [0, 1, 2, 3] and r.path(1, 4) == [1, 0, 5, 4]


def test_lane_picks_the_replica():
    h = Hierarchical(Hypercube(2), Ring(4), replication=3)
    r = HierarchicalRouting(h)
    for src in range(4):                       # the four nodes of cluster 0
        hdr = r.inject(src, h.join(1, 0))
        assert hdr["lane"] == src % 3
    hop = r.route(0, r.inject(2, h.join(1, 0)))
    assert hop.port == h.level2_port(0, 0, 2)


def test_balanced_candidates_are_negative_first():
    h = Hierarchical(Hypercube(4), Hypercube(1))
    r = BalancedHierarchicalRouting(h)
    hdr = r.inject(0b0110, 0b1011)               # clear bit 2 before setting bits 3 and 0
    assert [c.port for c in r.candidates(0b0110, hdr)] == [2]
    assert [c.port for c in r.candidates(0b0010, hdr)] == [3, 0]
    out = r.inject(0b1101, h.join(1, 0))         # outbound: every set bit may be cleared
    assert [c.port for c in r.candidates(0b1101, out)] == [3, 2, 0]


def link_loads(routing, pick):
    """Messages on each cluster channel, one message per ordered pair, hops chosen by ``pick``."""
    t = routing.topology
    load = {}
    for s in t.nodes():
        for d in t.nodes():
            if s == d:
                continue
            node, hdr = s, routing.inject(s, d)
            while node != d:
                hop = pick(node, routing.candidates(node, hdr))
                load[(node, hop.port)] = load.get((node, hop.port), 0) + 1
                node, hdr = t.neighbor(node, hop.port)[0], hop.header
    return load


def test_least_used_selection_balances_the_links_into_the_interface():
    """Sec. IV-B: e-cube sends every outbound message of an odd source over dimension 0 into the interface
    node; the least-used choice spreads them over all d links (the paper's random routing does too)."""
    h = Hierarchical(Hypercube(3), Hypercube(2))
    ecube = link_loads(HierarchicalRouting(h), lambda node, hops: hops[0])
    sel = LeastUsedSelector()
    balanced = link_loads(BalancedHierarchicalRouting(h), sel.select)
    into_interface = [(1 << p, p) for p in range(3)]   # (node 2^p of cluster 0, port p) -> node 0
    e = [ecube[c] for c in into_interface]
    b = [balanced[c] for c in into_interface]
    assert sum(ecube.values()) == sum(balanced.values())   # both minimal: the same number of hops
    assert max(e) > 1.5 * max(b)
    assert max(b) - min(b) <= 0.25 * max(b)


# ---- deadlock -----------------------------------------------------------------------------------------
DEADLOCK_CASES = [
    (Hypercube(3), True, True), (CompleteGraph(5), True, True), (Ring(4), True, True),
    (Ring(8), False, True), (Ring(5), False, True), (CubeConnectedCycles(2), False, True),
    (CubeConnectedCycles(3), False, True),
]


@pytest.mark.parametrize("l2,free_without,free_with", DEADLOCK_CASES, ids=lambda x: repr(x))
def test_level2_rules_deadlock(l2, free_without, free_with):
    assert check_deadlock(Level2Routing(l2, use_vcs=False)).deadlock_free == free_without
    rep = check_deadlock(Level2Routing(l2))
    assert rep.deadlock_free == free_with, rep.describe()


@pytest.mark.parametrize("l2,free_without,free_with", DEADLOCK_CASES, ids=lambda x: repr(x))
@pytest.mark.parametrize("cls", [HierarchicalRouting, BalancedHierarchicalRouting])
def test_hin_routing_deadlock(l2, free_without, free_with, cls):
    """The cluster phases add no cycle: the HIN is cyclic exactly when its level-2 rule is, and the
    level-2 VCs (BR: 2, CCC: 3) make it acyclic."""
    h = Hierarchical(Hypercube(2), l2, replication=1 if l2.num_nodes > 8 else 2)
    without = check_deadlock(cls(h, use_vcs=False))
    assert without.deadlock_free == free_without
    if not free_without:   # the cycle lies on level-2 ports
        assert all(h.is_level2_port(node, port) for node, port, _vc in without.cycle)
    rep = check_deadlock(cls(h))
    assert rep.deadlock_free == free_with and rep.num_vcs == {Ring: 2, CubeConnectedCycles: 3}.get(type(l2), 1)


def test_bad_routing_parameters():
    with pytest.raises(CubenocError, match="needs a Hierarchical network"):
        HierarchicalRouting(Hypercube(3))
    with pytest.raises(CubenocError, match="BH or CC clusters"):
        HierarchicalRouting(Hierarchical(Ring(4), Ring(4)))
    with pytest.raises(CubenocError, match="node must be in 0..15"):
        HierarchicalRouting(Hierarchical(Hypercube(2), Ring(4))).path(0, 16)
