"""The fork decision of docs/router.md "Broadcast and multicast", tabulated from a BroadcastAlgorithm.

One definition for the model's fork tables, the RTL fork ROM and the pruned crossbar: :func:`fork_entry`
is what the fork unit outputs for ``(node, origin, tag word)``; :func:`broadcast_turns` lists every
(in port, out port) turn a broadcast can take at each node (from every source).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cubenoc.errors import CubenocError

from ..topology.hypercube import Hypercube
from ..topology.metacube import Metacube
from ..topology.pdn import PerfectDifferenceNetwork, ProductPDN
from .base import BroadcastAlgorithm
from .hypercube import broadcast_for
from .metacube import MetacubeBroadcast
from .pdn import PDNBroadcast, ProductPDNBroadcast

#: on a head flit injected at a local port, this destination means "broadcast from here"
BROADCAST_DEST = 0xFFFF
#: the largest tag the ROM fork unit and the model's dense tables take
FORK_MAX_TAG_BITS = 12


@dataclass(frozen=True)
class ForkEntry:
    keep: bool
    ports: tuple[int, ...]        # network ports, ascending
    new_tags: dict                # port -> packed tag word


def check_broadcast(alg: BroadcastAlgorithm, routing) -> None:
    """Broadcast support is for V = 1 routing on the same topology, at most 65,535 nodes."""
    if alg.topology is not routing.topology:
        raise CubenocError("the broadcast algorithm must be built on the routing function's topology object")
    if routing.num_vcs != 1:
        raise CubenocError(f"broadcast needs a one-VC routing function, {routing.name} has {routing.num_vcs} VCs")
    if alg.topology.num_nodes >= BROADCAST_DEST:
        raise CubenocError(f"broadcast supports networks of at most {BROADCAST_DEST} nodes "
                           f"(dest {BROADCAST_DEST:#x} means broadcast), got {alg.topology.num_nodes}")
    if alg.layout.width > FORK_MAX_TAG_BITS:
        raise CubenocError(f"{alg.name}: broadcast tag of {alg.layout.width} bits; the fork ROM takes at "
                           f"most {FORK_MAX_TAG_BITS}")


def fork_entry(alg: BroadcastAlgorithm, node: int, origin: bool, word: int) -> ForkEntry:
    """The fork unit's outputs; a tag the algorithm rejects gives keep = 0 and no ports."""
    layout = alg.layout
    try:
        if origin:
            keep, hops = False, alg.start(node)
        else:
            keep, hops = alg.forward(node, layout.unpack(word))
        tags = {}
        for h in hops:
            if not 0 <= h.port < alg.topology.num_ports(node):
                raise CubenocError(f"{alg.name}: port {h.port} does not exist at node {node}")
            if h.port in tags:
                raise CubenocError(f"{alg.name}: two copies on port {h.port} at node {node}")
            tags[h.port] = layout.pack(h.header)
    except (CubenocError, AssertionError, KeyError, IndexError, ValueError):
        return ForkEntry(False, (), {})
    return ForkEntry(bool(keep), tuple(sorted(tags)), tags)


_GENERIC: dict = {}


def fork_node_generic(alg: BroadcastAlgorithm) -> bool:
    """True when the fork decision is the same at every node (one ROM serves all routers)."""
    key = id(alg)
    if key not in _GENERIC:
        _GENERIC[key] = (alg, _fork_node_generic(alg))
    return _GENERIC[key][1]


def _fork_node_generic(alg: BroadcastAlgorithm) -> bool:
    topo = alg.topology
    ref = None
    for v in topo.nodes():
        if topo.num_ports(v) != topo.num_ports(0):
            return False
        rows = [fork_entry(alg, v, True, 0)] + [fork_entry(alg, v, False, w) for w in range(1 << alg.layout.width)]
        if ref is None:
            ref = rows
        elif rows != ref:
            return False
    return True


def broadcast_turns(alg: BroadcastAlgorithm) -> list[set[tuple[int, int]]]:
    """Per node, every ``(in_port, out_port)`` a broadcast from any source takes (local = num_ports)."""
    topo = alg.topology
    turns = [set() for _ in topo.nodes()]
    seen = set()
    for src in topo.nodes():
        local = topo.local_port(src)
        e = fork_entry(alg, src, True, 0)
        frontier = []
        for p in e.ports:
            turns[src].add((local, p))
            frontier.append((src, p, e.new_tags[p]))
        while frontier:
            nxt = []
            for v, p, word in frontier:
                far = topo.neighbor(v, p)
                if far is None:
                    raise CubenocError(f"{alg.name}: node {v} forks onto unconnected port {p}")
                u, q = far
                if (u, q, word) in seen:
                    continue
                seen.add((u, q, word))
                f = fork_entry(alg, u, False, word)
                if f.keep:
                    turns[u].add((q, topo.local_port(u)))
                for o in f.ports:
                    turns[u].add((q, o))
                    nxt.append((u, o, f.new_tags[o]))
            frontier = nxt
    return turns


@dataclass
class ForkTables:
    """Model arrays: row ``2**T`` is the origin (``start``)."""
    mask: np.ndarray       # int64 [N, 2**T + 1]: bit o = network port o, bit nports[v]-1 = keep (local)
    tag: np.ndarray        # int64 [N, 2**T + 1, P]: new tag per network port
    tag_bits: int
    origin_row: int


def build_fork_tables(alg: BroadcastAlgorithm, max_ports: int) -> ForkTables:
    topo = alg.topology
    T = alg.layout.width
    rows = (1 << T) + 1
    mask = np.zeros((topo.num_nodes, rows), dtype=np.int64)
    tag = np.zeros((topo.num_nodes, rows, max_ports), dtype=np.int64)
    for v in topo.nodes():
        local = topo.local_port(v)
        for r in range(rows):
            e = fork_entry(alg, v, r == rows - 1, r)
            m = sum(1 << p for p in e.ports) | (int(e.keep) << local)
            mask[v, r] = m
            for p, w in e.new_tags.items():
                tag[v, r, p] = w
    return ForkTables(mask, tag, T, rows - 1)


def broadcast_algorithm_for(topology) -> BroadcastAlgorithm:
    """The papers' broadcast for a family: Algorithm D on Q(n, k), Algorithm B on Q_n (Tzeng & Wei), the
    Sec. 4.2 schedule on MC(k, m) (Li, Peng & Chu), Algorithm 3 on a basic PDN and the row-then-column
    broadcast on a product PDN (Parhami & Rakov, Sec. 4)."""
    if isinstance(topology, Hypercube):
        return broadcast_for(topology)
    if isinstance(topology, Metacube):
        return MetacubeBroadcast(topology)
    if isinstance(topology, PerfectDifferenceNetwork):
        return PDNBroadcast(topology)
    if isinstance(topology, ProductPDN):
        return ProductPDNBroadcast(topology)
    raise CubenocError(f"no broadcast algorithm for {topology!r}: broadcast routers are built for hypercube, "
                       "enhanced, basic PDN and product PDN networks (metacube's needs VCs: docs/router.md)")
