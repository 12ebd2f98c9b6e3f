"""The router of docs/router.md, composed from units (docs/architecture.md "The router's units").

``Router(plan, node)`` (the network's :class:`~cubenoc.sim.network_plan.NetworkPlan`: its topology, routing
function and :class:`~cubenoc.sim.router_config.RouterConfig`, every option) has P = num_ports(node) + 1
ports; port P-1 is local. It builds

* a :class:`~.source.SourceInterface` in front of the local input;
* an :class:`~.input_unit.InputUnit` per input that some turn starts from (FIFOs per VC + route stage);
* an :class:`~.output_unit.OutputUnit` per output that some turn ends at (arbiter, crossbar, locks);
* with broadcast forks, a :class:`~.fork_select.ForkSelect` (the broadcast selector); with adaptive routing or
  run-time faults, a :class:`~.fault_status.FaultStatus`; pipelined, an :class:`~.eject_buffer.EjectBuffer`
  in front of ``local_out``.

``elaborate`` only instantiates these units and wires them.

Requests only go where ``allowed`` (the network plan's :meth:`~cubenoc.sim.network_plan.NetworkPlan.allowed_matrix`) says a turn may
ever happen: the other crossbar inputs are not built. The variants are policies of the units: V > 1
(``routing.num_vcs``: a FIFO and a lock per VC, requests masked by the downstream VC's ready, round
robin over the lanes ``j = i * V + c``), adaptive selection and run-time faults (``routing.selection`` or
``config.faults``: candidate route stage, ``link_fault``/``node_fault`` inputs, ``discarded`` counter) and
broadcast forks (``config.broadcast``, V = 1: fork route stage, ``empty`` wire per link). ``config.queues == "voq"``
(docs/router.md "Per-output queues (VOQ)"; one-VC unicast routing): each input keeps one FIFO (lane) per
output it may turn to, the link's ``vc`` names the next router's output (lookahead routing,
:class:`~cubenoc.sim.model.lookahead.LookaheadVoqRouting`, V = the largest P) with one ready bit per
queue, one lock per output; the router is then node-specific (its lookahead units know the neighbours).
The output arbiters: ``config.arbitration`` round robin or fair (weighted by sim/routing/fairness.py,
docs/router.md "Arbitration"; unicast routers with a fixed route and single FIFOs, not pipelined).
``config.pipeline`` (docs/router.md "Pipelined router"; one-VC unicast oblivious routing, one FIFO per
input): the FIFOs hold routed flits, the output units register their grants (requests only when the
downstream FIFO will have room: the link's ``ready2``) and the granted lane's stage register crosses the
crossbar next cycle; ``local_out`` sits behind a 2-entry ejection buffer: two cycles per hop (model:
sim/model/pipeline.py).

Ports (Verilog names in brackets): ``in_p{p}``/``out_p{p}`` link streams of network port p
[``in_p0__valid``, ``in_p0__ready``, ``in_p0__payload``], ``local_in``/``local_out`` local streams,
16-bit status counters ``injected``, ``ejected``, ``dropped``, ``malformed`` (``config.counters`` False: not built,
they read 0; ``"dsp"``: in the iCE40's SB_MAC16 blocks when elaborated for one, ``gates.count_after``),
and for node-generic
routing adapters ``node_id`` (the node address, a constant in a network).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from amaranth import Cat, Const, Module, Mux
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from cubenoc.errors import require_int

from ...sim.model.lookahead import LookaheadVoqRouting
from ...sim.network_plan import NetworkPlan
from ..flit import link_flit_layout, link_signature, local_signature
from ..gates import any_of, count_after, fix_bits, node_width
from ..route import rtl_for
from ..route.base import NodeUnit
from ..route.candidates import candidate_unit, candidates_node_generic
from .eject_buffer import EjectBuffer
from .fault_status import FaultStatus
from .fork_select import ForkSelect
from .fork_stage import fork_unit
from .input_unit import InputParams, InputUnit
from .output_unit import OutputUnit
from .source import COUNTER_WIDTH, SourceInterface, SourceParams
from ...sim.broadcast.fork import fork_node_generic

COUNTERS = ("injected", "ejected", "dropped", "malformed")


@dataclass
class RouterUnits:
    """An elaborated router's units by role (what rtl/formal/ reads): the source interface, the input unit
    of each input port used, the output unit of each output port used, the pipelined router's ejection
    buffer."""
    source: SourceInterface
    inputs: dict = field(default_factory=dict)
    outputs: dict = field(default_factory=dict)
    eject: EjectBuffer | None = None


class Router(wiring.Component):
    def __init__(self, plan: NetworkPlan, node: int):
        topology, routing = plan.topology, plan.routing
        topology.check_node(node)
        c = self.config = plan.config
        self.plan = plan
        self.candidate_stage = plan.candidate_stage
        self.queues, self.pipeline, self.loopback = c.queues, c.pipeline, c.loopback
        # the output side's wiring, chosen once: docs/router.md "Pipelined router"
        self.output_stage = PipelinedOutputs() if c.pipeline else OutputStage()
        self.adapter = rtl_for(routing)                # the family's route unit (VOQ: also the lookahead)
        broadcast = self.broadcast = plan.broadcast    # docs/router.md "Broadcast and multicast"
        self.allowed = plan.allowed_matrix(node)       # docs/router.md "Requests", "Loopback"
        if self.queues == "voq":                       # Hop.vc = the next router's output, V = the largest P
            routing = LookaheadVoqRouting(routing)
        self.node_generic = self.adapter.node_generic and self.queues == "fifo"
        self.num_vcs = require_int(routing.num_vcs, "routing.num_vcs", 1, 16)
        self.topology, self.routing, self.node = topology, routing, node
        self.payload_width, self.fifo_depth = c.payload_width, c.fifo_depth
        self.fifo_memory, self.counters = c.fifo_memory, c.counters is not False   # fifo_memory: HeadFifo's memory
        self.counter_dsp = c.counters == "dsp"     # iCE40: the counters in SB_MAC16 blocks (gates.count_after)
        self.num_ports = topology.local_port(node) + 1
        self.local = self.num_ports - 1
        self.arbitration = c.arbitration
        self.weights = plan.weights(node)  # fair: {(o, j): {new route word: weight}} of this node
        # docs/router.md "Route at the write": oblivious unicast routing decides on the flit and the node alone
        self.route_at_write = c.route_at_write(routing)
        # docs/router.md "Fixed route bits": route bits every packet arriving / turning here agrees on
        self.fixed_bits = plan.fixed_bits(None if self.node_generic else node)
        self.flit_layout = link_flit_layout(routing, c.payload_width, broadcast)
        self.link_signature = link_signature(routing, c.payload_width, broadcast, self.pipeline)
        members = {}
        if self.node_generic:
            members["node_id"] = In(node_width(topology))
        for p in range(self.local):
            members[f"in_p{p}"] = In(self.link_signature)
            members[f"out_p{p}"] = Out(self.link_signature)
        members["local_in"] = In(local_signature(c.payload_width))
        members["local_out"] = Out(local_signature(c.payload_width))
        for name in COUNTERS:
            members[name] = Out(COUNTER_WIDTH)
        if self.candidate_stage:        # docs/router.md "Adaptive selection and run-time faults"
            members.update({"link_fault": In(max(1, self.local)), "node_fault": In(1), "discarded": Out(COUNTER_WIDTH)})
        super().__init__(members)

    # the shape of this router: two nodes with the same key get the same Verilog module. Every option is in
    # the config; what else differs between nodes is what the network plan gives each node (its turns, fixed
    # route bits, fairness weights: NetworkPlan.shape) and, for node-specific route units, the node (index 5)
    @property
    def shape_key(self) -> tuple:
        key = (type(self.adapter).__name__, self.num_vcs) + self.plan.shape(self.node, not self.node_generic)
        if self.candidate_stage:
            key += ("adaptive", None if candidates_node_generic(self.routing) else self.node)
        if self.broadcast is not None:
            alg = self.broadcast
            key += (type(alg).__name__, alg.layout.width, None if fork_node_generic(alg) else self.node)
        return key

    def _unit(self, make, node: int) -> NodeUnit:
        """A unit of ``node`` made at elaboration; node-generic routers drive its ``node_id`` from theirs."""
        return NodeUnit(make, node, node_width(self.topology) if self.node_generic else 0)

    def source_params(self) -> SourceParams:
        """The source interface's parameters (docs/router.md "Source interface")."""
        return SourceParams(self.flit_layout, self.topology.num_nodes,
                            self._unit(partial(self.adapter.inject_unit, self.node), self.node),
                            node_width(self.topology), drop_own_node=not self.loopback,
                            broadcast=self.broadcast is not None, route_at_write=self.route_at_write,
                            count_events=self.counters, counter_dsp=self.counter_dsp)

    def input_params(self, port: int) -> InputParams:
        """Input ``port``'s parameters: its turns, FIFOs and route stage (docs/router.md "Router")."""
        outputs = tuple(o for o in range(self.num_ports) if self.allowed[port][o])
        lookahead = ()
        if self.queues == "voq":                       # the neighbour's route unit on each network output
            far = [None if o == self.local else self.topology.neighbor(self.node, o)[0] for o in outputs]
            lookahead = tuple(None if v is None else self._unit(partial(self.adapter.route_unit, v), v) for v in far)
        c = self.config
        return InputParams(
            self.flit_layout, self.num_ports, outputs, self._unit(partial(self.adapter.route_unit, self.node), self.node),
            self.routing.layout.width, local=port == self.local, num_vcs=self.num_vcs, fifo_depth=c.fifo_depth,
            fifo_storage=c.fifo_memory, queues=self.queues, lookahead=lookahead, route_at_write=self.route_at_write,
            fixed=self.fixed_bits.get(("in", port)), pipeline=self.pipeline,
            candidates=(self._unit(partial(candidate_unit, self.routing, self.node), self.node)
                        if self.candidate_stage else None),
            selection=getattr(self.routing, "selection", None) or "availability",
            fork=None if self.broadcast is None else self._unit(partial(fork_unit, self.broadcast, self.node), self.node))

    def input_stream(self, p: int):
        return self.local_in if p == self.local else getattr(self, f"in_p{p}")

    def output_stream(self, p: int):
        return self.local_out if p == self.local else getattr(self, f"out_p{p}")

    def elaborate(self, platform):
        """Instantiate the units and wire them (docs/architecture.md "The router's units"); what the pipelined
        router wires differently is its :class:`OutputStage` (``output_stage``)."""
        m = Module()
        used = [i for i in range(self.num_ports) if any(self.allowed[i])]   # the local input always is
        units = self._inputs(m, used)
        lanes = [(i, c) for i in used for c in range(units[i].num_lanes)]
        srcs_of, sent = self._outputs(m, units, lanes, platform)
        self._router_status(m, units, srcs_of, sent)
        if self.candidate_stage:        # docs/router.md "Run-time faults"
            self._faults(m, units, lanes)
        if self.broadcast is not None:  # docs/router.md "Broadcast and multicast"
            self._fork_select(m, units, used)
        return m

    def _inputs(self, m, used) -> dict:
        """The source interface and the input unit of every input some turn starts from; the other inputs
        accept nothing."""
        src = m.submodules.source = SourceInterface(self.source_params())
        wiring.connect(m, wiring.flipped(self.local_in), src.i)
        m.d.comb += [getattr(self, n).eq(getattr(src, n)) for n in COUNTERS if n != "ejected"]
        units = {i: InputUnit(self.input_params(i)) for i in used}
        self.units = RouterUnits(src, units)
        for i, u in units.items():
            m.submodules[f"input_{i}"] = u
            wiring.connect(m, src.o if i == self.local else wiring.flipped(self.input_stream(i)), u.i)
        if self.node_generic:
            m.d.comb += [u.node_id.eq(self.node_id) for u in (src, *units.values())]
        for i in sorted(set(range(self.local)) - set(used)):     # no turn ever starts here: accept nothing
            m.d.comb += self.input_stream(i).ready.eq(0)
            if self.broadcast is not None:
                m.d.comb += self.input_stream(i).empty.eq(1)
        return units

    def _outputs(self, m, units, lanes, platform) -> tuple[dict, dict]:
        """The output unit of every output some turn ends at, its requests and flits from the lanes that may
        turn to it; returns (the lanes of each output, each lane's ``sent`` signals)."""
        sent, srcs_of = {k: [] for k in lanes}, {}
        for o in range(self.num_ports):
            srcs = srcs_of[o] = [k for k in lanes if o in units[k[0]].outputs[k[1]]]
            if srcs:
                self._output(m, o, srcs, units, sent, platform)
            else:
                m.d.comb += self.output_stream(o).valid.eq(0)
        return srcs_of, sent

    def _output(self, m, o, srcs, units, sent, platform) -> None:
        """Output o's unit: arbiter, crossbar and locks over the lanes ``srcs`` (docs/router.md "Router")."""
        P, V, local, bc = self.num_ports, self.num_vcs, self.local, self.broadcast is not None
        ou = self.units.outputs[o] = m.submodules[f"output_{o}"] = OutputUnit(
            self.flit_layout, [i * V + c for i, c in srcs], P * V, V if o != local else 1, broadcast=bc,
            count_heads=self.candidate_stage and o != local and self.routing.selection == "least_used",
            lock_per_vc=self.queues == "fifo", pipelined=self.pipeline,
            weights=None if self.weights is None else [self.weights.get((o, i * V + c), {}) for i, c in srcs])
        for r, (i, c) in enumerate(srcs):
            # the route: a fork's copy leaves with the fork unit's tag for this branch; else with the bits
            # every packet turning here agrees on as constants
            flit = units[i].flit[c]
            route = (Mux(units[i].forking, units[i].fork_route[o], flit.route) if bc and o != local else
                     fix_bits(flit.route, self.fixed_bits.get(("turn", i, o))))
            m.d.comb += [ou.request[r].eq(units[i].request[c][o]),
                         *[getattr(ou.flit[r], n).eq(route if n == "route" else getattr(flit, n))
                           for n, _ in self.flit_layout]]
            self.output_stage.candidate(m, ou, r, units[i], c)
            sent[i, c].append(ou.sent[r])
        out = self.output_stream(o)
        m.d.comb += [out.valid.eq(ou.valid), ou.ready.eq(out.ready)]
        if o == local:
            self.output_stage.local_output(self, m, ou, platform)
        else:
            m.d.comb += [out.payload.eq(ou.payload),
                         out.payload.route.eq(fix_bits(ou.payload.route, self.fixed_bits.get(("out", o))))]

    def _router_status(self, m, units, srcs_of, sent) -> None:
        """The router-wide status the input units read: locks and downstream room; each lane's ``sent``."""
        V, outs = self.num_vcs, self.units.outputs
        locked = Cat(*[Const(0, V) if o not in outs else Cat(outs[o].locked, Const(0, V - len(outs[o].locked)))
                       for o in range(self.num_ports)])     # bit o * V + c (the local output has VC 0 only)
        room = self.output_stage.room(self)
        for i, u in units.items():
            m.d.comb += [u.locked.eq(self.output_stage.locked(self, locked, srcs_of, i)), u.room.eq(room)]
            for c in range(u.num_lanes):
                m.d.comb += u.sent[c].eq(any_of(sent[i, c]))

    def _faults(self, m, units, lanes) -> None:
        """The fault inputs, the discard counter and the use counts (docs/router.md "Run-time faults")."""
        outs, src = self.units.outputs, self.units.source
        fs = m.submodules.faults = FaultStatus(self.local, len(lanes))
        m.d.comb += [fs.link_fault.eq(self.link_fault), fs.node_fault.eq(self.node_fault),
                     fs.discard.eq(Cat(units[i].discard[c] for i, c in lanes)),
                     src.enable.eq(fs.enable), self.discarded.eq(fs.discarded)]
        for u in units.values():
            m.d.comb += u.fault.eq(fs.fault)
            m.d.comb += [u.use[o].eq(outs[o].use) for o in range(self.local)
                         if o in outs and "use" in outs[o].signature.members]

    def _fork_select(self, m, units, used) -> None:
        """The broadcast selector between the fork units and the output units (docs/router.md "Broadcast")."""
        P, outs = self.num_ports, self.units.outputs
        sel = m.submodules.fork_select = ForkSelect(used, P)
        m.d.comb += [sel.stalled[o].eq(outs[o].stalled) for o in outs]
        m.d.comb += [sel.link_empty.eq(Cat(Const(1) if o == self.local else self.output_stream(o).empty
                                           for o in range(P)))]
        for r, i in enumerate(used):
            u = units[i]
            m.d.comb += [sel.eligible[r].eq(u.eligible), sel.want[r].eq(u.want), u.chosen.eq(sel.grant[r]),
                         u.taken.eq(sel.taken), u.empty.eq(sel.empty),
                         u.out_ready.eq(Cat(self.output_stream(o).ready for o in range(P)))]
        for o, ou in outs.items():
            srcs = [i for i in used if self.allowed[i][o]]
            m.d.comb += [ou.acquire.eq(sel.taken[o])]
            m.d.comb += [ou.acquirer[r].eq(sel.grant[used.index(i)]) for r, i in enumerate(srcs)]
            m.d.comb += [ou.present[r].eq(units[i].present[o]) for r, i in enumerate(srcs)]


