"""The router with broadcast forks (docs/router.md "Broadcast and multicast"; V = 1 only).

:func:`elaborate_broadcast` is what ``Router(..., broadcast=alg).elaborate`` builds; routers without
``broadcast`` never reach this module (their Verilog is unchanged). Per input: FIFO, route unit, fork
unit (:class:`~cubenoc.rtl.fork.ForkUnit`) and the registers ``held``, ``done``, ``bmode``; per
router: the broadcast selector's round-robin pointer ``brr``; per output: the unicast round-robin
arbiter and lock of the V = 1 router. Each network link carries an ``empty`` wire back (the
downstream input FIFO is empty, a registered level), which a broadcast head waits for.
"""
from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.fifo import SyncFIFO
from amaranth.lib.wiring import In, Out

from ..sim.broadcast.fork import BROADCAST_DEST
from .flit import DEST_WIDTH


def broadcast_link_layout(routing, alg, payload_width: int) -> data.StructLayout:
    """``head``, ``tail``, ``route`` (max of the unicast header and the broadcast tag), ``data``,
    ``bcast``."""
    from .flit import check_payload_width
    check_payload_width(payload_width)
    width = max(routing.layout.width, alg.layout.width)
    return data.StructLayout({"head": 1, "tail": 1, "route": width, "data": payload_width, "bcast": 1})


def broadcast_link_signature(routing, alg, payload_width: int) -> wiring.Signature:
    return wiring.Signature({"valid": Out(1), "payload": Out(broadcast_link_layout(routing, alg, payload_width)),
                             "ready": In(1), "empty": In(1)})


def _any(sigs):
    from .router import _any as any_
    return any_(sigs)


def _rr_grants(m, reqs: dict, P: int, pri, name: str) -> dict:
    """One-hot grants: the first requester in the cyclic order from the thermometer ``pri``."""
    grant = {}
    for i in reqs:
        blockers = []
        for j in reqs:
            if j == i:
                continue
            before = (pri[j] | ~pri[i]) if j < i else (pri[j] & ~pri[i])
            blockers.append(reqs[j] & before)
        g = grant[i] = Signal(name=f"{name}_{i}")
        m.d.comb += g.eq(reqs[i] & ~_any(blockers))
    return grant


def _therm(i: int, P: int) -> int:
    """Thermometer code of pointer ``(i + 1) mod P``."""
    return ((1 << P) - 1) & ~((1 << ((i + 1) % P)) - 1)


