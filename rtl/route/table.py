"""Route-compute units of the minimal table routing of any network (sim/routing/anynet.py): ROMs.

Node-generic where the whole network's table is small (N x 2^R entries at most :data:`GENERIC_ROM_ENTRIES`):
one router module serves every node with the same port count (and turns), its route unit a ROM indexed by
``(node_id, route word)`` holding ``routing.route`` of every node of that port count (port, new header and VC
packed in one word), its injection unit a ROM indexed by ``(node_id, dest)`` holding ``routing.inject``.
Larger networks get one ROM of 2^R entries per router (its own node's). The words no packet carries are left
out (their output is the local port and the header unchanged, as the generic ROM of rtl/route/rom.py does).
"""
from __future__ import annotations

from amaranth import Cat, Module, Signal

from cubenoc.errors import CubenocError

from ...sim.routing.anynet import MinimalTableRouting
from ..gates import node_address, rom
from .base import InjectUnit, RouteUnit, RoutingRTL, register


#: the most ROM entries (nodes x route words) a node-generic unit holds; above, each router has its own
GENERIC_ROM_ENTRIES = 1 << 12


def _peers(unit) -> list[int]:
    """The nodes a unit serves: with a ``node_id`` input, every node of its node's port count; else its node."""
    topo = unit.routing.topology
    if not hasattr(unit, "node_id"):
        return [unit.node]
    return [u for u in topo.nodes() if topo.num_ports(u) == topo.num_ports(unit.node)]


def _index(unit, low):
    """The ROM index: ``low`` and, for a node-generic unit, the node above it."""
    return Cat(low, node_address(unit)) if hasattr(unit, "node_id") else low


class _TableRouteUnit(RouteUnit):
    def elaborate(self, platform):
        m = Module()
        routing, layout = self.routing, self.routing.layout
        R, pbits = layout.width, (self.num_ports - 1).bit_length() or 1
        vbits = (routing.num_vcs - 1).bit_length()
        table = {}
        for u in _peers(self):
            for word in range(1 << R):
                try:
                    hop = routing.route(u, layout.unpack(word))
                except CubenocError:             # not a header: a destination past the last, a VC past the last
                    continue
                table[(u << R if hasattr(self, "node_id") else 0) | word] = hop.port | layout.pack(hop.header) << pbits | hop.vc << (pbits + R)
        entry = Signal(pbits + R + vbits)
        local = routing.topology.local_port(self.node)
        rom(m, _index(self, self.route.as_value()), table, entry, default=local)
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
        generic = hasattr(self, "node_id")
        table = {(s << bits if generic else 0) | d: layout.pack(routing.inject(s, d))
                 for s in _peers(self) for d in topo.nodes()}
        rom(m, _index(self, self.dest[:bits]), table, self.route.as_value())
        return m


@register(MinimalTableRouting)
class MinimalTableRTL(RoutingRTL):
    """Shortest-path tables of any network as ROMs: node-generic (one module per port count and turns) up to
    :data:`GENERIC_ROM_ENTRIES` entries of the whole network, else one per router."""

    def __init__(self, routing: MinimalTableRouting):
        super().__init__(routing)
        self.node_generic = routing.topology.num_nodes << routing.layout.width <= GENERIC_ROM_ENTRIES

    route_unit_cls, inject_unit_cls = _TableRouteUnit, _TableInjectUnit
