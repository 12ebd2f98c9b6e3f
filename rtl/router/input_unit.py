"""The input unit of docs/router.md: a FIFO per VC, the route stage on each lane, the requests.

``InputUnit(InputParams(...))`` has one *lane* per FIFO (V on a network input, one on the local input, which
the :class:`~.source.SourceInterface` feeds). Per lane, the route stage turns the head flit into the output
it wants, its output VC and new route, and raises ``request`` bit o when

* a head wants o, o is unlocked for that VC (``locked``) and not faulty, or
* a body/tail flit follows its head: o = ``cur_out``;

with the ``room`` of the flit's downstream VC on top when the router masks requests by ``ready`` (V > 1
and the adaptive router, docs/router.md "Virtual channels"). ``sent`` (the lane's flit left by some
output) pops the FIFO and, on a head, sets ``cur_out``/``cur_vc``. The route stage is the one the
parameters call for (:attr:`InputParams.stage`), each a component of its own:

* ``write`` (:class:`~.route_at_write.RouteAtWrite`, docs/router.md "Route at the write"; oblivious unicast
  routing with one FIFO per input or VC, the default router): the route unit on the flit being written; the
  FIFO holds routed flits with their one-hot output (``want``), so the head register already holds the
  request's output;
* ``pipelined`` (the same at the write, then :class:`~.pipe_stage.PipeStage`, docs/router.md "Pipelined
  router"): a stage register per lane holds the flit crossing the crossbar; ``sent`` is a grant;
* ``adaptive`` (:class:`~.adaptive_select.AdaptiveSelect`, docs/router.md "Adaptive selection and run-time
  faults"): two candidates, one chosen each cycle; a head whose candidates are all faulty is discarded with
  its packet (``discard``);
* ``late`` (:class:`~.late_route.LateRoute`): the route unit on the FIFO head; with a broadcast algorithm
  (docs/router.md "Broadcast and multicast") a :class:`~.fork_stage.ForkStage` beside it.

Per-output queues (``queues="voq"``, docs/router.md "Per-output queues (VOQ)"): lane c holds the flits
for output ``outputs[c] == [o]`` only (one lane per allowed turn, the local input too). A link flit is
written into the lane its ``vc`` names (the upstream's lookahead) and ``ready`` has one bit per lane; the
local input's lane is the route unit's port on the source's header. The late route adds a lookahead unit:
the route unit of the neighbour at o on the new header gives the flit's ``vc`` at the next router.
"""
from __future__ import annotations

from dataclasses import dataclass

from amaranth import Const, Module, Mux, Signal, Value
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from cubenoc.errors import CubenocError

from ..flit import link_signature_of
from ..gates import any_of
from ..route.base import NodeUnit, node_id_member
from .adaptive_select import AdaptiveSelect
from .fifo import HeadFifo
from .fork_stage import ForkStage
from .late_route import LateRoute
from .output_unit import USE_WIDTH
from .pipe_stage import PipeStage
from .route_at_write import RouteAtWrite


