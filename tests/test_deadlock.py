"""The channel-dependency checker finds cycles when they exist and proves a dateline removes them; its cycle
search agrees with networkx's."""
import networkx as nx
from hypothesis import given, settings, strategies as st

from cubenoc.sim.deadlock import check_deadlock
from cubenoc.sim.dependency_graph import DependencyGraph
from cubenoc.sim.routing.base import HeaderLayout, Hop, RoutingFunction
from cubenoc.sim.topology.base import Topology


class Ring(Topology):
    family = "ring"

    def __init__(self, n):
        self.n = n

    @property
    def num_nodes(self):
        return self.n

    def num_ports(self, node):
        return 2  # port 0: clockwise (+1), port 1: counter-clockwise (-1)

    def neighbor(self, node, port):
        return ((node + 1) % self.n, 1) if port == 0 else ((node - 1) % self.n, 0)


class Clockwise(RoutingFunction):
    """Always +1; with ``dateline`` the packet moves to VC 1 after crossing node n-1 -> 0."""

    def __init__(self, topo, dateline):
        super().__init__(topo)
        self.dateline = dateline
        self.num_vcs = 2 if dateline else 1
        self._layout = HeaderLayout([("dest", 8), ("vc", 1)])

    @property
    def layout(self):
        return self._layout

    def inject(self, src, dst):
        return {"dest": dst, "vc": 0}

    def route(self, node, header):
        if node == header["dest"]:
            return Hop(2, header)
        vc = header["vc"]
        if self.dateline and node == self.topology.n - 1:
            vc = 1
        return Hop(0, {"dest": header["dest"], "vc": vc}, vc if self.dateline else 0)


def test_ring_without_dateline_has_a_cycle():
    rep = check_deadlock(Clockwise(Ring(5), dateline=False))
    assert not rep.deadlock_free
    assert len(rep.cycle) == 5
    assert "cycle of length 5" in rep.describe()


def test_dateline_makes_ring_acyclic():
    rep = check_deadlock(Clockwise(Ring(5), dateline=True))
    assert rep.deadlock_free, rep.describe()


# ---- the cycle search against networkx's --------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))))
def test_cycle_search_agrees_with_networkx(graph):
    """DependencyGraph.find_cycle finds a cycle exactly when networkx does, and what it returns is one: each
    node has an edge to the next and the last to the first (self-loops included)."""
    n, edges = graph
    ours = DependencyGraph(range(n), edges).find_cycle()
    theirs = nx.DiGraph(edges)
    theirs.add_nodes_from(range(n))
    assert (ours is None) == nx.is_directed_acyclic_graph(theirs)
    if ours is not None:
        assert len(set(ours)) == len(ours)
        assert all(theirs.has_edge(a, b) for a, b in zip(ours, ours[1:] + ours[:1]))


def test_cycle_search_walks_a_path_longer_than_the_stack():
    """A chain of 100,000 channels closed into a ring: found without recursion."""
    n = 100_000
    g = DependencyGraph(edges=[(i, i + 1) for i in range(n - 1)])
    assert g.find_cycle() is None
    g.add_edge(n - 1, 0)
    assert sorted(g.find_cycle()) == list(range(n))
