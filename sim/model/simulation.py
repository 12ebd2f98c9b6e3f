"""A model run in progress: the state arrays of every router, advanced by :func:`.kernel.run_cycles`.

:class:`Simulation` is the unicast router (docs/router.md "Router", "Virtual channels"); the adaptive
(:mod:`.adaptive`) and broadcast (:mod:`.broadcast`) runs are subclasses that set ``mode`` and fill
their own state tuple (``ad`` / ``bc``); the kernel and everything else here is shared.
"""
from __future__ import annotations

import functools

import numpy as np

from cubenoc.errors import CubenocError

from ..axis_frames import ingress_depth
from ..broadcast.fork import BROADCAST_DEST
from ..routing.fairness import weight_array
from . import kernel
from .axis_ni import AXQ_DEPTH
from .result import ModelResult
from .state import Adaptive, Arbiters, Broadcast, Fifos, Outputs, Sources, Tables
from .tables import inject_words
from .word import MAX_FLITS, ROUTE_SHIFT, TAIL


def _zeros(*shape) -> np.ndarray:
    return np.zeros(shape, dtype=np.int64)


#: from this many nodes up the state is in the narrowest integer types (the cache footprint at
#: 16,384-65,536 nodes; 2-8 % faster already at 64-256 nodes); below, every array of :func:`_small` is
#: int32, so that the small networks of the tests share one compiled loop (numba compiles one per
#: combination of array types: 11-13 s each, cold)
COMPACT_NODES = 64
#: cycles one call of the loop runs at most: its per-output flit counters are 16 bits (one flit per cycle)
SENT_SPAN = 1 << 15


def _small(top: int, compact: bool = True):
    """The narrowest signed integer type holding -1 .. ``top`` (int32 at least unless ``compact``)."""
    for t in (np.int8, np.int16, np.int32) if compact else (np.int32,):
        if top <= np.iinfo(t).max:
            return t
    return np.int64


def _z(n: int, top: int, fill: int = 0, compact: bool = True) -> np.ndarray:
    return np.full(n, fill, dtype=_small(top, compact))


def _narrow(a: np.ndarray, compact: bool = True) -> np.ndarray:
    """``a`` (-1 .. its maximum) in :func:`_small`'s type (a copy unless it has that type)."""
    return a.astype(_small(int(a.max(initial=0)), compact), copy=False)


