"""Synthetic traffic for the network simulator: destination patterns, packet lengths and
Bernoulli injection, generated with numpy straight into a model :class:`Stimulus`.

Destination patterns: :mod:`.patterns` (``make_pattern``, re-exported here).

Packet lengths (``LengthDist``): ``fixed:L``, ``uniform:A:B`` (inclusive), ``exp:M`` (geometric on
1, 2, ...: the discrete exponential with mean M, as the memoryless message lengths of Dandamudi and Eager; cut at
``max`` flits, 16 * M by default).

Injection: each cycle each node creates a packet with probability ``rate / mean_length`` (``rate`` =
offered flits/node/cycle, BookSim's ``injection_rate`` with ``injection_process = bernoulli``); a
packet's release is its creation cycle, so the stimulus itself is the unbounded source queue.
"""
from __future__ import annotations

import math
import os
from array import array
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cubenoc.errors import CubenocError, require_int
from cubenoc.files import LIVE, PARTIAL, read_text

from .model.stimulus import DEST_MASK, Stimulus, _check_ready
from .patterns import PATTERNS, make_pattern  # noqa: F401 (re-exported: the simulator's patterns)

# ---- packet lengths ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class LengthDist:
    """``kind`` fixed / uniform / exp with parameters ``a`` (L, A, or the mean M), ``b`` (B, or the cut)."""

    kind: str
    a: float
    b: float = 0

    @classmethod
    def parse(cls, text) -> "LengthDist":
        """``4`` or ``fixed:4``, ``uniform:1:8``, ``exp:8`` (``exp:8:64``: cut at 64 flits)."""
        if isinstance(text, LengthDist):
            return text
        parts = str(text).strip().lower().split(":")
        try:
            if len(parts) == 1 or parts[0] == "fixed":
                L = int(parts[-1])
                if L < 1:
                    raise ValueError
                return cls("fixed", L)
            if parts[0] == "uniform" and len(parts) == 3:
                a, b = int(parts[1]), int(parts[2])
                if not 1 <= a <= b:
                    raise ValueError
                return cls("uniform", a, b)
            if parts[0] == "exp" and len(parts) in (2, 3):
                m = float(parts[1])
                cut = int(parts[2]) if len(parts) == 3 else max(1, int(math.ceil(16 * m)))
                if m < 1 or cut < 1:
                    raise ValueError
                return cls("exp", m, cut)
        except CubenocError:
            raise
        except ValueError:
            pass
        raise CubenocError(f"packet length must be L, fixed:L, uniform:A:B (1 <= A <= B) or exp:MEAN[:MAX] "
                           f"(MEAN >= 1), got {text!r}")

    def __post_init__(self):
        longest = self.a if self.kind == "fixed" else self.b
        if longest > MAX_PACKET_FLITS:
            raise CubenocError(f"packet length: at most {MAX_PACKET_FLITS:,} flits (a packet is held whole while it "
                               f"is offered), got {longest:,.0f}" + (" (exp:MEAN cuts at 16 x MEAN; give "
                                                                     "exp:MEAN:MAX)" if self.kind == "exp" else ""))

    @property
    def mean(self) -> float:
        if self.kind == "fixed":
            return float(self.a)
        if self.kind == "uniform":
            return (self.a + self.b) / 2
        p = 1.0 / self.a                                      # geometric, cut at b: E = sum_{L<=b} P(>= L)
        return (1 - (1 - p) ** self.b) / p

    @property
    def max(self) -> int:
        return int(self.a if self.kind == "fixed" else self.b)

    def sample(self, k: int, rng) -> np.ndarray:
        if self.kind == "fixed":
            return np.full(k, int(self.a), dtype=np.int64)
        if self.kind == "uniform":
            return rng.integers(int(self.a), int(self.b) + 1, size=k).astype(np.int64)
        return np.minimum(rng.geometric(1.0 / self.a, size=k), int(self.b)).astype(np.int64)

    def __str__(self) -> str:
        if self.kind == "fixed":
            return f"{int(self.a)}"
        if self.kind == "uniform":
            return f"uniform:{int(self.a)}:{int(self.b)}"
        return f"exp:{self.a:g}:{int(self.b)}"


