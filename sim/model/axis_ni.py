"""The model of the AXI4-Stream network interface (rtl/axis_ni.py; docs/ip.md "How it works"): the phases the
compiled cycle loop (:mod:`.kernel`) runs for a network with ``interface="axis"``. Egress: :func:`axis_egress`
at the start of the cycle (the kernel's ``eject_taken`` and ``eject_record`` hand beats to it); ingress:
:func:`ni_phase` after the source phase."""
from __future__ import annotations

from numba import njit

from .word import FLIT_SHIFT, HEAD_MASK, HT_MASK

phase = njit(inline="always", cache=True, nogil=True)
AXIS, AXQ = 4, 5                # out.scal: the AXI4-Stream interface; beats in its egress queues
AXQ_DEPTH = 2                   # entries of an egress queue (rtl/axis_ni.py)


@phase
def user_ready(t, v, out):
    """The user at node v takes a flit this cycle: ``eject_ready`` (cycles past the array: ready)."""
    return (out.eject_ready[t, v] if t < out.eject_ready.shape[0] else 1) != 0


@phase
def handed(t, v, w, out, n):
    """Word ``w`` handed to the user at node v this cycle: trace entry n, its flit's eject cycle; n + 1."""
    f = w >> FLIT_SHIFT
    out.tr_cycle[n], out.tr_node[n], out.tr_flit[n], out.tr_ht[n] = t, v, f, w & HT_MASK
    out.eject_cycle[f] = t
    return n + 1


@phase
def axis_taken(v, w, out, t):
    """The router ejects ``w`` into node v's interface: a beat enters the egress queue, a header stays (its
    eject cycle the router's)."""
    if w & HEAD_MASK:
        out.eject_cycle[w >> FLIT_SHIFT] = t
    else:
        out.axq[v, out.axn[v]] = w
        out.axn[v] += 1
        out.scal[AXQ] += 1


@phase
def axis_egress(t, out, n):
    """The AXI4-Stream interfaces' egress queues (2 entries of beats), at the start of the cycle: the room
    the routers see this cycle, and the beat the user takes (``eject_ready``): trace entry n; returns n."""
    q, cnt, room, scal = out.axq, out.axn, out.axroom, out.scal
    for v in range(cnt.shape[0]):
        c = cnt[v]
        room[v] = c < AXQ_DEPTH
        if c and user_ready(t, v, out):
            n = handed(t, v, q[v, 0], out, n)
            q[v, 0] = q[v, 1]
            cnt[v] = c - 1
            scal[AXQ] -= 1
    return n


@phase
def ni_phase(t, src, K, D):
    """The AXI4-Stream interfaces' ingress queues (rtl/axis_ni.py), after the source phase. Node v's queue
    holds its flits ``ptr[v] .. ni[v, 0] - 1``; ``ni[v, 3]`` is ``ptr[v]`` at the start of the cycle (the
    registered count), ``ni[v, 1]`` the header of the broadcast frame being stored (-1: none), ``ni[v, 2]``
    its beats queued. One released flit enters while the queue had room (K entries); a stored broadcast
    header is not offered until its tail is queued, and one of more than D - 1 beats gets a bad destination
    (the source interface drops it whole). Sets ``next``: the queue's head is offered from the next cycle."""
    ptr, end, tail, fields, release, nxt = src.ptr, src.end, src.tail, src.fields, src.release, src.next
    ni, bc = src.ni, src.bcast
    for v in range(ptr.shape[0]):
        u = ni[v, 0]
        if u < end[v] and release[u] <= t and u - ni[v, 3] < K:
            if bc[u]:                                  # a broadcast header: stored
                ni[v, 1], ni[v, 2] = u, 0
            elif ni[v, 1] >= 0:
                if tail[u]:
                    ni[v, 1] = -1
                elif ni[v, 2] == D - 2:                # too long for a FIFO: dropped whole
                    fields[ni[v, 1]] = -1
                    ni[v, 1] = -1
                else:
                    ni[v, 2] += 1
            ni[v, 0] = u + 1
        p = ptr[v]
        ni[v, 3] = p
        nxt[v] = t + 1 if p < ni[v, 0] and ni[v, 1] != p else 1 << 62
