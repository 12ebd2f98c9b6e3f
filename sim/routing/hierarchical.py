"""Hierarchical routing on a two-level HIN (Dandamudi and Eager, Sec. II-C and IV-B), as the routers run it.

Route header (LSB first; the RTL carries these fields):

=================  ==========================  ==================================================
field              width                       meaning
=================  ==========================  ==================================================
``dest_node``      bits for the cluster size   destination node within its cluster
``dest_cluster``   bits for the cluster count  destination cluster (a level-2 node)
``l2_state``       2, CCC only                 clockwise dateline crossings (level2.CCCRule)
``lane``           bits for r, only if r > 1   which replica of each level-2 link to use
=================  ==========================  ==================================================

The phase is not stored: a router knows its own cluster ``c`` and node ``x`` (constants), and

* ``c == dest_cluster``: route inside the cluster towards ``dest_node`` (eject there) -- the last phase,
  and the only one of an intracluster message;
* ``c != dest_cluster`` and ``x != 0``: route inside the cluster towards the interface node ``x = 0``;
* ``c != dest_cluster`` and ``x == 0``: the level-2 rule of :mod:`.level2` towards ``dest_cluster`` on
  replica ``lane`` of the level-2 port (``lane = source node in cluster mod r``, set at injection).

Inside a BH(d) cluster :class:`HierarchicalRouting` uses e-cube (``route_ecube_skip`` on
``x XOR target``, highest dimension first; Tzeng and Wei Algorithm A), so every message follows a shortest
path of the HIN (the only way between clusters is interface -> level 2 -> interface) when the level-2
rule is shortest (BH, BR, CC; CCC's sweep is not always). In a CC cluster it takes the direct link.

:class:`BalancedHierarchicalRouting` is the load-balancing variant of Sec. IV-B: inside a BH cluster
every minimal hop is a candidate, with one restriction that keeps the channel dependency graph acyclic
without extra VCs: hops that clear an address bit (1 -> 0) come before hops that set one (0 -> 1)
("negative first"). Outbound messages (towards node 0) only clear bits and inbound ones only set bits,
so both stay fully adaptive; an intracluster message is adaptive among its clearing hops, then among its
setting hops. ``route()`` returns the preferred candidate (the highest dimension); the paper's selection,
the candidate whose link has carried the fewest messages so far, is :class:`LeastUsedSelector`.

Deadlock: cluster hops use VC 0. Every hop inside a cluster goes from a higher dimension to a lower one
(e-cube) or from clearing to setting hops / within one kind by popcount (balanced), so no chain of
dependencies that starts on a channel leaving an interface node returns to a channel entering it; the
only cycles can come from the level-2 rule, which is acyclic with its own VCs (BR: 2, CCC: 3). The
checker confirms it for every family (docs/papers/hierarchical.md); with ``use_vcs=False`` BR (K >= 4)
and CCC are cyclic.
"""
from __future__ import annotations

from cubenoc.errors import CubenocError

from ..topology.hierarchical import INTERFACE, CompleteGraph, Hierarchical
from ..topology.hypercube import EnhancedHypercube, Hypercube
from .base import HeaderLayout, Hop, RoutingFunction, check_selection
from .hypercube import route_ecube_skip
from .level2 import bits_for, rule_for


