"""The route at the FIFO head (docs/router.md "Route compute"): the route stage of the routers that do not route
at the write, the broadcast router's unicast flits and per-output queues (docs/router.md "Per-output queues").

``LateRoute(num_ports, route_unit, route_width)``: ``route`` is the head flit's route word; ``hop`` (a
:class:`HopSignature`, ``vc`` of ``num_vcs`` values) the route unit's decision: ``port``, ``new_route`` and
the output ``vc``: the route unit's VC (0 at the local output) when it has one (V > 1), or with ``lookahead`` (VOQ: the route unit of the
neighbour this lane's output leads to) that neighbour's output for the new route: the queue the flit
joins there.
"""
from __future__ import annotations

from amaranth import Module, Mux
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..route.base import NodeUnit, node_id_member


class HopSignature(wiring.Signature):
    """A route stage's decision for the head flit (the model's ``Hop``): output ``port``, its ``vc`` and
    the ``new_route`` the flit leaves with."""

    def __init__(self, num_ports: int, num_vcs: int, route_width: int):
        super().__init__({"port": Out(range(num_ports)), "vc": Out(range(max(2, num_vcs))),
                          "new_route": Out(route_width)})


class LateRoute(wiring.Component):
    def __init__(self, num_ports: int, route_unit: NodeUnit, route_width: int, *, num_vcs: int = 1,
                 lookahead: NodeUnit | None = None):
        self.num_ports, self.num_vcs, self.route_unit, self.lookahead = num_ports, num_vcs, route_unit, lookahead
        super().__init__({"route": In(route_width), "hop": Out(HopSignature(num_ports, num_vcs, route_width)),
                          **node_id_member(route_unit, lookahead)})

    def elaborate(self, platform):
        m = Module()
        node_id, hop = getattr(self, "node_id", None), self.hop
        ru = self.route_unit.add(m, "route", node_id)
        m.d.comb += [ru.route.eq(self.route), hop.port.eq(ru.port), hop.new_route.eq(ru.new_route.as_value())]
        if self.lookahead is not None:              # VOQ: the next router's output is the flit's vc
            ahead = self.lookahead.add(m, "ahead", node_id)
            m.d.comb += [ahead.route.eq(ru.new_route), hop.vc.eq(ahead.port)]
        elif "vc" in ru.signature.members:          # V > 1: the route unit's VC (none at the local output)
            m.d.comb += hop.vc.eq(Mux(ru.port == self.num_ports - 1, 0, ru.vc))
        return m
