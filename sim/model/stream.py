"""Streamed model runs: traffic fed in windows, statistics kept as running sums, so memory is
O(network + in-flight packets + one window of traffic + a latency histogram) whatever the run length.

A :class:`StreamRun` drives one :class:`~.simulation.Simulation` (any unicast mode: fixed route,
adaptive, per-output queues, pipelined) with packets from a *source* (``take(t1)`` -> the packets created
before cycle ``t1``, grouped by source node: :class:`cubenoc.sim.traffic.BernoulliSource`,
``TraceSource``). Every ``span`` cycles it rebuilds the simulation's flit arrays (the stimulus the
kernel reads, sim/model/stimulus.py): the flits still in the network first (their FIFO words are
renumbered), then per node the flits its source interface has not taken yet, then the new window's
packets. Neither the kernel nor the order of any source's flits changes, so a streamed run is cycle for
cycle the run of the same packets given up front (tests/test_simulate_stream.py holds them equal).

Statistics, as :mod:`cubenoc.sim.simulator` reports them, from the ejected-flit trace of each window:
flits ejected in the measurement window [W0, W1) (per source optionally), and for the *measured*
packets (created in [W0, W1)): a histogram of packet latency (creation to tail ejection; percentiles
from it, :func:`hist_percentile`), the sum of network latencies (head accepted to tail ejected), the
count created / delivered (per source optionally, with the sum of their latencies), and their hop count
(walked through the route tables at creation).
"""
from __future__ import annotations

import ctypes
from types import SimpleNamespace

import numpy as np

from cubenoc.errors import CubenocError

from ..routing.base import hop_limit
from ..traffic import packets_to_stimulus
from . import kernel
from .tables import inject_array
from .word import FLIT_SHIFT, MAX_FLITS, ROUTE_SHIFT, TAIL

_LOW = (1 << FLIT_SHIFT) - 1


