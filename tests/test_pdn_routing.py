"""Parhami and Rakov Sec. 3: Algorithm 1/2 routing, bipartite and dimension-order routing, against BFS and the
deadlock checker (Theorem 2), with the VC assignments that make the cyclic cases acyclic."""
import pytest

from cubenoc.errors import CubenocError
from cubenoc.sim.deadlock import check_deadlock
from cubenoc.sim.routing.pdn import (AdaptivePDNRouting, BipartitePDNRouting, DimensionOrderPDNRouting,
                                     ObliviousPDNRouting, first_chord_table, oblivious_port_table)
from cubenoc.sim.topology.pdn import BipartitePDN, PerfectDifferenceNetwork, ProductPDN, registry_set, zero_free


def _all_pairs(t):
    return [(s, d) for s in t.nodes() for d in t.nodes() if s != d]


@pytest.mark.parametrize("delta", [1, 2, 3, 4, 5, 7])
def test_algorithm1_is_shortest_and_deadlock_free(delta):
    t = PerfectDifferenceNetwork(delta)
    r = ObliviousPDNRouting(t)
    dist = t.distance_matrix()
    assert all(r.hops(s, d) == dist[s, d] for s, d in _all_pairs(t))
    assert r.layout.names() == ["dest"] and len(r.rom()) == t.n - 1 and r.num_vcs == 1
    rep = check_deadlock(r)
    assert rep.deadlock_free, rep.describe(t)


def test_first_chord_table_is_the_papers_table():
    s = (0, 1, 3, 9)
    tab = first_chord_table(s)
    assert len(tab) == 13 and tab[0] is None
    for d in range(1, 13):
        i = tab[d]
        assert any((s[i] - sj) % 13 == d for sj in s if sj != s[i])   # d = s_i - s_j
    t = PerfectDifferenceNetwork(s)
    ports = oblivious_port_table(t)
    for d in range(1, 13):          # the ROM entry is the forward chord s_i, or the backward chord when s_i = 0
        i = tab[d]
        want = (d % 13) if i == 0 else s[i]
        assert t.port_offsets[ports[d]] == (want if i else d)


def test_algorithm1_per_hop_decision_is_stateless():
    t = PerfectDifferenceNetwork(3)
    r = ObliviousPDNRouting(t)
    # 0 -> 7: 7 = 3 - 9 (mod 13): forward +3 to node 3, then backward -9 to node 7
    assert r.path(0, 7) == [0, 3, 7]
    hop = r.route(0, r.inject(0, 7))
    assert t.port_name(0, hop.port) == "fwd3" and hop.header == {"dest": 7}
    assert t.port_name(3, r.route(3, hop.header).port) == "bwd9"
    assert r.route(7, {"dest": 7}).port == t.local_port(7)


def test_theorem1_every_channel_carries_delta_paths():
    from cubenoc.sim.analysis.pdn_measure import link_loads
    for d in (2, 3, 4, 5):
        assert link_loads(ObliviousPDNRouting(PerfectDifferenceNetwork(d))) == (d, d)


def test_zero_free_algorithm1_and_degenerate_vcs():
    for d in (2, 3, 4):
        z = PerfectDifferenceNetwork(zero_free(registry_set(d)))
        r = ObliviousPDNRouting(z)
        dist = z.distance_matrix()
        assert all(r.hops(s, x) == dist[s, x] for s, x in _all_pairs(z))
        assert r.num_vcs == 1 and check_deadlock(r).deadlock_free
    # canonical 0-free set of order 7 has a degenerate chord (4 + 53 = 57): one VC is cyclic,
    # the second hop on VC 1 is acyclic
    z = PerfectDifferenceNetwork(zero_free(registry_set(7)))
    assert not all(z.port_connected)
    one = ObliviousPDNRouting(z, hop_vcs=False)
    rep = check_deadlock(one)
    assert not rep.deadlock_free
    two = ObliviousPDNRouting(z)
    assert two.num_vcs == 2 and two.layout.names() == ["dest", "hop"]
    assert check_deadlock(two).deadlock_free
    dist = z.distance_matrix()
    assert all(two.hops(0, x) == dist[0, x] for x in range(1, z.n))


