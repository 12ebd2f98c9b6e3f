"""Prototype (model only, not in the RTL): per-output queues at each input, chosen by lookahead routing.

What docs/router.md's "VC seam" would buy: input ``i`` of router ``v`` keeps one FIFO per output ``o``
(only the turns ``allowed`` lists exist, so the crossbar is as pruned as today: queue (i, o) feeds only
output o). The upstream router computes the packet's output at the next router (lookahead routing:
``routing.route`` applied once more to the updated header) and writes the flit into that queue; the link
carries a per-queue ready vector (``vc_ready``). A head blocked on one output no longer blocks the packets
behind it that go elsewhere (no head-of-line blocking), and routing is off the critical path, so a hop
still takes one cycle.

``interleave=False``: one lock per output (a packet holds the link from head to tail, as today).
``interleave=True``: one lock per (output, downstream queue), i.e. virtual channels = downstream
output queues; packets to different downstream queues share the link flit by flit.
Requests are masked by the downstream queue's ready (the seam's "arbitration only considers requests
whose downstream VC is ready"). Only well-formed, in-range traffic (the benchmarks) is supported.
``cubenoc bench throughput --voq`` reports it next to the V = 1 router.
"""
from __future__ import annotations

import numpy as np

from cubenoc.errors import CubenocError, require_int

from .kernel import njit
from .network import ModelResult, default_allowed, default_routing
from .stimulus import Stimulus
from .tables import build_tables, inject_words


@njit(cache=True, nogil=True)
def _voq_cycles(t_stop, depth, P, interleave, nports, link, route_tab, allowed,
                buf, qhead, qcnt, rr, lock, cur_vq, src_q,
                src_ptr, src_end, s_head, s_tail, s_route, s_release, eject_ready,
                counters, accept_cycle, eject_cycle):
    N = nports.shape[0]
    T = eject_ready.shape[0]
    PP = P * P
    deq = np.empty(N * PP, dtype=np.int64)
    enq_q = np.empty(N * PP, dtype=np.int64)
    enq_w = np.empty(N * PP, dtype=np.int64)
    tgt_w = np.empty(P, dtype=np.int64)
    tgt_d = np.empty(P, dtype=np.int64)
    tgt_vq = np.empty(P, dtype=np.int64)
    for t in range(t_stop):
        ndeq = 0
        nenq = 0
        # source interfaces: the head's queue is its first output (lookahead at injection)
        for v in range(N):
            p = src_ptr[v]
            if p >= src_end[v] or s_release[p] > t:
                continue
            loc = nports[v] - 1
            if s_head[p] == 1:
                o = route_tab[v, s_route[p]] & 0xFF
                q = (v * P + loc) * P + o
            else:
                q = src_q[v]
            if qcnt[q] < depth:
                enq_q[nenq] = q
                enq_w[nenq] = (p << 32) | (s_route[p] << 2) | (s_tail[p] << 1) | s_head[p]
                nenq += 1
                src_q[v] = q
                accept_cycle[p] = t
                src_ptr[v] = p + 1
                if s_head[p] == 1:
                    counters[v, 0] += 1
        for v in range(N):
            Pv = nports[v]
            for o in range(Pv):
                lo = v * P + o
                d = link[lo]
                m = 0
                for i in range(Pv):
                    if not (allowed[v * P + i] >> o) & 1:
                        continue
                    q = (v * P + i) * P + o
                    if qcnt[q] == 0:
                        continue
                    w = buf[q, qhead[q]]
                    if d == -1:
                        dq = -1
                        vq = 0
                        if w & 1 and lock[lo * P] >= 0:
                            continue
                        if not w & 1 and lock[lo * P] != i:
                            continue
                        ok = (eject_ready[t, v] if t < T else 1) == 1
                    else:
                        if w & 1:
                            e = route_tab[v, (w >> 2) & 0x3FFFFFFF]
                            r2 = e >> 8
                            u = d // P
                            vq = route_tab[u, r2] & 0xFF
                            li = lo * P + (vq if interleave else 0)
                            if lock[li] >= 0:
                                continue
                        else:
                            vq = cur_vq[q]
                            li = lo * P + (vq if interleave else 0)
                            if lock[li] != i:
                                continue
                        dq = d * P + vq
                        ok = qcnt[dq] < depth
                    if ok:
                        m |= 1 << i
                        tgt_w[i] = w
                        tgt_d[i] = dq
                        tgt_vq[i] = vq
                if m == 0:
                    continue
                win = rr[lo]
                while not (m >> win) & 1:
                    win += 1
                    if win == Pv:
                        win = 0
                w = tgt_w[win]
                q = (v * P + win) * P + o
                deq[ndeq] = q
                ndeq += 1
                li = lo * P + (tgt_vq[win] if interleave and d != -1 else 0)
                if w & 1:
                    rr[lo] = win + 1 if win + 1 < Pv else 0
                    e = route_tab[v, (w >> 2) & 0x3FFFFFFF]
                    w = (w & ~(0x3FFFFFFF << 2)) | ((e >> 8) << 2)
                    cur_vq[q] = tgt_vq[win]
                    if not (w >> 1) & 1:
                        lock[li] = win
                if (w >> 1) & 1:
                    lock[li] = -1
                if d == -1:
                    eject_cycle[w >> 32] = t
                    if (w >> 1) & 1:
                        counters[v, 1] += 1
                else:
                    enq_q[nenq] = tgt_d[win]
                    enq_w[nenq] = w
                    nenq += 1
        for j in range(ndeq):
            q = deq[j]
            qhead[q] = qhead[q] + 1 if qhead[q] + 1 < depth else 0
            qcnt[q] -= 1
        for j in range(nenq):
            q = enq_q[j]
            pos = qhead[q] + qcnt[q]
            if pos >= depth:
                pos -= depth
            buf[q, pos] = enq_w[j]
            qcnt[q] += 1


