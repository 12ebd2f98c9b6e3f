"""The input unit of docs/router.md: a FIFO per VC, the route stage on each FIFO head, the requests.

``InputUnit(router, port)`` has one *lane* per FIFO (V on a network input, one on the local input, which
the :class:`~.source.SourceInterface` feeds). Per lane, the route stage turns the head flit into the output
it wants (``port``), its output VC and new route, and raises ``request`` bit o when

* a head wants o, o is unlocked for that VC (``locked``) and not faulty, or
* a body/tail flit follows its head: o = ``cur_out``;

with the ``room`` of the flit's downstream VC on top when the router masks requests by ``ready`` (V > 1
and the adaptive router, docs/router.md "Virtual channels"). ``sent`` (the lane's flit left by some
output) pops the FIFO and, on a head, sets ``cur_out``/``cur_vc``. The route stage is one of three policies:

* unicast: the family's route unit (``routing.route``);
* adaptive (docs/router.md "Adaptive selection and run-time faults"): two candidates, chosen each cycle by
  availability (Algorithm 2) or by the outputs' ``use`` counts (least used); a head whose candidates are
  all faulty is discarded with its packet (``discard``);
* broadcast (docs/router.md "Broadcast and multicast"): the route unit plus a fork unit; a broadcast head
  is ``eligible`` when every output it ``want``s is unlocked with an empty downstream FIFO, takes them all
  when ``chosen`` (``held``) and is ``present``ed on each until every branch has sent it.

Per-output queues (``queues="voq"``, docs/router.md "Per-output queues (VOQ)"): lane c holds the flits
for output ``outputs[c] == [o]`` only (one lane per allowed turn, the local input too). A link flit is
written into the lane its ``vc`` names (the upstream's lookahead) and ``ready`` has one bit per lane; the
local input's lane is the route unit's port on the source's header. The route stage adds a lookahead
unit: the route unit of the neighbour at o on the new header gives the flit's ``vc`` at the next router.

Route at the write (``router.route_at_write``: oblivious unicast routing with one FIFO per input or VC, the
default router; docs/router.md "Route at the write"): the route unit works on the flit being written, so
the FIFO holds routed flits with their one-hot output (``want``) and the head register already holds the
request's output; a body flit gets the output of the head written before it (``cur_out`` at the write).

Pipelined (``pipeline=True``, docs/router.md "Pipelined router"): routed at the write as above; a lane's stage register
holds the flit crossing the crossbar; the lane's candidate (the FIFO head while the stage is empty or
crossing, else the stage) requests; ``sent`` is a grant (the crossing follows next cycle).
"""
from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..gates import any_of, fix_bits, node_width
from ..route.candidates import candidate_unit
from ..route.fork import ForkUnit
from .fifo import HeadFifo
from .output_unit import USE_WIDTH


