"""The model of Q_n and Q(n, k) under Algorithms A and C built from the addresses, for networks
up to 2^20 nodes: no per-node or per-pair table and no Python loop over the nodes.

The e-cube header is the relative address (sim/routing/hypercube.py), so every router reads the same
route row (the translation symmetry of sim/symmetric_tables.py with one orbit and no header XOR); here
that row is computed with numpy from the per-hop rule (the highest set tag bit is the output, cleared on
the way out; a zero tag ejects), the links from ``v ^ 2**i`` (and the skip ``v ^ (2**(n-k) - 1)`` on port
n), and the allowed turns (the RTL's pruned crossbar) by the plan's walk of node 0's routes to every
destination through that row (:meth:`~cubenoc.sim.network_plan.NetworkPlan.table_turns`), which by the
symmetry are all the turns any router makes. The injection tag is
:func:`.tables.ecube_inject`. tests/test_simulate_stream.py holds all of it equal to the tables that
``routing.route`` / ``routing.inject`` give.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..topology.hypercube import EnhancedHypercube
from .network import NetworkModel
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
    N, n = topology.num_nodes, topology.n
    P = topology.num_ports(0) + 1
    v = np.arange(N, dtype=np.int64)[:, None]
    link = np.full((N, P), -1, dtype=np.int64)
    ports = np.arange(n, dtype=np.int64)
    link[:, :n] = (v ^ (np.int64(1) << ports)) * P + ports
    if isinstance(topology, EnhancedHypercube):
        link[:, n] = (v[:, 0] ^ topology.skip_mask) * P + n
    return link.ravel()


def ecube_model(plan):
    """The :class:`~.network.NetworkModel` of ``plan`` (an ``EcubeRouting`` network)."""
    topology, routing = plan.topology, plan.routing
    N = topology.num_nodes
    P = topology.num_ports(0) + 1
    zero = np.zeros(N, dtype=np.int64)                # one route row (0), no header XOR: every node reads it
    tables = NetworkTables(N, P, np.full(N, P, dtype=np.int32), ecube_links(topology), ecube_row(routing)[None, :],
                           routing.layout.width, np.zeros(N * P, dtype=np.int64), None, 1, zero, zero)
    turns = plan.table_turns(tables, zero, ecube_inject(routing, zero, np.arange(N, dtype=np.int64)))
    return NetworkModel(plan, tables=replace(tables, allowed=np.tile(turns[0], N)))