def elaborate_broadcast(r) -> Module:
    from .fork import ForkUnit
    from .router import _onehot_mux
    m = Module()
    P, local, layout = r.num_ports, r.local, r.flit_layout
    allowed = r.allowed
    alg, routing = r.broadcast, r.routing
    Ru, T = routing.layout.width, alg.layout.width
    used_in = [i for i in range(P) if any(allowed[i])]

    fifo, head, ru, fk = {}, {}, {}, {}
    for i in used_in:
        fifo[i] = m.submodules[f"fifo_{i}"] = SyncFIFO(width=layout.size, depth=r.fifo_depth)
        head[i] = data.View(layout, fifo[i].r_data)
        ru[i] = m.submodules[f"route_{i}"] = r.adapter.route_unit(r.node)
        m.d.comb += ru[i].route.eq(head[i].route[:Ru])
        if r.adapter.node_generic:
            m.d.comb += ru[i].node_id.eq(r.node_id)
        # an algorithm may bring its own fork unit with the same interface (``alg.fork_unit(node)``,
        # e.g. one with run-time inputs); otherwise the ROM of rtl/fork.py
        make = getattr(alg, "fork_unit", None)
        fk[i] = m.submodules[f"fork_{i}"] = make(r.node) if make is not None else ForkUnit(alg, r.node)
        if "node_id" in fk[i].signature.members:
            nid = r.node_id if r.adapter.node_generic else Const(r.node, len(fk[i].node_id))
            m.d.comb += fk[i].node_id.eq(nid)
        m.d.comb += [fk[i].tag.eq(head[i].route[:T]), fk[i].origin.eq(int(i == local))]
    for i in range(P):
        if i not in used_in:
            m.d.comb += r.input_stream(i).ready.eq(0)
            if i != local:
                m.d.comb += r.input_stream(i).empty.eq(1)
    for i in used_in:
        if i != local:
            s = r.input_stream(i)
            m.d.comb += [fifo[i].w_data.eq(s.payload), fifo[i].w_en.eq(s.valid), s.ready.eq(fifo[i].w_rdy),
                         s.empty.eq(~fifo[i].r_rdy)]
    _source_interface_bcast(r, m, fifo[local])

    lock = [Signal(name=f"lock_{o}") for o in range(P)]
    cur_out = {i: Signal(range(P), name=f"cur_out_{i}") for i in used_in}
    held = {i: Signal(P, name=f"held_{i}") for i in used_in}
    done = {i: Signal(P, name=f"done_{i}") for i in used_in}
    bmode = {i: Signal(name=f"bmode_{i}") for i in used_in}
    empty = [r.output_stream(o).empty if o != local else Const(1) for o in range(P)]
    lock_v = Cat(*lock)
    empty_v = Cat(*empty)

    isb, W, wf, elig = {}, {}, {}, {}
    for i in used_in:
        isb[i] = Signal(name=f"isb_{i}")
        wf[i] = Signal(P, name=f"wfork_{i}")
        W[i] = Signal(P, name=f"want_{i}")
        elig[i] = Signal(name=f"elig_{i}")
        ports = fk[i].ports[:local] if local else Const(0, 0)
        m.d.comb += [isb[i].eq(fifo[i].r_rdy & (bmode[i] | (head[i].head & head[i].bcast))),
                     wf[i].eq(Cat(ports, fk[i].keep)),
                     W[i].eq(Mux(bmode[i], held[i], wf[i])),
                     elig[i].eq(isb[i] & ~bmode[i] & (held[i] == 0) & (W[i] != 0) &
                                ((W[i] & (lock_v | ~empty_v)) == 0))]
    # the broadcast selector (round robin over inputs, pointer brr as a thermometer code)
    brr = Signal(P, name="brr", init=(1 << P) - 1)
    bsel = _rr_grants(m, elig, P, brr, "bsel")
    taken = Signal(P, name="taken")
    m.d.comb += taken.eq(_any([Mux(bsel[i], wf[i], 0) for i in used_in]))
    with m.If(taken != 0):
        for i in used_in:
            with m.If(bsel[i]):
                m.d.sync += [brr.eq(_therm(i, P)), held[i].eq(wf[i])]

    # unicast requests, broadcast presentation
    req, present, full = {}, {}, {}
    for i in used_in:
        full[i] = Signal(name=f"full_{i}")
        m.d.comb += full[i].eq(isb[i] & ((held[i] == W[i]) | bsel[i]))
        present[i] = Signal(P, name=f"present_{i}")
        m.d.comb += present[i].eq(Mux(full[i], W[i] & ~done[i], 0))
        for o in range(P):
            if allowed[i][o]:
                q = req[i, o] = Signal(name=f"req_{i}_{o}")
                m.d.comb += q.eq(fifo[i].r_rdy & ~isb[i] & ~taken[o] &
                                 Mux(head[i].head, (ru[i].port == o) & ~lock[o], cur_out[i] == o))

    deq = {i: [] for i in used_in}
    tx = {i: [] for i in used_in}
    for o in range(P):
        srcs = [i for i in used_in if allowed[i][o]]
        out = r.output_stream(o)
        if not srcs:
            m.d.comb += out.valid.eq(0)
            continue
        pri = Signal(P, name=f"rr_{o}", init=(1 << P) - 1)
        grant = _rr_grants(m, {i: req[i, o] for i in srcs}, P, pri, f"grant_{o}")
        sel = {}
        for i in srcs:
            sel[i] = Signal(name=f"sel_{o}_{i}")
            m.d.comb += sel[i].eq(grant[i] | present[i][o])
        m.d.comb += out.valid.eq(_any(list(sel.values())))
        sel_head = _onehot_mux([(sel[i], head[i].head) for i in srcs])
        sel_tail = _onehot_mux([(sel[i], head[i].tail) for i in srcs])
        m.d.comb += [out.payload.head.eq(sel_head), out.payload.tail.eq(sel_tail),
                     out.payload.data.eq(_onehot_mux([(sel[i], head[i].data) for i in srcs]))]
        if o != local:
            width = len(out.payload.route)
            routes = [(sel[i], Mux(isb[i], fk[i].new_tag[o], ru[i].new_route.as_value())) for i in srcs]
            m.d.comb += [out.payload.route.eq(_onehot_mux(routes)),
                         out.payload.bcast.eq(_any([present[i][o] for i in srcs]))]
            assert width >= max(Ru, T)
        xfer = Signal(name=f"xfer_{o}")
        m.d.comb += xfer.eq(out.valid & out.ready)
        for i in srcs:
            deq[i].append(grant[i] & out.ready)
            tx[i].append((o, present[i][o] & out.ready))
        # acquisition by the selected broadcast: lock, rr past it (before the transfer rules: a tail wins)
        with m.If(taken[o]):
            m.d.sync += lock[o].eq(1)
            for i in srcs:
                with m.If(bsel[i]):
                    m.d.sync += pri.eq(_therm(i, P))
        with m.If(xfer):
            with m.If(sel_head):
                for i in srcs:
                    with m.If(grant[i]):          # unicast heads move rr[o]
                        m.d.sync += pri.eq(_therm(i, P))
            with m.If(sel_tail):
                m.d.sync += lock[o].eq(0)
            with m.Elif(sel_head & ~_any([present[i][o] for i in srcs])):
                m.d.sync += lock[o].eq(1)
        if o == local:
            with m.If(xfer & sel_tail):
                m.d.sync += r.ejected.eq(r.ejected + 1)
    for i in used_in:
        t = Signal(P, name=f"tx_{i}")
        m.d.comb += t.eq(_any([Mux(bit, 1 << o, 0) for o, bit in tx[i]]))
        nd = Signal(P, name=f"ndone_{i}")
        m.d.comb += nd.eq(done[i] | t)
        bdeq = Signal(name=f"bdeq_{i}")
        m.d.comb += bdeq.eq(full[i] & (nd == W[i]))
        m.d.comb += fifo[i].r_en.eq(_any(deq[i]) | bdeq)
        with m.If(fifo[i].r_en & fifo[i].r_rdy & head[i].head & ~isb[i]):
            m.d.sync += cur_out[i].eq(ru[i].port)
        with m.If(bdeq):
            m.d.sync += done[i].eq(0)
            with m.If(head[i].tail):
                m.d.sync += [held[i].eq(0), bmode[i].eq(0)]
            with m.Elif(head[i].head):
                m.d.sync += bmode[i].eq(1)
        with m.Elif(full[i]):
            m.d.sync += done[i].eq(nd)
    return m


