"""Hierarchical routing on a HIN of two or more levels (Dandamudi and Eager, Sec. II-C and IV-B), as the
routers run it.

Route header (LSB first; the RTL carries these fields):

=================  ==========================  ==================================================
field              width                       meaning
=================  ==========================  ==================================================
``dest_node``      bits for the cluster size   destination's level-1 position (node in its cluster)
``dest_cluster``   bits for level 2's size     destination's level-2 position (two levels: its cluster)
``dest_l3`` ...    bits for level l's size     destination's level-l position, l >= 3
``l2_state`` ...   2, CCC levels only          level l's clockwise dateline crossings (level2.CCCRule)
``lane``           bits for r, only if r > 1   which replica of each link above level 1 to use
=================  ==========================  ==================================================

The phase is not stored: a router knows its own positions ``x_1, x_2, ...`` (constants); with ``y`` the
destination's positions and ``h`` the highest level where ``x_h != y_h`` (the paper's rule: up to the
lowest level whose cluster holds source and destination, across it, down):

* no such level: eject;
* some level ``l < h`` has ``x_l != 0`` (the lowest one): route in the level-l network towards the
  interface position 0 -- *up*;
* otherwise (``x_1 .. x_(h-1)`` all 0, an interface node of level h-1): route in the level-h network
  towards ``y_h`` -- *across* (h is the message's top level) or *down* (a higher level was crossed
  already); the two are the same decision.

For two levels: ``c == dest_cluster``: towards ``dest_node``; ``c != dest_cluster``, ``x != 0``: towards
node 0; ``x == 0``: the level-2 rule towards ``dest_cluster``. Level 1 (the cluster) uses e-cube in a
BH(d) cluster (``route_ecube_skip`` on ``x XOR target``, highest dimension first; Tzeng and Wei Algorithm
A) or the direct link in a CC cluster; every level above uses its rule of :mod:`.level2` on replica
``lane`` (``lane = source node in cluster mod r``, set at injection). Every message follows a shortest
path of the HIN (the only way between clusters is interface -> higher level -> interface) when every
rule is shortest (BH, BR, CC; CCC's sweep is not always).

:class:`BalancedHierarchicalRouting` is the load-balancing variant of Sec. IV-B: inside a BH cluster
every minimal hop is a candidate, with one restriction that keeps the channel dependency graph acyclic
without extra VCs: hops that clear an address bit (1 -> 0) come before hops that set one (0 -> 1)
("negative first"). Outbound messages (towards node 0) only clear bits and inbound ones only set bits,
so both stay fully adaptive; an intracluster message is adaptive among its clearing hops, then among its
setting hops. ``route()`` returns the preferred candidate (the highest dimension); the paper's selection,
the candidate whose link has carried the fewest messages so far, is :class:`LeastUsedSelector`.

Deadlock. Cluster hops use VC 0; a hop at level l >= 2 the VC of level l's rule (BR: 2, CCC: 3), so two
levels are acyclic exactly when the level-2 rule is. With more levels a level below the top is crossed
twice by the same kind of message, up to 0 and later down from 0, and a dependency chain could leave a
level-l interface node downwards and come back up into it (and on through level l+1 to another cluster
and back). By induction over the levels such a chain would have to stay in level l's own network, from
position 0 back to position 0; a rule in whose dependency graph no chain leaves position 0 and returns
to it (BH's e-cube, CC, the BH cluster's e-cube and negative-first) needs nothing more. BR and CCC have
such chains (``returns_to_origin``: round the ring through the dateline), so below the top level their
*up* hops use VCs of their own, the rule's VC plus its VC count (BR: 2, 3; CCC: 3 .. 5), and their
across/down hops the rule's VCs: no message goes from a down hop to an up hop, which breaks every such
chain. A rule's state (CCC's crossings) restarts at 0 in every
level it enters: a hop at level l clears the state of the levels below l, which the message will cross
again only on its way down. ``tests/test_hierarchical_routing.py`` proves every combination acyclic
with the checker (sim/deadlock.py), and shows the up VCs are needed.
"""
from __future__ import annotations

import numpy as np

from cubenoc.errors import CubenocError

from ..topology.hierarchical import CompleteGraph, Hierarchical, INTERFACE
from ..topology.hypercube import EnhancedHypercube, Hypercube
from .base import HeaderLayout, Hop, RoutingFunction, check_selection
from .hypercube import route_ecube_skip
from .level2 import bits_for, rule_for


def dest_field(level: int) -> str:
    """The header field of the destination's position at ``level`` (1, 2, ...)."""
    return {1: "dest_node", 2: "dest_cluster"}.get(level, f"dest_l{level}")


