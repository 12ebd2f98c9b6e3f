"""The pipelined router's stages (docs/router.md "Pipelined router"; sim/model/pipeline.py; rtl/router/
pipe_stage.py, eject_buffer.py): last cycle's registered grants cross (:func:`pipe_cross`), each lane's
candidate requests (:func:`pipe_request`), the output units register this cycle's grants
(:func:`pipe_grants`), the ejection buffer (:func:`pipe_eject`), composed in :func:`pipe_node`; and its
clock edge (:func:`pipe_clock_edge`: the stage registers take their FIFO heads). One VC.
"""
from __future__ import annotations

from .phases import (EJECT_DEPTH, arbitrate, dequeue, eject_record, eject_taken, enqueue, fifo_pop, lock_after,
                     new_route, phase, push_all, request_bit, request_words, route_lookup)
from .word import HEAD_MASK, PORT_MASK, TAIL


@phase
def pipe_clock_edge(fifo, q, nd, ne, per_node):
    """The pipelined router's clock edge: a dequeue ``f >= 0`` is a flit that left node f // per_node, ``~f``
    a lane whose stage takes its FIFO's head (the FIFO's level before this edge's writes) or empties."""
    first, fcnt, stage = fifo.first, fifo.count, fifo.stage
    left = 0
    for j in range(nd):
        f = q[0][j]
        if f < 0:
            f = ~f
            stage[f] = first[f] if fcnt[f] > 0 else -1
            if fcnt[f] > 0:
                fifo_pop(first, fifo.buf, fifo.head, fcnt, f)
            continue
        fifo.occupied[f // per_node] -= 1
        left += 1
    return push_all(fifo, q, ne, per_node) - left


@phase
def pipe_cross(v, P, tab, fifo, out, q, nd, ne):
    """Pipelined router, stage 2 (rtl/router/pipe_stage.py, the output unit's registered grant): each lane's
    stage granted last cycle (``trav``) crosses the crossbar; returns (nd, ne, the outputs crossed to, the
    word crossing to the local output or -1)."""
    stage, trav, link = fifo.stage, fifo.trav, tab.link
    base, crossing, wl = v * P, 0, -1
    for j in range(tab.nports[v]):
        fi = base + j
        o = trav[fi]
        if o < 0:
            continue
        crossing |= 1 << o
        w = stage[fi]
        if w & HEAD_MASK:
            w = new_route(w, route_lookup(w, v, tab))
        d = link[base + o]
        if d == -1:
            wl = w
        else:                                          # the flit leaves this router
            nd = dequeue(q, nd, fi)
            out.link_flits[base + o] += 1
            ne = enqueue(q, ne, d, w)
    return nd, ne, crossing, wl


@phase
def pipe_request(v, j, fi, P, depth, tab, fifo, arb, crossing, q, nd, scratch, nw):
    """Pipelined router, stage 1 of lane j (rtl/router/pipe_stage.py; V = 1): its candidate is its FIFO head
    while the stage is empty or crossing (the stage then takes the head at the edge), else the stage; it
    requests when its output is not locked by another lane and the output's downstream FIFO (the ejection
    buffer: EJECT_DEPTH) will have room after this cycle's crossing. Returns (the output's bit, nd)."""
    stage, trav, lock = fifo.stage, fifo.trav, arb.lock
    base = v * P
    adv = trav[fi] >= 0 or stage[fi] < 0
    trav[fi] = -1
    if adv:
        nd = dequeue(q, nd, ~fi)                       # at the edge the stage takes the FIFO head
        if fifo.count[fi] == 0:
            return 0, nd
    w = fifo.first[fi] if adv else stage[fi]
    if w & HEAD_MASK:
        e = route_lookup(w, v, tab)
        if e < 0:                                      # a route word no packet can carry: stuck
            return 0, nd
        o = e & PORT_MASK
    else:
        o = arb.cur_out[fi]
    d = tab.link[base + o]
    full = fifo.count[d] if d >= 0 else fifo.ecount[v]
    if (lock[base + o] >= 0 and lock[base + o] != j) or not (tab.allowed[tab.arow[v], j] >> o) & 1 or \
            full + ((crossing >> o) & 1) >= (depth if d >= 0 else EJECT_DEPTH):
        return 0, nd
    request_bit(scratch[0], o, nw, j)
    scratch[1][j] = w
    return 1 << o, nd


@phase
def pipe_grants(v, outs, P, nw, tab, fifo, arb, scratch):
    """Pipelined router, the output units' registered grants: the winner's pointer, lock and ``cur_out``
    move now, its stage crosses next cycle (``trav``)."""
    Pv, base = tab.nports[v], v * P
    for o in range(Pv):
        if not (outs >> o) & 1:
            continue
        win = arbitrate(scratch[0], o, nw, arb.rr[base + o], Pv)
        w, fi = scratch[1][win], base + win
        arb.rr[base + o] = win + 1 if win + 1 < Pv else 0
        arb.lock[base + o] = lock_after(arb.lock[base + o], win, w & HEAD_MASK, (w >> TAIL) & 1)
        if w & HEAD_MASK:
            arb.cur_out[fi] = o
        fifo.trav[fi] = o


@phase
def pipe_eject(t, v, P, fifo, out, q, nd, ntr, wl):
    """Pipelined router (rtl/router/eject_buffer.py): ``local_out`` offers the ejection buffer's head, else the
    flit crossing to it now (``wl``); a crossing flit not taken at once waits in the buffer."""
    ej, ecnt = fifo.eject, fifo.ecount
    e0 = ecnt[v]
    if e0 and eject_taken(t, v, ej[v, 0], out):        # the ejection buffer's head is taken
        ntr = eject_record(t, v, ej[v, 0], out, ntr)
        nd = dequeue(q, nd, v * P)
        ej[v, 0], e0 = ej[v, 1], e0 - 1
    elif wl >= 0 and eject_taken(t, v, wl, out):       # empty buffer: the crossing flit is taken at once
        ntr = eject_record(t, v, wl, out, ntr)
        nd = dequeue(q, nd, v * P)
        wl = -1
    if wl >= 0:                                        # else it waits in the buffer
        ej[v, e0] = wl
        e0 += 1
    ecnt[v] = e0
    return nd, ntr


@phase
def pipe_node(t, v, P, V, depth, tab, fifo, arb, out, ad, bc, q, nd, ne, ntr, scratch):
    """One cycle of the pipelined router v (docs/router.md "Pipelined router"; sim/model/pipeline.py): last
    cycle's grants cross, the lanes request, this cycle's grants register, the ejection buffer."""
    nw = request_words(P, V, False)
    nd, ne, crossing, wl = pipe_cross(v, P, tab, fifo, out, q, nd, ne)
    outs = 0
    for j in range(tab.nports[v]):
        bit, nd = pipe_request(v, j, v * P + j, P, depth, tab, fifo, arb, crossing, q, nd, scratch, nw)
        outs |= bit
    pipe_grants(v, outs, P, nw, tab, fifo, arb, scratch)
    nd, ntr = pipe_eject(t, v, P, fifo, out, q, nd, ntr, wl)
    return nd, ne, ntr