class VoqModel:
    """Same interface as :class:`NetworkModel` for the benchmarks (``run(stim, cycles=...)``)."""

    def __init__(self, topology, routing=None, depth: int = 4, interleave: bool = False):
        self.topology = topology
        self.routing = routing if routing is not None else default_routing(topology)
        self.depth = require_int(depth, "depth", 1, 1 << 16)
        self.interleave = bool(interleave)
        self.tables = build_tables(topology, self.routing, default_allowed(topology, self.routing))

    @property
    def num_nodes(self) -> int:
        return self.topology.num_nodes

    def run(self, stim: Stimulus, cycles: int | None = None, max_cycles: int = 10_000_000) -> ModelResult:
        if cycles is None:
            raise CubenocError("the VOQ prototype runs a fixed number of cycles: pass cycles")
        tb = self.tables
        N, P, D = tb.num_nodes, tb.max_ports, self.depth
        src = np.repeat(np.arange(N, dtype=np.int64), np.diff(stim.node_start))
        route = inject_words(self.routing, src, np.where(stim.head == 1, stim.dest, -1))
        if (route[stim.head == 1] < 0).any():
            raise CubenocError("the VOQ prototype takes only in-range destinations")
        F = stim.num_flits
        buf = np.zeros((N * P * P, D), dtype=np.int64)
        qhead = np.zeros(N * P * P, dtype=np.int64)
        qcnt = np.zeros(N * P * P, dtype=np.int64)
        rr = np.zeros(N * P, dtype=np.int64)
        lock = np.full(N * P * P, -1, dtype=np.int64)
        cur_vq = np.zeros(N * P * P, dtype=np.int64)
        src_q = np.zeros(N, dtype=np.int64)
        counters = np.zeros((N, 4), dtype=np.int64)
        acc = np.full(F, -1, dtype=np.int64)
        ej = np.full(F, -1, dtype=np.int64)
        _voq_cycles(int(cycles), D, P, self.interleave, tb.nports, tb.link, tb.route, tb.allowed,
                    buf, qhead, qcnt, rr, lock, cur_vq, src_q,
                    stim.node_start[:-1].astype(np.int64).copy(), stim.node_start[1:].astype(np.int64).copy(),
                    stim.head, stim.tail, np.maximum(route, 0), stim.release,
                    np.ascontiguousarray(stim.eject_ready, dtype=np.uint8), counters, acc, ej)
        empty = np.zeros(0, dtype=np.int64)
        return ModelResult(stim, int(cycles), False, counters, acc, ej, empty, empty, empty, empty, empty)
