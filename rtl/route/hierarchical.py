"""Route-compute units of the hierarchical networks of two or more levels (Dandamudi and Eager Sec. II-C,
IV-B), from ``sim/routing/hierarchical.py`` and ``sim/routing/level2.py``.

Node-generic: ``node_id`` is split into its positions ``x_1`` (node in cluster), ``x_2`` (``cluster``),
``x_3`` ... -- bit slices when every level below the top has a power-of-two size (BH clusters), else a
ROM of N entries. With ``home_l`` = "every level above l agrees with the destination" (two levels:
``c == dest_cluster``), as the Python function:

* ``home_1`` and ``x_1 == dest_node``: eject;
* the lowest level l with ``home_l`` or ``x_l != 0`` moves, towards ``dest_l`` if ``home_l`` (across or
  down), else towards the interface position 0 (up); the top level when no lower one does. Two levels:
  ``c == dest_cluster`` or ``x != 0``: the cluster port, else the level-2 rule.

A hop at level l >= 2 leaves on router port ``base_l + port * r + lane`` (replica ``lane`` of the link,
Fig. 11's replication). Cluster port, gates: BH e-cube = index of the highest set bit of ``x XOR target``
(the balanced variant of Sec. IV-B: of ``x AND NOT target`` if nonzero, else of ``target AND NOT x``); CC
= ``target - (target > x)``. Rules above level 1: BH (highest set bit of ``x_l XOR target``) and CC
(``target - (target > x_l)``) in gates; BR and CCC (direction, dateline VC, CCC's sweep state) as a ROM
indexed by ``(x_l, target, state)`` filled from ``rule.step``; below the top their up hops add the rule's
VC count (``HierarchicalRouting.up_phase``).
"""
from __future__ import annotations

from amaranth import Cat, Module, Mux, Signal

from cubenoc.errors import CubenocError

from ...sim.routing.hierarchical import HierarchicalRouting, dest_field
from ...sim.routing.level2 import CompleteRule, HypercubeRule, bits_for
from ...sim.topology.hierarchical import INTERFACE
from ..gates import node_address
from .base import InjectUnit, RouteUnit, RoutingRTL, register

#: the largest (x_l, target, state) index a level's ROM tabulates
L2_ROM_MAX_BITS = 14
#: the signal name of each level's position (level 2 is the two-level network's cluster)
POSITION_NAMES = {1: "x", 2: "cluster"}


def highest_bit(m: Module, value, out: Signal) -> None:
    """``out = index of the highest set bit of value`` (a priority chain; value != 0)."""
    for j in range(len(value)):
        with m.If(value[j]):
            m.d.comb += out.eq(j)


def split_node(m: Module, topo, node) -> list[Signal]:
    """The position signals ``[x_1, x_2, ...]`` of a node number."""
    sizes = topo.sizes
    pos = {lv: Signal(bits_for(size), name=POSITION_NAMES.get(lv, f"l{lv}"))
           for lv, size in reversed(list(enumerate(sizes, start=1))) if lv > 1}
    pos[1] = Signal(bits_for(sizes[0]), name="x")
    if all(size & (size - 1) == 0 for size in sizes[:-1]):
        lo, parts = 0, []
        for lv, size in enumerate(sizes, start=1):
            b = size.bit_length() - 1
            parts.append(pos[lv].eq(node[lo:] if lv == len(sizes) else node[lo:lo + b]))
            lo += b
        m.d.comb += parts
    else:
        with m.Switch(node):
            for v in range(topo.num_nodes):
                with m.Case(v):
                    m.d.comb += [pos[lv].eq(x) for lv, x in reversed(list(enumerate(topo.positions(v), start=1)))]
    return [pos[lv] for lv in range(1, len(sizes) + 1)]


