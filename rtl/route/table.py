"""Route-compute units of the minimal table routing of any network (sim/routing/anynet.py): node-generic ROMs.

One router module serves every node with the same port count (and turns): its route unit is a ROM indexed by
``(node_id, route word)`` holding ``routing.route`` of every node of that port count (port, new header and VC
packed in one word); its injection unit a ROM indexed by ``(node_id, dest)`` holding ``routing.inject``. The
words no packet carries are left out (their output is the local port and the header unchanged, as the
generic ROM of rtl/route/rom.py does).
"""
from __future__ import annotations

from amaranth import Cat, Module, Signal

from cubenoc.errors import CubenocError

from ...sim.routing.anynet import MinimalTableRouting
from ..gates import node_address, rom
from .base import InjectUnit, RouteUnit, RoutingRTL, register


def _peers(routing, node: int) -> list[int]:
    """The nodes a node-generic unit built for ``node`` serves: those with its port count."""
    topo = routing.topology
    return [u for u in topo.nodes() if topo.num_ports(u) == topo.num_ports(node)]


class _TableRouteUnit(RouteUnit):
    def elaborate(self, platform):
        m = Module()
        routing, layout = self.routing, self.routing.layout
        R, pbits = layout.width, (self.num_ports - 1).bit_length() or 1
        vbits = (routing.num_vcs - 1).bit_length()
        table = {}
        for u in _peers(routing, self.node):
            for word in range(1 << R):
                try:
                    hop = routing.route(u, layout.unpack(word))
                except CubenocError:             # not a header: a destination past the last, a VC past the last
                    continue
                table[(u << R) | word] = hop.port | layout.pack(hop.header) << pbits | hop.vc << (pbits + R)
        entry = Signal(pbits + R + vbits)
        local = routing.topology.local_port(self.node)
        rom(m, Cat(self.route.as_value(), node_address(self)), table, entry,
            default=local)
        m.d.comb += [self.port.eq(entry[:pbits]), self.new_route.as_value().eq(entry[pbits:pbits + R])]
        with m.If(entry == local):                      # a word no packet carries: the header unchanged
            m.d.comb += self.new_route.eq(self.route)
        if routing.num_vcs > 1:
            m.d.comb += self.vc.eq(entry[pbits + R:])
        return m


class _TableInjectUnit(InjectUnit):
    def elaborate(self, platform):
        m = Module()
        routing, layout = self.routing, self.routing.layout
        topo = routing.topology
        bits = (topo.num_nodes - 1).bit_length() or 1
        table = {(s << bits) | d: layout.pack(routing.inject(s, d))
                 for s in _peers(routing, self.node) for d in topo.nodes()}
        rom(m, Cat(self.dest[:bits], node_address(self)), table, self.route.as_value())
        return m


@register(MinimalTableRouting)
class MinimalTableRTL(RoutingRTL):
    """Shortest-path tables of any network as node-generic ROMs (one module per port count)."""

    node_generic = True
    route_unit_cls, inject_unit_cls = _TableRouteUnit, _TableInjectUnit
