"""The compiled cycle loop of the model (docs/router.md), one helper per RTL unit (callable from Python).

Words: :mod:`.word`. FIFO ``(v * P + i) * V + c`` is VC c of input i of node v (local: c = 0); rr runs
over ``j = i * V + c``; locks per (output, VC) ``(v * P + o) * V + c`` (V = 1 is the V = 1 router).
Per cycle, as the hardware: from registered state the sources and routers decide (recording dequeues
and enqueues), then the clock edge applies them. :func:`run_cycles` is the unicast, adaptive
(:func:`select`), broadcast (:func:`fork_requests`, :func:`fork_present`) and per-output-queue router
(VOQ: V = P, lane c of an input holds the flits for output c, ``Hop.vc`` = the next router's output
from lookahead routing, one lock per output, round robin over the inputs; docs/router.md "Per-output queues").
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .axis_ni import AXIS, AXQ, AXQ_DEPTH, axis_egress, axis_taken, handed, ni_phase, user_ready  # noqa: F401
from .word import BCAST_SHIFT, FLIT_SHIFT, HEAD_MASK, HT_MASK, PORT_BITS, PORT_MASK, ROUTE_MASK, ROUTE_SHIFT, TAIL

IDLE, FORWARD, DROP = 0, 1, 2                                  # source interface states
INJECTED, EJECTED, DROPPED, MALFORMED, DISCARDED = 0, 1, 2, 3, 4   # counter columns
UNICAST, ADAPTIVE, BCAST, VOQ, PIPE = 0, 1, 2, 3, 4            # run_cycles modes (PIPE: sim/model/pipeline.py)
EJECT_DEPTH = 2                                                # PIPE: the local output's buffer
USE_MASK = 0xFFFF                                              # 16-bit use counters (least_used)
WORD = 62                                                      # request bits per word (int64, no sign bit)
phase = njit(inline="always", cache=True, nogil=True)
# The cycle loops, one entry per mode, without numba's reference counting (nothing in them allocates): an
# atomic incref/decref per array of every tuple handed to an inline helper made them 2x slower.
loop = njit(cache=True, nogil=True, _nrt=False)


@phase
def rr_pick(requests, pointer, n):
    """Round-robin arbiter of one output (rtl/router/arbiter.py; docs/router.md "Router", Arbitration): the
    first set bit of ``requests`` at or after ``pointer``, cyclically over ``n`` positions; -1 if none."""
    if requests == 0:
        return -1
    j = pointer
    while not (requests >> j) & 1:
        j = j + 1 if j + 1 < n else 0
    return j


@phase
def request_words(P, V, mode):
    """Words per output of the arbiters' request masks: an output's requests are over the (port, VC) pairs
    ``j`` (VOQ: over the inputs), bit ``j % WORD`` of word ``j // WORD``."""
    return ((P if mode == VOQ else P * V) + WORD - 1) // WORD