# ---- Bernoulli injection -------------------------------------------------------------------------------
def check_rate(rate) -> float:
    try:
        rate = float(rate)
    except (TypeError, ValueError):
        raise CubenocError(f"offered load must be a number of flits/node/cycle, got {rate!r}") from None
    if not 0.0 < rate <= 1.0:
        raise CubenocError(f"offered load must be in (0, 1] flits/node/cycle (a node injects at most one "
                           f"flit per cycle), got {rate}")
    return rate


class BernoulliSource:
    """Bernoulli injection generated as the run goes: :meth:`take` returns the packets created
    before a cycle, in bounded chunks of ``chunk`` cycles (aligned at multiples of ``chunk`` from cycle 0),
    so memory does not grow with the run length. Per chunk the RNG draws the creation matrix, then the
    destinations, then the lengths: the packets depend on the seed and ``chunk`` only, never on how the
    run asks for them (a streamed run and :func:`generate`'s up-front stimulus are the same packets)."""

    def __init__(self, num_nodes: int, pattern, rate: float, lengths, seed: int, chunk: int | None = None):
        self.num_nodes, self.pattern = num_nodes, pattern
        self.rate = check_rate(rate)
        self.lengths = LengthDist.parse(lengths)
        self.p = self.rate / self.lengths.mean
        if self.p > 1.0:
            raise CubenocError(f"offered load {rate} with mean packet length {self.lengths.mean:g} needs more "
                               f"than one packet per node per cycle")
        self.rng = np.random.default_rng(seed)
        self.chunk = chunk or min(4096, max(1, (1 << 22) // num_nodes))  # at most 4M draws at a time
        self.generated = 0                                                # cycles generated so far
        self._buf = _no_packets()

    def _chunk(self):
        t0, m = self.generated, self.chunk
        s, c = np.nonzero(self.rng.random((self.num_nodes, m)) < self.p)  # node-major: by node, then cycle
        cyc, src = c.astype(np.int64) + t0, s.astype(np.int64)
        dst = np.asarray(self.pattern(src, self.rng), dtype=np.int64)
        keep = dst != -1                                                  # -1: this source sends nothing
        if not keep.all():
            cyc, src, dst = cyc[keep], src[keep], dst[keep]
        if dst.size and (dst.min() < 0 or dst.max() >= self.num_nodes):
            raise CubenocError("traffic pattern produced an out-of-range destination")
        self.generated += m
        return src, dst, cyc, self.lengths.sample(src.shape[0], self.rng)

    def take(self, t1: int):
        """``(src, dst, release, length)`` of the packets created in cycles < ``t1`` not taken before,
        grouped by source in creation order."""
        parts = [self._buf]
        while self.generated < t1:
            parts.append(self._chunk())
        return _split(parts, t1, self)


def _no_packets():
    z = np.zeros(0, dtype=np.int64)
    return z, z, z, z


def _split(parts, t1, owner):
    """Concatenate packet batches, keep those released after ``t1`` in ``owner._buf``, return the rest
    grouped by source (stable: release order within a source)."""
    src, dst, rel, length = (np.concatenate([p[i] for p in parts]) for i in range(4))
    now = rel < t1
    owner._buf = tuple(a[~now] for a in (src, dst, rel, length))
    src, dst, rel, length = (a[now] for a in (src, dst, rel, length))
    # each batch is grouped by source in creation order and the batches follow in time: a stable sort by
    # source alone keeps each source's creation order (what lexsort by (source, cycle) gives, ~25x slower)
    order = np.argsort(src, kind="stable")
    return src[order], dst[order], rel[order], length[order]


TRACE_HEADER = ("cycle", "source", "destination", "length")


#: the longest packet a trace line or ``--length`` may ask for (flits): a packet is held whole, flit by flit,
#: while it is offered (a 10^8-flit packet took 7.8 GB in 20 s); the routers' own packets are a few flits
MAX_PACKET_FLITS = 1 << 16
#: a trace cycle beyond this is refused on its line: past any run (the run-time estimate refuses far less)
MAX_TRACE_CYCLE = 1 << 50


class TraceSource:
    """Packets replayed from a CSV trace (docs/simulator.md "Trace-driven traffic"): a header line
    ``cycle,source,destination,length``, then one packet per line (its creation cycle, source node,
    destination node, length in flits). A malformed line, a binary file, a length over
    :data:`MAX_PACKET_FLITS`, a file that is still being written (``NAME.partial``) or was cut short (its
    last line does not end) is a one-line error naming the file and the line. ``num_nodes=None``: the
    nodes are not checked (the trace's span only, :func:`trace_span`)."""

    def __init__(self, path, num_nodes: int | None):
        self.path, self.num_nodes = str(path), num_nodes
        where = f"--trace {path}"
        if str(path).endswith(PARTIAL) or PARTIAL in Path(path).suffixes:
            raise CubenocError(f"{where}: a trace still being written (or left by a run that was stopped); replay "
                               f"the file it is renamed to when the run ends")
        text = read_text(path, "--trace")
        lines = text.split("\n")
        if lines[-1] != "":
            raise CubenocError(f"{where} line {len(lines)}: the file ends in the middle of a line, as a trace "
                               f"cut short does; if the file is whole, end its last line with a line break")
        lines.pop()
        head = lines[0].strip().lower().split(",") if lines else []
        if tuple(h.strip() for h in head) != TRACE_HEADER:
            raise CubenocError(f"{where} line 1: a trace starts with the header line {','.join(TRACE_HEADER)}, "
                               f"got {lines[0][:60] if lines else ''!r}")
        vals = array("q")
        hi = (num_nodes - 1) if num_nodes is not None else None
        for line, row in enumerate(lines[1:], start=2):
            if not row.strip():
                continue
            parts = row.split(",")
            try:
                if len(parts) != 4:
                    raise ValueError
                c, s, d, L = (int(x) for x in parts)
            except ValueError:
                raise CubenocError(f"{where} line {line}: expected four integers cycle,source,destination,"
                                   f"length, got {row[:60]!r}") from None
            if c < 0 or c > MAX_TRACE_CYCLE:
                raise CubenocError(f"{where} line {line}: the cycle must be in 0..2^50, got {c}")
            if not 1 <= L <= MAX_PACKET_FLITS:
                raise CubenocError(f"{where} line {line}: the length must be 1..{MAX_PACKET_FLITS:,} flits (a packet "
                                   f"is held whole while it is offered), got {L}")
            if s < 0 or d < 0 or (hi is not None and (s > hi or d > hi)):
                raise CubenocError(f"{where} line {line}: source and destination must be nodes 0.."
                                   f"{hi if hi is not None else 'N-1'} of the network, got {s} and {d}")
            vals.extend((c, s, d, L))
        arr = np.frombuffer(vals, dtype=np.int64).reshape(-1, 4) if len(vals) else np.zeros((0, 4), np.int64)
        order = np.argsort(arr[:, 0], kind="stable")            # by cycle; file order among equals
        self._rel, self._src, self._dst, self._len = (arr[order, i].copy() for i in range(4))
        self._pos = 0
        self.packets = int(arr.shape[0])
        self.first_cycle = int(self._rel[0]) if self.packets else 0
        self.last_cycle = int(self._rel[-1]) if self.packets else 0
        self.max_node = int(max(self._src.max(), self._dst.max())) if self.packets else -1

    @property
    def total_flits(self) -> int:
        return int(self._len.sum())

    def count_between(self, a: int, b: int) -> int:
        """Packets created in cycles a..b-1."""
        return int(np.searchsorted(self._rel, b, side="left") - np.searchsorted(self._rel, a, side="left"))

    def take(self, t1: int):
        j = int(np.searchsorted(self._rel, t1, side="left"))
        sl = slice(self._pos, max(j, self._pos))
        self._pos = max(j, self._pos)
        src, dst, rel, length = self._src[sl], self._dst[sl], self._rel[sl], self._len[sl]
        order = np.argsort(src, kind="stable")                   # by release (then file order) per source
        return src[order], dst[order], rel[order], length[order]


def trace_span(path) -> TraceSource:
    """The trace at ``path`` read and checked except for its node numbers (its packets, cycles, flits)."""
    return TraceSource(path, None)


class Recorder:
    """Wraps a source and writes every packet it hands out to a CSV trace (``--record``), in
    (cycle, source) order: replaying the file gives the same packets in the same order per source. The
    packets go to ``PATH.partial`` as the run goes; :meth:`close` with ``whole`` renames it to ``PATH``,
    without it (the run failed or was stopped) removes it: no trace that replays as whole is left behind
    by a run that did not end."""

    def __init__(self, source, path):
        self.source, self.path = source, Path(path)
        self.direct = self.path.exists() and not self.path.is_file()     # /dev/null, a pipe: written in place
        self.tmp = self.path if self.direct else self.path.with_name(self.path.name + PARTIAL)
        try:
            self.fh = open(self.tmp, "w", newline="")
            self.fh.write(",".join(TRACE_HEADER) + "\n")
        except OSError as exc:
            raise CubenocError(f"--record {path}: cannot write it ({exc.strerror or exc})") from None
        if not self.direct:
            LIVE.add(self.tmp)                   # (removed if Ctrl-C has to end the process)

    def take(self, t1: int):
        src, dst, rel, length = out = self.source.take(t1)
        order = np.lexsort((src, rel))
        try:
            np.savetxt(self.fh, np.stack([rel, src, dst, length], axis=1)[order], fmt="%d", delimiter=",")
        except OSError as exc:
            self.close(whole=False)
            raise CubenocError(f"--record {self.path}: cannot write it ({exc.strerror or exc})") from None
        return out

    def close(self, whole: bool = True):
        if self.fh.closed:
            return
        LIVE.discard(self.tmp)
        try:
            self.fh.close()
        except OSError as exc:
            if not self.direct:
                self.tmp.unlink(missing_ok=True)
            raise CubenocError(f"--record {self.path}: cannot write it ({exc.strerror or exc})") from None
        if self.direct:
            return
        if whole:
            os.replace(self.tmp, self.path)
        else:
            self.tmp.unlink(missing_ok=True)

    def __getattr__(self, name):
        return getattr(self.source, name)


def generate(num_nodes: int, pattern, rate: float, lengths: LengthDist, cycles: int, seed: int,
             chunk: int | None = None) -> Stimulus:
    """Bernoulli injection of packets for ``cycles`` cycles, all up front: a :class:`Stimulus` for the
    model (payload words are the destination only: the simulator reads cycles, not data). The packets of
    :class:`BernoulliSource` with the same arguments."""
    cycles = require_int(cycles, "cycles", 1)
    src, dst, cyc, length = BernoulliSource(num_nodes, pattern, rate, lengths, seed, chunk).take(cycles)
    return packets_to_stimulus(num_nodes, src, dst, cyc, length)


def packets_to_stimulus(num_nodes: int, src, dst, release, length) -> Stimulus:
    """Packets (grouped by source, in release order) as a :class:`Stimulus`."""
    src = np.asarray(src, dtype=np.int64)
    k = src.shape[0]
    length = np.asarray(length, dtype=np.int64)
    first = np.zeros(k, dtype=np.int64)
    if k:
        np.cumsum(length[:-1], out=first[1:])
    F = int(length.sum())
    packet = np.repeat(np.arange(k, dtype=np.int64), length)
    head = np.zeros(F, dtype=np.int64)
    tail = np.zeros(F, dtype=np.int64)
    head[first] = 1
    tail[first + length - 1] = 1
    data = np.zeros(F, dtype=np.uint64)
    data[first] = np.asarray(dst, dtype=np.uint64) & np.uint64(DEST_MASK)
    counts = np.bincount(src, weights=length, minlength=num_nodes).astype(np.int64)
    start = np.zeros(num_nodes + 1, dtype=np.int64)
    np.cumsum(counts, out=start[1:])
    pk_count = np.bincount(src, minlength=num_nodes)
    pk_start = np.concatenate(([0], np.cumsum(pk_count)[:-1]))
    release = np.asarray(release, dtype=np.int64)
    return Stimulus(
        num_nodes=num_nodes, data_width=32, node_start=start, head=head, tail=tail, data=data,
        release=release[packet], packet=packet, pkt_src=src, pkt_dst=np.asarray(dst, dtype=np.int64),
        pkt_seq=np.arange(k, dtype=np.int64) - pk_start[src], pkt_first=first, pkt_len=length,
        pkt_release=release, eject_ready=_check_ready(None, num_nodes))
