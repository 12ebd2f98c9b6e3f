"""The pipelined router's lane stage (docs/router.md "Pipelined router"; model: the candidate and stage of
``pipe_request`` in sim/model/pipelined.py), behind a FIFO of flits routed at the write (:mod:`.route_at_write`).

``PipeStage(layout, num_ports, outputs)``: ``entry`` is the FIFO head (the routed flit and its one-hot
``want`` above it; the ``want`` bits read 0 while the FIFO is empty), ``ready`` the FIFO's not-empty. The
stage register holds the flit that crosses the crossbar this cycle (granted last cycle) or waits; the
candidate is the FIFO head when the stage is empty or crossing (``advance``, a register), else the stage.
The candidate requests its output when that output has ``room`` one cycle ahead and is not ``locked`` by
another lane; ``sent`` is a grant. ``flit`` (the stage) is what crosses, ``cand_tail`` the candidate's tail
bit (the output unit's lock); ``pop`` (= ``advance``) moves the FIFO head into the stage.
"""
from __future__ import annotations

from amaranth import Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out



class PipeStage(wiring.Component):
    def __init__(self, layout: data.StructLayout, num_ports: int, outputs, *, lane: int = 0):
        """``outputs``: the outputs this lane may request; ``lane`` numbers the registers (``stage_want_0``)."""
        self.layout, self.num_ports, self.outputs, self.lane = layout, num_ports, tuple(outputs), lane
        P = num_ports
        super().__init__({"entry": In(layout.size + P), "ready": In(1), "locked": In(P), "room": In(P),
                          "sent": In(1), "pop": Out(1), "request": Out(P), "flit": Out(layout), "cand_tail": Out(1)})

    def elaborate(self, platform):
        m = Module()
        P, lay, c = self.num_ports, self.layout, self.lane
        head, f_want = data.View(lay, self.entry[:lay.size]), self.entry[lay.size:]
        stage, s_want = Signal(lay, name=f"stage_{c}"), Signal(P, name=f"stage_want_{c}")
        adv = Signal(name=f"advance_{c}", init=1)     # a register: crossing | stage empty
        want = Signal(P, name=f"want_{c}")
        m.d.comb += [self.pop.eq(adv), self.flit.eq(stage), want.eq(Mux(adv, f_want, s_want)),
                     self.cand_tail.eq(Mux(adv, head.tail, stage.tail))]
        for o in self.outputs:        # ``locked``: o is locked by another lane (a registered bit per lane)
            m.d.comb += self.request[o].eq(want[o] & ~self.locked[o] & self._room(o))
        with m.If(adv):
            m.d.sync += [stage.eq(head), s_want.eq(f_want)]
        m.d.sync += adv.eq(self.sent | (adv & ~self.ready))   # granted now, or the stage stays empty
        self.stage, self.stage_want, self.advance = stage, s_want, adv   # the state: the stage register
        return m

    def _room(self, o):
        """Room downstream of o (a request waits for it); the rule a seeded bug of rtl/formal/mutations.py
        replaces (docs/decisions/seeded-bugs.md)."""
        return self.room[o]