class HierarchicalRouting(RoutingFunction):
    """Cluster e-cube to the interface node, the level-2 rule between clusters, e-cube to the destination."""

    name = "hin_ecube"
    balanced = False

    def __init__(self, topology: Hierarchical, use_vcs: bool = True):
        if not isinstance(topology, Hierarchical):
            raise CubenocError(f"hierarchical routing needs a Hierarchical network, got {topology!r}")
        super().__init__(topology)
        l1 = topology.level1
        if isinstance(l1, EnhancedHypercube) or not isinstance(l1, (Hypercube, CompleteGraph)):
            raise CubenocError(f"hierarchical routing needs BH or CC clusters, got {l1!r}")
        self.cube_clusters = isinstance(l1, Hypercube)
        self.rule = rule_for(topology.level2)
        self.use_vcs = use_vcs
        self.num_vcs = self.rule.num_vcs if use_vcs else 1
        self.n = topology.cluster_size
        self.r = topology.replication
        fields = [("dest_node", bits_for(self.n)), ("dest_cluster", bits_for(topology.num_clusters))]
        if self.rule.state_bits:
            fields.append(("l2_state", self.rule.state_bits))
        if self.r > 1:
            fields.append(("lane", bits_for(self.r)))
        self._layout = HeaderLayout(fields)


    def inject(self, src: int, dst: int) -> dict:
        self.check_pair(src, dst)
        c, x = divmod(dst, self.n)
        h = {"dest_node": x, "dest_cluster": c}
        if self.rule.state_bits:
            h["l2_state"] = 0
        if self.r > 1:
            h["lane"] = (src % self.n) % self.r
        return h

    # ---- inside a cluster ------------------------------------------------------------------------
    def cluster_ports(self, x: int, target: int) -> list[int]:
        """Level-1 ports allowed from ``x`` towards ``target`` (``x != target``), preferred first."""
        if not self.cube_clusters:
            return [CompleteGraph.port_to(x, target)]
        port, _ = route_ecube_skip(x ^ target, self.topology.level1.n)
        return [port]

    # ---- the per-hop decision ----------------------------------------------------------------------
    def candidates(self, node: int, header: dict) -> list[Hop]:
        topo = self.topology
        c, x = divmod(node, self.n)
        if c == header["dest_cluster"]:
            if x == header["dest_node"]:
                return [Hop(topo.local_port(node), header)]
            return [Hop(p, header) for p in self.cluster_ports(x, header["dest_node"])]
        if x != INTERFACE:
            return [Hop(p, header) for p in self.cluster_ports(x, INTERFACE)]
        port, state, vc = self.rule.step(c, header["dest_cluster"], header.get("l2_state", 0))
        new = dict(header)
        if self.rule.state_bits:
            new["l2_state"] = state
        return [Hop(topo.level2_port(node, port, header.get("lane", 0)), new, vc if self.use_vcs else 0)]

    def route(self, node: int, header: dict) -> Hop:
        return self.candidates(node, header)[0]

    def route_row(self, node: int):
        """:meth:`route` at ``node`` for every packed header word at once (the model's route-table row,
        sim/symmetric_tables.py): arrays ``(port, new_word, vc)`` indexed by the word, ``port = -1`` where
        no packet's word lies (``dest_node`` or ``dest_cluster`` out of range, a VC beyond ``num_vcs``).
        The decisions are those of :meth:`candidates` -- ``cluster_ports`` once per ``dest_node``, the
        level-2 rule's ``step`` once per (``dest_cluster``, ``l2_state``) -- spread over the other fields
        with numpy: 2^20-word rows in well under a second instead of a Python call per word."""
        import numpy as np
        topo, layout = self.topology, self.layout
        c, x = divmod(node, self.n)
        word = np.arange(1 << layout.width, dtype=np.int64)
        field = {}
        for name in layout.names():
            off, width = layout.offset(name)
            field[name] = (word >> off) & ((1 << width) - 1)
        dn, dc = field["dest_node"], field["dest_cluster"]
        port = np.full(word.shape, -1, dtype=np.int64)
        new, vc = word.copy(), np.zeros(word.shape, dtype=np.int64)
        bad = dn >= self.n
        here = dc == c
        to_node = np.array([topo.local_port(node) if t == x else self.cluster_ports(x, t)[0] if t < self.n else -1
                            for t in range(1 << layout.offset("dest_node")[1])], dtype=np.int64)
        port[here] = to_node[dn[here]]
        away = ~here & (dc < topo.num_clusters)
        if x != INTERFACE:
            port[away] = self.cluster_ports(x, INTERFACE)[0]
        else:
            states = 1 << self.rule.state_bits if self.rule.state_bits else 1
            steps = np.array([[self.rule.step(c, k, st) if k != c and k < topo.num_clusters else (-1, st, 0)
                               for st in range(states)] for k in range(1 << layout.offset("dest_cluster")[1])],
                             dtype=np.int64)                          # [dest_cluster, state, (port, state, vc)]
            st = field.get("l2_state", np.zeros_like(word))
            hop = steps[dc[away], st[away]]
            port[away] = topo.level2_port(node, hop[:, 0], field["lane"][away] if self.r > 1 else 0)
            if self.rule.state_bits:
                off, _ = layout.offset("l2_state")
                new[away] = word[away] ^ ((st[away] ^ hop[:, 1]) << off)
            vc[away] = hop[:, 2] if self.use_vcs else 0
            bad[away] |= hop[:, 1] >= states                      # a state the header cannot hold
        port[bad | (vc >= self.num_vcs) | (vc < 0)] = -1
        return port, new, vc


class BalancedHierarchicalRouting(HierarchicalRouting):
    """Sec. IV-B: adaptive minimal cluster hops (negative first), chosen by the least-used link.

    ``selection=None`` (default): the router takes :meth:`route` (the fixed preference, highest
    dimension first); ``selection="least_used"``: the router chooses at run time between the first two
    candidates by per-output packet counters (docs/router.md, "Adaptive selection")."""

    name = "hin_balanced"
    balanced = True

    def __init__(self, topology: Hierarchical, use_vcs: bool = True, selection: str | None = None):
        super().__init__(topology, use_vcs)
        self.selection = check_selection(selection)
        if self.selection is not None:
            self.name = f"hin_balanced_{self.selection}"

    def cluster_ports(self, x: int, target: int) -> list[int]:
        if not self.cube_clusters:
            return [CompleteGraph.port_to(x, target)]
        clear = x & ~target
        bits = clear if clear else target & ~x
        return [i for i in range(bits.bit_length() - 1, -1, -1) if bits >> i & 1]


class LeastUsedSelector:
    """The paper's selection (Sec. IV-B): among the candidates, the output link that has carried the
    fewest messages so far at this node (ties: the routing function's preference). Stateful: one
    counter per (node, port); ``weight`` lets fluid-flow analyses count message rates."""

    def __init__(self):
        self.count: dict[tuple[int, int], float] = {}

    def select(self, node: int, hops: list[Hop], weight: float = 1.0) -> Hop:
        best = min(hops, key=lambda h: self.count.get((node, h.port), 0.0))
        self.count[(node, best.port)] = self.count.get((node, best.port), 0.0) + weight
        return best
