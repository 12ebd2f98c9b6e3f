"""Q_n and Q(n, k): wiring, Algorithm A / C against BFS (Theorem 1), and deadlock freedom."""
import networkx as nx
import pytest

from cubenoc.errors import CubenocError
from cubenoc.sim.deadlock import check_deadlock
from cubenoc.sim.routing.hypercube import EcubeRouting, inject_tag, route_ecube_skip
from cubenoc.sim.topology import EnhancedHypercube, Hypercube
from cubenoc.sim.analysis.graph import to_networkx

CASES = [Hypercube(n) for n in range(1, 7)] + [EnhancedHypercube(n, k) for n in range(2, 8) for k in range(n - 1)]


@pytest.mark.parametrize("topo", CASES, ids=repr)
def test_wiring_is_consistent(topo):
    topo.validate()
    n = topo.n
    extra = isinstance(topo, EnhancedHypercube)
    assert topo.num_nodes == 2 ** n
    assert topo.num_links == n * 2 ** (n - 1) + (2 ** (n - 1) if extra else 0)
    g = to_networkx(topo)
    assert g.number_of_edges() == topo.num_links and nx.is_connected(g)


@pytest.mark.parametrize("topo", CASES, ids=repr)
def test_routing_follows_shortest_paths(topo):
    """Theorem 1: Algorithm C always follows a shortest path (Algorithm A trivially)."""
    r = EcubeRouting(topo)
    for s in topo.nodes():
        dist = topo.distances_from(s)
        for d in topo.nodes():
            assert r.hops(s, d) == dist[d]


def test_diameter_theorem_2():
    for n in range(2, 9):
        for k in range(n - 1):
            assert EnhancedHypercube(n, k).diameter() == k + -(-(n - k) // 2)


def test_paper_example_tag_13():
    """Sec. II: from 0000 with tag 13 the message visits 1000, 1100, then 1101."""
    topo = Hypercube(4)
    assert [topo.format_node(v) for v in EcubeRouting(topo).path(0, 13)] == ["0000", "1000", "1100", "1101"]


def test_skip_bit_w_is_taken_first_and_cleared():
    n, k = 5, 1
    tag = inject_tag(0b00000, 0b01111, n, k)      # four of the low four bits set -> skip pays
    assert tag == (1 << n) | 0b00000
    assert route_ecube_skip(tag, n + 1) == (n, 0)
    assert inject_tag(0, 0b00011, n, k) == 0b00011  # two of four set: no skip


@pytest.mark.parametrize("topo", [Hypercube(5), EnhancedHypercube(5, 0), EnhancedHypercube(6, 1)], ids=repr)
def test_ecube_is_deadlock_free(topo):
    rep = check_deadlock(EcubeRouting(topo))
    assert rep.deadlock_free and rep.dependencies > 0


@pytest.mark.parametrize("args,msg", [((4, 9), "k must be in 0..n-2"), ((4, -1), "k must be in 0..n-2"),
                                      ((1, 0), "n must be in 2..20")])
def test_bad_parameters(args, msg):
    with pytest.raises(CubenocError, match=msg):
        EnhancedHypercube(*args)


def test_node_out_of_range():
    with pytest.raises(CubenocError, match="node must be in 0..15"):
        EcubeRouting(Hypercube(4)).path(0, 16)