def _ranges(start: np.ndarray, stop: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(start[i], stop[i])``."""
    n = stop - start
    total = int(n.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    off = np.repeat(start - np.concatenate(([0], np.cumsum(n)[:-1])), n)
    return np.arange(total, dtype=np.int64) + off


def _entries(buf: np.ndarray, head: np.ndarray, count: np.ndarray):
    """``(buf, (rows, cols))``: the occupied slots of circular buffers ``buf[f]`` (``count[f]`` words from
    ``head[f]``), in order."""
    D = buf.shape[1]
    nz = np.nonzero(count)[0]
    k = np.arange(D)
    slots = (head[nz, None] + k) % D
    valid = k < count[nz, None]
    return buf, (np.broadcast_to(nz[:, None], slots.shape)[valid], slots[valid])


def walk_routes(model, src_first_words: np.ndarray, src: np.ndarray):
    """Follow each packet's route through the model's tables: (hop count per packet, channel index per
    traversal, packet index per traversal). Deterministic routing: these are the channels it crossed."""
    tb = model.tables
    P = tb.max_ports
    node = src.astype(np.int64).copy()
    word = src_first_words.astype(np.int64).copy()
    idx = np.arange(src.shape[0], dtype=np.int64)
    hops = np.zeros(src.shape[0], dtype=np.int64)
    chans, owners = [], []
    for _ in range(hop_limit(tb.num_nodes)):
        if idx.size == 0:
            break
        e = tb.lookup(node, word)
        if (e < 0).any():
            raise CubenocError("a route word the routing function does not define (model tables)")
        ch = node * P + (e & 0xFF)
        nxt = tb.link[ch]
        go = nxt >= 0
        chans.append(ch[go])
        owners.append(idx[go])
        hops[idx[go]] += 1
        node, word, idx = nxt[go] // P, e[go] >> 8, idx[go]
    if idx.size:
        raise CubenocError("routes that never eject (routing loop in the model tables)")
    cat = (lambda xs: np.concatenate(xs) if xs else np.zeros(0, dtype=np.int64))
    return hops, cat(chans), cat(owners)


def hist_percentile(hist: np.ndarray, q: float) -> float:
    """``np.percentile(values, q)`` (linear interpolation) of the values counted in ``hist``
    (``hist[x]`` = how many values equal x), without the values."""
    n = int(hist.sum())
    if n == 0:
        return float("nan")
    cum = np.cumsum(hist)
    h = (n - 1) * (q / 100.0)
    lo = int(np.floor(h))
    a = float(np.searchsorted(cum, lo, side="right"))         # the value at sorted index lo
    b = float(np.searchsorted(cum, min(lo + 1, n - 1), side="right"))
    t = h - lo
    return b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t   # numpy's _lerp


_LIBC = []          # [libc, its mallinfo2 or None] once set; [None] off glibc
_HEAP = [0]         # the heap's size (mallinfo2 arena) after the last trim


def _fixed_mmap_threshold() -> None:
    """glibc serves an array above the mmap threshold from its own mapping, returned whole when freed;
    but the threshold rises (up to 32 MB) each time such an array is freed, after which the windows'
    arrays come from the heap and fragment it: the peak RSS of a 2 M-cycle run grew 9 % over a 200 k one.
    A low fixed threshold (64 KiB) kept it flat, but then each window's ~90 temporary arrays of ~2 MB were
    new mappings whose pages the kernel zero-filled on first touch: a third of the CPU time of a streamed
    run was page faults (docs/simulator.md). So the threshold is fixed at 4 MiB (mallopt
    M_MMAP_THRESHOLD: the windows' arrays reuse heap memory) and :func:`_trim` hands the heap's free pages
    back when the heap has grown. Once per process; nothing elsewhere (another C library) changes."""
    if _LIBC:
        return
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 1 << 22)                          # M_MMAP_THRESHOLD
        info = getattr(libc, "mallinfo2", None)            # glibc >= 2.33
        if info is not None:
            class Mallinfo2(ctypes.Structure):
                _fields_ = [(f, ctypes.c_size_t) for f in ("arena", "ordblks", "smblks", "hblks", "hblkhd",
                                                           "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]
            info.restype = Mallinfo2
        _LIBC.extend([libc, info])
    except (OSError, AttributeError):
        _LIBC.append(None)


def _trim() -> None:
    """Return the heap's free pages to the system (glibc malloc_trim) when the heap has grown since the
    last time (at every window without mallinfo2). Each trim also gives back the pages the next window
    reuses, to be faulted in again: trimmed at every window, a 2 M-cycle run at load 0.5 spent a quarter
    of its time in the kernel (6.0 of 23.3 s); trimmed on growth, 0.9 s, and the peak RSS still flat in the
    run length (docs/simulator.md "Streamed runs")."""
    if not _LIBC or _LIBC[0] is None:
        return
    libc, info = _LIBC
    if info is None or info().arena > _HEAP[0]:
        libc.malloc_trim(0)
        _HEAP[0] = info().arena if info is not None else 0


class StreamRun:
    """One streamed run of ``model`` on the packets of ``source`` (see the module docstring)."""

    def __init__(self, model, source, span: int, window: tuple[int, int] = (0, 1 << 62),
                 per_source: bool = False, hops: bool = True):
        _fixed_mmap_threshold()
        N = self.N = model.num_nodes
        self.model, self.source, self.span = model, source, max(1, int(span))
        self.sim = model.start(packets_to_stimulus(N, [], [], [], []))
        if self.sim.mode == kernel.BCAST:     # a flit ejects at many nodes (one trace entry per flit here)
            raise CubenocError("streamed runs are built for unicast routers (not broadcast)")
        if self.sim.scal[kernel.AXIS]:        # its traffic is packets of flits, not AXI4-Stream frames
            raise CubenocError("streamed runs model the routers' native ports (not interface=axis)")
        self.W0, self.W1 = window
        self.hist = np.zeros(256, dtype=np.int64)     # latency histogram of measured packets
        self.net_sum = self.delivered = self.created = self.created_flits = self.ejected = 0
        self.hops_sum, self.want_hops = 0, hops
        self.src_ejected = np.zeros(N, dtype=np.int64) if per_source else None
        # per_source: the measured packets delivered per source and the sum of their latencies
        self.src_done = np.zeros(N, dtype=np.int64) if per_source else None
        self.src_lat_sum = np.zeros(N, dtype=np.int64) if per_source else None
        self.sent = np.zeros(N, dtype=bool)
        self.window_end = 0
        z = np.zeros(0, dtype=np.int64)
        self.f_src, self.f_pos, self.f_hacc, self.f_rel = z.astype(np.int32), z.astype(np.int32), z, z
        self.reg_start = np.zeros(N, dtype=np.int64)
        self.reg_rel = z                               # sorted releases of the flits given to the sources

    @property
    def cycle(self) -> int:
        return self.sim.cycle

    @property
    def link_flits(self) -> np.ndarray:
        return self.sim.link_flits

    def advance(self, cycles: int) -> int:
        target = self.sim.cycle + int(cycles)
        while self.sim.cycle < target:
            if self.sim.cycle >= self.window_end:
                self._refill()
            self.sim.advance(min(target, self.window_end) - self.sim.cycle)
        return self.sim.cycle

    def backlog(self) -> int:
        """Flits created before the current cycle that the source interfaces have not accepted yet."""
        released = int(np.searchsorted(self.reg_rel, self.sim.cycle, side="left"))
        return released - int((self.sim.src_ptr - self.reg_start).sum())

    @property
    def all_delivered(self) -> bool:
        self.harvest()
        return self.delivered == self.created

    # ---- statistics -----------------------------------------------------------------------------------
    def harvest(self) -> None:
        sim = self.sim
        n = int(sim.scal[1])
        if n == 0:
            return
        cyc, f, ht = sim.trace[0][:n], sim.trace[2][:n], sim.trace[3][:n]
        inwin = (cyc >= self.W0) & (cyc < self.W1)
        self.ejected += int(inwin.sum())
        if self.src_ejected is not None:
            self.src_ejected += np.bincount(self.f_src[f[inwin]], minlength=self.N)
        rel = self.f_rel[f]
        done = (((ht >> TAIL) & 1) == 1) & (rel >= self.W0) & (rel < self.W1)
        if done.any():
            f, cyc = f[done], cyc[done]
            lat = cyc - rel[done]
            if lat.max() >= self.hist.size:
                grow = max(self.hist.size, int(lat.max()) + 1 - self.hist.size)
                self.hist = np.concatenate([self.hist, np.zeros(grow, dtype=np.int64)])
            self.hist += np.bincount(lat, minlength=self.hist.size)
            if self.src_done is not None:
                who = self.f_src[f]
                self.src_done += np.bincount(who, minlength=self.N)
                self.src_lat_sum += np.bincount(who, weights=lat, minlength=self.N).astype(np.int64)
            self.net_sum += int((cyc - self._head_accept(f)).sum())
            self.delivered += int(f.size)
        sim.scal[1] = 0

    def _head_accept(self, f: np.ndarray) -> np.ndarray:
        """Cycle the head of flit f's packet was accepted (-1: not yet)."""
        carried = self.f_hacc[f]
        return np.where(carried >= 0, carried, self.sim.accept_cycle[f - self.f_pos[f]])

    # ---- the window's flit arrays -----------------------------------------------------------------------
    def _refill(self) -> None:
        sim, N = self.sim, self.N
        self.harvest()
        _trim()                                            # (when the heap has grown)
        # flits in the network, renumbered 0 .. I-1: every FIFO entry, and in the pipelined router (PIPE)
        # the stage registers and the ejection buffers (sim/model/pipeline.py)
        fifo = sim.fifo
        behind = np.maximum(fifo.count.astype(np.int64) - 1, 0)      # the words behind each head register
        places = [(fifo.first, (np.nonzero(fifo.count)[0],)), _entries(fifo.buf, fifo.head, behind)]
        if sim.mode == kernel.PIPE:
            st = np.nonzero(fifo.stage >= 0)[0]
            places.append((fifo.stage, (st,)))
            places.append(_entries(fifo.eject, np.zeros_like(fifo.ecount), fifo.ecount))
        old = np.concatenate([arr[ix] >> FLIT_SHIFT for arr, ix in places])
        I = old.size
        new, pos = np.arange(I, dtype=np.int64), 0
        for arr, ix in places:
            n = arr[ix].size
            arr[ix] = (arr[ix] & _LOW) | (new[pos:pos + n] << FLIT_SHIFT)
            pos += n
        # flits the sources have not taken, per node in order, then the new window's packets
        back = _ranges(sim.src_ptr, sim.src_end)
        keep = np.concatenate([old, back])
        hacc = self._head_accept(keep) if keep.size else keep
        t1 = sim.cycle + self.span
        src, dst, rel, length = self.source.take(t1)
        words = inject_array(self.model, src, dst)
        self._created(src, dst, rel, length, words)
        s = sim.stim
        K, L = src.size, int(length.sum())
        first = np.zeros(K, dtype=np.int64)
        if K:
            np.cumsum(length[:-1], out=first[1:])
        pkt = np.repeat(np.arange(K, dtype=np.int64), length)
        pos = np.arange(L, dtype=np.int64) - first[pkt]
        n_node = np.concatenate([self.f_src[back].astype(np.int64), src[pkt]])
        order = np.argsort(n_node, kind="stable")            # backlog before new, per node
        reg = lambda a, b: np.concatenate([a, b])[order]
        r_head = reg(s.head[back], (pos == 0).astype(np.int64))
        r_tail = reg(s.tail[back], (pos == length[pkt] - 1).astype(np.int64))
        r_fields = reg(sim.s_fields[back], np.where(pos == 0, words[pkt] << ROUTE_SHIFT, -1))
        r_rel = reg(s.release[back], rel[pkt])
        r_src = reg(self.f_src[back], src[pkt].astype(np.int32))
        r_pos = reg(self.f_pos[back], pos.astype(np.int32))
        r_hacc = reg(hacc[I:], np.full(L, -1, dtype=np.int64))
        F = I + r_head.size
        if F >= MAX_FLITS:
            raise CubenocError(f"at most {MAX_FLITS} flits in one window of a streamed run, got {F}")
        cat = lambda a, b: np.concatenate([a, b])
        s_new = SimpleNamespace(head=cat(s.head[old], r_head), tail=cat(s.tail[old], r_tail),
                                release=cat(s.release[old], r_rel), num_flits=F, eject_ready=s.eject_ready)
        sim.s_fields = cat(sim.s_fields[old], r_fields)
        sim.accept_cycle = cat(sim.accept_cycle[old], np.full(r_head.size, -1, dtype=np.int64))
        sim.eject_cycle = np.full(F, -1, dtype=np.int64)
        sim.trace = tuple(np.zeros(F, dtype=np.int64) for _ in range(4))
        self.f_src, self.f_pos, self.f_hacc = cat(self.f_src[old], r_src), cat(np.zeros(I, np.int32), r_pos), \
            cat(hacc[:I], r_hacc)
        self.f_rel = s_new.release
        sim.stim = s_new
        counts = np.bincount(n_node, minlength=N)
        sim.src_ptr = I + np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
        sim.src_end = sim.src_ptr + counts
        self.reg_start = sim.src_ptr.copy()
        self.reg_rel = np.sort(r_rel)
        sim.scal[1], sim.scal[2] = 0, r_head.size
        self.window_end = t1

    def _created(self, src, dst, rel, length, words) -> None:
        self.sent[src] = True
        m = (rel >= self.W0) & (rel < self.W1)
        if not m.any():
            return
        self.created += int(m.sum())
        self.created_flits += int(length[m].sum())
        if self.want_hops:
            words = words[m]
            if type(self.model.routing).__name__ == "EcubeRouting":   # one hop per set tag bit (Algs A, C)
                self.hops_sum += int(np.bitwise_count(words.astype(np.uint64)).sum())
            else:
                self.hops_sum += int(walk_routes(self.model, words, src[m])[0].sum())
