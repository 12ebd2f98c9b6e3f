"""Array forms of a topology and its routing function, as the model's compiled step loop reads them.

Everything here is derived from the one definition in ``sim/topology`` and ``sim/routing``: the route
table is ``routing.route`` evaluated once per (node, route word), the injection words are
``routing.inject`` per (source, destination) pair, the links are ``topology.neighbor``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cubenoc.errors import CubenocError

from ..routing.base import RoutingFunction
from ..routing.hypercube import EcubeRouting
from ..topology.base import Topology
from .word import PORT_BITS, check_route_width, route_entry

#: dense route tables are built for at most this many (node, route word) entries
MAX_TABLE_ENTRIES = 1 << 24
__all__ = ["NetworkTables", "build_tables", "candidate_tables", "inject_words", "PORT_BITS", "MAX_TABLE_ENTRIES"]
#: route words no packet carries may make the routing function object: their entries stay -1
UNREACHED = (CubenocError, AssertionError, KeyError, IndexError, ValueError)


@dataclass
class NetworkTables:
    num_nodes: int
    max_ports: int            # P: the largest num_ports(v) + 1 (local port included)
    nports: np.ndarray        # int32 [N]: num_ports(v) + 1
    link: np.ndarray          # int64 [N*P]: output (v, o) -> downstream FIFO index u*P+q; -1 eject; -2 none
    route: np.ndarray         # int64 [N, 2**R]: port | new_route << PORT_BITS, -1 where never reached
    route_width: int          # R
    allowed: np.ndarray       # int64 [N*P]: bit o set when input (v, i) may request output o
    vc: np.ndarray | None = None   # int64 [N, 2**R]: Hop.vc per route word (None: V = 1, all 0)
    num_vcs: int = 1               # V: FIFOs per network input port
    # symmetric networks (sim/symmetric_tables.py) share rows: node v reads row ``route_row[v]`` at
    # ``word ^ route_xor[v]`` and XORs ``route_xor[v]`` back into the new word; None: row v, no XOR
    route_row: np.ndarray | None = None
    route_xor: np.ndarray | None = None

    def row_and_xor(self) -> tuple[np.ndarray, np.ndarray]:
        """``(route_row, route_xor)`` as the kernel reads them (identity for the generic tables)."""
        n = self.num_nodes
        row = self.route_row if self.route_row is not None else np.arange(n, dtype=np.int64)
        xor = self.route_xor if self.route_xor is not None else np.zeros(n, dtype=np.int64)
        return row, xor

    def allowed_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """``(arow, rows)``: input i of node v may request the outputs of bit mask ``rows[arow[v], i]``
        (:attr:`allowed`, each distinct node's row stored once: one row for Q_n and Q(n, k), so that the
        loop does not stream a per-port array through its cache)."""
        N, P = self.num_nodes, self.max_ports
        allowed = self.allowed.reshape(N, P)
        if (allowed == allowed[0]).all():
            return np.zeros(N, dtype=np.int64), allowed[:1].copy()
        rows, arow = np.unique(allowed, axis=0, return_inverse=True)
        return arow.reshape(-1), rows

    def lookup(self, node: np.ndarray, word: np.ndarray) -> np.ndarray:
        """Route entries ``port | new_route << PORT_BITS`` (-1: undefined) for arrays of (node, word)."""
        row, xor = self.row_and_xor()
        x = xor[node]
        e = self.route[row[node], word ^ x]
        return np.where(e >= 0, e ^ (x << PORT_BITS), e)


def build_tables(topology: Topology, routing: RoutingFunction, allowed=None) -> NetworkTables:
    """Arrays for the model. ``allowed(v) -> {in_port: set(out_ports)}`` prunes turns exactly as the
    RTL does (the shared function in sim/); ``None`` allows every turn."""
    n = topology.num_nodes
    nports = np.array([topology.num_ports(v) + 1 for v in range(n)], dtype=np.int32)
    P = int(nports.max())
    if P > 62:
        raise CubenocError(f"the model supports up to 61 network ports per router, got {P - 1}")
    link = np.full(n * P, -2, dtype=np.int64)
    for v in range(n):
        for o in range(int(nports[v]) - 1):
            far = topology.neighbor(v, o)
            if far is not None:
                link[v * P + o] = far[0] * P + far[1]
        link[v * P + int(nports[v]) - 1] = -1
    R = check_route_width(routing.layout.width)
    if n * (1 << R) > MAX_TABLE_ENTRIES:
        raise CubenocError(f"dense route table of {n} x 2**{R} entries is too large for the model "
                           f"(at most {MAX_TABLE_ENTRIES})")
    route = np.full((n, 1 << R), -1, dtype=np.int64)
    V = int(routing.num_vcs)
    vc = np.zeros((n, 1 << R), dtype=np.int64) if V > 1 else None
    layout = routing.layout
    for v in range(n):
        for word in range(1 << R):
            try:    # words no packet carries may make the function object: left at -1
                hop = routing.route(v, layout.unpack(word))
                new_word = layout.pack(hop.header)
            except UNREACHED:
                continue
            if vc is not None:
                if not 0 <= hop.vc < V:          # not a header any packet carries (e.g. too many hops)
                    continue
                vc[v, word] = hop.vc
            route[v, word] = route_entry(hop.port, new_word)
    allow = np.zeros(n * P, dtype=np.int64)
    for v in range(n):
        full = (1 << int(nports[v])) - 1
        turns = allowed(v) if allowed is not None else None
        for i in range(int(nports[v])):
            if turns is None:
                allow[v * P + i] = full
            else:
                allow[v * P + i] = sum(1 << o for o in turns.get(i, ()))
    return NetworkTables(n, P, nports, link, route, R, allow, vc, V)


def candidate_tables(model) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(route1, vc1, route2, vc2)`` [N, 2**R]: route entries of ``selection_candidates`` [0] and [1]
    per (node, route word) (-1: none / never reached), and their VCs (docs/router.md "Adaptive
    selection": the two candidate ROMs). Cached on the model."""
    cached = getattr(model, "_candidate_tables", None)
    if cached is not None:
        return cached
    tb, routing = model.tables, model.routing
    n, R = tb.num_nodes, tb.route_width
    layout = routing.layout
    V = tb.num_vcs
    r1, r2 = np.full((n, 1 << R), -1, dtype=np.int64), np.full((n, 1 << R), -1, dtype=np.int64)
    v1, v2 = np.zeros((n, 1 << R), dtype=np.int64), np.zeros((n, 1 << R), dtype=np.int64)
    for v in range(n):
        for word in np.nonzero(tb.route[v] >= 0)[0].tolist():     # words the route table reaches
            try:
                hops = routing.selection_candidates(v, layout.unpack(word))
                packed = [(route_entry(h.port, layout.pack(h.header)), h.vc) for h in hops]
            except UNREACHED:
                continue
            if any(not 0 <= vc < V for _, vc in packed):
                continue
            r1[v, word], v1[v, word] = packed[0]
            if len(packed) > 1:
                r2[v, word], v2[v, word] = packed[1]
    model._candidate_tables = (r1, v1, r2, v2)
    return model._candidate_tables


