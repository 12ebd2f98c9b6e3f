"""The route at the write (docs/router.md "Route at the write"): the route unit on the flit being written into
an input FIFO (oblivious unicast routing, one FIFO per input or VC; also the pipelined router's).

``RouteAtWrite(layout, num_ports, outputs, route_unit)``: ``flit`` is the flit offered to the FIFO,
``take`` says it is written this cycle; ``entry`` is the FIFO word: the flit with its new route, its output
VC (V > 1) and its output as one-hot ``want`` bits above the flit (bits ``layout.size`` up). A body flit
takes the output and VC of the head written before it (``pkt_want``/``pkt_vc``, reset: output 0, VC 0),
whatever route it carries: the FIFO is in order, so that head is the one last sent from the lane when the
body reaches the FIFO head. ``fixed`` (docs/router.md "Fixed route bits"): (mask, value) of the arriving
route word's bits every legal arrival agrees on.
"""
from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ..gates import fix_bits
from ..route.base import NodeUnit, node_id_member


class RouteAtWrite(wiring.Component):
    def __init__(self, layout: data.StructLayout, num_ports: int, outputs, route_unit: NodeUnit, *,
                 num_vcs: int = 1, fixed: tuple[int, int] | None = None, lane: int = 0):
        """``outputs``: the outputs this lane may request; ``lane`` numbers the registers (``pkt_want_0``)."""
        self.layout, self.num_ports, self.outputs, self.num_vcs = layout, num_ports, tuple(outputs), num_vcs
        self.route_unit, self.fixed, self.lane = route_unit, fixed, lane
        super().__init__({"flit": In(layout), "take": In(1), "entry": Out(layout.size + num_ports),
                          **node_id_member(route_unit)})

    def elaborate(self, platform):
        m = Module()
        P, lay, outs, c, s = self.num_ports, self.layout, self.outputs, self.lane, self.flit
        ru = self.route_unit.add(m, "route", getattr(self, "node_id", None))
        routed, head = Signal(lay, name=f"routed_{c}"), s.head
        pkt_want = Signal(P, name=f"pkt_want_{c}", init=int(0 in outs))     # reset: output 0, VC 0
        pkt_vc = Signal(range(max(2, self.num_vcs)), name=f"pkt_vc_{c}")
        want = Cat(*[(ru.port == o) if o in outs else Const(0) for o in range(P)])
        vc = Mux(ru.port == P - 1, 0, ru.vc) if self.num_vcs > 1 else Const(0)
        with m.If(self.take & head):
            m.d.sync += [pkt_want.eq(want), pkt_vc.eq(vc)]
        self.pkt_want, self.pkt_vc = pkt_want, pkt_vc     # the state: the packet being written (its output, VC)
        route = fix_bits(Value.cast(s.route)[:len(ru.route.as_value())], self.fixed)
        m.d.comb += [ru.route.eq(route), routed.eq(s),
                     routed.route.eq(ru.new_route.as_value()), self.entry.eq(Cat(routed, Mux(head, want, pkt_want)))]
        if self.num_vcs > 1:
            m.d.comb += routed.vc.eq(Mux(head, vc, pkt_vc))
        return m
