"""The generic input-buffered wormhole router of docs/router.md (V >= 1 virtual channels).

``Router(topology, routing, node)`` has P = num_ports(node) + 1 ports; port P-1 is local. Per input:
a first-word-fall-through FIFO (``lib.fifo.SyncFIFO``: ``ready = level < D``) and a route-compute unit
on its head flit. Per output: a round-robin arbiter over the inputs that may ever turn there
(``allowed`` from :func:`cubenoc.sim.routing.turns.allowed_matrix`; the other crossbar inputs are not
built) and a wormhole lock held from head to tail. The local input has the source interface
(destination check and drop, framing, malformed counting, ``routing.inject``). Everything the contract
says, nothing more: see docs/router.md for the cycle-by-cycle timeline.

With V = ``routing.num_vcs`` > 1 (docs/router.md, "Virtual channels"): V FIFOs per network input, a
V-bit ``ready`` per link (bit c: VC c not full), a ``vc`` field in the link flit, locks per (output,
VC), requests masked by the downstream VC's ready, round-robin over (input, VC) pairs
``j = i * V + c``; flits of different VCs interleave on a link. V = 1 elaborates exactly the V = 1
router (:meth:`Router._elaborate_v1`).

Ports (Verilog names in brackets): ``in_p{p}``/``out_p{p}`` link streams of network port p
[``in_p0__valid``, ``in_p0__ready``, ``in_p0__payload``], ``local_in``/``local_out`` local streams,
16-bit status counters ``injected``, ``ejected``, ``dropped``, ``malformed``, and for node-generic
routing adapters ``node_id`` (the node address, a constant in a network).
"""
from __future__ import annotations

from amaranth import Const, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.fifo import SyncFIFO
from amaranth.lib.wiring import In, Out

from cubenoc.errors import CubenocError, require_int

from ..sim.routing.turns import allowed_matrix
from .flit import DEST_WIDTH, link_flit_layout, link_signature, local_signature
from .route_candidates import candidates_node_generic
from .route_compute import node_width, rtl_for

COUNTERS = ("injected", "ejected", "dropped", "malformed")
COUNTER_WIDTH = 16