def inject_words(routing: RoutingFunction, src: np.ndarray, dst: np.ndarray, cache: dict | None = None) -> np.ndarray:
    """``routing.inject(src, dst)`` packed, per element; -1 where ``dst`` is out of range."""
    n = routing.topology.num_nodes
    layout = routing.layout
    out = np.full(src.shape[0], -1, dtype=np.int64)
    cache = {} if cache is None else cache
    ok = (dst >= 0) & (dst < n)
    if not ok.any():
        return out
    pairs = src[ok] * n + dst[ok]
    uniq, inv = np.unique(pairs, return_inverse=True)
    words = np.empty(uniq.shape[0], dtype=np.int64)
    for j, key in enumerate(uniq.tolist()):
        w = cache.get(key)
        if w is None:
            w = cache[key] = layout.pack(routing.inject(key // n, key % n))
        words[j] = w
    out[ok] = words[inv]
    return out


def ecube_inject(routing, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Algorithms A and C's injection tag (sim/routing/hypercube.py ``inject_tag``) from the addresses,
    vectorized: ``src ^ dst``; Q(n, k): when more than ceil((n-k)/2) of its low n-k bits are set, those
    bits complemented and bit n set (Tzeng and Wei Sec. VI-B)."""
    tag = (np.asarray(src, dtype=np.int64) ^ np.asarray(dst, dtype=np.int64))
    if routing.k is None:
        return tag
    n, k = routing.n, routing.k
    low = (1 << (n - k)) - 1
    ones = np.bitwise_count((tag & low).astype(np.uint64))
    pays = ones > -(-(n - k) // 2)
    return np.where(pays, (tag ^ low) | (1 << n), tag)


def inject_array(model, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The packed injection words of a model's routing function per (src, dst); e-cube and Algorithm C
    computed from the addresses (no per-pair table), other functions through :func:`inject_words`."""
    src, dst = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    if type(model.routing) is EcubeRouting:
        return ecube_inject(model.routing, src, dst)
    return inject_words(model.routing, src, dst, model._inject_cache)
