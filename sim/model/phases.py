"""The model's unit phases (docs/router.md), one inline numba function per RTL unit or rule, with no
knowledge of the router variant: what differs between variants arrives as the unit's own option (as in
rtl/router/). :mod:`.kernel` composes them into one router step and one cycle loop per variant.

Words: :mod:`.word`. FIFO ``(v * P + i) * V + c`` is VC c of input i of node v (local: c = 0); rr runs
over ``j = i * V + c``; locks per (output, VC) ``(v * P + o) * V + c`` (V = 1 is the V = 1 router).
Each cycle the sources and routers decide from registered state, recording dequeues and enqueues
(:func:`dequeue`, :func:`enqueue`); the clock edge (:func:`clock_edge`) applies them.
"""
from __future__ import annotations

from numba import njit

from .axis_ni import AXIS, axis_taken, handed, user_ready
from .word import FLIT_SHIFT, HEAD_MASK, PORT_BITS, PORT_MASK, ROUTE_MASK, ROUTE_SHIFT, TAIL

IDLE, FORWARD, DROP = 0, 1, 2                                  # source interface states
INJECTED, EJECTED, DROPPED, MALFORMED, DISCARDED = 0, 1, 2, 3, 4   # counter columns
WORD = 62                                                      # request bits per word (int64, no sign bit)
EJECT_DEPTH = 2                                                # pipelined router: the local output's buffer
phase = njit(inline="always", cache=True, nogil=True)


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
def request_words(P, V, per_input):
    """Words per output of the arbiters' request masks: an output's requests are over the (port, VC) pairs
    ``j`` (``per_input``, VOQ: over the inputs), bit ``j % WORD`` of word ``j // WORD``."""
    return ((P if per_input else P * V) + WORD - 1) // WORD


@phase
def request_bit(req, o, nw, r):
    """Set request ``r`` of output ``o`` (``nw`` words per output)."""
    if nw == 1:                                        # one word, the common case, kept apart: 11 % faster
        req[o] |= 1 << r
    else:
        req[o * nw + r // WORD] |= 1 << (r % WORD)


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
def arbitrate(req, o, nw, pointer, n):
    """Switch allocation at one output: the round-robin winner of its requests (:func:`rr_pick` over its
    ``nw`` words), which are cleared for the next router; -1 if none."""
    if nw == 1:
        win = rr_pick(req[o], pointer, n)
        req[o] = 0
        return win
    win = rr_pick_words(req, o * nw, nw, pointer, n)
    for i in range(nw):
        req[o * nw + i] = 0
    return win


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
def push_all(fifo, q, ne, per_node):
    """The clock edge's writes: the ``ne`` recorded enqueues; returns ne."""
    for j in range(ne):
        fifo_push(fifo.first, fifo.buf, fifo.head, fifo.count, q[1][j], q[2][j])
        fifo.occupied[q[1][j] // per_node] += 1
    return ne


@phase
def clock_edge(fifo, q, nd, ne, per_node):
    """The clock edge: the ``nd`` recorded dequeues (FIFO pops), then the ``ne`` enqueues; returns the flits in
    flight gained."""
    for j in range(nd):
        f = q[0][j]
        fifo_pop(fifo.first, fifo.buf, fifo.head, fifo.count, f)
        fifo.occupied[f // per_node] -= 1
    return push_all(fifo, q, ne, per_node) - nd


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
def source_phase(t, P, V, depth, tab, nfault, fcnt, src, status, q, node_faults, lane_by_route):
    """Every source interface this cycle (``node_faults``: a faulty node accepts nothing); returns (flits
    taken, writes). ``lane_by_route`` (VOQ): a packet goes to the local input's lane of its first output
    (``src.lane``, set by its head)."""
    src_ptr, src_end, src_state, s_head, s_tail, s_fields, s_release, accept_cycle, s_lane, s_next = src[:10]
    nports = tab.nports
    taken = ne = 0
    for v in range(nports.shape[0]):
        p = src_ptr[v]
        if s_next[v] > t or (node_faults and nfault[v]):   # s_next: release of flit p (none: 2**62)
            continue
        lf = (v * P + nports[v] - 1) * V
        if lane_by_route:
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
def route_lookup(w, v, tab):
    """The route unit at node v on a head's route word (symmetric rows: tables.py): the table entry (new
    route word << PORT_BITS | output), -1 for a route word no packet can carry."""
    rx = tab.xor[v]
    e = tab.route[tab.row[v], ((w >> ROUTE_SHIFT) & ROUTE_MASK) ^ rx]
    return e if e < 0 else e ^ (rx << PORT_BITS)


@phase
def head_route(w, v, loc, V, tab):
    """The route unit on head ``w`` at node v: ``(entry, output, VC, route word)`` (:func:`route_lookup`; the VC
    from the route table's ``vc``, 0 at the local output or with one VC); entry -1: stuck."""
    e = route_lookup(w, v, tab)
    if e < 0:
        return e, 0, 0, 0
    o = e & PORT_MASK
    word = ((w >> ROUTE_SHIFT) & ROUTE_MASK) ^ tab.xor[v]
    return e, o, (tab.vc[tab.row[v], word] if V > 1 and o != loc else 0), word


@phase
def new_route(w, e):
    """A head's word with the new route of its table entry ``e`` (a body flit unchanged)."""
    return (w & ~(ROUTE_MASK << ROUTE_SHIFT)) | ((e >> PORT_BITS) << ROUTE_SHIFT) if w & HEAD_MASK else w


@phase
def apply_faults(t, ad, scal):
    """The fault inputs at the start of cycle t (docs/router.md "Run-time faults"): every change of the fault
    schedule due by then (``scal[3]``: the next one). No slice copies: they need numba's reference counting."""
    while scal[3] < ad.f_cyc.shape[0] and ad.f_cyc[scal[3]] <= t:
        for k in range(ad.fault.shape[0]):
            ad.fault[k] = ad.f_out[scal[3], k]
        for k in range(ad.nfault.shape[0]):
            ad.nfault[k] = ad.f_node[scal[3], k]
        scal[3] += 1