class InputUnit(wiring.Component):
    def __init__(self, router, port: int):
        r = self.router = router
        self.port = port
        P, V = r.num_ports, r.num_vcs
        voq = r.queues == "voq"
        turns = [o for o in range(P) if r.allowed[port][o]]
        #: the outputs each lane may request (VOQ: lane c feeds output ``outputs[c][0]`` only)
        self.outputs = [[o] for o in turns] if voq else [turns] * (1 if port == r.local else V)
        L = self.num_lanes = len(self.outputs)
        members = {"i": In(stream.Signature(r.flit_layout) if port == r.local else r.link_signature),
                   "locked": In(P * V), "room": In(P * V), "sent": In(L),
                   "request": Out(P).array(L), "flit": Out(r.flit_layout).array(L)}
        if r.node_generic:
            members["node_id"] = In(node_width(r.topology))
        if r.pipeline:
            members["cand_tail"] = Out(L)
        if r.adaptive:
            members.update({"fault": In(P), "use": In(USE_WIDTH).array(P), "discard": Out(L)})
        if r.broadcast is not None:
            members.update({"empty": In(P), "out_ready": In(P), "chosen": In(1), "taken": In(P),
                            "eligible": Out(1), "want": Out(P), "present": Out(P), "forking": Out(1),
                            "fork_route": Out(r.flit_layout["route"].width).array(P)})
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        r, s = self.router, self.i
        voq, lane_ready = r.queues == "voq", []
        if voq and self.port == r.local:               # the packet's first output picks the local lane
            first = self._unit(m, "first", r.adapter.route_unit(r.node))
            m.d.comb += first.route.eq(Value.cast(s.payload.route)[:r.routing.layout.width])
        for c in range(self.num_lanes):
            lay = r.flit_layout            # routed at the write: route and data are read by the crossbar alone
            late = (lay["route"].offset, lay["data"].offset + lay["data"].width) if r.route_at_write else None
            fifo = m.submodules[f"fifo_{c}"] = HeadFifo(lay.size + (r.num_ports if r.route_at_write else 0), r.fifo_depth,
                                                        memory=r.fifo_memory, clear_top=r.num_ports * r.pipeline, late=late)
            if r.pipeline:
                self._pipe_lane(m, c, fifo)
                continue
            if voq:
                o = self.outputs[c][0]
                mine = (first.port == o) if self.port == r.local else (s.payload.vc == o)
                lane_ready.append(mine & fifo.w_rdy)
                m.d.comb += [fifo.w_data.eq(s.payload), fifo.w_en.eq(s.valid & mine)]
                if self.port != r.local:
                    m.d.comb += s.ready[o].eq(fifo.w_rdy)
            else:
                m.d.comb += [s.ready[c].eq(fifo.w_rdy),
                             fifo.w_en.eq(s.valid & (s.payload.vc == c) if self.num_lanes > 1 else s.valid)]
                if not r.route_at_write:
                    m.d.comb += fifo.w_data.eq(s.payload)
            if r.broadcast is not None and self.port != r.local:
                m.d.comb += s.empty.eq(~fifo.r_rdy)
            self._lane(m, c, fifo)
        if voq and self.port == r.local:
            m.d.comb += s.ready.eq(any_of(lane_ready))
        return m

    def _unit(self, m, name, unit, node=None):
        """Add a route/fork unit; its ``node_id`` is this router's (or ``node``, a neighbour's: VOQ lookahead)."""
        m.submodules[name] = unit
        if "node_id" in unit.signature.members:
            r = self.router
            node = r.node if node is None else node
            m.d.comb += unit.node_id.eq(self.node_id if r.node_generic else Const(node, len(unit.node_id)))
        return unit

    def _lane(self, m: Module, c: int, fifo: HeadFifo) -> None:
        r = self.router
        P, V, local = r.num_ports, r.num_vcs, r.local
        live, pop = Signal(name=f"live_{c}"), Signal(name=f"pop_{c}")
        m.d.comb += [live.eq(fifo.r_rdy), pop.eq(self.sent[c])]
        forking = Const(0)
        f = self.flit[c]
        if r.route_at_write:          # docs/router.md "Route at the write": the head holds its want bits
            head, want = self._routed(m, c, fifo)
            vc = out_vc = head.vc if V > 1 else Const(0)
            m.d.comb += [f.eq(head), fifo.r_en.eq(pop)]
        else:
            head = data.View(r.flit_layout, fifo.r_data)
            route = Value.cast(head.route)
            cur_out = Signal(range(P), name=f"cur_out_{c}")
            cur_vc = Signal(range(max(2, V)), name=f"cur_vc_{c}")
            port, vc = Signal(range(P), name=f"port_{c}"), Signal(range(max(2, V)), name=f"vc_{c}")
            new = Signal(r.routing.layout.width, name=f"new_route_{c}")
            if r.adaptive:
                self._select(m, c, head, route, fifo, live, pop, port, vc, new)
            else:
                ru = self._unit(m, f"route_{c}", r.adapter.route_unit(r.node))
                m.d.comb += [ru.route.eq(route[:r.routing.layout.width]), port.eq(ru.port),
                             new.eq(ru.new_route.as_value())]
                if r.queues == "voq" and self.outputs[c][0] != local:   # lookahead: the next router's output
                    far = r.topology.neighbor(r.node, self.outputs[c][0])[0]
                    ahead = self._unit(m, f"ahead_{c}", r.adapter.route_unit(far), far)
                    m.d.comb += [ahead.route.eq(ru.new_route), vc.eq(ahead.port)]
                elif V > 1 and r.queues == "fifo":
                    m.d.comb += vc.eq(Mux(ru.port == local, 0, ru.vc))
                if r.broadcast is not None:
                    forking = self._fork(m, head, route, fifo, pop)
            out_vc = Mux(head.head, vc, cur_vc)
            m.d.comb += [f.head.eq(head.head), f.tail.eq(head.tail), f.data.eq(head.data), f.route.eq(new),
                         fifo.r_en.eq(pop)]
            if V > 1:
                m.d.comb += f.vc.eq(out_vc)
            with m.If(self.sent[c] & head.head):
                m.d.sync += [cur_out.eq(port), cur_vc.eq(vc)]
        masked = V > 1 or r.adaptive
        for o in self.outputs[c]:
            lock = (self.locked.bit_select(o * V + vc, 1) if V > 1 and o != local and r.queues == "fifo"
                    else self.locked[o * V])         # VOQ: one lock per output
            room = self.room.bit_select(o * V + out_vc, 1) if masked and o != local else Const(1)
            if r.route_at_write:      # a body flit's want is its head's output (``_routed``)
                hit = want[o] & (~head.head | ~lock)
            else:
                fault = self.fault[o] if r.adaptive else Const(0)
                taken = self.taken[o] if r.broadcast is not None else Const(0)
                hit = Mux(head.head, (port == o) & ~lock & ~fault, cur_out == o) & ~taken
            m.d.comb += self.request[c][o].eq(live & room & ~forking & hit)

    def _routed(self, m: Module, c: int, fifo: HeadFifo):
        """docs/router.md "Route at the write" (oblivious unicast routing, one FIFO per input or VC): the route
        unit works on the flit being written; a FIFO entry is the flit with its new route, its output VC
        (V > 1) and its one-hot output ``want``. Returns the head (a View) and its ``want`` bits."""
        r, s = self.router, self.i
        P, V, lay, outs = r.num_ports, r.num_vcs, r.flit_layout, self.outputs[c]
        ru = self._unit(m, f"route_{c}", r.adapter.route_unit(r.node))
        routed, head = Signal(lay, name=f"routed_{c}"), s.payload.head
        # a body flit takes the output and VC of the head written before it, whatever route it carries: the
        # input's ``cur_out``/``cur_vc`` (docs/router.md "Router"), known at the write as the FIFO is in order
        pkt_want = Signal(P, name=f"pkt_want_{c}", init=int(0 in outs))     # reset: output 0, VC 0
        pkt_vc = Signal(range(max(2, V)), name=f"pkt_vc_{c}")
        want = Cat(*[(ru.port == o) if o in outs else Const(0) for o in range(P)])
        vc = Mux(ru.port == r.local, 0, ru.vc) if V > 1 else Const(0)
        with m.If(fifo.w_en & fifo.w_rdy & head):
            m.d.sync += [pkt_want.eq(want), pkt_vc.eq(vc)]
        route = fix_bits(Value.cast(s.payload.route)[:r.routing.layout.width], r.fixed_bits.get(("in", self.port)))
        m.d.comb += [ru.route.eq(route), routed.eq(s.payload),
                     routed.route.eq(ru.new_route.as_value()), fifo.w_data.eq(Cat(routed, Mux(head, want, pkt_want)))]
        if V > 1:
            m.d.comb += routed.vc.eq(Mux(head, vc, pkt_vc))
        return data.View(lay, fifo.r_data[:lay.size]), fifo.r_data[lay.size:]

    def _pipe_lane(self, m: Module, c: int, fifo: HeadFifo) -> None:
        """docs/router.md "Pipelined router": the route unit on the flit being written (``_routed``; a body
        flit gets its head's output); FIFO entries are the routed flit and its one-hot ``want``. The stage register holds the flit that crosses this cycle (``crossing``: granted last
        cycle) or waits; the candidate is the FIFO head when the stage is empty or crossing, else the stage.
        All of it from registers: the FIFO pops (into the stage) on ``advance`` (a register: crossing |
        stage empty)."""
        r, s = self.router, self.i
        P, lay = r.num_ports, r.flit_layout
        head, f_want = self._routed(m, c, fifo)
        m.d.comb += [fifo.w_en.eq(s.valid), s.ready.eq(fifo.w_rdy)]
        if self.port != r.local:
            m.d.comb += s.ready2.eq(fifo.w_rdy2)
        stage, s_want = Signal(lay, name=f"stage_{c}"), Signal(P, name=f"stage_want_{c}")
        adv = Signal(name=f"advance_{c}", init=1)     # a register: crossing | stage empty
        want = Signal(P, name=f"want_{c}")          # the FIFO head's ``want`` reads 0 while empty (clear_top)
        m.d.comb += [fifo.r_en.eq(adv), self.flit[c].eq(stage), want.eq(Mux(adv, f_want, s_want)),
                     self.cand_tail[c].eq(Mux(adv, head.tail, stage.tail))]
        for o in self.outputs[c]:       # ``locked``: o is locked by another lane (a registered bit per lane)
            m.d.comb += self.request[c][o].eq(want[o] & ~self.locked[o] & self.room[o])
        with m.If(adv):
            m.d.sync += [stage.eq(head), s_want.eq(f_want)]
        m.d.sync += adv.eq(self.sent[c] | (adv & ~fifo.r_rdy))   # granted now, or the stage stays empty

    def _select(self, m, c, head, route, fifo, live, pop, port, vc, new) -> None:
        """The adaptive route stage: pick a candidate; discard a packet whose candidates are all faulty."""
        r = self.router
        V, local = r.num_vcs, r.local
        u = self._unit(m, f"cand_{c}", candidate_unit(r.routing, r.node))
        m.d.comb += u.route.eq(route)
        cv0, cv1 = (Mux(u.port0 == local, 0, u.vc0), Mux(u.port1 == local, 0, u.vc1)) if V > 1 else (0, 0)
        f0, f1 = self.fault.bit_select(u.port0, 1), self.fault.bit_select(u.port1, 1) | ~u.has1
        a0, a1 = [~f & ~self.locked.bit_select(p * V + cv, 1) & self.room.bit_select(p * V + cv, 1)
                  for f, p, cv in ((f0, u.port0, cv0), (f1, u.port1, cv1))]
        pick1 = Signal(name=f"pick1_{c}")
        if r.routing.selection == "least_used":        # seed 001 Sec. IV-B: the less used output
            use0, use1 = Signal(USE_WIDTH), Signal(USE_WIDTH)
            for p, use in ((u.port0, use0), (u.port1, use1)):
                with m.Switch(p):
                    for o in range(local):
                        with m.Case(o):
                            m.d.comb += use.eq(self.use[o])
            m.d.comb += pick1.eq(u.has1 & (f0 | (~f1 & (use1 < use0))))
        else:                                             # Algorithm 2: the first available candidate
            m.d.comb += pick1.eq(u.has1 & ~a0 & (a1 | f0))
        m.d.comb += [port.eq(Mux(pick1, u.port1, u.port0)), vc.eq(Mux(pick1, cv1, cv0)),
                     new.eq(Mux(pick1, u.new1.as_value(), u.new0.as_value()))]
        dropping, discard = Signal(name=f"discarding_{c}"), self.discard[c]
        m.d.comb += [live.eq(fifo.r_rdy & ~dropping), discard.eq(live & head.head & f0 & f1),
                     pop.eq(self.sent[c] | discard | (fifo.r_rdy & dropping))]
        with m.If(discard & ~head.tail):
            m.d.sync += dropping.eq(1)
        with m.If(fifo.r_rdy & dropping & head.tail):
            m.d.sync += dropping.eq(0)

    def _fork(self, m, head, route, fifo, pop):
        """The broadcast route stage (V = 1); returns ``forking`` (the head is a broadcast: no unicast request)."""
        r = self.router
        P, local = r.num_ports, r.local
        alg = r.broadcast
        make = getattr(alg, "fork_unit", None)           # an algorithm may bring its own fork unit
        fk = self._unit(m, "fork", make(r.node) if make is not None else ForkUnit(alg, r.node))
        m.d.comb += [fk.tag.eq(route[:alg.layout.width]), fk.origin.eq(int(self.port == local))]
        for o in range(local):
            m.d.comb += self.fork_route[o].eq(fk.new_tag[o])
        held, done, bmode = Signal(P, name="held"), Signal(P, name="done"), Signal(name="bmode")
        wants, full = Signal(P, name="wants"), Signal(name="full")
        m.d.comb += [self.forking.eq(fifo.r_rdy & (bmode | (head.head & head.bcast))),
                     self.want.eq(Cat(fk.ports[:local] if local else Const(0, 0), fk.keep)),
                     wants.eq(Mux(bmode, held, self.want)),
                     self.eligible.eq(self.forking & ~bmode & (held == 0) & (wants != 0) &
                                      ((wants & (self.locked | ~self.empty)) == 0)),
                     full.eq(self.forking & ((held == wants) | self.chosen)),
                     self.present.eq(Mux(full, wants & ~done, 0))]
        with m.If(self.chosen & self.taken.any()):
            m.d.sync += held.eq(self.want)
        sent_all = Signal(P, name="sent_all")          # only the outputs this input may turn to can send
        turns = sum(1 << o for o in range(P) if r.allowed[self.port][o])
        m.d.comb += sent_all.eq(done | (self.present & self.out_ready & turns))
        last = full & (sent_all == wants)                 # every branch has sent this flit: pop it
        m.d.comb += pop.eq(self.sent[0] | last)
        with m.If(last):
            m.d.sync += done.eq(0)
            with m.If(head.tail):
                m.d.sync += [held.eq(0), bmode.eq(0)]
            with m.Elif(head.head):
                m.d.sync += bmode.eq(1)
        with m.Elif(full):
            m.d.sync += done.eq(sent_all)
        return self.forking
