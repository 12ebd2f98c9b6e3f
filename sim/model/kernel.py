"""The compiled cycle loop of the model (docs/router.md), by stage: one router step per variant composed from
stage functions, one cycle loop per variant composed from its step (callable from Python).

The variant (mode) is chosen once, by :func:`run_cycles`: each ``run_*`` entry hands :func:`cycles` its
own router step and clock edge, and the steps hand the shared stages the unit options of their variant (as
rtl/router/'s units take theirs), so numba compiles each entry with no mode test left in it. A router step
runs its units in their order (docs/router.md "Router"): the route stage and request of every lane, switch
allocation, traversal. The stages: :mod:`.stages` (route stage and request, switch allocation and traversal,
shared by the unicast, adaptive, per-output-queue and broadcast routers), :mod:`.forks` (broadcast),
:mod:`.pipelined` (the pipelined router); the unit phases they call (arbiters, FIFOs, source interface, route
unit, selection, ejection): :mod:`.phases`. numba's on-disk cache checks only this file's source: a change to
a stage module drops the cached loops at import (:func:`.loop_cache.drop_stale_loops`).

VOQ (per-output queues): V = P, lane c of an input holds the flits for output c, ``Hop.vc`` = the next
router's output from lookahead routing, one lock per output, round robin over the inputs (docs/router.md
"Per-output queues").
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .axis_ni import AXIS, AXQ, axis_egress, ni_phase
from .forks import bcast_node
from .loop_cache import drop_stale_loops
from .phases import apply_faults, clock_edge, phase, request_words, source_phase
from .pipelined import pipe_clock_edge, pipe_node
from .stages import adaptive_request, lane_request, switch

UNICAST, ADAPTIVE, BCAST, VOQ, PIPE = 0, 1, 2, 3, 4            # run_cycles modes (PIPE: sim/model/pipeline.py)
# The cycle loops, one entry per mode, without numba's reference counting (nothing in them allocates): an
# atomic incref/decref per array of every tuple handed to an inline helper made them 2x slower.
loop = njit(cache=True, nogil=True, _nrt=False)


@phase
def fifo_node(t, v, P, V, depth, tab, fifo, arb, out, ad, q, nd, ne, ntr, scratch, per_input, room_masked):
    """One cycle of router v, input-buffered wormhole (V >= 1; ``per_input``: per-output queues, one lock per
    output, round robin over the inputs): every lane's route stage and request, then the switch."""
    base, loc, nw = v * P, tab.nports[v] - 1, request_words(P, V, per_input)
    outs = 0
    for j in range(tab.nports[v] * V):
        fi = base * V + j
        if fifo.count[fi] > 0:
            outs |= lane_request(v, j, fi, fifo.first[fi], loc, base, V, depth, tab, fifo.count, arb, scratch, nw,
                                 per_input, room_masked)
    if outs:
        nd, ne, ntr, _ = switch(t, v, outs, P, V, depth, nw, tab, fifo, arb, out, ad, q, nd, ne, ntr, scratch,
                                per_input, False)
    return nd, ne, ntr


@phase
def unicast_node(t, v, P, V, depth, tab, fifo, arb, out, ad, bc, q, nd, ne, ntr, scratch):
    """The unicast router: V = 1 requests are not masked by room downstream (the RTL's)."""
    return fifo_node(t, v, P, V, depth, tab, fifo, arb, out, ad, q, nd, ne, ntr, scratch, False, V > 1)


@phase
def voq_node(t, v, P, V, depth, tab, fifo, arb, out, ad, bc, q, nd, ne, ntr, scratch):
    """The router with per-output queues (V = P lanes per input)."""
    return fifo_node(t, v, P, V, depth, tab, fifo, arb, out, ad, q, nd, ne, ntr, scratch, True, True)


@phase
def adaptive_node(t, v, P, V, depth, tab, fifo, arb, out, ad, bc, q, nd, ne, ntr, scratch):
    """One cycle of router v with the candidate route stage (adaptive selection, run-time faults)."""
    base, loc, nw = v * P, tab.nports[v] - 1, request_words(P, V, False)
    outs = 0
    for j in range(tab.nports[v] * V):
        fi = base * V + j
        if fifo.count[fi] > 0:
            bit, nd = adaptive_request(v, j, fi, fifo.first[fi], loc, base, V, depth, tab, fifo.count, arb, out,
                                       ad, q, nd, scratch, nw)
            outs |= bit
    if outs:
        nd, ne, ntr, _ = switch(t, v, outs, P, V, depth, nw, tab, fifo, arb, out, ad, q, nd, ne, ntr, scratch,
                                False, True)
    return nd, ne, ntr


