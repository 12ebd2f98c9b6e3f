"""The model of Q_n and Q(n, k) under Algorithms A and C built from the addresses, for networks
up to 2^20 nodes: no per-node or per-pair table and no Python loop over the nodes.

The e-cube header is the relative address (sim/routing/hypercube.py), so every router reads the same
route row (the translation symmetry of sim/symmetric_tables.py with one orbit and no header XOR); here
that row is computed with numpy from the per-hop rule (the highest set tag bit is the output, cleared on
the way out; a zero tag ejects), the links from ``v ^ 2**i`` (and the skip ``v ^ (2**(n-k) - 1)`` on port
n), and the allowed turns (the RTL's pruned crossbar, sim/routing/turns.py) by walking node 0's routes to
every destination, which by the symmetry are all the turns any router makes. The injection tag is
:func:`.tables.ecube_inject`. tests/test_simulate_stream.py holds all of it equal to the tables that
``routing.route`` / ``routing.inject`` give.
"""
from __future__ import annotations

import numpy as np

from cubenoc.errors import CubenocError

from ..router_config import RouterConfig
from .tables import NetworkTables, ecube_inject
from .word import PORT_BITS, check_route_width


def ecube_row(routing) -> np.ndarray:
    """Route entries ``port | new_tag << PORT_BITS`` of every tag word (sim/routing/hypercube.py)."""
    R = check_route_width(routing.layout.width)
    local = routing.topology.num_ports(0)
    word = np.arange(1 << R, dtype=np.int64)
    hi = np.frexp(word.astype(np.float64))[1].astype(np.int64) - 1     # bit_length - 1 (exact below 2**53)
    port = np.where(word == 0, local, hi)
    new = np.where(word == 0, 0, word & ~(np.int64(1) << np.maximum(hi, 0)))
    return port | (new << PORT_BITS)


def ecube_links(topology) -> np.ndarray:
    """``link[v * P + o]`` = downstream FIFO ``u * P + q`` (-1 on the local output), as build_tables."""
    from ..topology.hypercube import EnhancedHypercube
    N, n = topology.num_nodes, topology.n
    P = topology.num_ports(0) + 1
    v = np.arange(N, dtype=np.int64)[:, None]
    link = np.full((N, P), -1, dtype=np.int64)
    ports = np.arange(n, dtype=np.int64)
    link[:, :n] = (v ^ (np.int64(1) << ports)) * P + ports
    if isinstance(topology, EnhancedHypercube):
        link[:, n] = (v[:, 0] ^ topology.skip_mask) * P + n
    return link.ravel()


def ecube_model(topology, routing, config=None):
    """A :class:`~.network.NetworkModel` of ``topology`` under ``routing`` (an ``EcubeRouting``)."""
    from .network import NetworkModel
    N = topology.num_nodes
    P = topology.num_ports(0) + 1
    local = P - 1
    row = ecube_row(routing)
    link = ecube_links(topology)
    # turns: node 0's routes to every destination (one orbit: every router makes the same turns)
    in_bits = np.zeros(P, dtype=np.int64)
    node = np.zeros(N, dtype=np.int64)
    word = ecube_inject(routing, node, np.arange(N, dtype=np.int64))
    in_port = np.full(N, local, dtype=np.int64)
    for _ in range(P + 1):
        if node.size == 0:
            break
        e = row[word]
        port = e & 0xFF
        np.bitwise_or.at(in_bits, in_port, np.left_shift(1, port))
        go = port != local
        nxt = link[node[go] * P + port[go]]
        node, word, in_port = nxt // P, (e >> PORT_BITS)[go], nxt % P
    if node.size:
        raise CubenocError(f"{routing.name}: routes from node 0 do not all eject")
    tables = NetworkTables(N, P, np.full(N, P, dtype=np.int32), link, row[None, :], routing.layout.width,
                           np.tile(in_bits, N), None, 1, np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64))
    model = NetworkModel.__new__(NetworkModel)
    model.topology, model.routing, model.tables = topology, routing, tables
    model.config, model.broadcast = (config or RouterConfig()).check(routing), None
    model._inject_cache = {}
    return model
