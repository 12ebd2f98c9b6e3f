"""Model tables for large symmetric networks: one route row per node orbit instead of one per node.

Hypercube-family networks Q_n, Q(n, k), metacubes MC(k, m) and the BH/BH and BH/CCC HINs (the cluster
number's bits, or the CCC's cycle-address bits, :func:`_hin_symmetry`; their interface routers have more
ports than the others) have XOR translations as automorphisms:
for a *translation mask* T, node ``v`` maps to ``v ^ x`` for every ``x`` inside T, port p to port p.
Q_n/Q(n, k): T = every address bit (one orbit, representative node 0); MC(k, m): T = the field bits
(``2**k`` orbits, one per class, representatives ``c << (m * 2**k)``: a cube or cross edge keeps its
port under a change of the fields). When the routing function commutes with the translation too --
its header is either relative (the e-cube tag of Algorithms A and C: invariant) or holds the
destination in a ``dest`` field that moves with the node (metacube, Li, Peng and Chu Sec. 4.1; ``cdiff``,
``pos`` and ``vc`` are class data: invariant) -- then, with ``x = v & T`` and ``r = v ^ x``:

* ``route(v, word) = route(r, word ^ X) ^ X`` on the new word, ``X = x << offset(dest)`` (0 for a
  relative header): the kernel reads row ``route_row[v]`` at ``word ^ route_xor[v]``
  (sim/model/tables.py), so the tables hold one row per orbit (2**R entries each);
* ``inject(v, d) = inject(r, d ^ x) ^ X``;
* the allowed turns of v are those of r: the walks from the representatives to every destination,
  translated, are all the walks (the plan walks them through these tables,
  :meth:`~cubenoc.sim.network_plan.NetworkPlan.table_turns`).

Each property is *checked* on sampled nodes and words before it is used, and tests
(tests/test_simulate_speed.py) hold the resulting model to the generic one (:class:`NetworkModel` with
:func:`build_tables`) trace for trace. This is what lets the simulator run the 16,384-node 14-cube and
MC(2,3): the dense tables would have 2^28 and 2^35 entries, and the generic turn walk 2^28 pairs.

A routing with a ``route_row(node)`` method (the HIN routing) gives each row whole, from its per-field
decisions; the others are asked word by word (a Python call per word: fine up to 2^24 entries). BH(4)/CCC(8)
with 5 lanes has 128 rows of 2^20 words (:data:`SYMMETRIC_MAX_ENTRIES`): 14 s to build, 2.1 GB.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from cubenoc.errors import CubenocError

from .model.network import NetworkModel
from .model.tables import MAX_TABLE_ENTRIES, NetworkTables
from .model.word import PORT_BITS, check_route_width, route_entry
from .routing.hierarchical import HierarchicalRouting
from .routing.hypercube import EcubeRouting
from .routing.metacube import MetacubeRouting
from .topology.hierarchical import CubeConnectedCycles, Hierarchical
from .topology.hypercube import Hypercube
from .topology.metacube import Metacube


#: route entries of the symmetric tables when the routing builds whole rows (``route_row``): 2^28, the
#: 128 rows x 2^21 words of BH(4)/CCC(8) with 9-16 lanes (route table 1 GiB in int32, VC table 2 GiB)
SYMMETRIC_MAX_ENTRIES = 1 << 28


@dataclass(frozen=True)
class Symmetry:
    translation_mask: int     # T: the node-address bits a translation may flip
    dest_offset: int | None   # bit offset of the header's ``dest`` field (None: relative header)

    def orbit(self, v):
        """(representative, translation) of node(s) ``v``."""
        x = v & self.translation_mask
        return v ^ x, x

    def header_xor(self, x):
        return 0 * x if self.dest_offset is None else x << self.dest_offset


def symmetry_of(topology, routing) -> Symmetry | None:
    """The translation symmetry the model may use for this network, or None (generic tables)."""
    if isinstance(topology, Hypercube) and isinstance(routing, EcubeRouting):
        return Symmetry(topology.num_nodes - 1, None)
    if isinstance(topology, Metacube) and isinstance(routing, MetacubeRouting):
        return Symmetry((1 << topology.field_bits) - 1, routing.layout.offset("dest")[0])
    return _hin_symmetry(topology, routing)


def _hin_symmetry(topology, routing) -> Symmetry | None:
    """BH/BH and BH/CCC under the e-cube HIN routing (Dandamudi and Eager): node ``c * n + x`` with
    ``n = 2**d``, so the cluster number is the address above bit d. The header's ``dest_node`` (d bits at
    offset 0) and ``dest_cluster`` (at offset d) together are the destination address, which moves with
    the node; the lane depends on the source's x only.

    * BH/BH: XOR on every cluster bit is an automorphism (level-2 hypercube links keep their port; the
      interface node x = 0 stays x = 0), and the level-2 e-cube step depends only on ``c ^ dest_cluster``.
    * BH/CCC(D_c) with D_c a power of two: cluster ``c = w * D_c + i`` (sim/topology/hierarchical.py),
      so the cycle address w is the cluster number above bit log2 D_c. XOR on w is an automorphism of the
      CCC (the cube link of position i flips bit i of w either way, cycle links keep w; every port keeps
      its number), and the sweep-then-return step depends on ``w ^ w_dest``, the positions i, j and the
      header's ``l2_state`` (dateline crossings), as does its VC: it commutes. Orbits: node position x
      times cycle position i (16 x 8 = 128 for BH(4)/CCC(8)). With D_c = 3, 5, ... w is not a bit field
      of the address: no symmetry."""
    if type(routing) is not HierarchicalRouting or not isinstance(topology, Hierarchical) or len(topology.levels) > 2:
        return None                    # three levels and more: the interface of level 2 is not XOR-invariant
    l1, l2 = topology.level1, topology.level2
    if not isinstance(l1, Hypercube) or l1.num_nodes & (l1.num_nodes - 1):
        return None
    if type(l2) is Hypercube:
        cluster_mask = topology.num_clusters - 1
    elif type(l2) is CubeConnectedCycles and l2.n & (l2.n - 1) == 0:
        cluster_mask = ((1 << l2.n) - 1) << (l2.n.bit_length() - 1)
    else:
        return None
    d = l1.num_nodes.bit_length() - 1
    layout = routing.layout
    if layout.offset("dest_node") != (0, d) or layout.offset("dest_cluster")[0] != d:
        return None
    return Symmetry(cluster_mask << d, 0)


class TranslatedInjectCache:
    """Stands in for ``NetworkModel._inject_cache``: ``get(src * N + dst)`` from the representatives' words."""

    def __init__(self, words: dict, n_nodes: int, sym: Symmetry):
        self.words, self.n, self.sym = words, n_nodes, sym

    def get(self, key):
        src, dst = divmod(int(key), self.n)
        r, x = self.sym.orbit(src)
        return int(self.words[r][dst ^ x]) ^ self.sym.header_xor(x)

    def __setitem__(self, key, value):  # pragma: no cover - never reached: get() always answers
        pass


