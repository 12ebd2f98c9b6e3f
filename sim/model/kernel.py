"""The compiled step loop of the cycle-accurate model (docs/router.md, any V >= 1).

A flit in a FIFO is one int64: ``flit_id << 32 | route << 2 | tail << 1 | head`` where ``flit_id`` is
the index into the :class:`~cubenoc.sim.model.stimulus.Stimulus` arrays (the data never changes on
its way, so it is looked up at the end). FIFO ``f = (v * P + i) * V + c`` is VC ``c`` of input port
``i`` of node ``v`` (the local input uses only ``c = 0``); the flit's VC is the FIFO it sits in.
Round-robin runs over the pairs ``j = i * V + c``; locks are per (output, VC): ``lock[(v*P+o)*V+c]``
(the local output uses ``c = 0``). With V = 1 this is exactly the V = 1 router (docs/router.md,
"Virtual channels": the per-VC ready mask and the every-transfer rr update change nothing then).

Each cycle has two phases, as the hardware's combinational logic and clock edge:
1. from the registered state only (FIFO heads and counts, rr, locks, cur_out): the source interfaces
   decide acceptance, every output arbitrates and, if ready, transfers; dequeues and enqueues are
   recorded;
2. the clock edge: dequeues, then enqueues, are applied.
"""
from __future__ import annotations

import numpy as np

try:
    from numba import njit
except ImportError:  # pragma: no cover - numba is a dependency; plain Python still works (slowly)
    def njit(*args, **kwargs):
        if args and callable(args[0]):
            return args[0]
        return lambda f: f

ROUTE_SHIFT = 2
FLIT_SHIFT = 32
ROUTE_MASK = (1 << 30) - 1

# source interface states
IDLE, FORWARD, DROP = 0, 1, 2
# counter columns
INJECTED, EJECTED, DROPPED, MALFORMED = 0, 1, 2, 3


@njit(cache=True, nogil=True)
def step_cycles(t0, t_stop, stop_when_drained, depth, P, V,
                nports, link, route_tab, route_vc, route_row, route_xor, allowed,
                buf, fhead, fcnt, nocc, rr, lock, cur_out, cur_vc,
                src_ptr, src_end, src_state,
                s_head, s_tail, s_route, s_release,
                eject_ready, counters, accept_cycle, eject_cycle,
                tr_cycle, tr_node, tr_flit, tr_ht, scal, link_flits):
    """Simulate cycles ``t0 .. t_stop-1`` (stop early once drained when asked); return the next cycle.

    ``scal`` holds int64 scalars carried between calls: [0] flits in the network, [1] trace length,
    [2] flits not yet offered/accepted at the sources. ``link_flits[v * P + o]`` counts the flits
    that crossed network output o of node v (the simulator's per-link utilisation).
    """
    N = nports.shape[0]
    T = eject_ready.shape[0]
    PV = P * V
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
    t = t0
    while t < t_stop:
        if stop_when_drained and inflight == 0 and pending == 0:
            break
        ndeq = 0
        nenq = 0
        # ---- phase 1a: source interfaces (combinational, offered flit vs local FIFO count) ----
        if pending > 0:
            for v in range(N):
                p = src_ptr[v]
                if p >= src_end[v] or s_release[p] > t:
                    continue
                lf = (v * P + nports[v] - 1) * V
                st = src_state[v]
                h = s_head[p]
                tl = s_tail[p]
                acc = False
                if st == 0:
                    if h == 1:
                        if s_route[p] < 0:          # dest >= num_nodes: drop the packet
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
                    else:                            # non-head outside a packet: malformed
                        acc = True
                        counters[v, 3] += 1
                elif st == 1:
                    if fcnt[lf] < depth:
                        acc = True
                        enq_f[nenq] = lf
                        enq_w[nenq] = (p << 32) | (tl << 1)   # a misplaced head loses its head bit
                        nenq += 1
                        inflight += 1
                        if h == 1:
                            counters[v, 3] += 1
                        if tl == 1:
                            src_state[v] = 0
                else:                                # inside a dropped packet
                    acc = True
                    if h == 1:
                        counters[v, 3] += 1
                    if tl == 1:
                        src_state[v] = 0
                if acc:
                    accept_cycle[p] = t
                    src_ptr[v] = p + 1
                    pending -= 1
        # ---- phase 1b: routers: requests, round-robin arbitration, transfers ----
        if inflight > 0:
            for v in range(N):
                if nocc[v] == 0:
                    continue
                Pv = nports[v]
                base = v * P
                fbase = base * V
                outs = 0
                for j in range(Pv * V):
                    fi = fbase + j
                    if fcnt[fi] == 0:
                        continue
                    w = buf[fi, fhead[fi]]
                    if w & 1:
                        rx = route_xor[v]            # shared rows of symmetric networks (tables.py)
                        word = ((w >> 2) & 0x3FFFFFFF) ^ rx
                        e = route_tab[route_row[v], word]
                        if e < 0:                    # a route word no packet can carry: stuck
                            continue
                        e ^= rx << 8
                        o = e & 0xFF
                        cv = route_vc[route_row[v], word] if V > 1 and o != Pv - 1 else 0
                        if lock[(base + o) * V + cv] >= 0:
                            continue
                        ent[j] = e
                    else:
                        o = cur_out[fi]
                        cv = cur_vc[fi]
                    if not (allowed[base + j // V] >> o) & 1:
                        continue
                    d = link[base + o]
                    if d >= 0 and fcnt[d * V + cv] >= depth:   # the downstream VC is full
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
    return t
