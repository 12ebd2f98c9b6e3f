"""The compiled step loop with broadcast forks (docs/router.md "Broadcast and multicast"; V = 1 only).

Taken instead of :func:`cubenoc.sim.model.kernel.step_cycles` only when the model has a broadcast
algorithm. A flit word is ``flit_id << 32 | bcast << 31 | route << 2 | tail << 1 | head`` (route up to
29 bits). Per input FIFO ``f = v * P + i``: ``held[f]``, ``done[f]`` (output masks) and ``bmode[f]``.
Two phases per cycle as in the unicast kernel; unlike it, requests never look at the downstream
FIFO's room (acquisition does not depend on ``ready``); the winner transfers when there is room.
"""
from __future__ import annotations

import numpy as np

from .kernel import njit

BCAST_BIT = 31
ROUTE_MASK29 = (1 << 29) - 1


@njit(cache=True, nogil=True)
def step_cycles_bcast(t0, t_stop, stop_when_drained, depth, P,
                      nports, link, route_tab, allowed, fork_mask, fork_tag, origin_row,
                      buf, fhead, fcnt, nocc, rr, lock, cur_out, held, done, bmode, brr,
                      src_ptr, src_end, src_state,
                      s_head, s_tail, s_route, s_release,
                      eject_ready, counters, accept_cycle, eject_cycle,
                      tr_cycle, tr_node, tr_flit, tr_ht, scal):
    N = nports.shape[0]
    T = eject_ready.shape[0]
    deq = np.empty(N * P, dtype=np.int64)
    enq_f = np.empty(N * P * P + N, dtype=np.int64)
    enq_w = np.empty(N * P * P + N, dtype=np.int64)
    req = np.zeros(P, dtype=np.int64)
    kind = np.zeros(P, dtype=np.int64)      # 0 nothing, 1 unicast, 2 broadcast
    tgt = np.empty(P, dtype=np.int64)
    ent = np.empty(P, dtype=np.int64)
    want = np.zeros(P, dtype=np.int64)
    row = np.zeros(P, dtype=np.int64)
    win_of = np.empty(P, dtype=np.int64)
    acq = np.zeros(P, dtype=np.int64)
    xfer = np.zeros(P, dtype=np.int64)
    inflight = scal[0]
    ntr = scal[1]
    pending = scal[2]
    t = t0
    while t < t_stop:
        if stop_when_drained and inflight == 0 and pending == 0:
            break
        ndeq = 0
        nenq = 0
        # ---- phase 1a: source interfaces ----
        if pending > 0:
            for v in range(N):
                p = src_ptr[v]
                if p >= src_end[v] or s_release[p] > t:
                    continue
                lf = v * P + nports[v] - 1
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
        # ---- phase 1b: routers ----
        if inflight > 0:
            for v in range(N):
                if nocc[v] == 0:
                    continue
                Pv = nports[v]
                loc = Pv - 1
                base = v * P
                outs = 0
                elig = 0
                # requests
                for j in range(Pv):
                    kind[j] = 0
                    fi = base + j
                    if fcnt[fi] == 0:
                        continue
                    w = buf[fi, fhead[fi]]
                    tgt[j] = w
                    if bmode[fi] == 1 or ((w & 1) == 1 and ((w >> BCAST_BIT) & 1) == 1):
                        kind[j] = 2
                        if bmode[fi] == 1:
                            want[j] = held[fi]
                        else:
                            r = origin_row if j == loc else (w >> 2) & ROUTE_MASK29
                            row[j] = r
                            want[j] = fork_mask[v, r]
                        rem = want[j] & ~held[fi]
                        # eligible: nothing acquired yet, every wanted output unlocked, every network
                        # branch's downstream FIFO empty (room for the whole packet)
                        if rem != 0 and held[fi] == 0:
                            free = True
                            o = 0
                            while rem >> o:
                                if (rem >> o) & 1 and (lock[base + o] >= 0 or (o != loc and fcnt[link[base + o]] > 0)):
                                    free = False
                                o += 1
                            if free:
                                elig |= 1 << j
                        continue
                    if w & 1:
                        word = (w >> 2) & ROUTE_MASK29
                        e = route_tab[v, word]
                        if e < 0:
                            continue
                        o = e & 0xFF
                        if lock[base + o] >= 0:
                            continue
                        ent[j] = e
                    else:
                        o = cur_out[fi]
                    if not (allowed[base + j] >> o) & 1:
                        continue
                    kind[j] = 1
                    req[o] |= 1 << j
                    outs |= 1 << o
                # the broadcast selector: the first eligible head from brr[v] takes all of its outputs
                for o in range(Pv):
                    win_of[o] = -1
                    xfer[o] = 0
                if elig:
                    b = brr[v]
                    while not (elig >> b) & 1:
                        b += 1
                        if b == Pv:
                            b = 0
                    brr[v] = b + 1 if b + 1 < Pv else 0
                    W = want[b]
                    held[base + b] = W
                    for o in range(Pv):
                        if (W >> o) & 1:
                            lock[base + o] = b
                            rr[base + o] = b + 1 if b + 1 < Pv else 0
                            win_of[o] = b
                            outs &= ~(1 << o)
                            req[o] = 0
                # round-robin arbitration per output for unicast requests (never looks at ready)
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
                        if win == Pv:
                            win = 0
                    win_of[o] = win
                # broadcast inputs holding all their outputs: presentation and join
                for j in range(Pv):
                    if kind[j] != 2:
                        continue
                    fi = base + j
                    W = want[j]
                    if held[fi] != W:
                        continue
                    w = tgt[j]
                    pres = W & ~done[fi]
                    tx = 0
                    for o in range(Pv):
                        if not (pres >> o) & 1:
                            continue
                        d = link[base + o]
                        if d == -1:
                            if (eject_ready[t, v] if t < T else 1) == 0:
                                continue
                            f = w >> 32
                            tr_cycle[ntr] = t
                            tr_node[ntr] = v
                            tr_flit[ntr] = f
                            tr_ht[ntr] = w & 3
                            ntr += 1
                            eject_cycle[f] = t
                            if (w >> 1) & 1:
                                counters[v, 1] += 1
                        else:
                            if fcnt[d] >= depth:
                                continue
                            if w & 1:
                                nw = (w & ~(ROUTE_MASK29 << 2)) | (fork_tag[v, row[j], o] << 2)
                            else:
                                nw = w
                            enq_f[nenq] = d
                            enq_w[nenq] = nw
                            nenq += 1
                            inflight += 1
                        tx |= 1 << o
                        if (w >> 1) & 1:
                            lock[base + o] = -1
                    nd = done[fi] | tx
                    if nd == W:
                        deq[ndeq] = fi
                        ndeq += 1
                        inflight -= 1
                        done[fi] = 0
                        if (w >> 1) & 1:
                            held[fi] = 0
                            bmode[fi] = 0
                        else:
                            held[fi] = W
                            bmode[fi] = 1
                    else:
                        done[fi] = nd
                # unicast winners: transfer when there is room
                for o in range(Pv):
                    j = win_of[o]
                    if j < 0 or kind[j] != 1:
                        continue
                    d = link[base + o]
                    if d == -1:
                        if (eject_ready[t, v] if t < T else 1) == 0:
                            continue
                    elif fcnt[d] >= depth:
                        continue
                    fi = base + j
                    w = tgt[j]
                    deq[ndeq] = fi
                    ndeq += 1
                    inflight -= 1
                    if w & 1:
                        rr[base + o] = j + 1 if j + 1 < Pv else 0
                        w = (w & ~(ROUTE_MASK29 << 2)) | ((ent[j] >> 8) << 2)
                        if not (w >> 1) & 1:
                            lock[base + o] = j
                            cur_out[fi] = o
                    if (w >> 1) & 1:
                        lock[base + o] = -1
                    if d == -1:
                        f = w >> 32
                        tr_cycle[ntr] = t
                        tr_node[ntr] = v
                        tr_flit[ntr] = f
                        tr_ht[ntr] = w & 3
                        ntr += 1
                        eject_cycle[f] = t
                        if (w >> 1) & 1:
                            counters[v, 1] += 1
                    else:
                        enq_f[nenq] = d
                        enq_w[nenq] = w
                        nenq += 1
                        inflight += 1
        # ---- phase 2: the clock edge ----
        for j in range(ndeq):
            fi = deq[j]
            fhead[fi] = fhead[fi] + 1 if fhead[fi] + 1 < depth else 0
            fcnt[fi] -= 1
            nocc[fi // P] -= 1
        for j in range(nenq):
            fi = enq_f[j]
            pos = fhead[fi] + fcnt[fi]
            if pos >= depth:
                pos -= depth
            buf[fi, pos] = enq_w[j]
            fcnt[fi] += 1
            nocc[fi // P] += 1
        t += 1
    scal[0] = inflight
    scal[1] = ntr
    scal[2] = pending
    return t
