"""The model of an anynet network built from its routing tables with numpy (sim/routing/anynet.py): no Python
call per (node, route word) and no walk of every pair in Python, as sim/model/ecube.py does for the hypercube.

The route table is ``routing.route`` of every (node, word), computed from the arrays the routing function
itself reads (``table``, ``down``): the destination in the word's low bits, its scheme's state above it; the
allowed turns are the plan's walk of every packet through these tables
(:meth:`~cubenoc.sim.network_plan.NetworkPlan.table_turns`), a chunk of sources at a time. The injection word
of every scheme is the destination (its other fields start at 0). tests/test_anynet.py holds the tables
and turns equal to :func:`~.tables.build_tables` with the plan's turns.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from cubenoc.errors import CubenocError

from .network import NetworkModel
from .tables import MAX_TABLE_ENTRIES, NetworkTables
from .word import check_route_width, route_entry

#: packets walked at once when the turns are collected (memory: a few arrays of this many int64)
WALK_CHUNK = 1 << 20


def anynet_tables(routing) -> NetworkTables:
    """The :class:`NetworkTables` of a :class:`~cubenoc.sim.routing.anynet.MinimalTableRouting` network
    (``allowed`` left empty: :func:`anynet_model` fills it)."""
    topo, layout = routing.topology, routing.layout
    N = topo.num_nodes
    nports = np.array([topo.num_ports(v) + 1 for v in range(N)], dtype=np.int32)
    P = int(nports.max())
    R = check_route_width(layout.width)
    if N * (1 << R) > MAX_TABLE_ENTRIES:
        raise CubenocError(f"dense route table of {N} x 2**{R} entries is too large for the model "
                           f"(at most {MAX_TABLE_ENTRIES})")
    local = nports.astype(np.int64) - 1
    link = np.full((N, P), -2, dtype=np.int64)
    ports = topo.nbr.shape[1]
    nbr, back = topo.nbr[:, :P], topo.back[:, :P]
    have = nbr[:, :min(ports, P)] >= 0
    link[:, :min(ports, P)] = np.where(have, nbr * P + back, -2)
    link[np.arange(N), local] = -1
    word = np.arange(1 << R, dtype=np.int64)[None, :]
    dbits = layout.offset("dest")[1]
    dest = word & ((1 << dbits) - 1)
    ok = np.broadcast_to(dest < N, (N, 1 << R)).copy()
    d = np.minimum(dest, N - 1)
    v = np.arange(N, dtype=np.int64)[:, None]
    here = v == dest
    V = int(routing.num_vcs)
    vc = np.zeros((N, 1 << R), dtype=np.int64)
    if routing.hop_vcs:                                   # VC = hops taken
        hop = word >> dbits
        port = routing.table[d, v].astype(np.int64)
        new = dest | np.minimum(hop + 1, V - 1) << dbits
        vc = np.broadcast_to(hop, (N, 1 << R)).copy()
        ok &= here | (hop < V)
    elif V > 1:                                           # up*/down* turns
        s, c = (word >> dbits) & 1, word >> (dbits + 1)
        port = routing.table[s, d, v].astype(np.int64)
        went_down = routing.down[v, np.maximum(port, 0)]
        vc = c + ((s == 1) & ~went_down)
        new = dest | went_down.astype(np.int64) << dbits | vc << (dbits + 1)
        ok &= here | (vc < V)
    else:
        port = routing.table[d, v].astype(np.int64)
        new = np.broadcast_to(word, (N, 1 << R))
    port = np.where(here, local[:, None], port)
    new = np.where(here, word, new)
    vc = np.where(here | ~ok, 0, vc)
    route = np.where(ok, route_entry(port, new), -1)
    return NetworkTables(N, P, nports, link.ravel(), route, R, np.zeros(N * P, dtype=np.int64),
                         vc if V > 1 else None, V)


class _DestInject:
    """Stands in for ``NetworkModel._inject_cache``: the injection word of ``src * N + dst`` is ``dst``."""

    def __init__(self, n_nodes: int):
        self.n = n_nodes

    def get(self, key):
        return int(key) % self.n

    def __setitem__(self, key, value):  # pragma: no cover - never reached: get() always answers
        pass


def anynet_model(plan):
    """The :class:`~.network.NetworkModel` of ``plan`` (an anynet network), its tables from the arrays."""
    tables = anynet_tables(plan.routing)
    N, P = tables.num_nodes, tables.max_ports
    turns = np.zeros((N, P), dtype=np.int64)
    per = max(1, WALK_CHUNK // N)
    for first in range(0, N, per):                        # every (source, destination), a chunk of sources at a time
        src = np.repeat(np.arange(first, min(N, first + per), dtype=np.int64), N)
        dst = np.tile(np.arange(N, dtype=np.int64), src.size // N)
        turns |= plan.table_turns(tables, src, dst)
    return NetworkModel(plan, tables=replace(tables, allowed=turns.ravel()), inject_cache=_DestInject(N))