class HierarchicalRouting(RoutingFunction):
    """Up to the interface of the lowest level that holds both ends, across it, down (cluster e-cube or
    direct link at level 1, each higher level's rule)."""

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
        self.depth = len(topology.levels)
        #: level -> its rule (levels 2, 3, ...)
        self.rules = {lv: rule_for(net) for lv, net in enumerate(topology.levels[1:], start=2)}
        self.rule = self.rules[2]
        self.use_vcs = use_vcs
        self.num_vcs = max(self.level_vcs(lv) for lv in self.rules) if use_vcs else 1
        self.n = topology.cluster_size
        self.r = topology.replication
        fields = [(dest_field(lv), bits_for(size)) for lv, size in enumerate(topology.sizes, start=1)]
        fields += [(self.state_field(lv), rule.state_bits) for lv, rule in self.rules.items() if rule.state_bits]
        if self.r > 1:
            fields.append(("lane", bits_for(self.r)))
        self._layout = HeaderLayout(fields)

    def state_field(self, level: int) -> str | None:
        """The header field of level ``level``'s rule state (None: the rule keeps none)."""
        return f"l{level}_state" if level in self.rules and self.rules[level].state_bits else None

    def up_phase(self, level: int) -> bool:
        """Whether level ``level``'s up hops need VCs of their own (see the module docstring)."""
        return level < self.depth and self.rules[level].returns_to_origin

    def level_vcs(self, level: int) -> int:
        """VCs a hop at ``level`` (2, 3, ...) may use."""
        return self.rules[level].num_vcs * (2 if self.up_phase(level) else 1)

    def inject(self, src: int, dst: int) -> dict:
        self.check_pair(src, dst)
        h = {dest_field(lv): y for lv, y in enumerate(self.topology.positions(dst), start=1)}
        h |= {self.state_field(lv): 0 for lv in self.rules if self.state_field(lv)}
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
    def next_level(self, node: int, header: dict) -> tuple[int, int, bool]:
        """``(level, target, up)``: the level of the next hop (0: eject), the position it heads for in that
        level's network, and whether it is an up hop (towards the interface, below the message's top)."""
        pos = self.topology.positions(node)
        top = next((lv for lv in range(self.depth, 0, -1) if pos[lv - 1] != header[dest_field(lv)]), 0)
        level = next((lv for lv in range(1, top) if pos[lv - 1] != INTERFACE), top)
        up = level < top
        return level, INTERFACE if up else (header[dest_field(level)] if level else 0), up

    def candidates(self, node: int, header: dict) -> list[Hop]:
        topo = self.topology
        level, target, up = self.next_level(node, header)
        if level == 0:
            return [Hop(topo.local_port(node), header)]
        if level == 1:
            return [Hop(p, header) for p in self.cluster_ports(node % self.n, target)]
        rule, key = self.rules[level], self.state_field(level)
        port, state, vc = rule.step(topo.positions(node)[level - 1], target, header.get(key, 0))
        if port is None:          # a destination position beyond the level's size: no packet's header
            raise CubenocError(f"level-{level} position {target} is not a node of {topo.levels[level - 1]!r}")
        new = dict(header)
        if key:
            new[key] = state
        for lv in range(2, level):                     # the levels below restart in their next visit
            if self.state_field(lv):
                new[self.state_field(lv)] = 0
        vc += rule.num_vcs if up and self.up_phase(level) else 0
        return [Hop(topo.level_port(level, port, header.get("lane", 0)), new, vc if self.use_vcs else 0)]

    def route(self, node: int, header: dict) -> Hop:
        return self.candidates(node, header)[0]

    def route_row(self, node: int):
        """:meth:`route` at ``node`` for every packed header word at once (the model's route-table row,
        sim/symmetric_tables.py, two-level HINs): arrays ``(port, new_word, vc)`` indexed by the word,
        ``port = -1`` where no packet's word lies (``dest_node`` or ``dest_cluster`` out of range, a VC
        beyond ``num_vcs``). The decisions are those of :meth:`candidates` -- ``cluster_ports`` once per
        ``dest_node``, the level-2 rule's ``step`` once per (``dest_cluster``, ``l2_state``) -- spread
        over the other fields with numpy: 2^20-word rows in well under a second instead of a Python call
        per word."""
        topo, layout = self.topology, self.layout
        if self.depth != 2:
            raise CubenocError(f"route_row covers two-level HINs, {topo.spec} has {self.depth} levels")
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
