"""The adaptive / fault-aware router (docs/router.md, "Adaptive selection and run-time faults").

:func:`elaborate_adaptive` is what :class:`~cubenoc.rtl.router.Router` elaborates when its routing
function has a ``selection`` or it was built with ``faults=True``; for any V >= 1 it is the V > 1 router
of docs/router.md ("Virtual channels": per-(input, VC) FIFOs, requests masked by the downstream ready,
round-robin over pairs ``j = i * V + c`` updated on every transfer) plus, per FIFO head, two route
candidates (:class:`~cubenoc.rtl.route_candidates.CandidateUnit`), the run-time selection, per-output
16-bit use counters (least_used), the ``link_fault``/``node_fault`` inputs, and the discard state that
drops a packet whose every candidate is faulty (counted in ``discarded``).
"""
from __future__ import annotations

from types import SimpleNamespace

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import data
from amaranth.lib.fifo import SyncFIFO

from .route_candidates import candidate_unit
from .router import COUNTER_WIDTH, _any, _onehot_mux

USE_WIDTH = 16


def elaborate_adaptive(r) -> Module:
    m = Module()
    P, local, layout, V = r.num_ports, r.local, r.flit_layout, r.num_vcs
    PV = P * V
    allowed = r.allowed
    least_used = getattr(r.routing, "selection", None) == "least_used"
    used_in = [i for i in range(P) if any(allowed[i])]
    pairs = [(i, c) for i in used_in for c in ((0,) if i == local else range(V))]

    def ready_of(o):                      # V bits: downstream VC ready (local: always ones)
        return Const((1 << V) - 1, V) if o == local else r.output_stream(o).ready

    # ---- faults: an output is faulty when its link_fault bit or node_fault is set; local never ----------
    fault = Signal(P, name="fault")
    if local:
        m.d.comb += fault.eq(Cat(r.link_fault[:local] | r.node_fault.replicate(local), Const(0, 1)))

    # ---- per-(input, VC) FIFOs, candidate units --------------------------------------------------------
    fifo, head, cu = {}, {}, {}
    for k in pairs:
        i, c = k
        fifo[k] = m.submodules[f"fifo_{i}_{c}"] = SyncFIFO(width=layout.size, depth=r.fifo_depth)
        head[k] = data.View(layout, fifo[k].r_data)
        cu[k] = m.submodules[f"cand_{i}_{c}"] = candidate_unit(r.routing, r.node)
        m.d.comb += cu[k].route.eq(head[k].route)
        if cu[k].node_generic:
            m.d.comb += cu[k].node_id.eq(r.node_id)
    for i in range(P):
        if i not in used_in:
            m.d.comb += r.input_stream(i).ready.eq(0)
    for i in used_in:
        if i == local:
            continue
        s = r.input_stream(i)
        if V == 1:
            m.d.comb += [fifo[i, 0].w_data.eq(s.payload), fifo[i, 0].w_en.eq(s.valid), s.ready.eq(fifo[i, 0].w_rdy)]
        else:
            for c in range(V):
                m.d.comb += [fifo[i, c].w_data.eq(s.payload), fifo[i, c].w_en.eq(s.valid & (s.payload.vc == c)),
                             s.ready[c].eq(fifo[i, c].w_rdy)]
    # a faulty node's source interface refuses injection
    gated = SimpleNamespace(valid=Signal(name="inj_valid"), ready=Signal(name="inj_ready"),
                            payload=r.local_in.payload)
    m.d.comb += [gated.valid.eq(r.local_in.valid & ~r.node_fault),
                 r.local_in.ready.eq(gated.ready & ~r.node_fault)]
    r._source_interface(m, fifo[local, 0], gated)

    # ---- state ----------------------------------------------------------------------------------------------
    lock = [Signal(V if o != local else 1, name=f"lock_{o}") for o in range(P)]
    lock_flat = Cat(*[lk if len(lk) == V else Cat(lk, Const(0, V - 1)) for lk in lock])   # bit o*V + c
    ready_flat = Cat(*[ready_of(o) for o in range(P)])
    use = {o: Signal(USE_WIDTH, name=f"use_{o}") for o in range(local)} if least_used else {}
    cur_out = {k: Signal(range(P), name=f"cur_out_{k[0]}_{k[1]}") for k in pairs}
    cur_vc = {k: Signal(range(max(2, V)), name=f"cur_vc_{k[0]}_{k[1]}") for k in pairs}
    dstate = {k: Signal(name=f"discarding_{k[0]}_{k[1]}") for k in pairs}

    def avail(port, vc, faulty):
        idx = port * V + vc if V > 1 else port
        return ~faulty & ~lock_flat.bit_select(idx, 1) & ready_flat.bit_select(idx, 1)

    def use_of(port):
        u = Signal(USE_WIDTH)
        with m.Switch(port):
            for o in range(local):
                with m.Case(o):
                    m.d.comb += u.eq(use[o])
            with m.Default():
                m.d.comb += u.eq(0)
        return u

    # ---- selection, discards, requests -------------------------------------------------------------------
    sel_port, sel_vc, sel_new, out_vc, disc_now, req = {}, {}, {}, {}, {}, {}
    for k in pairs:
        i, c = k
        u, h = cu[k], head[k]
        nm = f"{i}_{c}"
        cv0 = Signal(range(max(2, V)), name=f"cv0_{nm}")
        cv1 = Signal(range(max(2, V)), name=f"cv1_{nm}")
        if V > 1:
            m.d.comb += [cv0.eq(Mux(u.port0 == local, 0, u.vc0)), cv1.eq(Mux(u.port1 == local, 0, u.vc1))]
        f0, f1 = Signal(name=f"f0_{nm}"), Signal(name=f"f1_{nm}")
        m.d.comb += [f0.eq(fault.bit_select(u.port0, 1)), f1.eq(fault.bit_select(u.port1, 1) | ~u.has1)]
        a0, a1 = Signal(name=f"a0_{nm}"), Signal(name=f"a1_{nm}")
        m.d.comb += [a0.eq(avail(u.port0, cv0, f0)), a1.eq(avail(u.port1, cv1, f1))]
        sel = Signal(name=f"sel_{nm}")
        if least_used:
            m.d.comb += sel.eq(u.has1 & (f0 | (~f1 & (use_of(u.port1) < use_of(u.port0)))))
        else:
            m.d.comb += sel.eq(u.has1 & ~a0 & (a1 | f0))
        sp = sel_port[k] = Signal(range(P), name=f"sel_port_{nm}")
        sv = sel_vc[k] = Signal(range(max(2, V)), name=f"sel_vc_{nm}")
        sn = sel_new[k] = Signal(r.routing.layout.amaranth(), name=f"sel_new_{nm}")
        ok = Signal(name=f"sel_ok_{nm}")
        m.d.comb += [sp.eq(Mux(sel, u.port1, u.port0)), sv.eq(Mux(sel, cv1, cv0)),
                     sn.eq(Mux(sel, u.new1.as_value(), u.new0.as_value())), ok.eq(Mux(sel, a1, a0))]
        ov = out_vc[k] = Signal(range(max(2, V)), name=f"out_vc_{nm}")
        m.d.comb += ov.eq(Mux(h.head, sv, cur_vc[k]))
        live = Signal(name=f"live_{nm}")
        m.d.comb += live.eq(fifo[k].r_rdy & ~dstate[k])
        dn = disc_now[k] = Signal(name=f"disc_{nm}")
        m.d.comb += dn.eq(live & h.head & f0 & f1)
        for o in range(P):
            if not allowed[i][o]:
                continue
            rq = req[k, o] = Signal(name=f"req_{nm}_{o}")
            room = ready_of(o)[0] if V == 1 else ready_of(o).bit_select(cur_vc[k], 1)
            m.d.comb += rq.eq(live & Mux(h.head, (sp == o) & ok, (cur_out[k] == o) & room))

    # ---- per-output round-robin over pairs, crossbar, locks, use counters --------------------------------
    deq = {k: [] for k in pairs}
    sent = {k: [] for k in pairs}
    for o in range(P):
        srcs = [k for k in pairs if allowed[k[0]][o]]
        out = r.output_stream(o)
        if not srcs:
            m.d.comb += out.valid.eq(0)
            continue
        idx = {k: k[0] * V + k[1] for k in srcs}
        pri = Signal(PV, name=f"rr_{o}", init=(1 << PV) - 1)
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
        ovc = Const(0, 1)
        if o != local:
            m.d.comb += out.payload.route.eq(_onehot_mux([(grant[k], sel_new[k].as_value()) for k in srcs]))
            if V > 1:
                ovc = Signal(range(V), name=f"o_vc_{o}")
                m.d.comb += [ovc.eq(_onehot_mux([(grant[k], out_vc[k]) for k in srcs])),
                             out.payload.vc.eq(ovc), xfer.eq(out.valid & out.ready.bit_select(ovc, 1))]
            else:
                m.d.comb += xfer.eq(out.valid & out.ready)
        else:
            m.d.comb += xfer.eq(out.valid & out.ready)
        for k in srcs:
            deq[k].append(grant[k] & xfer)
            sent[k].append(grant[k] & xfer)
        with m.If(xfer):
            for k in srcs:
                with m.If(grant[k]):          # rr[o] = (j + 1) mod P*V, on every transfer
                    m.d.sync += pri.eq(((1 << PV) - 1) & ~((1 << ((idx[k] + 1) % PV)) - 1))
            target = lock[o] if len(lock[o]) == 1 else lock[o].bit_select(ovc, 1)
            with m.If(sel_tail):
                m.d.sync += target.eq(0)
            with m.Elif(sel_head):
                m.d.sync += target.eq(1)
            if o in use:
                with m.If(sel_head):
                    m.d.sync += use[o].eq(use[o] + 1)
        if o == local:
            with m.If(xfer & sel_tail):
                m.d.sync += r.ejected.eq(r.ejected + 1)

    for k in pairs:
        body_drop = Signal(name=f"drop_{k[0]}_{k[1]}")
        m.d.comb += body_drop.eq(fifo[k].r_rdy & dstate[k])
        m.d.comb += fifo[k].r_en.eq(_any(deq[k] + [disc_now[k], body_drop]))
        with m.If(_any(sent[k]) & head[k].head):
            m.d.sync += [cur_out[k].eq(sel_port[k]), cur_vc[k].eq(sel_vc[k])]
        with m.If(disc_now[k] & ~head[k].tail):
            m.d.sync += dstate[k].eq(1)
        with m.If(body_drop & head[k].tail):
            m.d.sync += dstate[k].eq(0)
    ndisc = sum(disc_now[k] for k in pairs)
    m.d.sync += r.discarded.eq((r.discarded + ndisc)[:COUNTER_WIDTH])
    return m