def symmetric_model(plan, samples: int = 8, seed: int = 0) -> NetworkModel:
    """The :class:`NetworkModel` of ``plan`` with tables of one row per orbit (see the module docstring)."""
    topology, routing = plan.topology, plan.routing
    sym = symmetry_of(topology, routing)
    if sym is None:
        raise CubenocError(f"no translation symmetry known for {topology!r} with {routing.name}")
    N = topology.num_nodes
    reps = sorted({v ^ (v & sym.translation_mask) for v in range(N)})
    row_of_rep = {r: i for i, r in enumerate(reps)}
    # routers of different orbits may differ in port count (a HIN's interface node): P is the largest
    rep_ports = np.array([topology.num_ports(r) + 1 for r in reps], dtype=np.int32)
    P = int(rep_ports.max())
    if P > 62:                                        # as build_tables: port masks are 62-bit words
        raise CubenocError(f"the model supports up to 61 network ports per router, got {P - 1}")
    layout, V = routing.layout, int(routing.num_vcs)
    R = check_route_width(layout.width)
    row_of = getattr(routing, "route_row", None)      # a whole row at once (HIN routing), else word by word
    limit = MAX_TABLE_ENTRIES if row_of is None else SYMMETRIC_MAX_ENTRIES
    if len(reps) << R > limit:
        raise CubenocError(f"{len(reps)} route rows of 2**{R} entries are too many for the model (at most {limit})")
    # entries in 32 bits where they fit: the simulation narrows the table to that anyway (a copy otherwise)
    route = np.full((len(reps), 1 << R), -1, dtype=np.int32 if PORT_BITS + R < 31 else np.int64)
    vc = np.zeros((len(reps), 1 << R), dtype=np.int64) if V > 1 else None
    for i, r in enumerate(reps):
        if row_of is not None:
            port, new_word, hop_vc = row_of(r)
            ok = port >= 0
            route[i, ok] = route_entry(port[ok], new_word[ok])
            if vc is not None:
                vc[i, ok] = hop_vc[ok]
            continue
        for word in range(1 << R):
            try:    # words no packet carries may make the function object: left at -1 (as build_tables)
                hop = routing.route(r, layout.unpack(word))
                new_word = layout.pack(hop.header)
            except (CubenocError, AssertionError, KeyError, IndexError, ValueError):
                continue
            if vc is not None:
                if not 0 <= hop.vc < V:
                    continue
                vc[i, word] = hop.vc
            route[i, word] = route_entry(hop.port, new_word)
    inj = {r: np.array([layout.pack(routing.inject(r, d)) for d in range(N)], dtype=np.int64) for r in reps}
    nodes = np.arange(N, dtype=np.int64)
    rep_arr, x_arr = sym.orbit(nodes)
    route_row = np.array([row_of_rep[int(r)] for r in rep_arr], dtype=np.int64) if len(reps) > 1 \
        else np.zeros(N, dtype=np.int64)
    route_xor = np.asarray(sym.header_xor(x_arr), dtype=np.int64)
    nports = rep_ports[route_row]
    local_of = nports.astype(np.int64) - 1            # the local port of every node
    link = np.full(N * P, -2, dtype=np.int64)         # as build_tables: -1 the local output, -2 no port
    for v in range(N):
        for p in range(int(local_of[v])):
            far = topology.neighbor(v, p)
            link[v * P + p] = far[0] * P + far[1]
        link[v * P + int(local_of[v])] = -1
    _check(topology, routing, sym, reps, route, vc, route_row, route_xor, inj, samples, seed)
    tables = NetworkTables(N, P, nports, link, route, R, np.zeros(N * P, dtype=np.int64), vc, V, route_row, route_xor)
    # turns: the plan's walks from every representative to every destination
    starts = np.repeat(np.array(reps, dtype=np.int64), N)
    turns = plan.table_turns(tables, starts, np.concatenate([inj[r] for r in reps]))
    return NetworkModel(plan, tables=replace(tables, allowed=turns[route_row].ravel()),
                        inject_cache=TranslatedInjectCache(inj, N, sym))