def _source_interface_bcast(r, m: Module, fifo: SyncFIFO) -> None:
    """docs/router.md "Source interface" plus: a head with dest 0xFFFF is written with bcast = 1."""
    s = r.local_in
    w = data.View(r.flit_layout, fifo.w_data)
    inj = m.submodules.inject = r.adapter.inject_unit(r.node)
    if r.adapter.node_generic:
        m.d.comb += inj.node_id.eq(r.node_id)
    dest = s.payload.data[:DEST_WIDTH]
    m.d.comb += inj.dest.eq(dest)
    is_bc = Signal()
    m.d.comb += is_bc.eq(dest == BROADCAST_DEST)
    dest_ok = (dest < r.topology.num_nodes) | is_bc
    in_packet = Signal()
    dropping = Signal()
    pkt_route = Signal(r.routing.layout.width)
    m.d.comb += [w.tail.eq(s.payload.tail), w.data.eq(s.payload.data)]
    with m.If(~in_packet):
        with m.If(s.payload.head & dest_ok):
            m.d.comb += [w.head.eq(1), w.bcast.eq(is_bc), w.route.eq(Mux(is_bc, 0, inj.route.as_value())),
                         fifo.w_en.eq(s.valid), s.ready.eq(fifo.w_rdy)]
            with m.If(s.valid & fifo.w_rdy):
                m.d.sync += [r.injected.eq(r.injected + 1), pkt_route.eq(inj.route.as_value()),
                             in_packet.eq(~s.payload.tail), dropping.eq(0)]
        with m.Elif(s.payload.head):
            m.d.comb += s.ready.eq(1)
            with m.If(s.valid):
                m.d.sync += [r.dropped.eq(r.dropped + 1), in_packet.eq(~s.payload.tail), dropping.eq(1)]
        with m.Else():
            m.d.comb += s.ready.eq(1)
            with m.If(s.valid):
                m.d.sync += r.malformed.eq(r.malformed + 1)
    with m.Else():
        with m.If(dropping):
            m.d.comb += s.ready.eq(1)
        with m.Else():
            m.d.comb += [w.head.eq(0), w.route.eq(pkt_route), fifo.w_en.eq(s.valid), s.ready.eq(fifo.w_rdy)]
        with m.If(s.valid & s.ready):
            with m.If(s.payload.head):
                m.d.sync += r.malformed.eq(r.malformed + 1)
            with m.If(s.payload.tail):
                m.d.sync += in_packet.eq(0)