@dataclass(frozen=True)
class InputParams:
    """What one router input is built from (the Router derives it from its config and plan)."""

    flit_layout: data.StructLayout          # the link flit (docs/router.md "Flits and links")
    num_ports: int                          # P; port P-1 is local
    outputs: tuple[int, ...]                # the outputs a turn from this input may take (the plan's turns)
    route_unit: NodeUnit                    # this node's route unit (``routing.route`` in gates)
    route_width: int                        # bits of the routing function's header
    local: bool = False                     # the local input: one lane, fed by the source interface
    num_vcs: int = 1                        # V of the links (per-output queues: the largest P)
    fifo_depth: int = 4
    fifo_storage: bool | str | None = False  # HeadFifo's ``memory`` (docs/router.md "Input FIFO")
    queues: str = "fifo"                    # "voq": a lane per output
    lookahead: tuple = ()                   # VOQ: per output, the route unit of the neighbour there (or None)
    route_at_write: bool = False            # docs/router.md "Route at the write"
    fixed: tuple[int, int] | None = None    # docs/router.md "Fixed route bits": (mask, value) of arriving words
    pipeline: bool = False                  # docs/router.md "Pipelined router" (routed at the write)
    candidates: NodeUnit | None = None      # the adaptive route stage's candidate unit
    selection: str = "availability"         # its selection ("least_used": by the outputs' ``use``)
    fork: NodeUnit | None = None            # broadcast: this node's fork unit (fork_stage.fork_unit)

    def __post_init__(self):
        if self.pipeline and not self.route_at_write:
            raise CubenocError("the pipelined input unit routes at the write")

    @property
    def stage(self) -> str:
        """The route stage these parameters call for: write, pipelined, adaptive or late."""
        if self.route_at_write:
            return "pipelined" if self.pipeline else "write"
        return "adaptive" if self.candidates is not None else "late"

    @property
    def lane_outputs(self) -> list[list[int]]:
        """The outputs each lane may request (VOQ: lane c feeds output ``lane_outputs[c][0]`` only)."""
        if self.queues == "voq":
            return [[o] for o in self.outputs]
        return [list(self.outputs)] * (1 if self.local else self.num_vcs)

    @property
    def signature(self) -> wiring.Signature:
        """The stream this input reads: the source interface's (local) or a link's."""
        if self.local:
            return stream.Signature(self.flit_layout)
        return link_signature_of(self.flit_layout, self.num_vcs, self.fork is not None, self.pipeline)


@dataclass
class Lane:
    """An elaborated lane's units and state (what rtl/formal/invariants.py reads): its FIFO; the route at
    the write, the pipelined stage, the late route's ``cur_out`` (the output of the packet at the head) and
    the broadcast fork, each where the router has one."""
    fifo: HeadFifo
    route: RouteAtWrite | None = None
    stage: PipeStage | None = None
    cur_out: Value | None = None
    fork: ForkStage | None = None