@pytest.mark.parametrize("delta", [2, 3, 4])
def test_algorithm2_adaptive(delta):
    t = PerfectDifferenceNetwork(delta)
    a = AdaptivePDNRouting(t)
    dist = t.distance_matrix()
    for s, d in _all_pairs(t):
        cands = a.candidates(s, a.inject(s, d))
        if dist[s, d] == 1:
            assert len(cands) == 1
        else:   # forward-first then backward-first: two node-disjoint shortest paths
            assert len(cands) == 2
            fwd, bwd = cands
            assert fwd.port % 2 == 0 and bwd.port % 2 == 1
            mids = {t.neighbor(s, h.port)[0] for h in cands}
            assert len(mids) == 2 and all(dist[m, d] == 1 for m in mids)
        assert a.hops(s, d) == dist[s, d]
    back = AdaptivePDNRouting(t, prefer="backward")
    assert all(back.route(s, back.inject(s, d)).port % 2 == 1 for s, d in _all_pairs(t) if dist[s, d] == 2)
    # deadlock: one VC is cyclic, VC = hops taken is acyclic
    assert not check_deadlock(AdaptivePDNRouting(t, hop_vcs=False)).deadlock_free
    rep = check_deadlock(a)
    assert a.num_vcs == 2 and rep.deadlock_free, rep.describe(t)


def test_algorithm2_routes_around_faults():
    t = PerfectDifferenceNetwork(3)
    # 0 -> 7 = 3 - 9: forward-first via 3, backward-first via 4 (0 - 9)
    a = AdaptivePDNRouting(t, faulty_nodes=[3])
    assert a.path(0, 7) == [0, 4, 7]
    a = AdaptivePDNRouting(t, faulty_links=[(0, 3), (0, 4)])
    p = a.path(0, 7)      # both Algorithm-2 hops are gone: detour -3, -3 (7 = -6 mod 13), still 2 hops
    assert p == [0, 10, 7] and a.dist[0][7] == 2
    for u, v in zip(p, p[1:]):
        assert {u, v} not in ({0, 3}, {0, 4})
    # direct link faulty: a two-hop detour (a basic PDN's diameter may become 3 elsewhere)
    a = AdaptivePDNRouting(t, faulty_links=[(0, 1)])
    assert len(a.path(0, 1)) - 1 == 2
    # any 2*delta-1 node faults: routes stay within 4 hops (Theorem 4) and the hop VCs stay acyclic
    faults = [1, 3, 9, 10, 12]
    a = AdaptivePDNRouting(t, faulty_nodes=faults)
    assert a.num_vcs <= 4
    healthy = [v for v in t.nodes() if v not in faults]
    for s in healthy:
        for d in healthy:
            if s != d:
                assert a.hops(s, d) == a.dist[s][d] <= 4
    assert check_deadlock(a, [(s, d) for s in healthy for d in healthy if s != d]).deadlock_free
    with pytest.raises(CubenocError, match="faulty"):
        a.inject(1, 0)
    with pytest.raises(CubenocError, match="not a link"):
        AdaptivePDNRouting(t, faulty_links=[(0, 2)])


def test_bipartite_routing():
    b = BipartitePDN(3)
    r = BipartitePDNRouting(b)
    pairs = r.pairs()
    assert all(r.hops(s, d) == 2 for s, d in pairs)
    assert r.path(0, 7) == [0, 13 + 3, 7]      # host 0 -> switch 3' -> host 7 (7 = 3 - 9)
    assert check_deadlock(r, pairs).deadlock_free
    with pytest.raises(CubenocError):
        r.inject(0, 13)


@pytest.mark.parametrize("orders", [[2, 2], [1, 3], [1, 2, 1]])
def test_dimension_order_routing_theorem2(orders):
    t = ProductPDN(orders)
    r = DimensionOrderPDNRouting(t)
    dist = t.distances_from(0)
    assert all(r.hops(0, d) == dist[d] for d in range(1, t.num_nodes))
    assert all(r.hops(s, 0) == dist[s] for s in range(1, t.num_nodes))   # vertex-transitive
    rep = check_deadlock(r)
    assert rep.deadlock_free, rep.describe(t)       # Theorem 2, with one VC
    # dimension 0 is corrected first
    path = r.path(0, t.num_nodes - 1)
    first_change = [i for i in range(t.q) if t.coords(path[1])[i] != 0]
    assert first_change == [0]
