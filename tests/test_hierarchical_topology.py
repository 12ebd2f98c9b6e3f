"""Hierarchical networks (Dandamudi and Eager): wiring, link counts against eqs (1), (6), (9), (11), (13), degrees, addresses, errors."""
import networkx as nx
import pytest

from cubenoc.errors import CubenocError
from cubenoc.sim.topology import CompleteGraph, CubeConnectedCycles, Hierarchical, Hypercube, Ring
from cubenoc.sim.topology.hierarchical import hierarchical_from_spec, network_from_spec
from cubenoc.sim.analysis.graph import to_networkx


@pytest.mark.parametrize("topo", [Ring(2), Ring(3), Ring(8), CompleteGraph(2), CompleteGraph(7),
                                  CubeConnectedCycles(2), CubeConnectedCycles(3), CubeConnectedCycles(4)], ids=repr)
def test_level2_families_wiring(topo):
    topo.validate()
    g = to_networkx(topo)
    assert nx.is_connected(g)
    n = topo.n
    expected = {Ring: n, CompleteGraph: n * (n - 1) // 2, CubeConnectedCycles: 3 * n * 2 ** (n - 1)}[type(topo)]
    assert topo.num_links == expected
    if isinstance(topo, CubeConnectedCycles):
        assert topo.num_nodes == n * 2 ** n
        # each cycle is a ring of n nodes, each cube link flips bit i of w at position i
        for v in topo.nodes():
            w, i = topo.split(v)
            assert topo.split(topo.neighbor(v, 0)[0]) == (w ^ (1 << i), i)


def paper_link_cost(code, D, d, dc=None):
    """Eqs (1), (6), (9), (11), (13) of Dandamudi and Eager."""
    return {"BH": D * 2 ** (D - 1),
            "BH/BH": d * 2 ** (D - 1) + (D - d) * 2 ** (D - d - 1),
            "BH/BR": 2 ** (D - d) * (d * 2 ** (d - 1) + 1),
            "BH/CC": d * 2 ** (D - 1) + 2 ** (D - d - 1) * (2 ** (D - d) - 1),
            "BH/CCC": None if dc is None else d * 2 ** (D - 1) + 3 * dc * 2 ** (dc - 1)}[code]


HINS = [(d, fam, k) for d in (1, 2, 3) for fam, k in (("bh", 1), ("bh", 3), ("br", 2), ("br", 5), ("cc", 2),
                                                      ("cc", 6), ("ccc", 2), ("ccc", 3))]


@pytest.mark.parametrize("d,fam,size", HINS)
@pytest.mark.parametrize("r", [1, 2])
def test_hin_wiring_and_link_cost(d, fam, size, r):
    topo = network_from_spec(f"{fam}:{size}")
    h = Hierarchical(Hypercube(d), topo, replication=r)
    h.validate()
    assert nx.is_connected(to_networkx(h))
    k, n = topo.num_nodes, 2 ** d
    assert h.num_nodes == n * k
    N = n * k
    D = N.bit_length() - 1
    code = "BH/" + {"bh": "BH", "br": "BR", "cc": "CC", "ccc": "CCC"}[fam]
    level2_links = topo.num_links
    assert h.num_links == k * d * 2 ** (d - 1) + r * level2_links
    if N & (N - 1) == 0 and r == 1:   # the paper's formulas assume N = 2^D
        assert h.num_links == paper_link_cost(code, D, d, size if fam == "ccc" else None)
    # heterogeneous ports: only interface nodes (node 0 of a cluster) carry level-2 ports
    for v in h.nodes():
        c, x = h.split(v)
        assert h.num_ports(v) == d + (r * topo.num_ports(c) if x == 0 else 0)
        for p in range(h.num_ports(v)):
            u, q = h.neighbor(v, p)
            if p < d:
                assert h.split(u) == (c, x ^ (1 << p)) and q == p
            else:
                assert h.is_interface(u) and h.is_level2_port(u, q)
                assert (p - d) % r == (q - d) % r          # replica k joins replica k
                assert topo.neighbor(c, (p - d) // r) == (h.split(u)[0], (q - d) // r)


def test_paper_degree_example():
    """Sec. II-C: BH/BH with D = 10, d = 4 has 960 nodes of degree 4 and 64 of degree 10."""
    h = Hierarchical(Hypercube(4), Hypercube(6))
    degrees = [h.num_ports(v) for v in h.nodes()]
    assert degrees.count(4) == 960 and degrees.count(10) == 64


def test_ncube_board_wires():
    """Sec. II-C: with d = 6, D = 10 the wires leaving one 64-node board drop from 512 (BH) to 8 (BH/BH)
    (two half-duplex wires per link)."""
    def wires_leaving_cluster0(topo, n):
        return 2 * sum(1 for u, _, v, _ in topo.links() if (u < n) != (v < n))
    assert wires_leaving_cluster0(Hypercube(10), 64) == 512
    assert wires_leaving_cluster0(Hierarchical(Hypercube(6), Hypercube(4)), 64) == 8


def test_bh_bh_numbering_is_the_d_bit_address():
    """Cluster-major numbering: BH/BH node c*2^d + x is the paper's D-bit address (cluster = high bits),
    and its cluster links are exactly the low-dimension links of BH(D)."""
    h, q = Hierarchical(Hypercube(3), Hypercube(2)), Hypercube(5)
    for v in h.nodes():
        for p in range(3):
            assert h.neighbor(v, p) == q.neighbor(v, p)
        if h.is_interface(v):
            for l2 in range(2):
                assert h.neighbor(v, 3 + l2)[0] == q.neighbor(v, 3 + l2)[0]


def test_addresses_round_trip():
    h = Hierarchical(Hypercube(3), CubeConnectedCycles(3), replication=2)
    assert h.format_node(h.join(0b101 * 3 + 2, 0b011)) == "101:2.011"
    for v in h.nodes():
        assert h.parse_node(h.format_node(v)) == v
    assert h.parse_node("17") == 17
    assert h.spec == "BH(3)/CCC(3)x2"
    assert h.port_name(0, 3) == "l2.cube.0" and h.port_name(0, 6) == "l2.cw.1" and h.port_name(0, 9) == "local"
    with pytest.raises(CubenocError, match="bad HIN address"):
        h.parse_node("111:9.000")


def test_spec_builder():
    h = hierarchical_from_spec("bh:4", "ccc", num_nodes=1024)
    assert isinstance(h.level2, CubeConnectedCycles) and h.level2.n == 4 and h.num_clusters == 64
    assert hierarchical_from_spec("bh:3", "br:8").num_nodes == 64
    assert hierarchical_from_spec("bh:3", "bh", num_nodes=512).level2.n == 6


@pytest.mark.parametrize("call,msg", [
    (lambda: Ring(1), "ring size n must be in 2"),
    (lambda: CubeConnectedCycles(1), "CCC dimension D_c must be in 2"),
    (lambda: CompleteGraph(0), "complete-graph size n must be in 2"),
    (lambda: Hierarchical(Hypercube(2), Ring(4), replication=0), "replication must be in 1"),
    (lambda: Hierarchical(Hypercube(10), Hypercube(8)), "at most 65536 nodes"),
    (lambda: Hierarchical(Hypercube(2), "ring"), "level2 must be a flat network"),
    (lambda: hierarchical_from_spec("bh:3", "ccc", num_nodes=8 * 10), "no CCC has 10 nodes"),
    (lambda: hierarchical_from_spec("bh:3", "torus"), "level2 must be one of bh, br, cc, ccc"),
    (lambda: hierarchical_from_spec("bh:3", "bh", num_nodes=100), "multiple of the cluster size 8"),
    (lambda: hierarchical_from_spec("bh:3", "bh", num_nodes=8 * 6), "power-of-two node count"),
    (lambda: hierarchical_from_spec("bh:3", "br:4", num_nodes=64), "needs 8"),
])
def test_bad_parameters(call, msg):
    with pytest.raises(CubenocError, match=msg):
        call()