@phase
def rr_pick_words(req, k, W, pointer, n):
    """:func:`rr_pick` over the ``W`` request words ``req[k .. k + W - 1]`` of one output."""
    some = 0
    for i in range(W):
        some |= req[k + i]
    if some == 0:
        return -1
    j = pointer
    while not (req[k + j // WORD] >> (j % WORD)) & 1:
        j = j + 1 if j + 1 < n else 0
    return j


@phase
def source_step(state, head, tail, dest_ok, room):
    """The source interface on one offered flit (rtl/router/source.py; docs/router.md "Source interface"); ``dest_ok``:
    dest < num_nodes, ``room``: local FIFO not full. Returns ``(accepted, write, write_head, new_state,
    injected, dropped, malformed)``: write the flit (head bit ``write_head``); counter increments."""
    if state == IDLE:
        if head == 0:                                          # non-head outside a packet
            return True, False, 0, IDLE, 0, 0, 1
        if not dest_ok:                                        # drop the packet
            return True, False, 0, IDLE if tail else DROP, 0, 1, 0
        if not room:
            return False, False, 0, IDLE, 0, 0, 0
        return True, True, 1, IDLE if tail else FORWARD, 1, 0, 0
    if state == FORWARD:                                       # a head here loses its head bit
        if not room:
            return False, False, 0, FORWARD, 0, 0, 0
        return True, True, 0, IDLE if tail else FORWARD, 0, 0, head
    return True, False, 0, IDLE if tail else DROP, 0, 0, head   # DROP


@phase
def wrr_after(rr, used, k, win, taken, tail, weight, n):
    """The pointer of output k after its winner ``win`` (docs/router.md "Arbitration"; rtl/router/arbiter.py).
    Not taken: it stays on the winner. Taken: weight 1 (round robin) moves it past the winner; a weight w > 1
    (the fair arbiter) keeps the winner first until its w-th packet ends (``used`` counts its tails)."""
    k_used = used[k] if rr[k] == win else 0
    if not taken:
        rr[k], used[k] = win, k_used
    elif weight > 1 and k_used + tail < weight:
        rr[k], used[k] = win, k_used + tail
    else:
        rr[k], used[k] = (win + 1 if win + 1 < n else 0), 0


@phase
def lock_after(lock, owner, head, tail):
    """The wormhole lock of one (output, VC) after a transfer (docs/router.md "Router", Transfer): a head
    that is not a tail takes it for ``owner``, a tail frees it (-1), anything else keeps it."""
    return -1 if tail else (owner if head else lock)


@phase
def fifo_push(first, buf, fhead, fcnt, f, word):
    """Write ``word`` at the tail of FIFO ``f`` (the input FIFO's write port at the edge): into the head
    register ``first[f]`` when the FIFO is empty, else into the circular buffer of the D - 1 entries behind
    it (rtl/router/fifo.py ``HeadFifo``; the routers read only ``first``: one dense array)."""
    if fcnt[f] == 0:
        first[f] = word
    else:                                              # behind the head: buffer slot head + count - 1
        buf[f, (fhead[f] + fcnt[f] - 1) % buf.shape[1]] = word
    fcnt[f] += 1


@phase
def fifo_pop(first, buf, fhead, fcnt, f):
    """Drop the head of FIFO ``f`` (first-word-fall-through read port; the head is ``first[f]``): the
    buffer's oldest entry, if any, moves into the head register."""
    fcnt[f] -= 1
    if fcnt[f] > 0:
        first[f], fhead[f] = buf[f, fhead[f]], (fhead[f] + 1) % buf.shape[1]


@phase
def dequeue(q, n, f):
    """Record the ``n``-th dequeue of this cycle (FIFO ``f``) for the clock edge; returns n + 1."""
    q[0][n] = f
    return n + 1


@phase
def enqueue(q, n, f, word):
    """Record the ``n``-th write of this cycle (``word`` into FIFO ``f``); returns n + 1."""
    q[1][n], q[2][n] = f, word
    return n + 1


@phase
def clock_edge(mode, fifo, q, nd, ne, per_node):
    """The clock edge: the ``nd`` recorded dequeues, then the ``ne`` enqueues; returns the flits in flight
    gained. PIPE: a dequeue ``f >= 0`` is a flit that left node f // per_node, ``~f`` a
    lane whose stage takes its FIFO's head (the FIFO's level before this edge's writes) or empties."""
    first, buf, fhead, fcnt, nocc, stage = fifo.first, fifo.buf, fifo.head, fifo.count, fifo.occupied, fifo.stage
    left = 0
    for j in range(nd):
        f = q[0][j]
        if mode == PIPE and f < 0:
            f = ~f
            stage[f] = first[f] if fcnt[f] > 0 else -1
            if fcnt[f] > 0:
                fifo_pop(first, buf, fhead, fcnt, f)
            continue
        if mode != PIPE:
            fifo_pop(first, buf, fhead, fcnt, f)
        nocc[f // per_node] -= 1
        left += 1
    for j in range(ne):
        fifo_push(first, buf, fhead, fcnt, q[1][j], q[2][j])
        nocc[q[1][j] // per_node] += 1
    return ne - left


@phase
def eject_taken(t, v, w, out):
    """Node v's local output takes word ``w`` this cycle: the user's ``eject_ready``; with the AXI4-Stream
    interface (``out.scal[AXIS]``; rtl/axis_ni.py, egress) a head (the frame's header) always, a beat when the
    egress queue had a free entry at the start of the cycle."""
    if out.scal[AXIS]:
        return (w & HEAD_MASK) != 0 or out.axroom[v] != 0
    return user_ready(t, v, out)


@phase
def eject_record(t, v, w, out, n):
    """A flit leaves node v's router at its local output ("Stimulus and comparison"): counted; handed to the
    user (trace entry n, eject cycle), or with the AXI4-Stream interface to it (:func:`axis_taken`: the
    trace entry is written when the user takes the beat); returns the trace length."""
    out.counters[v, EJECTED] += (w >> TAIL) & 1
    if out.scal[AXIS]:
        axis_taken(v, w, out, t)
        return n
    return handed(t, v, w, out, n)


@phase
def source_phase(mode, t, P, V, depth, tab, nfault, fcnt, src, status, q):
    """Every source interface this cycle (a faulty node accepts nothing); returns (flits taken, writes).
    VOQ: a packet goes to the local input's lane of its first output (``src.lane``, set by its head)."""
    src_ptr, src_end, src_state, s_head, s_tail, s_fields, s_release, accept_cycle, s_lane, s_next = src[:10]
    nports = tab.nports
    taken = ne = 0
    for v in range(nports.shape[0]):
        p = src_ptr[v]
        if s_next[v] > t or (mode == ADAPTIVE and nfault[v]):   # s_next: release of flit p (none: 2**62)
            continue
        lf = (v * P + nports[v] - 1) * V
        if mode == VOQ:
            if s_head[p] and src_state[v] == IDLE and s_fields[p] >= 0:
                s_lane[v] = tab.route[tab.row[v], ((s_fields[p] >> ROUTE_SHIFT) & ROUTE_MASK) ^ tab.xor[v]] & PORT_MASK
            lf += s_lane[v]
        acc, wr, wh, st, inj, drp, mal = source_step(src_state[v], s_head[p], s_tail[p], s_fields[p] >= 0,
                                                     fcnt[lf] < depth)
        src_state[v] = st
        if wr:
            ne = enqueue(q, ne, lf, (p << FLIT_SHIFT) | (s_fields[p] if wh else 0) | (s_tail[p] << TAIL) | wh)
        status[v, INJECTED] += inj
        status[v, DROPPED] += drp
        status[v, MALFORMED] += mal
        if acc:
            accept_cycle[p], src_ptr[v], s_next[v] = t, p + 1, s_release[p + 1] if p + 1 < src_end[v] else 1 << 62
            taken += 1
    return taken, ne


@phase
def available(o, c, faulty, base, V, depth, lock, link, fcnt):
    """A candidate is available: not faulty, lock free, downstream VC with room."""
    d = link[base + o]
    return (not faulty) and lock[(base + o) * V + c] < 0 and (d < 0 or fcnt[d * V + c] < depth)


@phase
def select(v, base, loc, word, e0, o0, c0, V, depth, ad, lock, link, fcnt):
    """Run-time selection of c0 or c1 (docs/router.md "Adaptive selection"): ``(entry, port, vc)``, port -1: discard."""
    sel, r2, v2, use, fault = ad.selection, ad.route2, ad.vc2, ad.use, ad.fault
    e1 = r2[v, word]
    f0 = o0 != loc and fault[base + o0] != 0
    o1, c1, f1 = 0, 0, True
    if e1 >= 0:
        o1 = e1 & PORT_MASK
        c1 = v2[v, word] if V > 1 and o1 != loc else 0
        f1 = o1 != loc and fault[base + o1] != 0
    if f0 and f1:
        return e0, -1, 0
    pick1 = False
    if e1 >= 0 and sel == 0:        # availability (Parhami and Rakov Algorithm 2)
        pick1 = not available(o0, c0, f0, base, V, depth, lock, link, fcnt) and (
            f0 or available(o1, c1, f1, base, V, depth, lock, link, fcnt))
    elif e1 >= 0:                   # least used (Dandamudi and Eager Sec. IV-B)
        pick1 = f0 or ((not f1) and use[base + o1] < use[base + o0])
    return (e1, o1, c1) if pick1 else (e0, o0, c0)


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
def route_lookup(w, v, tab):
    """The route unit at node v on a head's route word (symmetric rows: tables.py): the table entry (new
    route word << PORT_BITS | output), -1 for a route word no packet can carry."""
    rx = tab.xor[v]
    e = tab.route[tab.row[v], ((w >> ROUTE_SHIFT) & ROUTE_MASK) ^ rx]
    return e if e < 0 else e ^ (rx << PORT_BITS)


@phase
def new_route(w, e):
    """A head's word with the new route of its table entry ``e`` (a body flit unchanged)."""
    return (w & ~(ROUTE_MASK << ROUTE_SHIFT)) | ((e >> PORT_BITS) << ROUTE_SHIFT) if w & HEAD_MASK else w


@phase
def pipe_cross(v, P, tab, fifo, out, q, nd, ne):
    """PIPE, stage 2 (rtl/router/pipe_stage.py, the output unit's registered grant): each lane's stage granted
    last cycle (``trav``) crosses the crossbar; returns (nd, ne, the outputs crossed to, the word crossing to
    the local output or -1)."""
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
def pipe_eject(t, v, P, fifo, out, q, nd, ntr, wl):
    """PIPE (rtl/router/eject_buffer.py): ``local_out`` offers the ejection buffer's head, else the flit
    crossing to it now (``wl``); a crossing flit not taken at once waits in the buffer."""
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
def router_node(mode, t, v, P, V, depth, tab, fifo, arb, out, ad, bc, q, nd, ne, ntr, scratch):
    """One router, one cycle, in its units' order: (PIPE: the registered grants cross), requests (route unit,
    locks, room), broadcast selector, arbitration, transfers (PIPE: grants, registered), broadcast
    presentation (PIPE: the ejection buffer); new nd, ne, ntr.

    PIPE (docs/router.md "Pipelined router"; sim/model/pipeline.py): each lane's candidate is its FIFO head
    while the stage is empty or crossing, else the stage; it requests when its output is not locked by
    another lane and the output's downstream FIFO (the ejection buffer: EJECT_DEPTH) will have room after
    this cycle's crossing; a grant moves the pointer past the winner and crosses next cycle."""
    nports, arow, link, allowed, route_vc, route_row = tab.nports, tab.arow, tab.link, tab.allowed, tab.vc, tab.row
    first, fcnt, stage, trav = fifo.first, fifo.count, fifo.stage, fifo.trav
    rr, lock, cur_out, cur_vc, wt, used, cur_w = arb
    req, tgt, tvc, ent = scratch[0], scratch[1], scratch[2], scratch[3]
    disc, use = ad.disc, ad.use
    Pv, base = nports[v], v * P
    loc, fbase = Pv - 1, base * V
    nw = request_words(P, V, mode)                     # req[o * nw ..]: output o's request words
    crossing, wl = 0, -1
    if mode == PIPE:
        nd, ne, crossing, wl = pipe_cross(v, P, tab, fifo, out, q, nd, ne)
    outs = bmask = elig = 0
    for j in range(Pv * V):
        fi = fbase + j
        if mode == PIPE:                               # the lane's candidate
            adv = trav[fi] >= 0 or stage[fi] < 0
            trav[fi] = -1
            if adv:
                nd = dequeue(q, nd, ~fi)               # at the edge the stage takes the FIFO head
            if adv and fcnt[fi] == 0:
                continue
            w = first[fi] if adv else stage[fi]
        elif fcnt[fi] == 0:
            continue
        else:
            w = first[fi]
        if mode == ADAPTIVE and disc[fi]:              # body of a discarded packet: dropped here
            nd = dequeue(q, nd, fi)
            disc[fi] = 0 if (w >> TAIL) & 1 else 1
            continue
        if mode == BCAST and (bc.bmode[fi] or (w & HEAD_MASK and (w >> BCAST_SHIFT) & 1)):
            bmask |= 1 << j
            tgt[j] = w
            if fork_requests(v, j, fi, w, loc, base, bc, lock, link, fcnt, scratch):
                elig |= 1 << j
            continue
        if w & HEAD_MASK:                              # the route unit
            e = route_lookup(w, v, tab)
            if e < 0:                                  # a route word no packet can carry: stuck
                continue
            o = e & PORT_MASK
            word = ((w >> ROUTE_SHIFT) & ROUTE_MASK) ^ tab.xor[v]
            cv = route_vc[route_row[v], word] if V > 1 and o != loc else 0
            if mode == ADAPTIVE:
                e, o, cv = select(v, base, loc, word, e, o, cv, V, depth, ad, lock, link, fcnt)
                if o < 0:                              # every candidate faulty: discard the packet
                    nd = dequeue(q, nd, fi)
                    out.counters[v, DISCARDED] += 1
                    disc[fi] = 1 - ((w >> TAIL) & 1)
                    continue
            if mode != PIPE and lock[(base + o) * V + (0 if mode == VOQ else cv)] >= 0:   # VOQ: one lock per output
                continue
            ent[j] = e
        else:
            o, cv = cur_out[fi], cur_vc[fi]
        d = link[base + o]
        if mode == PIPE:            # not locked by another lane; room after this cycle's crossing
            full = fcnt[d] if d >= 0 else fifo.ecount[v]
            if (lock[base + o] >= 0 and lock[base + o] != j) or not (allowed[arow[v], j] >> o) & 1 or \
                    full + ((crossing >> o) & 1) >= (depth if d >= 0 else EJECT_DEPTH):
                continue
        # V = 1 unicast/broadcast: requests are not masked by room (the RTL's)
        elif not (allowed[arow[v], j // V] >> o) & 1 or ((V > 1 or mode == ADAPTIVE) and d >= 0 and
                                                       fcnt[d * V + cv] >= depth):
            continue
        r = j // V if mode == VOQ else j               # VOQ: round robin over the inputs
        if nw == 1:                                    # one word, the common case, kept apart: 11 % faster
            req[o] |= 1 << r
        else:
            req[o * nw + r // WORD] |= 1 << (r % WORD)
        tgt[j], tvc[j] = w, cv
        outs |= 1 << o
    if mode == BCAST and elig:                         # the broadcast selector takes all of W
        b = rr_pick(elig, bc.brr[v], Pv)
        bc.brr[v] = b + 1 if b + 1 < Pv else 0
        W = bc.held[base + b] = scratch[4][b]
        for o in range(Pv):
            if (W >> o) & 1:
                lock[base + o] = b
                rr[base + o], used[base + o] = (b + 1 if b + 1 < Pv else 0), 0
                req[o] = 0                             # V = 1: one word
        outs &= ~W
    NP = Pv if mode == VOQ else Pv * V
    stall = 0
    for o in range(Pv):
        if not (outs >> o) & 1:
            continue
        if nw == 1:
            win = rr_pick(req[o], rr[base + o], NP)
            req[o] = 0
        else:
            win = rr_pick_words(req, o * nw, nw, rr[base + o], NP)
            for i in range(nw):
                req[o * nw + i] = 0
        if mode == PIPE:                               # a registered grant: the flit crosses next cycle
            w, fi = tgt[win], base + win
            rr[base + o] = win + 1 if win + 1 < Pv else 0
            lock[base + o] = lock_after(lock[base + o], win, w & HEAD_MASK, (w >> TAIL) & 1)
            if w & HEAD_MASK:
                cur_out[fi] = o
            trav[fi] = o
            continue
        d = link[base + o]
        lane = win * V + o if mode == VOQ else win      # VOQ: the winner input's queue for o
        w, cv, fi = tgt[lane], tvc[lane], fbase + lane
        taken = (eject_taken(t, v, w, out) if d == -1 else
                 fcnt[d * V + cv] < depth)             # not taken: the winner stays first
        lk = (base + o) * V + (0 if mode == VOQ else cv)   # fair arbiter: a head's weight by its new route word
        wgt = 1 if wt.shape[0] == 1 else (wt[base + o, win, 0 if d == -1 else ent[win] >> PORT_BITS]
                                           if w & HEAD_MASK else cur_w[lk])
        wrr_after(rr, used, base + o, win, taken, (w >> TAIL) & 1, wgt, NP)
        if not taken:
            stall |= 1 << o
            continue
        win = lane
        nd = dequeue(q, nd, fi)
        head, tail = w & HEAD_MASK, (w >> TAIL) & 1
        if head:                                       # the head leaves with its new route
            w = new_route(w, ent[win])
            cur_out[fi], cur_vc[fi] = o, cv
            if mode == ADAPTIVE and d != -1:
                use[base + o] = (use[base + o] + 1) & USE_MASK
        lock[lk] = lock_after(lock[lk], win, head, tail)
        cur_w[lk] = wgt
        if d == -1:
            ntr = eject_record(t, v, w, out, ntr)
        else:
            out.link_flits[base + o] += 1
            ne = enqueue(q, ne, d * V + cv, w)
    if mode == BCAST:
        bc.stall[v] = stall
    if mode == BCAST and bmask:
        for j in range(Pv):
            if (bmask >> j) & 1 and bc.held[base + j] == scratch[4][j]:
                nd, ne, ntr = fork_present(t, v, j, base + j, tgt[j], Pv, base, depth, bc, fcnt, lock, link, out,
                                           q, nd, ne, ntr, scratch)
    if mode == PIPE:
        nd, ntr = pipe_eject(t, v, P, fifo, out, q, nd, ntr, wl)
    return nd, ne, ntr


@phase
def cycles(mode, t0, t_stop, stop_when_drained, depth, P, V, tab, fifo, arb, src, out, ad, bc, q, scratch):
    """The cycle loop of :func:`run_cycles`; ``mode`` is a constant of each compiled entry below."""
    N, scal, fault, nfault, f_cyc = tab.nports.shape[0], out.scal, ad.fault, ad.nfault, ad.f_cyc
    inflight, ntr, pending = scal[0], scal[1], scal[2]
    t = t0
    while t < t_stop:
        while mode == ADAPTIVE and scal[3] < f_cyc.shape[0] and f_cyc[scal[3]] <= t:   # this cycle's faults
            for k in range(fault.shape[0]):                     # (no slice copies: they need NRT)
                fault[k] = ad.f_out[scal[3], k]
            for k in range(nfault.shape[0]):
                nfault[k] = ad.f_node[scal[3], k]
            scal[3] += 1
        if stop_when_drained and inflight == 0 and pending == 0 and scal[AXQ] == 0:
            break
        nd = ne = 0
        if scal[AXIS]:                                 # the AXI4-Stream interfaces' egress queues
            ntr = axis_egress(t, out, ntr)
        if pending > 0:
            taken, ne = source_phase(mode, t, P, V, depth, tab, nfault, fifo.count, src, out.counters, q)
            pending -= taken
            if src.nicfg[0]:                           # the AXI4-Stream interfaces' ingress queues
                ni_phase(t, src, src.nicfg[0], depth)
        if inflight > 0:
            for v in range(N):
                if fifo.occupied[v]:
                    nd, ne, ntr = router_node(mode, t, v, P, V, depth, tab, fifo, arb, out, ad, bc, q, nd, ne, ntr,
                                              scratch)
        inflight += clock_edge(mode, fifo, q, nd, ne, P * V)
        t += 1
    scal[0], scal[1], scal[2] = inflight, ntr, pending
    return t


@loop
def run_unicast(t0, t_stop, stop, depth, P, V, tab, fifo, arb, src, out, ad, bc, q, scratch):
    return cycles(UNICAST, t0, t_stop, stop, depth, P, V, tab, fifo, arb, src, out, ad, bc, q, scratch)


@loop
def run_adaptive(t0, t_stop, stop, depth, P, V, tab, fifo, arb, src, out, ad, bc, q, scratch):
    return cycles(ADAPTIVE, t0, t_stop, stop, depth, P, V, tab, fifo, arb, src, out, ad, bc, q, scratch)


@loop
def run_bcast(t0, t_stop, stop, depth, P, V, tab, fifo, arb, src, out, ad, bc, q, scratch):
    return cycles(BCAST, t0, t_stop, stop, depth, P, V, tab, fifo, arb, src, out, ad, bc, q, scratch)


@loop
def run_voq(t0, t_stop, stop, depth, P, V, tab, fifo, arb, src, out, ad, bc, q, scratch):
    return cycles(VOQ, t0, t_stop, stop, depth, P, V, tab, fifo, arb, src, out, ad, bc, q, scratch)


@loop
def run_pipe(t0, t_stop, stop, depth, P, V, tab, fifo, arb, src, out, ad, bc, q, scratch):
    return cycles(PIPE, t0, t_stop, stop, depth, P, V, tab, fifo, arb, src, out, ad, bc, q, scratch)


def run_cycles(mode, t0, t_stop, stop_when_drained, depth, P, V, tab, fifo, arb, src, out, ad, bc):
    """Simulate cycles t0 .. t_stop-1 (stop once drained if asked); return the next cycle. ``out.scal``:
    [0] flits buffered, [1] trace length, [2] flits not yet taken, [3] next fault change."""
    q = np.empty((3, tab.nports.shape[0] * (P * V + 1 if mode < BCAST else P * (P + V + 1))), np.int64)   # deq, enq
    # per router: req (P x request_words <= P * V: P <= WORD), tgt, tvc, ent, want, row
    scratch = np.zeros((6, P * V), np.int64)
    return (run_unicast, run_adaptive, run_bcast, run_voq, run_pipe)[mode](t0, t_stop, stop_when_drained, depth, P, V, tab, fifo,
                                                        arb, src, out, ad, bc, q, scratch)
