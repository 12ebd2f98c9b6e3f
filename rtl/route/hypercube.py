"""Route compute of the hypercube and enhanced hypercube (Tzeng and Wei Sec. VI-B; Algorithms A and C)."""
from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal

from ...sim.routing.hypercube import EcubeRouting
from .base import InjectUnit, RouteUnit, RoutingRTL, register


class _EcubeRouteUnit(RouteUnit):
    """Bit w (the top tag bit of Q(n, k)) first, then the highest set bit; a zero tag ejects.

    The rule is the same at every node, so the unit ignores the node: it is exactly
    ``route_ecube_skip(tag, width)`` with port = bit index and the local port = the tag width.
    """

    def elaborate(self, platform):
        m = Module()
        tag = self.route.tag
        width = len(tag)
        m.d.comb += [self.port.eq(width), self.new_route.tag.eq(tag)]   # zero tag: eject, tag stays 0
        for i in range(width):                                          # last match = highest set bit
            with m.If(tag[i]):
                # below the highest set bit i the tag is kept; bit i and above are 0
                m.d.comb += [self.port.eq(i), self.new_route.tag.eq(tag[:i])]
        return m


class _EcubeInjectUnit(InjectUnit):
    """Algorithm A: tag = node XOR dest; Algorithm C (Q(n, k)): when more than ceil((n-k)/2) of the
    low n-k tag bits are set, complement them and set bit w (``inject_tag``)."""

    def __init__(self, routing: EcubeRouting, node: int, node_generic: bool):
        super().__init__(routing, node, node_generic)
        self.n, self.k = routing.n, routing.k

    def elaborate(self, platform):
        m = Module()
        n, k = self.n, self.k
        node = self.node_id if hasattr(self, "node_id") else Const(self.node, n)
        rel = Signal(n)
        m.d.comb += rel.eq(node[:n] ^ self.dest[:n])
        if k is None:
            m.d.comb += self.route.tag.eq(rel)
            return m
        low_bits = n - k
        low = rel[:low_bits]
        ones = Signal(range(low_bits + 1))
        m.d.comb += ones.eq(sum(low[i] for i in range(low_bits)))
        pays = ones > -(-low_bits // 2)
        m.d.comb += self.route.tag.eq(Mux(pays, Cat(~low, rel[low_bits:], Const(1, 1)), Cat(rel, Const(0, 1))))
        return m


@register(EcubeRouting)
class EcubeRTL(RoutingRTL):
    """Sec. VI-B route-compute (priority on the tag bits) and Algorithm A/C injection."""

    node_generic = True

    def __init__(self, routing: EcubeRouting):
        super().__init__(routing)
        topo = routing.topology
        # the per-hop rule numbers ports by tag bit: the local port must be the tag width
        assert all(topo.local_port(v) == routing.layout.width for v in (0, topo.num_nodes - 1))

    route_unit_cls, inject_unit_cls = _EcubeRouteUnit, _EcubeInjectUnit
