"""Perfect difference networks (Parhami and Rakov): perfect difference sets, the registry, and the PDN topologies (basic, 0-free, bipartite, products)."""
import itertools

import pytest

from cubenoc.errors import CubenocError
from cubenoc.sim.topology import BipartitePDN, PerfectDifferenceNetwork, ProductPDN
from cubenoc.sim.topology.pdn import (canonical_form, check_pds, is_pds, normal_form, parse_pds, pds_registry,
                                      prime_power, registry_set, singer_set, zero_free)
from cubenoc.sim.analysis.graph import to_networkx


def _differences(s, n):
    return sorted((a - b) % n for a in s for b in s if a != b)


def test_registry_has_a_normal_form_pds_for_every_prime_power_up_to_16():
    reg = pds_registry(16)
    assert sorted(reg) == [2, 3, 4, 5, 7, 8, 9, 11, 13, 16]
    for d, s in reg.items():
        n = d * d + d + 1
        assert len(s) == d + 1 and s[:2] == (0, 1) and list(s) == sorted(s)
        assert _differences(s, n) == list(range(1, n))          # Definition 1, independently of check_pds


def test_registry_reproduces_the_papers_sets():
    assert registry_set(2) == (0, 1, 3)
    assert registry_set(3) == (0, 1, 3, 9)
    # the 133-node set of Sec. 5 is exactly the canonical (lexicographically smallest) Singer set
    assert canonical_form(singer_set(11)) == (0, 1, 3, 12, 20, 34, 38, 81, 88, 94, 104, 109)


@pytest.mark.parametrize("q", [2, 3, 4, 5, 7, 8, 9])
def test_singer_sets_are_pds(q):
    s = singer_set(q)
    assert len(s) == q + 1 and is_pds(s)


def test_non_pds_is_a_clear_error():
    with pytest.raises(CubenocError, match=r"difference 12 occurs twice .* never occurring: \[3, 10\]"):
        check_pds((0, 1, 2, 9))
    with pytest.raises(CubenocError, match="residues in 0..12"):
        check_pds((0, 1, 3, 13))
    with pytest.raises(CubenocError, match="repeated"):
        check_pds((0, 1, 1, 9))
    with pytest.raises(CubenocError, match="at least 2 elements"):
        check_pds((0,))
    with pytest.raises(CubenocError, match="comma-separated"):
        parse_pds("0,1,x")
    with pytest.raises(CubenocError, match="order 6 is known"):
        registry_set(6)
    with pytest.raises(CubenocError):
        PerfectDifferenceNetwork((0, 1, 4))


def test_normal_form_and_prime_powers():
    assert normal_form((1, 2, 4)) == (0, 1, 3)
    assert normal_form((0, 4, 5, 7)) == (0, 1, 3, 9)          # {0,1,3,9} + 4 mod 13
    assert prime_power(16) == (2, 4) and prime_power(27) == (3, 3) and prime_power(12) is None


def test_no_order_4_pds_contains_0_1_3_9():
    # Sec. 2: "there is no PDS of order 4 that includes all four of its elements"
    assert not any(is_pds((0, 1, 3, 9, e)) for e in range(21) if e not in (0, 1, 3, 9))


@pytest.mark.parametrize("delta", [1, 2, 3, 4, 5, 7])
def test_basic_pdn_ports_and_metrics(delta):
    t = PerfectDifferenceNetwork(delta)
    t.validate()
    n = delta * delta + delta + 1
    assert t.num_nodes == n and t.degree == 2 * delta and all(t.port_connected)
    assert t.num_links == delta * n                             # Table 2
    s = t.pds
    assert [t.neighbor(0, p)[0] for p in range(2 * delta)] == [x for e in s[1:] for x in (e % n, (-e) % n)]
    assert t.port_name(0, 0) == "fwd1" and t.port_name(0, 1) == "bwd1"
    assert t.diameter() == (2 if delta > 1 else 1)
    # "any PDN is obviously Hamiltonian" / chordal ring: port 0 is the ring
    assert {t.neighbor(v, 0)[0] for v in t.nodes()} == set(t.nodes())


def test_zero_free_pdn_of_0_1_3_is_K7():
    # Fig. 5: {0,1,3} -> {1,2,4}, which turns into the complete graph K7
    z = PerfectDifferenceNetwork(zero_free((0, 1, 3)))
    assert z.pds == (1, 2, 4) and z.zero_free
    assert z.connected_degree == 6 and z.num_links == 21 and z.diameter() == 1


def test_degenerate_chords_are_left_unconnected():
    # {3,4,6} mod 7: +3 == -4 and +4 == -3, so ports fwd4/bwd4 would double the links to 3 and 4
    z = PerfectDifferenceNetwork((3, 4, 6))
    z.validate()
    assert z.num_ports(0) == 6 and z.port_connected == (True, True, False, False, True, True)
    assert z.neighbor(0, 2) is None and z.neighbor(0, 3) is None
    far = [z.neighbor(0, p)[0] for p in range(6) if z.port_connected[p]]
    assert len(far) == len(set(far)) == 4                        # no two ports to one neighbour
    assert z.num_links == 14
    # the order-1 0-free set {1,2} mod 3 is degenerate too: +2 == -1, -2 == +1
    w = PerfectDifferenceNetwork((1, 2))
    assert w.port_connected == (True, True, False, False) and w.num_links == 3


def test_basic_pdns_never_have_degenerate_chords():
    for d, s in pds_registry(16).items():
        assert all(PerfectDifferenceNetwork(s).port_connected), d


def test_bipartite_pdn_matches_fig8():
    b = BipartitePDN((0, 1, 3))
    b.validate()
    assert b.num_nodes == 14 and b.degree == 3 and b.num_links == 21   # (delta+1) n
    assert b.format_node(b.parse_node("2'")) == "2'"
    import networkx as nx
    g = nx.Graph(to_networkx(b))
    paths = sorted(tuple(b.format_node(v) for v in p) for p in nx.all_shortest_paths(g, 0, b.parse_node("2'")))
    assert paths == [("0", "0'", "6", "2'"), ("0", "1'", "1", "2'"), ("0", "3'", "2", "2'")]   # Sec. 5 example
    hosts = range(7)
    assert all(nx.shortest_path_length(g, x, y) == 2 for x, y in itertools.permutations(hosts, 2))
    assert nx.diameter(g) == 3
    with pytest.raises(CubenocError):
        b.parse_node("9'")


def test_product_pdn():
    p = ProductPDN([2, 3])                                      # H_1 = {0,1,3}, H_0 = {0,1,3,9}
    p.validate()
    assert p.num_nodes == 91 and p.degree == 4 + 6 and p.diameter() == 4
    assert p.format_node(p.parse_node("6,12")) == "6,12" and p.coords(p.parse_node("6,12")) == [12, 6]
    assert p.port_name(0, 0) == "d0_fwd1" and p.port_name(0, 6) == "d1_fwd1"
    sq = ProductPDN([2, 2])
    assert sq.num_nodes == 49 and sq.degree == 8 and sq.diameter() == 4   # n^q, 2q delta, 2q
    with pytest.raises(CubenocError):
        ProductPDN([])
    with pytest.raises(CubenocError, match="x_\\(q-1\\)"):
        sq.parse_node("1,a")