class InputUnit(wiring.Component):
    def __init__(self, params: InputParams):
        p = self.params = params
        P, V = p.num_ports, p.num_vcs
        self.outputs = p.lane_outputs
        L = self.num_lanes = len(self.outputs)
        members = {"i": In(p.signature), "locked": In(P * V), "room": In(P * V), "sent": In(L),
                   "request": Out(P).array(L), "flit": Out(p.flit_layout).array(L),
                   **node_id_member(p.route_unit, p.candidates, p.fork, *p.lookahead)}
        if p.pipeline:
            members["cand_tail"] = Out(L)
        if p.candidates is not None:
            members.update({"fault": In(P), "use": In(USE_WIDTH).array(P), "discard": Out(L)})
        if p.fork is not None:
            members.update({"empty": In(P), "out_ready": In(P), "chosen": In(1), "taken": In(P),
                            "eligible": Out(1), "want": Out(P), "present": Out(P), "forking": Out(1),
                            "fork_route": Out(p.flit_layout["route"].width).array(P)})
        super().__init__(members)

    def _node_id(self, m, unit):
        if "node_id" in unit.signature.members:
            m.d.comb += unit.node_id.eq(self.node_id)
        return unit

    def elaborate(self, platform):
        m = Module()
        p, s = self.params, self.i
        voq, lane_ready, lay = p.queues == "voq", [], p.flit_layout
        if voq and p.local:                            # the packet's first output picks the local lane
            first = p.route_unit.add(m, "first", getattr(self, "node_id", None))
            m.d.comb += first.route.eq(Value.cast(s.payload.route)[:len(first.route.as_value())])
        self.lanes = []
        for c in range(self.num_lanes):
            # routed at the write: the route and data are read by the crossbar alone
            late = (lay["route"].offset, lay["data"].offset + lay["data"].width) if p.route_at_write else None
            fifo = m.submodules[f"fifo_{c}"] = HeadFifo(lay.size + (p.num_ports if p.route_at_write else 0),
                                                        p.fifo_depth, memory=p.fifo_storage,
                                                        clear_top=p.num_ports * p.pipeline, late=late)
            self.lanes.append(Lane(fifo))
            if p.route_at_write:
                w = m.submodules[f"route_{c}"] = RouteAtWrite(lay, p.num_ports, self.outputs[c], p.route_unit,
                                                              num_vcs=p.num_vcs, fixed=p.fixed, lane=c)
                self.lanes[c].route = w
                self._node_id(m, w)
                m.d.comb += [w.flit.eq(s.payload), w.take.eq(fifo.w_en & fifo.w_rdy), fifo.w_data.eq(w.entry)]
            if p.pipeline:
                m.d.comb += [fifo.w_en.eq(s.valid), s.ready.eq(fifo.w_rdy)]
                if not p.local:
                    m.d.comb += s.ready2.eq(fifo.w_rdy2)
                self._pipe_lane(m, c, fifo)
                continue
            if voq:
                o = self.outputs[c][0]
                mine = (first.port == o) if p.local else (s.payload.vc == o)
                lane_ready.append(mine & fifo.w_rdy)
                m.d.comb += [fifo.w_data.eq(s.payload), fifo.w_en.eq(s.valid & mine)]
                if not p.local:
                    m.d.comb += s.ready[o].eq(fifo.w_rdy)
            else:
                ready = self._link_ready(fifo, s)
                m.d.comb += [s.ready[c].eq(ready),
                             fifo.w_en.eq(s.valid & (s.payload.vc == c) if self.num_lanes > 1 else s.valid)]
                if not p.route_at_write:
                    m.d.comb += fifo.w_data.eq(s.payload)
            if p.fork is not None and not p.local:
                m.d.comb += s.empty.eq(~fifo.r_rdy)
            self._lane(m, c, fifo)
        if voq and p.local:
            m.d.comb += s.ready.eq(any_of(lane_ready))
        return m

    def _lane(self, m: Module, c: int, fifo: HeadFifo) -> None:
        p = self.params
        P, V, local = p.num_ports, p.num_vcs, p.num_ports - 1
        live, pop = Signal(name=f"live_{c}"), Signal(name=f"pop_{c}")
        live_v, pop_v = fifo.r_rdy, self.sent[c]
        forking = Const(0)
        f = self.flit[c]
        if p.route_at_write:          # docs/router.md "Route at the write": the head holds its want bits
            head, want = data.View(p.flit_layout, fifo.r_data[:p.flit_layout.size]), fifo.r_data[p.flit_layout.size:]
            vc = out_vc = head.vc if V > 1 else Const(0)
            m.d.comb += f.eq(head)
        else:
            head = data.View(p.flit_layout, fifo.r_data)
            route = Value.cast(head.route)
            cur_out = Signal(range(P), name=f"cur_out_{c}")
            cur_vc = Signal(range(max(2, V)), name=f"cur_vc_{c}")
            self.lanes[c].cur_out = cur_out
            port, vc = Signal(range(P), name=f"port_{c}"), Signal(range(max(2, V)), name=f"vc_{c}")
            new = Signal(p.route_width, name=f"new_route_{c}")
            if p.candidates is not None:
                u = m.submodules[f"select_{c}"] = AdaptiveSelect(P, V, p.candidates, len(route),
                                                                 selection=p.selection, lane=c)
                m.d.comb += [u.route.eq(route), u.head.eq(head.head), u.tail.eq(head.tail), u.ready.eq(fifo.r_rdy),
                             u.sent.eq(self.sent[c]), u.fault.eq(self.fault), u.locked.eq(self.locked),
                             u.room.eq(self.room), self.discard[c].eq(u.discard)]
                if "use" in u.signature.members:
                    m.d.comb += [u.use[o].eq(self.use[o]) for o in range(P)]
                live_v, pop_v = u.live, u.pop
            else:
                ahead = p.lookahead[p.outputs.index(self.outputs[c][0])] if p.queues == "voq" else None
                u = m.submodules[f"route_{c}"] = LateRoute(P, p.route_unit, p.route_width, num_vcs=V, lookahead=ahead)
                m.d.comb += u.route.eq(route[:p.route_width])
                if p.fork is not None:
                    forking, pop_v = self._fork(m, head, route, fifo)
            self._node_id(m, u)
            m.d.comb += [port.eq(u.hop.port), vc.eq(u.hop.vc), new.eq(u.hop.new_route)]
            out_vc = Mux(head.head, vc, cur_vc)
            m.d.comb += [f.head.eq(head.head), f.tail.eq(head.tail), f.data.eq(head.data), f.route.eq(new)]
            if V > 1:
                m.d.comb += f.vc.eq(out_vc)
            with m.If(self.sent[c] & head.head):
                m.d.sync += [cur_out.eq(port), cur_vc.eq(vc)]
        m.d.comb += [live.eq(live_v), pop.eq(pop_v), fifo.r_en.eq(pop)]
        masked = V > 1 or p.candidates is not None
        for o in self.outputs[c]:
            lock = (self.locked.bit_select(o * V + vc, 1) if V > 1 and o != local and p.queues == "fifo"
                    else self.locked[o * V])         # VOQ: one lock per output
            lock = self._lock_seen(lock)
            room = self.room.bit_select(o * V + out_vc, 1) if masked and o != local else Const(1)
            if p.route_at_write:      # a body flit's want is its head's output (RouteAtWrite)
                hit = want[o] & (~head.head | ~lock)
            else:
                fault = self.fault[o] if p.candidates is not None else Const(0)
                taken = self.taken[o] if p.fork is not None else Const(0)
                hit = Mux(head.head, (port == o) & ~lock & ~fault, cur_out == o) & ~taken
            m.d.comb += self.request[c][o].eq(live & room & ~forking & hit)

    # the two rules the seeded bugs of rtl/formal/mutations.py replace (docs/decisions/seeded-bugs.md)
    def _link_ready(self, fifo, s):
        """An input's ``ready``: its FIFO's room, never waiting for ``valid`` (cubenoc's contract)."""
        return fifo.w_rdy & 1                   # ``& 1``: see OutputUnit._leaves

    def _lock_seen(self, lock):
        """The lock a head's request respects."""
        return lock

    def _pipe_lane(self, m: Module, c: int, fifo: HeadFifo) -> None:
        """docs/router.md "Pipelined router": the lane's stage behind the routed FIFO."""
        st = self.lanes[c].stage = m.submodules[f"pipe_{c}"] = PipeStage(self.params.flit_layout, self.params.num_ports, self.outputs[c], lane=c)
        m.d.comb += [st.entry.eq(fifo.r_data), st.ready.eq(fifo.r_rdy), st.locked.eq(self.locked),
                     st.room.eq(self.room), st.sent.eq(self.sent[c]), fifo.r_en.eq(st.pop),
                     self.flit[c].eq(st.flit), self.cand_tail[c].eq(st.cand_tail),
                     *[self.request[c][o].eq(st.request[o]) for o in self.outputs[c]]]

    def _fork(self, m, head, route, fifo):
        """The broadcast fork beside the late route (V = 1); returns ``forking`` and the FIFO's pop."""
        p = self.params
        fs = self.lanes[0].fork = m.submodules["fork"] = ForkStage(p.num_ports, p.fork, len(route), origin=p.local, outputs=p.outputs)
        self._node_id(m, fs)
        m.d.comb += [fs.route.eq(route), fs.head.eq(head.head), fs.tail.eq(head.tail), fs.bcast.eq(head.bcast),
                     fs.ready.eq(fifo.r_rdy), fs.sent.eq(self.sent[0]), fs.locked.eq(self.locked),
                     fs.empty.eq(self.empty), fs.chosen.eq(self.chosen), fs.taken.eq(self.taken),
                     fs.out_ready.eq(self.out_ready), self.forking.eq(fs.forking), self.want.eq(fs.want),
                     self.eligible.eq(fs.eligible), self.present.eq(fs.present),
                     *[self.fork_route[o].eq(fs.fork_route[o]) for o in range(p.num_ports - 1)]]
        return self.forking, fs.pop
