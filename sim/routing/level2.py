"""Per-hop rules of the level-2 (and higher) networks of Dandamudi and Eager (BH, BR, CC, CCC), used
between interface nodes.

Each rule is ``step(node, dest, state) -> (port, new_state, vc)`` on the level-2 graph: ``port`` is a
port of the level-2 family (``None`` once ``node == dest``), ``state`` a small unsigned value the route
header carries (0 when the rule needs none), ``vc`` the virtual channel of the hop. Every rule is a pure
function of ``(node, dest, state)``, so a router computes it from its own (constant) cluster number and
the header. :class:`Level2Routing` runs a rule as a standalone :class:`RoutingFunction` on the level-2
network itself (for tests and the deadlock table); :mod:`.hierarchical` runs the same rule at the
interface nodes of a HIN.

* **BH** -- e-cube on ``node XOR dest``, highest dimension first (``route_ecube_skip``, Tzeng and Wei
  Algorithm A). Shortest; acyclic with one VC.
* **CC** -- the direct link (``CompleteGraph.port_to``). One hop; one VC.
* **BR** -- the shorter way round; a tie (``n`` even, ``n/2`` away) goes clockwise from an even node and
  counter-clockwise from an odd one, so that ties split evenly as in the paper's random routing.
  Shortest. Shortest-path routing on a ring has a cyclic channel dependency graph for ``n >= 4``; two
  VCs with a stateless dateline between nodes ``n-1`` and ``0`` make it acyclic: a clockwise hop from
  ``u`` to ``dest`` uses VC 0 while the wrap is still ahead (``u > dest``) and VC 1 otherwise (mirrored
  counter-clockwise: VC 0 iff ``u < dest``).
* **CCC** -- *sweep-then-return*: phase A moves clockwise along the cycle and takes the cube link at
  every position whose address bit still differs (``w XOR w'``); once the cycle address is right,
  phase B goes the shorter way round to the destination position (ties as for BR). Not always shortest
  (a shortest CCC route may turn up to twice; see docs/papers/hierarchical.md for the excess over
  BFS). Cube and clockwise channels are shared by both phases and the clockwise walk wraps at most
  twice, so the header carries ``state`` = clockwise dateline crossings so far (0..2), and cube and
  clockwise hops use VC = ``state`` (the crossing hop itself, from position ``n-1``, still uses the old
  value). Counter-clockwise hops (phase B only, after which only counter-clockwise hops follow) use the
  stateless ring rule (VC 0 iff ``position < dest position``). Three VCs; every dependency increases
  ``(vc, position, cube before cw)`` on the cube/cw channels, so the graph is acyclic.
"""
from __future__ import annotations

from cubenoc.errors import CubenocError

from ..topology.base import Topology
from ..topology.hierarchical import CompleteGraph, CubeConnectedCycles, Ring
from ..topology.hypercube import EnhancedHypercube, Hypercube
from .base import HeaderLayout, Hop, RoutingFunction
from .hypercube import route_ecube_skip


class Level2Rule:
    """The per-hop rule of one level-2 family (see the module docstring)."""

    num_vcs = 1
    state_bits = 0  # 0: the rule needs no header state
    #: whether a chain of channel dependencies may leave node 0 and come back into it, for some size of the
    #: family (then, below a HIN's top level, its up hops take VCs of their own: routing/hierarchical.py;
    #: tests/test_hierarchical_levels.py finds the chains with the checker: BR from 5 nodes, CCC from D_c = 3)
    returns_to_origin = False

    def __init__(self, topology: Topology):
        self.topology = topology

    def step(self, node: int, dest: int, state: int) -> tuple[int | None, int, int]:
        raise NotImplementedError


class HypercubeRule(Level2Rule):
    def step(self, node, dest, state):
        port, _ = route_ecube_skip(node ^ dest, self.topology.n)
        return port, 0, 0


class CompleteRule(Level2Rule):
    def step(self, node, dest, state):
        if node == dest:
            return None, 0, 0
        return CompleteGraph.port_to(node, dest), 0, 0


