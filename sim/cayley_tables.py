"""Model tables for large hypercube-family networks, built in O(2^R + N) instead of O(N 2^R + N^2).

Q_n and Q(n, k) are Cayley graphs of Z_2^n: port p of node v leads to ``v XOR gen[p]`` and arrives on
port p, and e-cube (Algorithms A and C) decides from the tag alone, so

* the route table is one row, ``routing.route(0, word)`` for every word, shared by all nodes through a
  stride-0 numpy view (``np.broadcast_to``: no copy, the compiled kernel reads it unchanged);
* the injection word of (src, dst) depends on ``src XOR dst`` only;
* the allowed turns are the same at every node: the union of the turns the walks from node 0 make
  anywhere (a walk from s is the walk from 0 translated by XOR s).

Each property is *checked* on sampled nodes against the routing function before it is used, and a test
(tests/test_simulate_speed.py) holds the resulting model to the general one (:class:`NetworkModel`
with :func:`build_tables`) trace for trace. This is what lets the simulator run the 16,384-node 14-cube
(a dense table would have 2^28 entries and the generic turn walk 2^28 pairs).
"""
from __future__ import annotations

import numpy as np

from cubenoc.errors import CubenocError

from .model.network import NetworkModel
from .model.tables import PORT_BITS, NetworkTables


class RelativeInjectCache:
    """Stands in for ``NetworkModel._inject_cache``: ``get(src * N + dst)`` = the word of ``src ^ dst``."""

    def __init__(self, words: np.ndarray, n_nodes: int):
        self.words, self.n = words, n_nodes

    def get(self, key):
        return int(self.words[(key // self.n) ^ (key % self.n)])

    def __setitem__(self, key, value):  # pragma: no cover - never reached: get() always answers
        pass


def is_cayley_hypercube(topology, routing) -> bool:
    from .routing.hypercube import EcubeRouting
    from .topology.hypercube import Hypercube
    return isinstance(topology, Hypercube) and isinstance(routing, EcubeRouting)


def cayley_model(topology, routing, depth: int = 4, samples: int = 8, seed: int = 0) -> NetworkModel:
    """A :class:`NetworkModel` whose tables come from node 0 (see the module docstring)."""
    if not is_cayley_hypercube(topology, routing):
        raise CubenocError(f"cayley_model needs a hypercube-family network with e-cube routing, got {topology!r}")
    N = topology.num_nodes
    ports = topology.num_ports(0)
    P = ports + 1
    local = topology.local_port(0)
    gen = []
    for p in range(ports):
        far = topology.neighbor(0, p)
        if far is None or far[1] != p:
            raise CubenocError(f"{topology!r}: port {p} is not a Cayley generator")
        gen.append(far[0])
    layout = routing.layout
    R = layout.width
    row = np.full(1 << R, -1, dtype=np.int64)
    for word in range(1 << R):
        hop = routing.route(0, layout.unpack(word))
        row[word] = hop.port | (layout.pack(hop.header) << PORT_BITS)
    inj = np.array([layout.pack(routing.inject(0, r)) for r in range(N)], dtype=np.int64)
    rng = np.random.default_rng(seed)
    for v in rng.integers(0, N, size=samples).tolist():         # the assumptions, checked
        for word in rng.integers(0, 1 << R, size=64).tolist():
            hop = routing.route(v, layout.unpack(word))
            port = hop.port if hop.port != topology.local_port(v) else local
            if row[word] != port | (layout.pack(hop.header) << PORT_BITS):
                raise CubenocError(f"{routing.name} is not node-invariant at node {v}, word {word}")
        for d in rng.integers(0, N, size=64).tolist():
            if layout.pack(routing.inject(v, d)) != inj[v ^ d]:
                raise CubenocError(f"{routing.name}: inject({v}, {d}) is not a function of {v} ^ {d}")
        for p in range(ports):
            if topology.neighbor(v, p) != (v ^ gen[p], p):
                raise CubenocError(f"{topology!r} is not a Cayley graph at node {v}")
    # turns: walks from node 0 to every node (e-cube: one candidate per hop)
    in_bits = np.zeros(P, dtype=np.int64)
    node = np.zeros(N, dtype=np.int64)
    word = inj.copy()
    in_port = np.full(N, local, dtype=np.int64)
    for _ in range(4 * N.bit_length() + 8):
        if node.size == 0:
            break
        e = row[word]
        port = e & 0xFF
        np.bitwise_or.at(in_bits, in_port, np.left_shift(1, port))
        go = port != local
        g = np.array(gen + [0], dtype=np.int64)
        node, word, in_port = (node ^ g[port])[go], (e >> PORT_BITS)[go], port[go]
    if node.size:
        raise CubenocError(f"{routing.name}: routes from node 0 do not all eject")
    link = (np.arange(N, dtype=np.int64)[:, None] ^ np.array(gen, dtype=np.int64)[None, :]) * P + np.arange(ports)
    link = np.concatenate([link, np.full((N, 1), -1, dtype=np.int64)], axis=1).ravel()
    tables = NetworkTables(N, P, np.full(N, P, dtype=np.int32), link, np.broadcast_to(row, (N, 1 << R)), R,
                           np.tile(in_bits, N))
    model = NetworkModel.__new__(NetworkModel)
    model.topology, model.routing, model.depth, model.tables = topology, routing, int(depth), tables
    model._inject_cache = RelativeInjectCache(inj, N)
    return model
