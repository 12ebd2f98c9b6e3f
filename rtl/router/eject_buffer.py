# amaranth: UnusedElaboratable=no
"""The pipelined router's ejection buffer (docs/router.md "Pipelined router"; model: ``pipe_eject`` in
sim/model/pipelined.py, ``EJECT_DEPTH`` entries).

``EjectBuffer(layout, payload_width)`` sits between the local output unit and ``local_out``. ``out`` offers
the buffer's head, else the flit crossing to it now (``valid``, ``flit``); a crossing flit not taken at once
waits in the buffer (two entries). ``room``/``room2``: room for one / two more flits (registers; the output
unit requests the local output only when there will be room after this cycle's crossing). ``tail_taken``:
a tail left on ``out`` this cycle (the ``ejected`` counter's event), its tail bit from registers where it
can be (the buffer's head), not through the crossbar.
"""
from __future__ import annotations

from amaranth import Mux
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ...sim.model.phases import EJECT_DEPTH
from ..flit import local_signature
from ..gates import inline
from .fifo import HeadFifo


class EjectBuffer(wiring.Component):
    def __init__(self, layout: data.StructLayout, payload_width: int):
        self.layout = layout
        super().__init__({"valid": In(1), "flit": In(layout), "out": Out(local_signature(payload_width)),
                          "room": Out(1), "room2": Out(1), "tail_taken": Out(1)})

    def elaborate(self, platform):
        out = self.out
        buf = self.buffer = HeadFifo(self.layout.size, EJECT_DEPTH)
        # the FIFO's logic in this module, not a submodule of it: with the extra level yosys maps the UP5K's
        # pipelined router to 49.8 MHz (median of nextpnr seeds 1-5), one level 53.8 (docs/decisions)
        m = inline(buf, platform)
        head = data.View(self.layout, buf.r_data)
        m.d.comb += [buf.w_data.eq(self.flit), buf.w_en.eq(self.valid & (buf.r_rdy | self._stalled())),
                     buf.r_en.eq(out.ready), out.valid.eq(buf.r_rdy | self.valid),
                     self.room.eq(buf.w_rdy), self.room2.eq(buf.w_rdy2),
                     self.tail_taken.eq(out.valid & out.ready & Mux(buf.r_rdy, head.tail, self.flit.tail))]
        for name in ("head", "tail", "data"):
            m.d.comb += getattr(out.payload, name).eq(Mux(buf.r_rdy, getattr(head, name), getattr(self.flit, name)))
        return m

    def _stalled(self):
        """``local_out`` stalls: a flit crossing now waits in the buffer; the rule a seeded bug of
        rtl/formal/mutations.py replaces (docs/decisions/seeded-bugs.md)."""
        return ~self.out.ready
