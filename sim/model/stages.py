"""The router's stages shared by the input-buffered variants (docs/router.md "Router"; composed per variant
in :mod:`.kernel` and :mod:`.forks`): the route stage and request of a lane (:func:`lane_request`; with the
candidate route stage of adaptive selection and run-time faults: :func:`adaptive_request`), switch
allocation (:func:`switch`) and traversal (:func:`traverse`). A stage takes the unit options of its variant
(``per_input``: VOQ's queues and locks per output; ``room_masked``; ``count_use``), never the variant.

Scratch rows per router: ``scratch[0]`` request words per output, ``[1]`` each lane's word, ``[2]`` its VC,
``[3]`` a head's route table entry, ``[4]`` a broadcast head's wanted outputs, ``[5]`` its fork row.
"""
from __future__ import annotations

from .phases import (DISCARDED, arbitrate, dequeue, eject_record, eject_taken, enqueue, head_route, lock_after,
                     new_route, phase, request_bit, select, wrr_after)
from .word import HEAD_MASK, PORT_BITS, TAIL

USE_MASK = 0xFFFF                                              # 16-bit use counters (least_used)


@phase
def post_request(v, j, w, o, cv, base, V, depth, tab, fcnt, scratch, nw, per_input, room_masked):
    """Lane j's request for output o (docs/router.md "Requests"): where a turn from its input may go and,
    ``room_masked`` (V > 1, adaptive), where the downstream VC has room (V = 1: not masked, the RTL's);
    ``per_input`` (VOQ): the request is its input's. Returns the output's bit, 0 if no request."""
    d = tab.link[base + o]
    if not (tab.allowed[tab.arow[v], j // V] >> o) & 1 or (room_masked and d >= 0 and
                                                            fcnt[d * V + cv] >= depth):
        return 0
    request_bit(scratch[0], o, nw, j // V if per_input else j)
    scratch[1][j], scratch[2][j] = w, cv
    return 1 << o


@phase
def lane_request(v, j, fi, w, loc, base, V, depth, tab, fcnt, arb, scratch, nw, per_input, room_masked):
    """Route stage and request of lane j holding ``w`` (rtl/router/input_unit.py): a head takes the route
    unit's output unless its lock is held (``per_input``, VOQ: one lock per output), a body flit its
    packet's ``cur_out``/``cur_vc``; the head's table entry goes to ``ent[j]``. Returns the output's bit."""
    if w & HEAD_MASK:
        e, o, cv, _ = head_route(w, v, loc, V, tab)
        if e < 0 or arb.lock[(base + o) * V + (0 if per_input else cv)] >= 0:   # e < 0: stuck
            return 0
        scratch[3][j] = e
    else:
        o, cv = arb.cur_out[fi], arb.cur_vc[fi]
    return post_request(v, j, w, o, cv, base, V, depth, tab, fcnt, scratch, nw, per_input, room_masked)


@phase
def adaptive_request(v, j, fi, w, loc, base, V, depth, tab, fcnt, arb, out, ad, q, nd, scratch, nw):
    """The candidate route stage (rtl/router/adaptive_select.py; docs/router.md "Adaptive selection and
    run-time faults"): a discarded packet's body is dropped here; a head's pick of its two candidates
    (:func:`select`), or its discard when both are faulty. Returns (the output's bit, nd)."""
    if ad.disc[fi]:
        ad.disc[fi] = 0 if (w >> TAIL) & 1 else 1
        return 0, dequeue(q, nd, fi)
    if w & HEAD_MASK:
        e, o, cv, word = head_route(w, v, loc, V, tab)
        if e < 0:
            return 0, nd
        e, o, cv = select(v, base, loc, word, e, o, cv, V, depth, ad, arb.lock, tab.link, fcnt)
        if o < 0:                                      # every candidate faulty: discard the packet
            out.counters[v, DISCARDED] += 1
            ad.disc[fi] = 1 - ((w >> TAIL) & 1)
            return 0, dequeue(q, nd, fi)
        if arb.lock[(base + o) * V + cv] >= 0:
            return 0, nd
        scratch[3][j] = e
    else:
        o, cv = arb.cur_out[fi], arb.cur_vc[fi]
    return post_request(v, j, w, o, cv, base, V, depth, tab, fcnt, scratch, nw, False, True), nd


@phase
def traverse(t, v, o, win, lane, P, V, depth, NP, tab, fifo, arb, out, ad, q, nd, ne, ntr, scratch, per_input,
             count_use):
    """Switch traversal of output o's winner (its lane ``lane``; docs/router.md "Transfer"): taken when the
    downstream VC has room (the local output: :func:`eject_taken`), else it stays first (the stream rule);
    the pointer update (:func:`wrr_after`), the head's new route and ``cur_out``, the lock, the link or the
    ejection. ``count_use``: the least-used selection's per-output head counts. Returns (nd, ne, ntr, taken)."""
    arb_rr, lock, wt, cur_w, ent = arb.rr, arb.lock, arb.wt, arb.cur_w, scratch[3]
    base = v * P
    d = tab.link[base + o]
    w, cv, fi = scratch[1][lane], scratch[2][lane], base * V + lane
    taken = (eject_taken(t, v, w, out) if d == -1 else
             fifo.count[d * V + cv] < depth)           # not taken: the winner stays first
    lk = (base + o) * V + (0 if per_input else cv)      # fair arbiter: a head's weight by its new route word
    wgt = 1 if wt.shape[0] == 1 else (wt[base + o, win, 0 if d == -1 else ent[win] >> PORT_BITS]
                                       if w & HEAD_MASK else cur_w[lk])
    wrr_after(arb_rr, arb.used, base + o, win, taken, (w >> TAIL) & 1, wgt, NP)
    if not taken:
        return nd, ne, ntr, False
    nd = dequeue(q, nd, fi)
    head, tail = w & HEAD_MASK, (w >> TAIL) & 1
    if head:                                           # the head leaves with its new route
        w = new_route(w, ent[lane])
        arb.cur_out[fi], arb.cur_vc[fi] = o, cv
        if count_use and d != -1:
            ad.use[base + o] = (ad.use[base + o] + 1) & USE_MASK
    lock[lk] = lock_after(lock[lk], lane, head, tail)
    cur_w[lk] = wgt
    if d == -1:
        ntr = eject_record(t, v, w, out, ntr)
    else:
        out.link_flits[base + o] += 1
        ne = enqueue(q, ne, d * V + cv, w)
    return nd, ne, ntr, True


@phase
def switch(t, v, outs, P, V, depth, nw, tab, fifo, arb, out, ad, q, nd, ne, ntr, scratch, per_input, count_use):
    """Switch allocation and traversal (rtl/router/output_unit.py, arbiter.py): every requested output picks
    its round-robin winner (``per_input``, VOQ: over the inputs, the winner's queue for o) and moves it
    (:func:`traverse`). Returns (nd, ne, ntr, the outputs whose winner stalled)."""
    Pv, base = tab.nports[v], v * P
    NP = Pv if per_input else Pv * V
    stall = 0
    for o in range(Pv):
        if not (outs >> o) & 1:
            continue
        win = arbitrate(scratch[0], o, nw, arb.rr[base + o], NP)
        lane = win * V + o if per_input else win
        nd, ne, ntr, taken = traverse(t, v, o, win, lane, P, V, depth, NP, tab, fifo, arb, out, ad, q, nd, ne,
                                      ntr, scratch, per_input, count_use)
        if not taken:
            stall |= 1 << o
    return nd, ne, ntr, stall
