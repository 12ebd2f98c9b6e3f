"""The adaptive route stage (docs/router.md "Adaptive selection and run-time faults"; model: ``select`` in
sim/model/phases.py): two candidate hops for the head flit, one chosen each cycle; a packet whose candidates
are all faulty is discarded.

``AdaptiveSelect(num_ports, num_vcs, candidates, selection)``: ``route`` is the FIFO head's route word,
``head``/``tail`` its bits, ``ready`` the FIFO's not-empty, ``sent`` the lane's flit left. A candidate is
available when its output is not faulty (``fault``), its (output, VC) unlocked (``locked``) with room
(``room``). ``selection`` "availability" (Algorithm 2): the first available candidate; "least_used"
(Dandamudi and Eager Sec. IV-B): the one whose output sent fewer heads (``use``), the second if the first is faulty. ``hop``
is the choice; a head with both candidates faulty raises ``discard`` and the rest of its packet is popped
as it comes (``dropping``); ``live`` (a flit to request with) and ``pop`` (the FIFO's read enable) follow.
"""
from __future__ import annotations

from amaranth import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..route.base import NodeUnit, node_id_member
from .late_route import HopSignature
from .output_unit import USE_WIDTH


class AdaptiveSelect(wiring.Component):
    def __init__(self, num_ports: int, num_vcs: int, candidates: NodeUnit, route_width: int, *,
                 selection: str = "availability", lane: int = 0):
        self.num_ports, self.num_vcs, self.candidates = num_ports, num_vcs, candidates
        self.selection, self.lane = selection, lane
        P, V = num_ports, num_vcs
        members = {"route": In(route_width), "head": In(1), "tail": In(1), "ready": In(1), "sent": In(1),
                   "fault": In(P), "locked": In(P * V), "room": In(P * V),
                   "hop": Out(HopSignature(P, V, route_width)), "live": Out(1), "pop": Out(1), "discard": Out(1),
                   **node_id_member(candidates)}
        if selection == "least_used":
            members["use"] = In(USE_WIDTH).array(P)
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        V, local, c, hop = self.num_vcs, self.num_ports - 1, self.lane, self.hop
        u = self.candidates.add(m, "cand", getattr(self, "node_id", None))
        m.d.comb += u.route.eq(self.route)
        cv0, cv1 = (Mux(u.port0 == local, 0, u.vc0), Mux(u.port1 == local, 0, u.vc1)) if V > 1 else (0, 0)
        f0, f1 = self.fault.bit_select(u.port0, 1), self.fault.bit_select(u.port1, 1) | ~u.has1
        a0, a1 = [~f & ~self.locked.bit_select(p * V + cv, 1) & self.room.bit_select(p * V + cv, 1)
                  for f, p, cv in ((f0, u.port0, cv0), (f1, u.port1, cv1))]
        pick1 = Signal(name=f"pick1_{c}")
        if self.selection == "least_used":              # Dandamudi & Eager Sec. IV-B: the less used output
            use0, use1 = Signal(USE_WIDTH), Signal(USE_WIDTH)
            for p, use in ((u.port0, use0), (u.port1, use1)):
                with m.Switch(p):
                    for o in range(local):
                        with m.Case(o):
                            m.d.comb += use.eq(self.use[o])
            m.d.comb += pick1.eq(u.has1 & (f0 | (~f1 & (use1 < use0))))
        else:                                             # Algorithm 2: the first available candidate
            m.d.comb += pick1.eq(u.has1 & ~a0 & (a1 | f0))
        m.d.comb += [hop.port.eq(Mux(pick1, u.port1, u.port0)), hop.vc.eq(Mux(pick1, cv1, cv0)),
                     hop.new_route.eq(Mux(pick1, u.new1.as_value(), u.new0.as_value()))]
        dropping = Signal(name=f"discarding_{c}")
        m.d.comb += [self.live.eq(self.ready & ~dropping), self.discard.eq(self.live & self.head & f0 & f1),
                     self.pop.eq(self.sent | self.discard | (self.ready & dropping))]
        with m.If(self.discard & ~self.tail):
            m.d.sync += dropping.eq(1)
        with m.If(self.ready & dropping & self.tail):
            m.d.sync += dropping.eq(0)
        return m