@phase
def cycles(node_step, edge, faults, lane_by_route, t0, t_stop, stop_when_drained, depth, P, V, tab, fifo, arb,
           src, out, ad, bc, q, scratch):
    """The cycle loop of :func:`run_cycles` with one variant's router step and clock edge (``faults``: the
    fault schedule and faulty sources; ``lane_by_route``: VOQ's source lanes), constants of each entry."""
    N, scal = tab.nports.shape[0], out.scal
    inflight, ntr, pending = scal[0], scal[1], scal[2]
    t = t0
    while t < t_stop:
        if faults:
            apply_faults(t, ad, scal)
        if stop_when_drained and inflight == 0 and pending == 0 and scal[AXQ] == 0:
            break
        nd = ne = 0
        if scal[AXIS]:                                 # the AXI4-Stream interfaces' egress queues
            ntr = axis_egress(t, out, ntr)
        if pending > 0:
            taken, ne = source_phase(t, P, V, depth, tab, ad.nfault, fifo.count, src, out.counters, q, faults,
                                     lane_by_route)
            pending -= taken
            if src.nicfg[0]:                           # the AXI4-Stream interfaces' ingress queues
                ni_phase(t, src, src.nicfg[0], depth)
        if inflight > 0:
            for v in range(N):
                if fifo.occupied[v]:
                    nd, ne, ntr = node_step(t, v, P, V, depth, tab, fifo, arb, out, ad, bc, q, nd, ne, ntr, scratch)
        inflight += edge(fifo, q, nd, ne, P * V)
        t += 1
    scal[0], scal[1], scal[2] = inflight, ntr, pending
    return t


@loop
def run_unicast(t0, t_stop, stop, depth, P, V, tab, fifo, arb, src, out, ad, bc, q, scratch):
    return cycles(unicast_node, clock_edge, False, False, t0, t_stop, stop, depth, P, V, tab, fifo, arb, src, out,
                  ad, bc, q, scratch)


@loop
def run_adaptive(t0, t_stop, stop, depth, P, V, tab, fifo, arb, src, out, ad, bc, q, scratch):
    return cycles(adaptive_node, clock_edge, True, False, t0, t_stop, stop, depth, P, V, tab, fifo, arb, src, out,
                  ad, bc, q, scratch)


@loop
def run_bcast(t0, t_stop, stop, depth, P, V, tab, fifo, arb, src, out, ad, bc, q, scratch):
    return cycles(bcast_node, clock_edge, False, False, t0, t_stop, stop, depth, P, V, tab, fifo, arb, src, out,
                  ad, bc, q, scratch)


@loop
def run_voq(t0, t_stop, stop, depth, P, V, tab, fifo, arb, src, out, ad, bc, q, scratch):
    return cycles(voq_node, clock_edge, False, True, t0, t_stop, stop, depth, P, V, tab, fifo, arb, src, out,
                  ad, bc, q, scratch)


@loop
def run_pipe(t0, t_stop, stop, depth, P, V, tab, fifo, arb, src, out, ad, bc, q, scratch):
    return cycles(pipe_node, pipe_clock_edge, False, False, t0, t_stop, stop, depth, P, V, tab, fifo, arb, src,
                  out, ad, bc, q, scratch)


#: the modules whose functions and constants the loops compile in (numba's cache checks only this file)
STAGE_MODULES = ("phases", "stages", "forks", "pipelined", "axis_ni", "word")
LOOPS = (run_unicast, run_adaptive, run_bcast, run_voq, run_pipe)
drop_stale_loops(LOOPS, STAGE_MODULES)


def run_cycles(mode, t0, t_stop, stop_when_drained, depth, P, V, tab, fifo, arb, src, out, ad, bc):
    """Simulate cycles t0 .. t_stop-1 (stop once drained if asked); return the next cycle. ``out.scal``:
    [0] flits buffered, [1] trace length, [2] flits not yet taken, [3] next fault change."""
    q = np.empty((3, tab.nports.shape[0] * (P * V + 1 if mode < BCAST else P * (P + V + 1))), np.int64)   # deq, enq
    # per router: req (P x request_words <= P * V: P <= WORD), tgt, tvc, ent, want, row
    scratch = np.zeros((6, P * V), np.int64)
    return LOOPS[mode](t0, t_stop, stop_when_drained, depth, P, V, tab, fifo, arb, src, out, ad, bc, q, scratch)
