"""The model of the adaptive / fault-aware router (docs/router.md, "Adaptive selection" and "Run-time
faults"): the step loop of :mod:`.kernel` with two route candidates per head, the run-time selection,
per-output packet counters, fault inputs and discarding of unroutable packets.

Used by :class:`~cubenoc.sim.model.network.NetworkModel` when the routing function has a ``selection``
or a run is given a :class:`~cubenoc.sim.model.faults.FaultSchedule`; everything else runs the original
kernel unchanged. Extra state: ``route2``/``vc2`` (the second candidate per (node, route word), -1 when
there is none), ``fault`` per output channel and ``nfault`` per node (applied from the schedule at the
start of each cycle), ``disc`` per FIFO (inside a discarded packet), ``use`` per output (16-bit
wrapping count of head flits sent), and a fifth counter column ``discarded``.
"""
from __future__ import annotations

import numpy as np

from cubenoc.errors import CubenocError

from .kernel import njit
from .network import ModelResult, Simulation

SELECTION_CODE = {None: 0, "availability": 0, "least_used": 1}
DISCARDED = 4          # counter column
USE_MASK = 0xFFFF      # the per-output use counters are 16 bits, wrapping (as the RTL's)


def candidate_tables(model) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(route1, vc1, route2, vc2)`` [N, 2**R]: ``port | new_route << 8`` of ``selection_candidates``
    [0] and [1] per (node, route word) (-1: none / never reached), and their VCs."""
    cached = getattr(model, "_candidate_tables", None)
    if cached is not None:
        return cached
    tb, routing = model.tables, model.routing
    n, R = tb.num_nodes, tb.route_width
    layout = routing.layout
    V = tb.num_vcs
    r1 = np.full((n, 1 << R), -1, dtype=np.int64)
    r2 = np.full((n, 1 << R), -1, dtype=np.int64)
    v1 = np.zeros((n, 1 << R), dtype=np.int64)
    v2 = np.zeros((n, 1 << R), dtype=np.int64)
    for v in range(n):
        for word in np.nonzero(tb.route[v] >= 0)[0].tolist():     # words the route table reaches
            try:
                hops = routing.selection_candidates(v, layout.unpack(word))
                packed = [(h.port | (layout.pack(h.header) << 8), h.vc) for h in hops]
            except (CubenocError, AssertionError, KeyError, IndexError, ValueError):
                continue
            if any(not 0 <= vc < V for _, vc in packed):
                continue
            r1[v, word], v1[v, word] = packed[0]
            if len(packed) > 1:
                r2[v, word], v2[v, word] = packed[1]
    model._candidate_tables = (r1, v1, r2, v2)
    return model._candidate_tables


class AdaptiveSimulation(Simulation):
    """A :class:`Simulation` on the adaptive kernel (same arrays plus the fault and selection state)."""

    def __init__(self, model, stim, faults=None):
        super().__init__(model, stim)
        tb = model.tables
        N, P = tb.num_nodes, tb.max_ports
        self.r1, self.v1, self.r2, self.v2 = candidate_tables(model)
        self.sel_mode = SELECTION_CODE[getattr(model.routing, "selection", None)]
        self.counters = np.zeros((N, 5), dtype=np.int64)
        self.disc = np.zeros(N * P * self.num_vcs, dtype=np.int64)
        self.use = np.zeros(N * P, dtype=np.int64)
        self.fault = np.zeros(N * P, dtype=np.int64)
        self.nfault = np.zeros(N, dtype=np.int64)
        if faults is not None:
            if faults.num_nodes != N:
                raise CubenocError(f"fault schedule is for {faults.num_nodes} nodes, the network has {N}")
            self.f_cyc, self.f_out, self.f_node = faults.effective(model.topology, P)
        else:
            self.f_cyc = np.zeros(0, dtype=np.int64)
            self.f_out = np.zeros((0, N * P), dtype=np.int64)
            self.f_node = np.zeros((0, N), dtype=np.int64)
        self.scal = np.concatenate([self.scal, np.zeros(1, dtype=np.int64)])   # [3]: next fault change

    def advance(self, cycles: int, stop_when_drained: bool = False) -> int:
        tb, s = self.model.tables, self.stim
        self.cycle = int(step_cycles_adaptive(
            self.cycle, self.cycle + int(cycles), stop_when_drained, self.model.depth, tb.max_ports,
            self.num_vcs, self.sel_mode, tb.nports, tb.link, self.r1, self.v1, self.r2, self.v2, tb.allowed,
            self.buf, self.fhead, self.fcnt, self.nocc, self.rr, self.lock, self.cur_out, self.cur_vc,
            self.disc, self.use, self.fault, self.nfault, self.f_cyc, self.f_out, self.f_node,
            self.src_ptr, self.src_end, self.src_state,
            s.head, s.tail, self.s_route, s.release,
            self.eject_ready, self.counters, self.accept_cycle, self.eject_cycle,
            self.tr_cycle, self.tr_node, self.tr_flit, self.tr_ht, self.scal, self.link_flits))
        return self.cycle

    def result(self) -> ModelResult:
        res = super().result()
        res.discarded = self.counters[:, DISCARDED].copy()
        return res


@njit(cache=True, nogil=True)
def step_cycles_adaptive(t0, t_stop, stop_when_drained, depth, P, V, sel_mode,
                         nports, link, r1, v1, r2, v2, allowed,
                         buf, fhead, fcnt, nocc, rr, lock, cur_out, cur_vc,
                         disc, use, fault, nfault, f_cyc, f_out, f_node,
                         src_ptr, src_end, src_state,
                         s_head, s_tail, s_route, s_release,
                         eject_ready, counters, accept_cycle, eject_cycle,
                         tr_cycle, tr_node, tr_flit, tr_ht, scal, link_flits):
    """:func:`cubenoc.sim.model.kernel.step_cycles` with docs/router.md "Adaptive selection" and
    "Run-time faults". ``scal[3]`` is the index of the next fault change."""
    N = nports.shape[0]
    T = eject_ready.shape[0]
    PV = P * V
    K = f_cyc.shape[0]
    deq = np.empty(N * PV, dtype=np.int64)
    enq_f = np.empty(N * PV, dtype=np.int64)
    enq_w = np.empty(N * PV, dtype=np.int64)
    req = np.zeros(P, dtype=np.int64)
    tgt = np.empty(PV, dtype=np.int64)
    tvc = np.empty(PV, dtype=np.int64)
    ent = np.empty(PV, dtype=np.int64)
    inflight = scal[0]
    ntr = scal[1]
    pending = scal[2]
    fptr = scal[3]
    t = t0
    while t < t_stop:
        while fptr < K and f_cyc[fptr] <= t:          # the fault inputs of this cycle
            for x in range(N * P):
                fault[x] = f_out[fptr, x]
            for x in range(N):
                nfault[x] = f_node[fptr, x]
            fptr += 1
        if stop_when_drained and inflight == 0 and pending == 0:
            break
        ndeq = 0
        nenq = 0
        # ---- phase 1a: source interfaces (a faulty node accepts nothing) ----
        if pending > 0:
            for v in range(N):
                p = src_ptr[v]
                if p >= src_end[v] or s_release[p] > t or nfault[v]:
                    continue
                lf = (v * P + nports[v] - 1) * V
                st = src_state[v]
                h = s_head[p]
                tl = s_tail[p]
                acc = False
                if st == 0:
                    if h == 1:
                        if s_route[p] < 0:
                            acc = True
                            counters[v, 2] += 1
                            if tl == 0:
                                src_state[v] = 2
                        elif fcnt[lf] < depth:
                            acc = True
                            enq_f[nenq] = lf
                            enq_w[nenq] = (p << 32) | (s_route[p] << 2) | (tl << 1) | 1
                            nenq += 1
                            inflight += 1
                            counters[v, 0] += 1
                            if tl == 0:
                                src_state[v] = 1
                    else:
                        acc = True
                        counters[v, 3] += 1
                elif st == 1:
                    if fcnt[lf] < depth:
                        acc = True
                        enq_f[nenq] = lf
                        enq_w[nenq] = (p << 32) | (tl << 1)
                        nenq += 1
                        inflight += 1
                        if h == 1:
                            counters[v, 3] += 1
                        if tl == 1:
                            src_state[v] = 0
                else:
                    acc = True
                    if h == 1:
                        counters[v, 3] += 1
                    if tl == 1:
                        src_state[v] = 0
                if acc:
                    accept_cycle[p] = t
                    src_ptr[v] = p + 1
                    pending -= 1
        # ---- phase 1b: routers: discards, selection, requests, arbitration, transfers ----
        if inflight > 0:
            for v in range(N):
                if nocc[v] == 0:
                    continue
                Pv = nports[v]
                loc = Pv - 1
                base = v * P
                fbase = base * V
                outs = 0
                for j in range(Pv * V):
                    fi = fbase + j
                    if fcnt[fi] == 0:
                        continue
                    w = buf[fi, fhead[fi]]
                    if disc[fi]:                      # body/tail of a discarded packet: dropped here
                        deq[ndeq] = fi
                        ndeq += 1
                        inflight -= 1
                        if (w >> 1) & 1:
                            disc[fi] = 0
                        continue
                    if w & 1:
                        word = (w >> 2) & 0x3FFFFFFF
                        e0 = r1[v, word]
                        if e0 < 0:
                            continue
                        e1 = r2[v, word]
                        o0 = e0 & 0xFF
                        c0 = v1[v, word] if V > 1 and o0 != loc else 0
                        f0 = o0 != loc and fault[base + o0] != 0
                        o1 = 0
                        c1 = 0
                        f1 = True
                        if e1 >= 0:
                            o1 = e1 & 0xFF
                            c1 = v2[v, word] if V > 1 and o1 != loc else 0
                            f1 = o1 != loc and fault[base + o1] != 0
                        if f0 and f1:                  # every candidate faulty: discard the packet
                            deq[ndeq] = fi
                            ndeq += 1
                            inflight -= 1
                            counters[v, 4] += 1
                            if not (w >> 1) & 1:
                                disc[fi] = 1
                            continue
                        d0 = link[base + o0]
                        a0 = (not f0) and lock[(base + o0) * V + c0] < 0 and (d0 < 0 or fcnt[d0 * V + c0] < depth)
                        pick1 = False
                        if e1 >= 0:
                            if sel_mode == 0:          # availability (Algorithm 2)
                                if not a0:
                                    d1 = link[base + o1]
                                    a1 = (not f1) and lock[(base + o1) * V + c1] < 0 and (d1 < 0 or fcnt[d1 * V + c1] < depth)
                                    pick1 = a1 or f0
                            else:                      # least used (Sec. IV-B)
                                pick1 = f0 or ((not f1) and use[base + o1] < use[base + o0])
                        if pick1:
                            e, o, cv = e1, o1, c1
                        else:
                            e, o, cv = e0, o0, c0
                        if lock[(base + o) * V + cv] >= 0:
                            continue
                        ent[j] = e
                    else:
                        o = cur_out[fi]
                        cv = cur_vc[fi]
                    if not (allowed[base + j // V] >> o) & 1:
                        continue
                    d = link[base + o]
                    if d >= 0 and fcnt[d * V + cv] >= depth:
                        continue
                    req[o] |= 1 << j
                    tgt[j] = w
                    tvc[j] = cv
                    outs |= 1 << o
                NP = Pv * V
                while outs:
                    o = 0
                    while not (outs >> o) & 1:
                        o += 1
                    outs &= ~(1 << o)
                    m = req[o]
                    req[o] = 0
                    win = rr[base + o]
                    while not (m >> win) & 1:
                        win += 1
                        if win == NP:
                            win = 0
                    d = link[base + o]
                    if d == -1 and (eject_ready[t, v] if t < T else 1) == 0:
                        continue
                    w = tgt[win]
                    cv = tvc[win]
                    fi = fbase + win
                    deq[ndeq] = fi
                    ndeq += 1
                    rr[base + o] = win + 1 if win + 1 < NP else 0
                    li = (base + o) * V + cv
                    if w & 1:
                        w = (w & ~(0x3FFFFFFF << 2)) | ((ent[win] >> 8) << 2)
                        if d != -1:
                            use[base + o] = (use[base + o] + 1) & 0xFFFF
                        if not (w >> 1) & 1:
                            lock[li] = win
                            cur_out[fi] = o
                            cur_vc[fi] = cv
                    if (w >> 1) & 1:
                        lock[li] = -1
                    if d == -1:
                        f = w >> 32
                        tr_cycle[ntr] = t
                        tr_node[ntr] = v
                        tr_flit[ntr] = f
                        tr_ht[ntr] = w & 3
                        ntr += 1
                        eject_cycle[f] = t
                        inflight -= 1
                        if (w >> 1) & 1:
                            counters[v, 1] += 1
                    else:
                        link_flits[base + o] += 1
                        enq_f[nenq] = d * V + cv
                        enq_w[nenq] = w
                        nenq += 1
        # ---- phase 2: the clock edge ----
        for j in range(ndeq):
            fi = deq[j]
            fhead[fi] = fhead[fi] + 1 if fhead[fi] + 1 < depth else 0
            fcnt[fi] -= 1
            nocc[fi // PV] -= 1
        for j in range(nenq):
            fi = enq_f[j]
            pos = fhead[fi] + fcnt[fi]
            if pos >= depth:
                pos -= depth
            buf[fi, pos] = enq_w[j]
            fcnt[fi] += 1
            nocc[fi // PV] += 1
        t += 1
    scal[0] = inflight
    scal[1] = ntr
    scal[2] = pending
    scal[3] = fptr
    return t
