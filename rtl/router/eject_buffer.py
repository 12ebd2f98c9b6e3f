"""The pipelined router's ejection buffer (docs/router.md "Pipelined router"; model: the local output's
FIFO of ``EJECT_DEPTH`` entries in sim/model/kernel.py's PIPE mode).

``EjectBuffer(flit_layout, payload_width)``: ``local_out`` (``o``) offers the buffer's head, else the flit
crossing to the local output now (``i_valid``/``i_flit``, the local output unit's registered grant: a
crossing flit is never refused, so there is no ready); a crossing flit that ``o`` does not take at once
waits in the buffer. ``w_rdy``/``w_rdy2``: room for one / two more flits after this cycle (the local
output's room, one cycle ahead); ``tail_out``: a tail leaves now, its tail bit from registers (``i_tail``,
the winner's own tail, not through the crossbar): the ``ejected`` counter's event.
"""
from __future__ import annotations

from amaranth import Module, Mux
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ...sim.model.kernel import EJECT_DEPTH
from ..flit import local_signature
from .fifo import HeadFifo


class EjectBuffer(wiring.Component):
    def __init__(self, flit_layout, payload_width: int):
        self.flit_layout = flit_layout
        super().__init__({"i_valid": In(1), "i_flit": In(flit_layout), "i_tail": In(1),
                          "o": Out(local_signature(payload_width)), "w_rdy": Out(1), "w_rdy2": Out(1),
                          "tail_out": Out(1)})

    def elaborate(self, platform):
        m = Module()
        buf = m.submodules.fifo = HeadFifo(self.flit_layout.size, EJECT_DEPTH)
        head, o = data.View(self.flit_layout, buf.r_data), self.o
        m.d.comb += [buf.w_data.eq(self.i_flit), buf.w_en.eq(self.i_valid & (buf.r_rdy | ~o.ready)),
                     buf.r_en.eq(o.ready), o.valid.eq(buf.r_rdy | self.i_valid),
                     self.w_rdy.eq(buf.w_rdy), self.w_rdy2.eq(buf.w_rdy2),
                     self.tail_out.eq(o.valid & o.ready & Mux(buf.r_rdy, head.tail, self.i_tail))]
        for name in ("head", "tail", "data"):
            m.d.comb += getattr(o.payload, name).eq(Mux(buf.r_rdy, getattr(head, name), getattr(self.i_flit, name)))
        return m
