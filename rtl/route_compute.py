"""Route-compute and injection units: the per-hop routing decision of ``sim/routing`` in gates.

Every routing function is built through a *routing adapter* (:class:`RoutingRTL`), found by
:func:`rtl_for` in a registry keyed by the routing function's class:

* ``route_unit(node)``: combinational ``route`` (header) -> ``port``, ``new_route`` (header) and, for
  V > 1, ``vc`` -- what the router's route-compute stage does on a head flit (docs/router.md);
* ``inject_unit(node)``: combinational ``dest`` (DEST_WIDTH bits) -> ``route``, the header the source
  interface writes into the local input FIFO (``RoutingFunction.inject``).

An adapter with ``node_generic = True`` builds units that take the node address as an input signal
``node_id`` (one router module serves every node of the same shape); otherwise the node is a constant.
Families plug in their own adapter with ``@register(TheirRouting)``. Without one, :class:`RomRTL`
tabulates the Python function over every header value (headers up to ``ROM_MAX_BITS`` bits).
"""
from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from cubenoc.errors import CubenocError

from ..sim.routing.base import RoutingFunction
from ..sim.routing.hypercube import EcubeRouting
from .flit import DEST_WIDTH

#: the largest header (and node count, in bits) the generic ROM fallback tabulates
ROM_MAX_BITS = 12

_REGISTRY: dict[type, type] = {}


def register(routing_cls: type):
    """Class decorator: ``@register(EcubeRouting) class EcubeRTL(RoutingRTL)``."""
    def deco(adapter_cls):
        _REGISTRY[routing_cls] = adapter_cls
        return adapter_cls
    return deco


def rtl_for(routing: RoutingFunction) -> "RoutingRTL":
    """The adapter registered for the routing function's class (nearest in its MRO), else the ROM."""
    for cls in type(routing).__mro__:
        if cls in _REGISTRY:
            return _REGISTRY[cls](routing)
    return RomRTL(routing)


def node_width(topology) -> int:
    return max(1, (topology.num_nodes - 1).bit_length())


class RouteUnit(wiring.Component):
    """Combinational (node, route header) -> (port, new header[, vc]) of one node's router."""

    def __init__(self, routing: RoutingFunction, node: int, node_generic: bool):
        topo = routing.topology
        self.routing, self.node, self.num_ports = routing, node, topo.local_port(node) + 1
        members = {"route": In(routing.layout.amaranth()),
                   "port": Out(range(self.num_ports)),
                   "new_route": Out(routing.layout.amaranth())}
        if routing.num_vcs > 1:
            members["vc"] = Out(range(routing.num_vcs))
        if node_generic:
            members["node_id"] = In(node_width(topo))
        super().__init__(members)


class InjectUnit(wiring.Component):
    """Combinational destination -> route header of the source interface (``routing.inject``)."""

    def __init__(self, routing: RoutingFunction, node: int, node_generic: bool):
        self.routing, self.node = routing, node
        members = {"dest": In(DEST_WIDTH), "route": Out(routing.layout.amaranth())}
        if node_generic:
            members["node_id"] = In(node_width(routing.topology))
        super().__init__(members)


class RoutingRTL:
    """How one routing function is built in gates (see the module docstring)."""

    node_generic = False

    def __init__(self, routing: RoutingFunction):
        self.routing = routing

    def route_unit(self, node: int) -> RouteUnit:
        raise NotImplementedError

    def inject_unit(self, node: int) -> InjectUnit:
        raise NotImplementedError


# ---- hypercube / enhanced hypercube: seed 000 Sec. VI-B ---------------------------------------------
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

    def route_unit(self, node: int) -> RouteUnit:
        return _EcubeRouteUnit(self.routing, node, True)

    def inject_unit(self, node: int) -> InjectUnit:
        return _EcubeInjectUnit(self.routing, node, True)


# ---- generic fallback: tables filled from the Python routing function ------------------------------
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

    def route_unit(self, node: int) -> RouteUnit:
        return _RomRouteUnit(self.routing, node, False)

    def inject_unit(self, node: int) -> InjectUnit:
        return _RomInjectUnit(self.routing, node, False)


# the families' adapters register themselves on import (last: they import this module)
from . import route_hierarchical, route_metacube, route_pdn  # noqa: E402,F401
