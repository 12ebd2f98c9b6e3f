"""Route-compute and injection units: the interface every family's adapter builds (docs/router.md).

A *routing adapter* (:class:`RoutingRTL`) says how one routing function of ``sim/routing`` is built in gates:

* ``route_unit(node)``: combinational ``route`` (header) -> ``port``, ``new_route`` (header) and, for
  V > 1, ``vc`` -- what the router's route-compute stage does on a head flit;
* ``inject_unit(node)``: combinational ``dest`` (DEST_WIDTH bits) -> ``route``, the header the source
  interface writes into the local input FIFO (``RoutingFunction.inject``).

An adapter with ``node_generic = True`` builds units that take the node address as an input signal
``node_id`` (one router module serves every node of the same shape); otherwise the node is a constant.
Families register their adapter with ``@register(TheirRouting)``; :func:`cubenoc.rtl.route.rtl_for` finds it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from amaranth import Const
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ...sim.routing.base import RoutingFunction
from ..flit import DEST_WIDTH
from ..gates import node_width

#: the largest header (and node count, in bits) the generic ROM fallback tabulates
ROM_MAX_BITS = 12

REGISTRY: dict[type, type] = {}


def register(routing_cls: type):
    """Class decorator: ``@register(EcubeRouting) class EcubeRTL(RoutingRTL)``."""
    def deco(adapter_cls):
        REGISTRY[routing_cls] = adapter_cls
        return adapter_cls
    return deco


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

    #: the unit classes an adapter builds (``(routing, node, node_generic)``); or override the methods
    route_unit_cls: type | None = None
    inject_unit_cls: type | None = None

    def route_unit(self, node: int) -> RouteUnit:
        return self.route_unit_cls(self.routing, node, self.node_generic)

    def inject_unit(self, node: int) -> InjectUnit:
        return self.inject_unit_cls(self.routing, node, self.node_generic)


@dataclass(frozen=True)
class NodeUnit:
    """How a router unit holds one node's combinational unit (route, inject, candidate, fork unit): ``make()``
    builds it at elaboration; its ``node_id`` input, if it has one, reads the router's ``node_id`` when
    ``id_width`` > 0 (a node-generic router: one module for every node), else the constant ``node``."""

    make: Callable[[], wiring.Component]
    node: int
    id_width: int = 0

    def add(self, m, name: str, node_id=None) -> wiring.Component:
        """Build the unit as submodule ``name`` of ``m``; ``node_id``: the holder's input (node-generic)."""
        unit = m.submodules[name] = self.make()
        if "node_id" in unit.signature.members:
            m.d.comb += unit.node_id.eq(node_id if self.id_width else Const(self.node, len(unit.node_id)))
        return unit


def node_id_member(*units) -> dict:
    """The ``node_id`` input a unit holding these node units needs (none when all are constant)."""
    width = max((u.id_width for u in units if u is not None), default=0)
    return {"node_id": In(width)} if width else {}