class _HierarchicalRouteUnit(RouteUnit):
    def elaborate(self, platform):
        m = Module()
        routing, topo = self.routing, self.routing.topology
        hdr = self.route
        pos = split_node(m, topo, node_address(self))
        dest = [hdr[dest_field(lv)] for lv in range(1, len(pos) + 1)]
        x, dn = pos[0], dest[0]
        local = topo.local_port(self.node)
        m.d.comb += [self.port.eq(local), self.new_route.eq(hdr)]
        if routing.num_vcs > 1:
            m.d.comb += self.vc.eq(0)
        # home[l - 1]: every level above l agrees with the destination (the top level's is always true)
        home = [None] * len(pos)
        for lv in range(len(pos) - 1, 0, -1):
            same = pos[lv] == dest[lv]
            home[lv - 1] = same if home[lv] is None else home[lv] & same
        target = Signal(len(x))
        m.d.comb += target.eq(Mux(home[0], dn, INTERFACE))
        # ---- the cluster port towards target ---------------------------------------------------------
        cport = Signal(range(max(2, self.num_ports)), name="cluster_port")
        if routing.cube_clusters:
            bits = Signal(len(x))
            if routing.balanced:
                clear = x & ~target
                m.d.comb += bits.eq(Mux(clear != 0, clear, target & ~x))
            else:
                m.d.comb += bits.eq(x ^ target)
            highest_bit(m, bits, cport)
        else:
            m.d.comb += cport.eq(target - (target > x))
        # ---- the rules above level 1 -----------------------------------------------------------------------
        hops = {lv: self.level_hop(m, lv, pos[lv - 1], dest[lv - 1], home[lv - 1]) for lv in range(2, len(pos) + 1)}
        # ---- select --------------------------------------------------------------------------------------
        with m.If(home[0] & (x == dn)):
            pass                                                   # eject
        with m.Elif(home[0] | (x != INTERFACE)):
            m.d.comb += self.port.eq(cport)
        for lv in range(2, len(pos)):
            with m.Elif(home[lv - 1] | (pos[lv - 1] != INTERFACE)):
                self.take(m, lv, hops[lv])
        with m.Else():
            self.take(m, len(pos), hops[len(pos)])
        return m

    def level_hop(self, m: Module, level: int, xl, yl, home):
        """The level-``level`` rule's ``(port, new_state, vc)`` signals (the last two None where the rule
        decides them in gates) towards ``yl`` if ``home`` (None: the top level) else the interface 0."""
        routing, topo = self.routing, self.routing.topology
        rule, net = routing.rules[level], topo.levels[level - 1]
        if home is not None:
            tgt = Signal(len(yl), name=f"l{level}_target")
            m.d.comb += tgt.eq(Mux(home, yl, INTERFACE))
        else:
            tgt = yl
        lport = Signal(range(max(2, net.num_ports(0))), name=f"l{level}_port")
        state_bits = rule.state_bits
        if isinstance(rule, HypercubeRule):
            highest_bit(m, xl ^ tgt, lport)
            return lport, None, None
        if isinstance(rule, CompleteRule):
            m.d.comb += lport.eq(tgt - (tgt > xl))
            return lport, None, None
        state = self.route[routing.state_field(level)] if state_bits else None
        index = Cat(*([state] if state_bits else []), tgt, xl)
        if len(index) > L2_ROM_MAX_BITS:
            raise CubenocError(f"level-{level} ROM of {topo.spec} needs {len(index)} index bits, at most "
                               f"{L2_ROM_MAX_BITS}: use a smaller level-{level} network")
        K = net.num_nodes
        sw, cw = (state_bits, len(tgt))
        entries = {}
        for cc in range(K):
            for dd in range(K):
                if cc == dd:
                    continue
                for s in range(1 << state_bits):
                    port, new_state, vc = rule.step(cc, dd, s)
                    entries[(cc << (sw + cw)) | (dd << sw) | s] = (port, new_state, vc)
        word_p = Signal.like(lport, name="rom_port")
        word_s = Signal(max(1, state_bits), name="rom_state")
        word_v = Signal(range(max(2, rule.num_vcs)), name="rom_vc")
        with m.Switch(index):
            for key, (port, new_state, vc) in entries.items():
                with m.Case(key):
                    m.d.comb += [word_p.eq(port), word_s.eq(new_state), word_v.eq(vc)]
        m.d.comb += lport.eq(word_p)
        if home is not None and routing.up_phase(level):          # up hops on VCs of their own
            vc = Signal(range(routing.level_vcs(level)), name=f"l{level}_vc")
            m.d.comb += vc.eq(Mux(home, word_v, word_v + rule.num_vcs))
            return lport, word_s, vc
        return lport, word_s, word_v

    def take(self, m: Module, level: int, hop) -> None:
        """Leave on the level-``level`` hop: its port and replica, its rule's state (and the lower levels'
        cleared), its VC."""
        routing, topo = self.routing, self.routing.topology
        lport, word_s, word_v = hop
        lane = self.route.lane if topo.replication > 1 else 0
        m.d.comb += self.port.eq(topo.level_port(level, 0) + lport * topo.replication + lane)
        if word_s is not None and routing.state_field(level):
            m.d.comb += self.new_route[routing.state_field(level)].eq(word_s)
        for lv in range(2, level):
            if routing.state_field(lv):
                m.d.comb += self.new_route[routing.state_field(lv)].eq(0)
        if word_v is not None and routing.num_vcs > 1:
            m.d.comb += self.vc.eq(word_v)


class _HierarchicalInjectUnit(InjectUnit):
    def elaborate(self, platform):
        m = Module()
        topo = self.routing.topology
        pos = split_node(m, topo, self.dest[:max(1, (topo.num_nodes - 1).bit_length())])
        m.d.comb += self.route.as_value().eq(0)
        m.d.comb += [self.route[dest_field(lv)].eq(x) for lv, x in enumerate(pos, start=1)]
        if topo.replication > 1:
            sx = split_node(m, topo, node_address(self))[0]
            r = topo.replication
            lane = Signal(len(self.route.lane))
            if r & (r - 1) == 0:
                m.d.comb += lane.eq(sx)                            # low bits: sx mod r
            else:
                with m.Switch(sx):
                    for v in range(topo.cluster_size):
                        with m.Case(v):
                            m.d.comb += lane.eq(v % r)
            m.d.comb += self.route.lane.eq(lane)
        return m


@register(HierarchicalRouting)
class HierarchicalRTL(RoutingRTL):
    """Cluster e-cube / direct link, BH/CC rules above level 1 in gates, BR/CCC rules as ROMs; node-generic."""

    node_generic = True
    route_unit_cls, inject_unit_cls = _HierarchicalRouteUnit, _HierarchicalInjectUnit
