"""The broadcast router's stages (docs/router.md "Broadcast and multicast"; rtl/router/fork_stage.py,
fork_select.py): the fork unit's request (:func:`fork_requests`), the broadcast selector (:func:`fork_select`),
presentation and join (:func:`fork_present`), and the broadcast router's step (:func:`bcast_node`): its
unicast lanes request as the unicast router's (:func:`.stages.lane_request`). V = 1.
"""
from __future__ import annotations

from .phases import dequeue, eject_record, eject_taken, enqueue, lock_after, phase, request_words, rr_pick
from .stages import lane_request, switch
from .word import BCAST_SHIFT, HEAD_MASK, ROUTE_MASK, ROUTE_SHIFT, TAIL


@phase
def fork_requests(v, j, fi, w, loc, base, bc, lock, link, fcnt, scratch):
    """Fork unit: a broadcast head's wanted set W in ``want[j]`` (docs/router.md "Broadcast"); True when
    eligible (nothing held, every wanted output unlocked, network branches empty)."""
    fork_mask, origin_row, held, bmode = bc.mask, bc.origin, bc.held, bc.bmode
    want, row = scratch[4], scratch[5]
    if bmode[fi]:
        want[j] = held[fi]
    else:
        row[j] = origin_row if j == loc else (w >> ROUTE_SHIFT) & ROUTE_MASK
        want[j] = fork_mask[v, row[j]]
    rem = want[j] & ~held[fi]
    if rem == 0 or held[fi] != 0:
        return False
    for o in range(loc + 1):    # nor an output holding a stalled offer (bc.stall: the stream rule)
        if (rem >> o) & 1 and (lock[base + o] >= 0 or (bc.stall[v] >> o) & 1 or
                               (o != loc and fcnt[link[base + o]] > 0)):
            return False
    return True


@phase
def fork_present(t, v, j, fi, w, Pv, base, depth, bc, fcnt, lock, link, out, q, nd, ne, ntr, scratch):
    """Presentation and join of a broadcast input holding its outputs ("Broadcast", 4-5); new nd, ne, ntr."""
    fork_tag, held, done, bmode = bc.tag, bc.held, bc.done, bc.bmode
    W = scratch[4][j]
    tail = (w >> TAIL) & 1
    pres = W & ~done[fi]
    tx = 0
    for o in range(Pv):
        if not (pres >> o) & 1:
            continue
        d = link[base + o]
        if d == -1:
            if not eject_taken(t, v, w, out):
                continue
            ntr = eject_record(t, v, w, out, ntr)
        elif fcnt[d] >= depth:
            continue
        else:
            nw = w
            if w & HEAD_MASK:
                nw = (w & ~(ROUTE_MASK << ROUTE_SHIFT)) | (fork_tag[v, scratch[5][j], o] << ROUTE_SHIFT)
            ne = enqueue(q, ne, d, nw)
            out.link_flits[base + o] += 1
        tx |= 1 << o
        lock[base + o] = lock_after(lock[base + o], j, 0, tail)
    done[fi] |= tx
    if done[fi] == W:
        nd = dequeue(q, nd, fi)
        done[fi] = 0
        held[fi] = 0 if tail else W
        bmode[fi] = 1 - tail
    return nd, ne, ntr


@phase
def fork_select(v, elig, Pv, base, bc, arb, req, want):
    """The broadcast selector (rtl/router/fork_select.py; docs/router.md "Broadcast and multicast"): one
    eligible broadcast head per cycle, round robin over the inputs, takes every output it wants (locks
    them, their arbiters' pointers past it, their unicast requests dropped; V = 1: one word). Returns them."""
    b = rr_pick(elig, bc.brr[v], Pv)
    bc.brr[v] = b + 1 if b + 1 < Pv else 0
    W = bc.held[base + b] = want[b]
    for o in range(Pv):
        if (W >> o) & 1:
            arb.lock[base + o] = b
            arb.rr[base + o], arb.used[base + o] = (b + 1 if b + 1 < Pv else 0), 0
            req[o] = 0
    return W


@phase
def fork_presentations(t, v, bmask, P, depth, tab, fifo, arb, out, bc, q, nd, ne, ntr, scratch):
    """Every broadcast input holding all of its outputs presents its flit to them (:func:`fork_present`)."""
    Pv, base = tab.nports[v], v * P
    for j in range(Pv):
        if (bmask >> j) & 1 and bc.held[base + j] == scratch[4][j]:
            nd, ne, ntr = fork_present(t, v, j, base + j, scratch[1][j], Pv, base, depth, bc, fifo.count, arb.lock,
                                       tab.link, out, q, nd, ne, ntr, scratch)
    return nd, ne, ntr


@phase
def bcast_node(t, v, P, V, depth, tab, fifo, arb, out, ad, bc, q, nd, ne, ntr, scratch):
    """One cycle of router v with broadcast forks (V = 1): unicast lanes request as :func:`unicast_node`'s,
    broadcast heads ask the fork unit (:func:`fork_requests`); the selector, the switch, the presentation."""
    Pv, base = tab.nports[v], v * P
    loc, nw = Pv - 1, request_words(P, V, False)
    outs = bmask = elig = 0
    for j in range(Pv * V):
        fi = base * V + j
        if fifo.count[fi] == 0:
            continue
        w = fifo.first[fi]
        if bc.bmode[fi] or (w & HEAD_MASK and (w >> BCAST_SHIFT) & 1):
            bmask |= 1 << j
            scratch[1][j] = w
            if fork_requests(v, j, fi, w, loc, base, bc, arb.lock, tab.link, fifo.count, scratch):
                elig |= 1 << j
            continue
        outs |= lane_request(v, j, fi, w, loc, base, V, depth, tab, fifo.count, arb, scratch, nw, False, V > 1)
    if elig:
        outs &= ~fork_select(v, elig, Pv, base, bc, arb, scratch[0], scratch[4])
    stall = 0
    if outs:
        nd, ne, ntr, stall = switch(t, v, outs, P, V, depth, nw, tab, fifo, arb, out, ad, q, nd, ne, ntr, scratch,
                                    False, False)
    bc.stall[v] = stall
    if bmask:
        nd, ne, ntr = fork_presentations(t, v, bmask, P, depth, tab, fifo, arb, out, bc, q, nd, ne, ntr, scratch)
    return nd, ne, ntr
