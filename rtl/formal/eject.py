"""Properties of the pipelined router's ejection buffer (rtl/router/eject_buffer.py), proved by k-induction.

The router proofs follow the pipelined router's local output where flits cross into this buffer;
``EjectHarness(layout)`` proves the rest of the way to ``local_out``, for any crossing sequence the output
unit's room rule allows (a crossing needs room for one flit after the previous cycle's, room for two when
the previous cycle crossed too: docs/router.md "Pipelined router") and any ``ready``:

* ``eject in order``: flits leave in the order they crossed, none lost or repeated (sequence numbers in
  the data bits), and ``eject unchanged``: head, tail and the tracked flit's whole data word as they crossed;
* ``eject no overflow``: a crossing flit is taken at once or written into a buffer with room;
* ``stream rule local_out``: an offer stays, unchanged, until taken;
* ``eject tail counted``: ``tail_taken`` is a tail leaving.
"""
from __future__ import annotations

from amaranth import Const, Elaboratable, Fragment, Module, Mux, Signal
from amaranth.asserts import AnyConst, AnySeq
from amaranth.hdl import Assume
from amaranth.lib import data

from ..router.eject_buffer import EjectBuffer
from .invariants import Elaborated, fifo_checks, fifo_view, followed
from .mutations import seeded
from .runner import check

SEQ_BITS = 3


class EjectHarness(Elaboratable):
    def __init__(self, layout: data.StructLayout, seeded_bug: str | None = None, invariants: bool = True):
        """``invariants``: assert the strengthening invariants (k-induction needs them; BMC does without)."""
        self.layout, self.seeded_bug, self.invariants = layout, seeded_bug, invariants
        self.properties: dict = {}

    def elaborating(self):
        """What :func:`~.runner.prove` wraps the conversion in: the seeded bug, if any."""
        return seeded(self.seeded_bug)

    def elaborate(self, platform):
        m = Module()
        ej = EjectBuffer(self.layout, self.layout["data"].width)
        m.submodules.eject = Elaborated(Fragment.get(ej, platform))   # now: the invariants read its registers
        valid, flit, ready = AnySeq(1), AnySeq(self.layout.size), AnySeq(1)
        m.d.comb += [ej.valid.eq(valid), ej.flit.as_value().eq(flit), ej.out.ready.eq(ready)]
        crossed, room, room2 = Signal(), Signal(init=1), Signal(init=1)     # last cycle's, registered here
        m.d.sync += [crossed.eq(valid), room.eq(ej.room), room2.eq(ej.room2)]
        m.d.comb += Assume(~valid | Mux(crossed, room2, room))
        in_seq, out_seq, tracked_seq = Signal(SEQ_BITS), Signal(SEQ_BITS), AnyConst(SEQ_BITS)
        tracked = AnyConst(len(ej.flit.data))
        f, o = ej.flit, ej.out
        with m.If(valid):
            m.d.comb += Assume(f.data[:SEQ_BITS] == in_seq)
            with m.If(in_seq == tracked_seq):
                m.d.comb += Assume(f.data == tracked)
            m.d.sync += in_seq.eq(in_seq + 1)
        xfer = o.valid & o.ready
        with m.If(xfer):
            m.d.sync += out_seq.eq(out_seq + 1)
        check(m, self, "eject in order", ~xfer | (o.payload.data[:SEQ_BITS] == out_seq))
        check(m, self, "eject unchanged", ~xfer | (o.payload.data[:SEQ_BITS] != tracked_seq) | (o.payload.data == tracked))
        check(m, self, "eject no overflow", ~valid | (o.ready & ~ej.buffer.r_rdy) | ej.buffer.w_rdy)
        stalled, held = Signal(), Signal(len(o.payload.as_value()))
        m.d.sync += [stalled.eq(o.valid & ~o.ready), held.eq(o.payload.as_value())]
        check(m, self, "stream rule local_out", ~stalled | (o.valid & (o.payload.as_value() == held)))
        check(m, self, "eject tail counted", ej.tail_taken == (xfer & o.payload.tail))
        if not self.invariants:
            return m
        # the invariants: the buffer's registers, and its flits numbered on from out_seq (the followed lane's)
        view = fifo_view(ej.buffer)
        fifo_checks(m, self, "ejection buffer", view)
        entries = [(p, d[:SEQ_BITS], d, 1) for p, d in ((p, data.View(self.layout, w).data) for p, w in view.entries)]
        followed(m, self, "ejection buffer", entries, view.count, (None, tracked_seq, tracked, in_seq, out_seq, None), Const(1))
        return m