class Simulation:
    """All state in arrays; :meth:`advance` runs the compiled cycle loop."""

    mode = kernel.UNICAST
    num_counters = 4

    def __init__(self, model, stim):
        tb = model.tables
        if stim.num_nodes != tb.num_nodes:
            raise CubenocError(f"stimulus is for {stim.num_nodes} nodes, the network has {tb.num_nodes}")
        self.model, self.stim = model, stim
        N, P, D = tb.num_nodes, tb.max_ports, model.depth
        V = self.num_vcs = int(getattr(tb, "num_vcs", 1))
        F = stim.num_flits
        if F >= MAX_FLITS:
            raise CubenocError(f"at most {MAX_FLITS} flits per stimulus, got {F}")
        src = np.repeat(np.arange(N, dtype=np.int64), np.diff(stim.node_start))
        dst = np.where(stim.head == 1, stim.dest, -1)
        if not getattr(model, "loopback", True):  # docs/router.md "Loopback": dropped like an out-of-range dest
            dst = np.where(dst == src, -1, dst)
        self.s_route = inject_words(model.routing, src, dst, model._inject_cache)
        # the route (and bcast) fields of each head's FIFO word; -1: dest >= num_nodes (dropped)
        self.s_fields = np.where(self.s_route >= 0, self.s_route << ROUTE_SHIFT, -1)
        # route table, Hop.vc per route word (a 1x1 dummy for V = 1: never read then), symmetric rows
        route_vc = tb.vc if V > 1 else _zeros(1, 1)
        row, xor = tb.row_and_xor()
        c = N >= COMPACT_NODES
        z = functools.partial(_z, compact=c)
        idx = _small(N * P, c)                # link targets, route rows and XORs in 32 bits up to 2^20 nodes
        arow, allowed = tb.allowed_rows()    # the allowed turns: one row per distinct node (tables.py)
        self.tab = Tables(tb.nports, _narrow(arow, c), tb.link.astype(idx), _narrow(allowed, c), _narrow(tb.route, c),
                          route_vc, row.astype(idx), _narrow(xor, c))
        # one FIFO per (node, input port, VC): index (v * P + i) * V + c, its head word apart from the D - 1
        # behind it (the routers read only the heads: one dense array); nocc: flits buffered per
        # node (FIFO words int64; pointers, counts and per-port state in the narrowest type)
        F_ = N * P * V
        self.fifo = Fifos(_zeros(F_), _zeros(F_, D - 1), z(F_, D), z(F_, D), z(N, P * V * (D + 1)),
                          *self.pipe_state(N, P * V))
        # rr per output (over the pairs j = i * V + c), lock per (output, VC) (-1 free), cur_out, cur_vc;
        # the arbiters' weights per (output, lane) (1: round robin; "fair": sim/routing/fairness.py), used
        if getattr(model, "arbitration", "round-robin") == "fair":
            if self.mode != kernel.UNICAST:
                raise CubenocError("--arbitration fair is built for unicast routers with a fixed route and one "
                                   "FIFO per input only (not with broadcast, run-time faults, a run-time "
                                   "selection, per-output queues or the pipelined router)")
            wt = weight_array(model.routing, P)
        else:
            wt = np.ones((1, 1, 1), dtype=np.int32)
        J = P * V
        wmax = max(1, int(wt.max()))          # used < weight, cur_w <= weight
        self.arb = Arbiters(z(N * P, J), z(F_, J, -1), z(F_, J), z(F_, J), wt, z(N * P, wmax), z(F_, wmax))
        self.src_ptr = stim.node_start[:-1].astype(np.int64).copy()
        self.src_end = stim.node_start[1:].astype(np.int64).copy()
        self.src_state = z(N, 2)
        self.src_lane = z(N, J)           # VOQ: the local input lane of the packet being injected
        self.counters = _zeros(N, 5)
        self.accept_cycle = np.full(F, -1, dtype=np.int64)
        self.eject_cycle = np.full(F, -1, dtype=np.int64)
        self.trace = tuple(_zeros(self.trace_size()) for _ in range(4))   # cycle, node, flit, head|tail
        axis = getattr(model.config, "interface", "native") == "axis"
        self.scal = np.array([0, 0, F, 0, int(axis), 0], dtype=np.int64)
        self.axq = _zeros(N if axis else 1, AXQ_DEPTH)      # the egress queues (axis_ni.axis_egress)
        self.axn, self.axroom = _zeros(N if axis else 1), _zeros(N if axis else 1)
        # the AXI4-Stream interfaces' ingress queues (kernel.ni_phase; rtl/axis_ni.py): queue depth, and per
        # node the next flit to enter, the stored broadcast header, its beats, the head at the cycle's start
        bcast = model.broadcast is not None
        self.ni_cfg = np.array([ingress_depth(D, bcast) if axis else 0], dtype=np.int64)
        self.ni = np.stack([self.src_ptr, np.full(N, -1), np.zeros(N, np.int64), self.src_ptr], axis=1).astype(np.int64)
        self.ni_bcast = ((stim.head == 1) & (stim.dest == BROADCAST_DEST)).astype(np.uint8) if axis and bcast \
            else np.zeros(max(F, 1), np.uint8)
        # flits sent per network output (v * P + o): the loop counts in 16 bits (the per-port array it
        # writes on every hop, a quarter of the cache footprint of int64) for at most SENT_SPAN
        # cycles (a link carries one flit per cycle), folded into int64 between calls: :attr:`link_flits`
        self.sent, self.sent_folded, self.unfolded = np.zeros(N * P, np.uint16), _zeros(N * P), 0
        self.eject_ready = np.ascontiguousarray(stim.eject_ready, dtype=np.uint8)
        # adaptive state (docs/router.md "Adaptive selection"): selection, candidate 1 tables, disc,
        # use, fault, node fault, the fault schedule; idle here (no second candidate, no changes)
        self.ad = Adaptive(0, _zeros(1, 1), _zeros(1, 1), z(F_, 1), z(N * P, 1 << 16), z(N * P, 1),
                           z(N, 1), _zeros(0), _zeros(0, N * P), _zeros(0, N))
        # broadcast state ("Broadcast and multicast"): fork mask, tags, origin row, held, done, bmode, brr, stall
        self.bc = Broadcast(_zeros(1, 1), _zeros(1, 1, 1), 0, _zeros(1), _zeros(1), _zeros(1), _zeros(1), _zeros(1))
        self.cycle = 0

    @staticmethod
    def pipe_state(N: int, lanes: int) -> tuple:
        """``stage``, ``trav``, ``eject``, ``ecount`` of :class:`.state.Fifos` (the PIPE mode's; unused here)."""
        return _zeros(1), _zeros(1), _zeros(1, 1), _zeros(1)

    def trace_size(self) -> int:
        return self.stim.num_flits

    @property
    def drained(self) -> bool:
        return bool(self.scal[0] == 0 and self.scal[2] == 0 and self.scal[5] == 0)

    @property
    def in_flight(self) -> int:
        return int(self.scal[0])

    @property
    def link_flits(self) -> np.ndarray:
        """Flits sent per network output ``v * P + o`` so far (int64)."""
        return self.sent_folded + self.sent

    def advance(self, cycles: int, stop_when_drained: bool = False) -> int:
        """Simulate up to ``cycles`` more cycles; return the current cycle."""
        end = self.cycle + int(cycles)
        while True:
            if self.unfolded >= SENT_SPAN:
                self.sent_folded += self.sent
                self.sent[:], self.unfolded = 0, 0
            stop = min(end, self.cycle + SENT_SPAN - self.unfolded)
            t0, self.cycle = self.cycle, self._run(stop, stop_when_drained)
            self.unfolded += self.cycle - t0
            if self.cycle >= end or self.cycle < stop:      # done, or drained before ``stop``
                return self.cycle

    def _run(self, stop: int, stop_when_drained: bool) -> int:
        """The compiled loop from the current cycle to ``stop``; returns the cycle it stopped at."""
        s = self.stim
        ptr, rel = self.src_ptr, s.release
        if self.ni_cfg[0]:                  # the ingress queue's head, offered (kernel.ni_phase)
            nxt = np.where((ptr < self.ni[:, 0]) & (ptr != self.ni[:, 1]), self.cycle, 1 << 62)
        else:
            nxt = np.where(ptr < self.src_end, rel[np.minimum(ptr, rel.size - 1)] if rel.size else 0, 1 << 62)
        src = Sources(ptr, self.src_end, self.src_state, s.head, s.tail, self.s_fields, rel, self.accept_cycle,
                      self.src_lane, nxt.astype(np.int64), self.ni_cfg, self.ni, self.ni_bcast)
        out = Outputs(self.eject_ready, self.counters, self.eject_cycle, *self.trace, self.scal, self.sent,
                      self.axq, self.axn, self.axroom)
        return int(kernel.run_cycles(
            self.mode, self.cycle, stop, stop_when_drained, self.model.depth,
            self.model.tables.max_ports, self.num_vcs, self.tab, self.fifo, self.arb, src, out, self.ad, self.bc))

    def result(self) -> ModelResult:
        n = int(self.scal[1])
        tr_cycle, tr_node, tr_flit, ht = (a[:n].copy() for a in self.trace)
        return ModelResult(self.stim, self.cycle, self.drained, self.counters[:, :self.num_counters].copy(),
                           self.accept_cycle.copy(), self.eject_cycle.copy(), tr_cycle, tr_node, tr_flit,
                           ht & 1, (ht >> TAIL) & 1, router=self.model.config, link_flits=self.link_flits.copy())