class OutputStage:
    """The one-stage router's output side (docs/router.md "Router"): a grant crosses in its cycle, the local
    output unit drives ``local_out``, an input sees the locks of every output and the links' ``ready``."""

    def candidate(self, m, ou, r, unit, c) -> None:
        """What lane c of ``unit`` tells the output unit beyond its request and flit (nothing here)."""

    def local_output(self, router, m, ou, platform) -> None:
        """``local_out`` from the local output unit, and the ``ejected`` counter."""
        out = router.local_out
        m.d.comb += [out.payload.head.eq(ou.payload.head), out.payload.tail.eq(ou.payload.tail),
                     out.payload.data.eq(ou.payload.data)]
        if router.counters:
            router.ejected_event, = count_after(m, [(router.ejected, ou.xfer & ou.payload.tail)], platform,
                                                router.counter_dsp)

    def room(self, router):
        """Room downstream of each (output, VC): the links' ``ready`` (the local output: always)."""
        V = router.num_vcs
        return Cat(*[Const((1 << V) - 1, V) if o == router.local else router.output_stream(o).ready
                     for o in range(router.num_ports)])

    def locked(self, router, locked, srcs_of, i):
        """The locks input i sees: every output's."""
        return locked


class PipelinedOutputs(OutputStage):
    """The pipelined router's output side (docs/router.md "Pipelined router"): the output units register
    their grants (a lane tells its candidate's tail), ``local_out`` sits behind an :class:`EjectBuffer`,
    requests need room after this cycle's crossing (``ready2``/``room2`` while one crosses), and an input
    sees only the outputs locked by another input."""

    def candidate(self, m, ou, r, unit, c) -> None:
        m.d.comb += ou.cand_tail[r].eq(unit.cand_tail[c])

    def local_output(self, router, m, ou, platform) -> None:
        ej = router.units.eject = m.submodules.eject = EjectBuffer(router.flit_layout, router.payload_width)
        m.d.comb += [ej.valid.eq(ou.valid), ej.flit.eq(ou.payload)]
        wiring.connect(m, ej.out, wiring.flipped(router.local_out))
        if router.counters:
            router.ejected_event, = count_after(m, [(router.ejected, ej.tail_taken)], platform, router.counter_dsp)

    def room(self, router):
        outs, ej = router.units.outputs, router.units.eject
        return Cat(*[Const(0) if o not in outs else
                     Mux(outs[o].valid, *((ej.room2, ej.room) if o == router.local else
                                          (router.output_stream(o).ready2, router.output_stream(o).ready)))
                     for o in range(router.num_ports)])

    def locked(self, router, locked, srcs_of, i):
        outs = router.units.outputs
        return Cat(*[outs[o].barred[srcs_of[o].index((i, 0))] if o in outs and (i, 0) in srcs_of[o]
                     else Const(0) for o in range(router.num_ports)])