class Router(wiring.Component):
    def __init__(self, topology, routing, node: int, *, payload_width: int = 32, fifo_depth: int = 4,
                 faults: bool = False, broadcast=None):
        if routing.topology is not topology:
            raise CubenocError("the routing function must be built on the same topology object")
        self.num_vcs = require_int(routing.num_vcs, "routing.num_vcs", 1, 16)
        topology.check_node(node)
        self.topology, self.routing, self.node = topology, routing, node
        self.payload_width = payload_width
        self.fifo_depth = require_int(fifo_depth, "fifo depth", 1, 64)
        self.adapter = rtl_for(routing)
        self.num_ports = topology.local_port(node) + 1
        self.local = self.num_ports - 1
        self.allowed = allowed_matrix(routing, node)
        self.flit_layout = link_flit_layout(routing, payload_width)
        self.broadcast = broadcast
        link_sig = link_signature(routing, payload_width)
        if broadcast is not None:          # docs/router.md "Broadcast and multicast"
            from ..sim.broadcast.fork import broadcast_turns, check_broadcast
            from .router_bcast import broadcast_link_layout, broadcast_link_signature
            check_broadcast(broadcast, routing)
            for i, o in broadcast_turns(broadcast)[node]:
                self.allowed[i][o] = True
            self.flit_layout = broadcast_link_layout(routing, broadcast, payload_width)
            link_sig = broadcast_link_signature(routing, broadcast, payload_width)
        members = {}
        if self.adapter.node_generic:
            members["node_id"] = In(node_width(topology))
        for p in range(self.local):
            members[f"in_p{p}"] = In(link_sig)
            members[f"out_p{p}"] = Out(link_sig)
        members["local_in"] = In(local_signature(payload_width))
        members["local_out"] = Out(local_signature(payload_width))
        for name in COUNTERS:
            members[name] = Out(COUNTER_WIDTH)
        # docs/router.md "Adaptive selection and run-time faults": a selection or fault inputs
        self.adaptive = bool(faults) or getattr(routing, "selection", None) is not None
        if self.adaptive and broadcast is not None:
            raise CubenocError("broadcast routers with run-time faults or adaptive selection are not built: "
                               "use one of --broadcast, --faults/--routing availability|least_used")
        if self.adaptive:
            members["link_fault"] = In(max(1, self.local))
            members["node_fault"] = In(1)
            members["discarded"] = Out(COUNTER_WIDTH)
        super().__init__(members)

    # the shape of this router: two nodes with the same key get the same Verilog module
    @property
    def shape_key(self) -> tuple:
        return (type(self.adapter).__name__, self.num_ports, tuple(map(tuple, self.allowed)),
                self.payload_width, self.fifo_depth, None if self.adapter.node_generic else self.node,
                self.num_vcs) + (("adaptive", None if candidates_node_generic(self.routing) else self.node)
                                 if self.adaptive else ()) + (() if self.broadcast is None else self._broadcast_key())

    def _broadcast_key(self) -> tuple:
        from ..sim.broadcast.fork import fork_node_generic
        alg = self.broadcast
        return (type(alg).__name__, alg.layout.width, None if fork_node_generic(alg) else self.node)

    def input_stream(self, p: int):
        return self.local_in if p == self.local else getattr(self, f"in_p{p}")

    def output_stream(self, p: int):
        return self.local_out if p == self.local else getattr(self, f"out_p{p}")

    def elaborate(self, platform):
        if self.adaptive:
            from .router_adaptive import elaborate_adaptive
            return elaborate_adaptive(self)
        if self.broadcast is not None:
            from .router_bcast import elaborate_broadcast
            return elaborate_broadcast(self)
        return self._elaborate_v1() if self.num_vcs == 1 else self._elaborate_vc()

    def _elaborate_v1(self):
        m = Module()
        P, local, layout = self.num_ports, self.local, self.flit_layout
        allowed = self.allowed
        used_in = [i for i in range(P) if any(allowed[i])]

        # ---- input FIFOs and route compute ------------------------------------------------------
        fifo, head, ru = {}, {}, {}
        for i in used_in:
            fifo[i] = m.submodules[f"fifo_{i}"] = SyncFIFO(width=layout.size, depth=self.fifo_depth)
            head[i] = data.View(layout, fifo[i].r_data)
            ru[i] = m.submodules[f"route_{i}"] = self.adapter.route_unit(self.node)
            m.d.comb += ru[i].route.eq(head[i].route)
            if self.adapter.node_generic:
                m.d.comb += ru[i].node_id.eq(self.node_id)
        for i in range(P):
            if i not in used_in:          # no turn ever starts here: accept nothing
                m.d.comb += self.input_stream(i).ready.eq(0)
        for i in used_in:
            if i != local:
                s = self.input_stream(i)
                m.d.comb += [fifo[i].w_data.eq(s.payload), fifo[i].w_en.eq(s.valid), s.ready.eq(fifo[i].w_rdy)]
        self._source_interface(m, fifo[local])

        # ---- requests ---------------------------------------------------------------------------
        lock = [Signal(name=f"lock_{o}") for o in range(P)]
        cur_out = {i: Signal(range(P), name=f"cur_out_{i}") for i in used_in}
        req = {}
        for i in used_in:
            for o in range(P):
                if allowed[i][o]:
                    r = req[i, o] = Signal(name=f"req_{i}_{o}")
                    m.d.comb += r.eq(fifo[i].r_rdy & Mux(head[i].head, (ru[i].port == o) & ~lock[o],
                                                          cur_out[i] == o))

        # ---- per-output round-robin arbiter, crossbar, lock ------------------------------------
        deq = {i: [] for i in used_in}
        for o in range(P):
            srcs = [i for i in used_in if allowed[i][o]]
            out = self.output_stream(o)
            if not srcs:
                m.d.comb += out.valid.eq(0)
                continue
            # rr[o] kept as a thermometer code: pri[j] = (j >= rr[o]); reset rr = 0 -> all ones
            pri = Signal(P, name=f"rr_{o}", init=(1 << P) - 1)
            grant = {}
            for i in srcs:
                # input j comes before i in the cyclic order rr, rr+1, ..., P-1, 0, ...
                blockers = []
                for j in srcs:
                    if j == i:
                        continue
                    before = (pri[j] | ~pri[i]) if j < i else (pri[j] & ~pri[i])
                    blockers.append(req[j, o] & before)
                g = grant[i] = Signal(name=f"grant_{o}_{i}")
                m.d.comb += g.eq(req[i, o] & ~_any(blockers))
            m.d.comb += out.valid.eq(_any([req[i, o] for i in srcs]))
            # crossbar: the granted input's flit (a head leaves with new_route)
            sel_head = _onehot_mux([(grant[i], head[i].head) for i in srcs])
            sel_tail = _onehot_mux([(grant[i], head[i].tail) for i in srcs])
            m.d.comb += [out.payload.head.eq(sel_head), out.payload.tail.eq(sel_tail),
                         out.payload.data.eq(_onehot_mux([(grant[i], head[i].data) for i in srcs]))]
            if o != local:
                m.d.comb += out.payload.route.eq(_onehot_mux([(grant[i], ru[i].new_route.as_value()) for i in srcs]))
            xfer = Signal(name=f"xfer_{o}")
            m.d.comb += xfer.eq(out.valid & out.ready)
            for i in srcs:
                deq[i].append(grant[i] & out.ready)
            with m.If(xfer):
                with m.If(sel_head):
                    for i in srcs:
                        with m.If(grant[i]):          # rr[o] = (winner + 1) mod P
                            m.d.sync += pri.eq(((1 << P) - 1) & ~((1 << ((i + 1) % P)) - 1))
                with m.If(sel_tail):
                    m.d.sync += lock[o].eq(0)
                with m.Elif(sel_head):
                    m.d.sync += lock[o].eq(1)
            if o == local:
                with m.If(xfer & sel_tail):
                    m.d.sync += self.ejected.eq(self.ejected + 1)
        for i in used_in:
            m.d.comb += fifo[i].r_en.eq(_any(deq[i]))
            with m.If(fifo[i].r_en & fifo[i].r_rdy & head[i].head):
                m.d.sync += cur_out[i].eq(ru[i].port)
        return m

    def _elaborate_vc(self):
        """docs/router.md "Virtual channels (V > 1)"."""
        m = Module()
        P, local, layout, V = self.num_ports, self.local, self.flit_layout, self.num_vcs
        PV = P * V
        allowed = self.allowed
        used_in = [i for i in range(P) if any(allowed[i])]
        pairs = [(i, c) for i in used_in for c in ((0,) if i == local else range(V))]

        # ---- per-(input, VC) FIFOs and route compute ------------------------------------------------
        fifo, head, ru = {}, {}, {}
        for i, c in pairs:
            fifo[i, c] = m.submodules[f"fifo_{i}_{c}"] = SyncFIFO(width=layout.size, depth=self.fifo_depth)
            head[i, c] = data.View(layout, fifo[i, c].r_data)
            ru[i, c] = m.submodules[f"route_{i}_{c}"] = self.adapter.route_unit(self.node)
            m.d.comb += ru[i, c].route.eq(head[i, c].route)
            if self.adapter.node_generic:
                m.d.comb += ru[i, c].node_id.eq(self.node_id)
        for i in range(P):
            if i not in used_in:
                m.d.comb += self.input_stream(i).ready.eq(0)
        for i in used_in:
            if i != local:
                s = self.input_stream(i)
                for c in range(V):
                    m.d.comb += [fifo[i, c].w_data.eq(s.payload), fifo[i, c].w_en.eq(s.valid & (s.payload.vc == c)),
                                 s.ready[c].eq(fifo[i, c].w_rdy)]
        self._source_interface(m, fifo[local, 0])

        # ---- requests: (head, unlocked (o, vc)) or (body, cur_out); network outputs: downstream VC ready
        lock = [Signal(V if o != local else 1, name=f"lock_{o}") for o in range(P)]
        cur_out = {k: Signal(range(P), name=f"cur_out_{k[0]}_{k[1]}") for k in pairs}
        cur_vc = {k: Signal(range(V), name=f"cur_vc_{k[0]}_{k[1]}") for k in pairs}
        out_vc = {}          # the VC a pair's flit takes on its output link
        for k in pairs:
            ov = out_vc[k] = Signal(range(V), name=f"out_vc_{k[0]}_{k[1]}")
            m.d.comb += ov.eq(Mux(head[k].head, ru[k].vc, cur_vc[k]))
        req = {}
        for k in pairs:
            i = k[0]
            for o in range(P):
                if not allowed[i][o]:
                    continue
                r = req[k, o] = Signal(name=f"req_{k[0]}_{k[1]}_{o}")
                if o == local:
                    free, room = ~lock[o][0], Const(1)
                else:
                    free = ~lock[o].bit_select(ru[k].vc, 1)
                    room = self.output_stream(o).ready.bit_select(out_vc[k], 1)
                m.d.comb += r.eq(fifo[k].r_rdy & room & Mux(head[k].head, (ru[k].port == o) & free,
                                                             cur_out[k] == o))

        # ---- per-output round-robin over the pairs j = i * V + c, crossbar, locks ---------------
        deq = {k: [] for k in pairs}
        for o in range(P):
            srcs = [k for k in pairs if allowed[k[0]][o]]
            out = self.output_stream(o)
            if not srcs:
                m.d.comb += out.valid.eq(0)
                continue
            idx = {k: k[0] * V + k[1] for k in srcs}
            pri = Signal(PV, name=f"rr_{o}", init=(1 << PV) - 1)     # thermometer: bit j = (j >= rr[o])
            grant = {}
            for k in srcs:
                blockers = []
                for q in srcs:
                    if q == k:
                        continue
                    jq, jk = idx[q], idx[k]
                    before = (pri[jq] | ~pri[jk]) if jq < jk else (pri[jq] & ~pri[jk])
                    blockers.append(req[q, o] & before)
                g = grant[k] = Signal(name=f"grant_{o}_{k[0]}_{k[1]}")
                m.d.comb += g.eq(req[k, o] & ~_any(blockers))
            m.d.comb += out.valid.eq(_any([req[k, o] for k in srcs]))
            sel_head = _onehot_mux([(grant[k], head[k].head) for k in srcs])
            sel_tail = _onehot_mux([(grant[k], head[k].tail) for k in srcs])
            m.d.comb += [out.payload.head.eq(sel_head), out.payload.tail.eq(sel_tail),
                         out.payload.data.eq(_onehot_mux([(grant[k], head[k].data) for k in srcs]))]
            xfer = Signal(name=f"xfer_{o}")
            if o != local:
                sel_vc = Signal(range(V), name=f"sel_vc_{o}")
                m.d.comb += [sel_vc.eq(_onehot_mux([(grant[k], out_vc[k]) for k in srcs])),
                             out.payload.vc.eq(sel_vc),
                             out.payload.route.eq(_onehot_mux([(grant[k], ru[k].new_route.as_value()) for k in srcs])),
                             xfer.eq(out.valid & out.ready.bit_select(sel_vc, 1))]
            else:
                sel_vc = Const(0, 1)
                m.d.comb += xfer.eq(out.valid & out.ready)
            for k in srcs:
                deq[k].append(grant[k] & xfer)
            with m.If(xfer):
                for k in srcs:
                    with m.If(grant[k]):          # rr[o] = (j + 1) mod P*V, on every transfer
                        m.d.sync += pri.eq(((1 << PV) - 1) & ~((1 << ((idx[k] + 1) % PV)) - 1))
                with m.If(sel_tail):
                    m.d.sync += lock[o].bit_select(sel_vc, 1).eq(0)
                with m.Elif(sel_head):
                    m.d.sync += lock[o].bit_select(sel_vc, 1).eq(1)
            if o == local:
                with m.If(xfer & sel_tail):
                    m.d.sync += self.ejected.eq(self.ejected + 1)
        for k in pairs:
            m.d.comb += fifo[k].r_en.eq(_any(deq[k]))
            with m.If(fifo[k].r_en & fifo[k].r_rdy & head[k].head):
                m.d.sync += [cur_out[k].eq(ru[k].port), cur_vc[k].eq(ru[k].vc)]
        return m

    def _source_interface(self, m: Module, fifo: SyncFIFO, stream=None) -> None:
        """docs/router.md "Source interface": framing, drop of bad destinations, malformed counting.
        ``stream``: the local input as seen by the interface (default ``self.local_in``)."""
        s = self.local_in if stream is None else stream
        w = data.View(self.flit_layout, fifo.w_data)
        inj = m.submodules.inject = self.adapter.inject_unit(self.node)
        if self.adapter.node_generic:
            m.d.comb += inj.node_id.eq(self.node_id)
        dest = s.payload.data[:DEST_WIDTH]
        m.d.comb += inj.dest.eq(dest)
        num_nodes = self.topology.num_nodes
        dest_ok = (dest < num_nodes) if num_nodes < (1 << DEST_WIDTH) else Const(1)
        in_packet = Signal()
        dropping = Signal()
        pkt_route = Signal(self.routing.layout.amaranth())
        m.d.comb += [w.tail.eq(s.payload.tail), w.data.eq(s.payload.data)]
        with m.If(~in_packet):
            with m.If(s.payload.head & dest_ok):
                m.d.comb += [w.head.eq(1), w.route.eq(inj.route), fifo.w_en.eq(s.valid), s.ready.eq(fifo.w_rdy)]
                with m.If(s.valid & fifo.w_rdy):
                    m.d.sync += [self.injected.eq(self.injected + 1), pkt_route.eq(inj.route),
                                 in_packet.eq(~s.payload.tail), dropping.eq(0)]
            with m.Elif(s.payload.head):                       # destination out of range: drop the packet
                m.d.comb += s.ready.eq(1)
                with m.If(s.valid):
                    m.d.sync += [self.dropped.eq(self.dropped + 1), in_packet.eq(~s.payload.tail), dropping.eq(1)]
            with m.Else():                                     # body/tail outside a packet: discard
                m.d.comb += s.ready.eq(1)
                with m.If(s.valid):
                    m.d.sync += self.malformed.eq(self.malformed + 1)
        with m.Else():
            with m.If(dropping):
                m.d.comb += s.ready.eq(1)
            with m.Else():                                     # a head inside a packet loses its head bit
                m.d.comb += [w.head.eq(0), w.route.eq(pkt_route), fifo.w_en.eq(s.valid), s.ready.eq(fifo.w_rdy)]
            with m.If(s.valid & s.ready):
                with m.If(s.payload.head):
                    m.d.sync += self.malformed.eq(self.malformed + 1)
                with m.If(s.payload.tail):
                    m.d.sync += in_packet.eq(0)


def _any(sigs):
    if not sigs:
        return Const(0)
    acc = sigs[0]
    for s in sigs[1:]:
        acc = acc | s
    return acc


def _onehot_mux(pairs):
    """The value whose select is high (selects are one-hot or all low; then the result is a don't-care:
    ``valid`` is low). Encoded to a binary index and a balanced 2:1 mux tree: in yosys this maps to fewer
    LUT4s than an AND-OR of the selects (see docs/performance.md)."""
    if len(pairs) == 1:
        return pairs[0][1]
    bits = (len(pairs) - 1).bit_length()
    idx = [_any([sel for pos, (sel, _) in enumerate(pairs) if pos >> b & 1]) for b in range(bits)]
    level = [val for _, val in pairs]
    for b in range(bits):
        level = [Mux(idx[b], level[j + 1], level[j]) if j + 1 < len(level) else level[j]
                 for j in range(0, len(level), 2)]
    return level[0]
