"""Stimulus shared by the cycle-accurate model and the cocotb bench (docs/router.md "The model and the comparison").

A :class:`Stimulus` is, per node, an ordered list of local flits ``(head, tail, data)``, each with a
release cycle (the flit is offered no earlier than that cycle and only after every earlier flit of its
node was accepted), plus a per-node, per-cycle ejection ``ready`` pattern (cycles past the pattern's
end are ready). Flits are stored as flat numpy arrays grouped by node; packets are recorded too, so a
failing comparison can name the packet (source, destination, sequence number).

Build one with :class:`StimulusBuilder` (directed cases, malformed framing) or with the generators
:func:`random_traffic`, :func:`all_pairs` and :func:`bernoulli_traffic`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from cubenoc.errors import CubenocError, require_int

from .word import DEST_WIDTH
DEST_MASK = (1 << DEST_WIDTH) - 1


@dataclass
class Stimulus:
    """Flat arrays over every flit (grouped by node, in offer order) and the ejection pattern."""

    num_nodes: int
    data_width: int
    node_start: np.ndarray   # int64 [N+1]: flits of node v are node_start[v]:node_start[v+1]
    head: np.ndarray         # int64 [F] 0/1
    tail: np.ndarray         # int64 [F] 0/1
    data: np.ndarray         # uint64 [F]
    release: np.ndarray      # int64 [F] earliest cycle the flit may be offered
    packet: np.ndarray       # int64 [F] index into the packet table
    pkt_src: np.ndarray      # int64 [K] source node
    pkt_dst: np.ndarray      # int64 [K] destination field of the first flit (may be out of range)
    pkt_seq: np.ndarray      # int64 [K] sequence number of the packet at its source
    pkt_first: np.ndarray    # int64 [K] global index of the packet's first flit
    pkt_len: np.ndarray      # int64 [K] flits
    pkt_release: np.ndarray  # int64 [K]
    eject_ready: np.ndarray  # uint8 [T, N]: ejection ready per cycle (cycles >= T: ready)

    @property
    def num_flits(self) -> int:
        return int(self.head.shape[0])

    @property
    def num_packets(self) -> int:
        return int(self.pkt_src.shape[0])

    @property
    def dest(self) -> np.ndarray:
        """``data[0:16]`` of every flit (the destination on head flits)."""
        return (self.data & np.uint64(DEST_MASK)).astype(np.int64)

    def flits_of(self, node: int) -> range:
        return range(int(self.node_start[node]), int(self.node_start[node + 1]))

    def ready_at(self, cycle: int, node: int) -> int:
        if cycle < self.eject_ready.shape[0]:
            return int(self.eject_ready[cycle, node])
        return 1

    def describe_packet(self, k: int) -> str:
        return (f"packet {int(self.pkt_src[k])}->{int(self.pkt_dst[k])} seq {int(self.pkt_seq[k])} "
                f"({int(self.pkt_len[k])} flits, released at cycle {int(self.pkt_release[k])})")

    def describe_flit(self, f: int) -> str:
        k = int(self.packet[f])
        return f"flit {f - int(self.pkt_first[k])} of {self.describe_packet(k)}"

    def with_eject_ready(self, eject_ready: np.ndarray | None) -> "Stimulus":
        """The same flits with another ejection pattern."""
        return replace(self, eject_ready=_check_ready(eject_ready, self.num_nodes))


def _check_ready(ready, num_nodes: int) -> np.ndarray:
    if ready is None:
        return np.ones((0, num_nodes), dtype=np.uint8)
    ready = np.asarray(ready, dtype=np.uint8)
    if ready.ndim != 2 or ready.shape[1] != num_nodes:
        raise CubenocError(f"eject_ready must have shape (cycles, {num_nodes}), got {ready.shape}")
    return ready


def random_ready(num_nodes: int, cycles: int, p_ready: float, seed: int) -> np.ndarray:
    """A seeded ejection pattern: each node is ready with probability ``p_ready`` each cycle."""
    if not 0.0 < p_ready <= 1.0:
        raise CubenocError(f"p_ready must be in (0, 1], got {p_ready}")
    rng = np.random.default_rng(seed)
    return (rng.random((cycles, num_nodes)) < p_ready).astype(np.uint8)


class StimulusBuilder:
    """Collects packets (and deliberately malformed flit sequences) per node."""

    def __init__(self, num_nodes: int, data_width: int = 32, seed: int = 0):
        self.num_nodes = require_int(num_nodes, "num_nodes", 1, 1 << DEST_WIDTH)
        self.data_width = require_int(data_width, "data_width", DEST_WIDTH, 64)
        self._rng = np.random.default_rng(seed)
        self._flits: list[list[tuple[int, int, int, int, int]]] = [[] for _ in range(num_nodes)]
        self._packets: list[list[int]] = []   # [src, dst, seq, len, release]
        self._seq = [0] * num_nodes

    def _word(self) -> int:
        return int(self._rng.integers(0, 1 << self.data_width, dtype=np.uint64))

    def packet(self, src: int, dst: int, length: int = 1, release: int = 0, payload=None) -> int:
        """A well-formed packet of ``length`` flits; the head's ``data[0:16]`` is ``dst`` (any 16-bit
        value: out-of-range destinations are how the drop rule is tested). ``payload`` optionally gives
        all ``length`` data words (the head's low 16 bits are then replaced by ``dst``)."""
        require_int(src, "src", 0, self.num_nodes - 1)
        require_int(dst, "dst", 0, DEST_MASK)
        require_int(length, "length", 1)
        require_int(release, "release", 0)
        words = [self._word() for _ in range(length)] if payload is None else [int(w) for w in payload]
        if len(words) != length:
            raise CubenocError(f"payload must have {length} words, got {len(words)}")
        words[0] = (words[0] & ~DEST_MASK) | dst
        flits = [(int(j == 0), int(j == length - 1), w) for j, w in enumerate(words)]
        return self.raw(src, flits, release, dst=dst)

    def raw(self, src: int, flits, release: int = 0, dst: int | None = None) -> int:
        """Any flit sequence ``[(head, tail, data), ...]`` offered from ``release`` on, recorded as one
        'packet' (for malformed framing tests)."""
        require_int(src, "src", 0, self.num_nodes - 1)
        mask = (1 << self.data_width) - 1
        k = len(self._packets)
        for head, tail, data in flits:
            self._flits[src].append((int(bool(head)), int(bool(tail)), int(data) & mask, int(release), k))
        if dst is None:
            dst = int(flits[0][2]) & DEST_MASK if flits else 0
        self._packets.append([src, dst, self._seq[src], len(flits), int(release)])
        self._seq[src] += 1
        return k

    def build(self, eject_ready=None) -> Stimulus:
        rows = [f for per_node in self._flits for f in per_node]
        start = np.zeros(self.num_nodes + 1, dtype=np.int64)
        start[1:] = np.cumsum([len(x) for x in self._flits])
        arr = np.array(rows, dtype=np.uint64).reshape(-1, 5)
        pk = np.array(self._packets, dtype=np.int64).reshape(-1, 5)
        packet = arr[:, 4].astype(np.int64)
        # packets are numbered in creation order; flits are grouped by node: find each packet's first flit
        first = np.full(pk.shape[0], -1, dtype=np.int64)
        idx = np.arange(packet.shape[0], dtype=np.int64)
        if packet.size:
            order = np.lexsort((idx, packet))
            uniq, pos = np.unique(packet[order], return_index=True)
            first[uniq] = idx[order][pos]
        return Stimulus(
            num_nodes=self.num_nodes, data_width=self.data_width, node_start=start,
            head=arr[:, 0].astype(np.int64), tail=arr[:, 1].astype(np.int64), data=arr[:, 2].copy(),
            release=arr[:, 3].astype(np.int64), packet=packet,
            pkt_src=pk[:, 0].copy(), pkt_dst=pk[:, 1].copy(), pkt_seq=pk[:, 2].copy(), pkt_first=first,
            pkt_len=pk[:, 3].copy(), pkt_release=pk[:, 4].copy(),
            eject_ready=_check_ready(eject_ready, self.num_nodes))


def random_traffic(num_nodes: int, packets_per_node: int, max_len: int, seed: int, *,
                   mean_gap: float = 0.0, p_ready: float = 1.0, ready_cycles: int = 0,
                   data_width: int = 32, p_bad_dest: float = 0.0, p_broadcast: float = 0.0) -> Stimulus:
    """Uniform random destinations (self included), lengths uniform in 1..max_len, release cycles of
    each node's packets spaced by geometric gaps of mean ``mean_gap`` (0: back to back, a saturating
    burst); ejection ready with probability ``p_ready`` for ``ready_cycles`` cycles; a fraction
    ``p_bad_dest`` of packets get an out-of-range destination (dropped by the source interface), a
    fraction ``p_broadcast`` the broadcast destination 0xFFFF (docs/router.md "Broadcast and multicast";
    drawn only when ``p_broadcast > 0``, so other streams are unchanged)."""
    require_int(packets_per_node, "packets_per_node", 0)
    require_int(max_len, "max_len", 1)
    rng = np.random.default_rng(seed)
    b = StimulusBuilder(num_nodes, data_width, seed=seed + 1)
    for src in range(num_nodes):
        release = 0
        for _ in range(packets_per_node):
            if mean_gap > 0:
                release += int(rng.geometric(1.0 / (1.0 + mean_gap))) - 1
            if p_bad_dest > 0 and rng.random() < p_bad_dest and num_nodes < (1 << DEST_WIDTH):
                dst = int(rng.integers(num_nodes, 1 << DEST_WIDTH))
            else:
                dst = int(rng.integers(0, num_nodes))
            if p_broadcast > 0 and rng.random() < p_broadcast:
                dst = DEST_MASK
            b.packet(src, dst, int(rng.integers(1, max_len + 1)), release)
    ready = random_ready(num_nodes, ready_cycles, p_ready, seed + 2) if p_ready < 1.0 else None
    return b.build(ready)


def all_pairs(num_nodes: int, length: int = 1, seed: int = 0, data_width: int = 32, p_ready: float = 1.0,
              ready_cycles: int = 0) -> Stimulus:
    """Every source sends one packet to every destination (itself included), destinations in a
    per-source rotated order so that the sources do not all aim at the same node at once."""
    b = StimulusBuilder(num_nodes, data_width, seed=seed)
    for src in range(num_nodes):
        for j in range(num_nodes):
            b.packet(src, (src + j) % num_nodes, length, 0)
    ready = random_ready(num_nodes, ready_cycles, p_ready, seed + 2) if p_ready < 1.0 else None
    return b.build(ready)


def bernoulli_traffic(num_nodes: int, rate: float, packet_len: int, cycles: int, seed: int,
                      data_width: int = 32, dest_fn=None) -> Stimulus:
    """Benchmark traffic, built with numpy: every cycle each node creates a packet of ``packet_len``
    flits with probability ``rate / packet_len`` (``rate`` = offered flits/node/cycle); destinations
    uniform over the other nodes unless ``dest_fn(src_array, rng) -> dst_array`` is given. A packet's
    release is its creation cycle (the source queue is the stimulus itself)."""
    if not 0.0 < rate <= 1.0:
        raise CubenocError(f"rate must be in (0, 1] flits/node/cycle, got {rate}")
    require_int(packet_len, "packet_len", 1)
    rng = np.random.default_rng(seed)
    created = rng.random((cycles, num_nodes)) < rate / packet_len
    cyc, src = np.nonzero(created)
    order = np.lexsort((cyc, src))          # group by node, then by cycle
    cyc, src = cyc[order].astype(np.int64), src[order].astype(np.int64)
    if dest_fn is None:
        dst = rng.integers(0, num_nodes - 1, size=src.shape[0])
        dst = dst + (dst >= src)            # uniform over the other nodes
    else:
        dst = np.asarray(dest_fn(src, rng), dtype=np.int64)
    k = src.shape[0]
    L = packet_len
    pkt_first = np.arange(k, dtype=np.int64) * L
    counts = np.bincount(src, minlength=num_nodes)
    start = np.zeros(num_nodes + 1, dtype=np.int64)
    start[1:] = np.cumsum(counts * L)
    pos = np.arange(L)
    head = np.tile((pos == 0).astype(np.int64), k)
    tail = np.tile((pos == L - 1).astype(np.int64), k)
    data = rng.integers(0, 1 << data_width, size=k * L, dtype=np.uint64)
    data[pkt_first] = (data[pkt_first] & ~np.uint64(DEST_MASK)) | dst.astype(np.uint64)
    seq = np.arange(k, dtype=np.int64) - start[src] // L
    return Stimulus(
        num_nodes=num_nodes, data_width=data_width, node_start=start, head=head, tail=tail, data=data,
        release=np.repeat(cyc, L), packet=np.repeat(np.arange(k, dtype=np.int64), L),
        pkt_src=src, pkt_dst=dst.astype(np.int64), pkt_seq=seq, pkt_first=pkt_first,
        pkt_len=np.full(k, L, dtype=np.int64), pkt_release=cyc,
        eject_ready=_check_ready(None, num_nodes))
