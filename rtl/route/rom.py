"""The generic fallback: route and injection tables filled from the Python routing function."""
from __future__ import annotations

from amaranth import Module

from cubenoc.errors import CubenocError

from ...sim.routing.base import RoutingFunction
from .base import ROM_MAX_BITS, InjectUnit, RouteUnit, RoutingRTL


class _RomRouteUnit(RouteUnit):
    def elaborate(self, platform):
        m = Module()
        layout, routing = self.routing.layout, self.routing
        local = routing.topology.local_port(self.node)
        m.d.comb += [self.port.eq(local), self.new_route.eq(self.route)]
        with m.Switch(self.route.as_value()):
            for word in range(1 << layout.width):
                try:
                    hop = routing.route(self.node, layout.unpack(word))
                    new = layout.pack(hop.header)
                except (CubenocError, AssertionError, KeyError, ValueError):
                    continue                      # not a header this function produces
                with m.Case(word):
                    m.d.comb += [self.port.eq(hop.port), self.new_route.as_value().eq(new)]
                    if routing.num_vcs > 1:
                        m.d.comb += self.vc.eq(hop.vc)
        return m


class _RomInjectUnit(InjectUnit):
    def elaborate(self, platform):
        m = Module()
        layout, routing = self.routing.layout, self.routing
        with m.Switch(self.dest):
            for dst in routing.topology.nodes():
                with m.Case(dst):
                    m.d.comb += self.route.as_value().eq(layout.pack(routing.inject(self.node, dst)))
        return m


class RomRTL(RoutingRTL):
    """Any routing function with a header of at most ROM_MAX_BITS bits, as lookup tables per node."""

    node_generic = False

    def __init__(self, routing: RoutingFunction):
        super().__init__(routing)
        if routing.layout.width > ROM_MAX_BITS or routing.topology.num_nodes > (1 << ROM_MAX_BITS):
            raise CubenocError(
                f"{type(routing).__name__} has no route-compute unit and its header ({routing.layout.width} "
                f"bits) or network ({routing.topology.num_nodes} nodes) is too large for the ROM fallback "
                f"(at most {ROM_MAX_BITS} bits / {1 << ROM_MAX_BITS} nodes); register a RoutingRTL adapter")

    route_unit_cls, inject_unit_cls = _RomRouteUnit, _RomInjectUnit
