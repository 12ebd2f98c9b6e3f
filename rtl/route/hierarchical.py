"""Route-compute units of the two-level hierarchical networks (Dandamudi and Eager Sec. II-C, IV-B), from
``sim/routing/hierarchical.py`` and ``sim/routing/level2.py``.

Node-generic: ``node_id`` is split into (cluster ``c``, node in cluster ``x``) -- bit slices when the
cluster size is a power of two (BH clusters), else a ROM of N entries. Then, as the Python function:

* ``c == dest_cluster``: eject at ``x == dest_node``, else the cluster port towards ``dest_node``;
* ``c != dest_cluster``, ``x != 0``: the cluster port towards the interface node 0;
* ``c != dest_cluster``, ``x == 0``: the level-2 rule, leaving on router port
  ``P1(0) + l2_port * r + lane`` (replica ``lane`` of the level-2 link, Fig. 11's replication).

Cluster port, gates: BH e-cube = index of the highest set bit of ``x XOR target`` (the balanced
variant of Sec. IV-B: of ``x AND NOT target`` if nonzero, else of ``target AND NOT x``); CC =
``target - (target > x)``. Level-2 rule: BH (highest set bit of ``c XOR dest_cluster``) and CC
(``dest_cluster - (dest_cluster > c)``) in gates; BR and CCC (direction, dateline VC, CCC's sweep
state) as a ROM indexed by ``(c, dest_cluster, l2_state)`` filled from ``rule.step``.
"""
from __future__ import annotations

from amaranth import Cat, Module, Mux, Signal

from cubenoc.errors import CubenocError

from ...sim.routing.hierarchical import HierarchicalRouting
from ...sim.routing.level2 import CompleteRule, HypercubeRule, bits_for
from ...sim.topology.hierarchical import INTERFACE
from ..gates import node_address
from .base import InjectUnit, RouteUnit, RoutingRTL, register

#: the largest (c, dest_cluster, state) index the level-2 ROM tabulates
L2_ROM_MAX_BITS = 14


def highest_bit(m: Module, value, out: Signal) -> None:
    """``out = index of the highest set bit of value`` (a priority chain; value != 0)."""
    for j in range(len(value)):
        with m.If(value[j]):
            m.d.comb += out.eq(j)


def split_node(m: Module, topo, node):
    """(cluster, node in cluster) signals of a node number."""
    n = topo.cluster_size
    c = Signal(bits_for(topo.num_clusters), name="cluster")
    x = Signal(bits_for(n), name="x")
    if n & (n - 1) == 0:
        b = n.bit_length() - 1
        m.d.comb += [x.eq(node[:b]), c.eq(node[b:])]
    else:
        with m.Switch(node):
            for v in range(topo.num_nodes):
                with m.Case(v):
                    m.d.comb += [c.eq(v // n), x.eq(v % n)]
    return c, x


class _HierarchicalRouteUnit(RouteUnit):
    def elaborate(self, platform):
        m = Module()
        routing, topo = self.routing, self.routing.topology
        hdr = self.route
        c, x = split_node(m, topo, node_address(self))
        dn, dc = hdr.dest_node, hdr.dest_cluster
        local = topo.local_port(self.node)
        m.d.comb += [self.port.eq(local), self.new_route.eq(hdr)]
        if routing.num_vcs > 1:
            m.d.comb += self.vc.eq(0)
        home = c == dc
        target = Signal(len(x))
        m.d.comb += target.eq(Mux(home, dn, INTERFACE))
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
        # ---- the level-2 rule --------------------------------------------------------------------------
        rule = routing.rule
        l2port = Signal(range(max(2, topo.level2.num_ports(0))), name="l2_port")
        state_bits = rule.state_bits
        if isinstance(rule, HypercubeRule):
            highest_bit(m, c ^ dc, l2port)
        elif isinstance(rule, CompleteRule):
            m.d.comb += l2port.eq(dc - (dc > c))
        else:
            state = hdr.l2_state if state_bits else None
            index = Cat(*([state] if state_bits else []), dc, c)
            if len(index) > L2_ROM_MAX_BITS:
                raise CubenocError(f"level-2 ROM of {topo.spec} needs {len(index)} index bits, at most "
                                   f"{L2_ROM_MAX_BITS}: use a smaller level-2 network")
            K = topo.num_clusters
            sw, cw = (state_bits, len(dc))
            entries = {}
            for cc in range(K):
                for dd in range(K):
                    if cc == dd:
                        continue
                    for s in range(1 << state_bits):
                        port, new_state, vc = rule.step(cc, dd, s)
                        entries[(cc << (sw + cw)) | (dd << sw) | s] = (port, new_state, vc)
            word_p = Signal.like(l2port, name="rom_port")
            word_s = Signal(max(1, state_bits), name="rom_state")
            word_v = Signal(range(max(2, rule.num_vcs)), name="rom_vc")
            with m.Switch(index):
                for key, (port, new_state, vc) in entries.items():
                    with m.Case(key):
                        m.d.comb += [word_p.eq(port), word_s.eq(new_state), word_v.eq(vc)]
            m.d.comb += l2port.eq(word_p)
        # ---- select --------------------------------------------------------------------------------------
        with m.If(home & (x == dn)):
            pass                                                   # eject
        with m.Elif(home | (x != INTERFACE)):
            m.d.comb += self.port.eq(cport)
        with m.Else():
            p1 = topo.level1_ports(topo.interface(0))
            lane = hdr.lane if topo.replication > 1 else 0
            m.d.comb += self.port.eq(p1 + l2port * topo.replication + lane)
            if not isinstance(rule, (HypercubeRule, CompleteRule)):
                if state_bits:
                    m.d.comb += self.new_route.l2_state.eq(word_s)
                if routing.num_vcs > 1:
                    m.d.comb += self.vc.eq(word_v)
        return m


class _HierarchicalInjectUnit(InjectUnit):
    def elaborate(self, platform):
        m = Module()
        routing, topo = self.routing, self.routing.topology
        c, x = split_node(m, topo, self.dest[:max(1, (topo.num_nodes - 1).bit_length())])
        m.d.comb += self.route.as_value().eq(0)
        m.d.comb += [self.route.dest_node.eq(x), self.route.dest_cluster.eq(c)]
        if topo.replication > 1:
            _c, sx = split_node(m, topo, node_address(self))
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
    """Cluster e-cube / direct link, level-2 BH/CC rule in gates, BR/CCC rule as a ROM; node-generic."""

    node_generic = True
    route_unit_cls, inject_unit_cls = _HierarchicalRouteUnit, _HierarchicalInjectUnit