def ring_direction(node: int, dest: int, n: int) -> int | None:
    """0 (clockwise, +1), 1 (counter-clockwise) or ``None`` at ``dest``; ties split by node parity."""
    delta = (dest - node) % n
    if delta == 0:
        return None
    if 2 * delta < n or (2 * delta == n and node % 2 == 0):
        return 0
    return 1


def ring_vc(node: int, dest: int, direction: int) -> int:
    """Stateless dateline: VC 0 while the wrap between n-1 and 0 is still ahead, else VC 1."""
    return int(not (node > dest if direction == 0 else node < dest))


class RingRule(Level2Rule):
    num_vcs = 2
    returns_to_origin = True     # 0 -ccw-> n-1 (VC 0), then VC 1 all the way round into 0

    def step(self, node, dest, state):
        d = ring_direction(node, dest, self.topology.n)
        if d is None:
            return None, 0, 0
        return d, 0, ring_vc(node, dest, d)


class CCCRule(Level2Rule):
    num_vcs = 3
    state_bits = 2
    returns_to_origin = True     # e.g. (0,0) -cube-> (1,0) -cw-> ... (1,D_c-1) -cw-> (1,0) -cube-> (0,0)

    def step(self, node, dest, state):
        t = self.topology
        n = t.n
        w, i = t.split(node)
        w_dst, j = t.split(dest)
        diff = w ^ w_dst
        if diff >> i & 1:                          # phase A: fix this position's bit
            return t.CUBE, state, state
        if diff == 0:                              # phase B: the shorter way to position j
            d = ring_direction(i, j, n)
            if d is None:
                return None, state, 0
            if d == 1:
                return t.CCW, state, ring_vc(i, j, 1)
        # clockwise (phase A sweep, or phase B clockwise): count dateline crossings
        return t.CW, state + (i == n - 1), state


def rule_for(topology: Topology) -> Level2Rule:
    """The level-2 rule of a BH, BR, CC or CCC network."""
    if isinstance(topology, EnhancedHypercube):
        raise CubenocError("the level-2 network must be BH, BR, CC or CCC, not an enhanced hypercube")
    if isinstance(topology, Hypercube):
        return HypercubeRule(topology)
    if isinstance(topology, Ring):
        return RingRule(topology)
    if isinstance(topology, CompleteGraph):
        return CompleteRule(topology)
    if isinstance(topology, CubeConnectedCycles):
        return CCCRule(topology)
    raise CubenocError(f"no level-2 routing for {topology!r}: level 2 must be BH, BR, CC or CCC")


def bits_for(count: int) -> int:
    """Bits to hold ``0 .. count-1`` (at least 1)."""
    return max(1, (count - 1).bit_length())


class Level2Routing(RoutingFunction):
    """A level-2 rule run on its own network: header ``dest`` (+ ``state`` for CCC). ``use_vcs=False``
    puts every hop on VC 0 (to show the checker finds the cycle the VCs remove)."""

    def __init__(self, topology: Topology, use_vcs: bool = True):
        super().__init__(topology)
        self.rule = rule_for(topology)
        self.use_vcs = use_vcs
        self.num_vcs = self.rule.num_vcs if use_vcs else 1
        self.name = f"level2_{topology.family}"
        fields = [("dest", bits_for(topology.num_nodes))]
        if self.rule.state_bits:
            fields.append(("state", self.rule.state_bits))
        self._layout = HeaderLayout(fields)


    def inject(self, src: int, dst: int) -> dict:
        self.check_pair(src, dst)
        h = {"dest": dst}
        if self.rule.state_bits:
            h["state"] = 0
        return h

    def route(self, node: int, header: dict) -> Hop:
        port, state, vc = self.rule.step(node, header["dest"], header.get("state", 0))
        if port is None:
            return Hop(self.topology.local_port(node), header)
        new = dict(header)
        if self.rule.state_bits:
            new["state"] = state
        return Hop(port, new, vc if self.use_vcs else 0)