def _check(topology, routing, sym, reps, route, vc, route_row, route_xor, inj, samples, seed) -> None:
    """The symmetry assumptions, on sampled nodes, words and destinations."""
    layout = routing.layout
    N = topology.num_nodes
    rng = np.random.default_rng(seed)
    nodes = rng.integers(0, N, size=samples).tolist()           # ... and every orbit (up to 64), translated
    nodes += [r ^ (int(t) & sym.translation_mask) for r, t in zip(reps[:64], rng.integers(0, N, size=64).tolist())]
    for v in nodes:
        r, x = sym.orbit(v)
        if topology.num_ports(v) != topology.num_ports(r):
            raise CubenocError(f"{topology!r}: node {v} and its representative {r} differ in port count")
        for p in range(topology.num_ports(v)):
            far, near = topology.neighbor(v, p), topology.neighbor(r, p)
            if far != (near[0] ^ x, near[1]):
                raise CubenocError(f"{topology!r}: translation by {x} is not an automorphism at node {v}")
        for d in rng.integers(0, N, size=32).tolist():
            if layout.pack(routing.inject(v, d)) != int(inj[r][d ^ x]) ^ sym.header_xor(x):
                raise CubenocError(f"{routing.name}: inject({v}, {d}) does not translate")
            word = layout.pack(routing.inject(v, d))
            hop = routing.route(v, layout.unpack(word))
            X = route_xor[v]
            e = int(route[route_row[v], word ^ X])
            if e != route_entry(hop.port, layout.pack(hop.header)) ^ (int(X) << PORT_BITS):
                raise CubenocError(f"{routing.name} does not translate at node {v}, word {word}")
            if vc is not None and hop.port != topology.local_port(v) and vc[route_row[v], word ^ X] != hop.vc:
                raise CubenocError(f"{routing.name}: the VC does not translate at node {v}, word {word}")
