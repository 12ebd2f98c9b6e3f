"""Perfect difference networks (Parhami and Rakov): properties, Tables 1-2, Theorems 1-5 and Algorithms 1-6
checked by computation on the explicit graphs (BFS, exhaustive fault sets, replayed schedules), next to
the paper's formulas and printed values of :mod:`.pdn_formulas`; docs/papers/pdn.md explains the
differences.
"""
from __future__ import annotations

import itertools
import math
import random

import networkx as nx
import numpy as np

from ..broadcast.base import run_broadcast
from ..broadcast.pdn import (PDNBroadcast, all_to_all_broadcast, broadcast_single_port, complete_exchange,
                             emulate_complete_network, personalized_complete, run_schedule, shift_permutation)
from ..deadlock import check_deadlock
from ..routing.pdn import AdaptivePDNRouting, DimensionOrderPDNRouting, ObliviousPDNRouting
from ..topology.pdn import (BipartitePDN, PerfectDifferenceNetwork, ProductPDN, pds_modulus, prime_power_orders,
                            registry_set, zero_free)
from .graph import to_networkx
from .pdn_formulas import (PAPER_TABLE1, avg_distance, avg_distance_incl_self, bisection_bound_table2,
                           bisection_bound_text, paper_table2, routing_table_bits, scalability)


# ---- Table 1 and Sec. 2 sizes -------------------------------------------------------------------------
def table1(max_delta: int = 32) -> list[dict]:
    orders = prime_power_orders(max_delta + 16)
    rows = []
    for k, d in enumerate(o for o in orders if o <= max_delta):
        n, nxt = pds_modulus(d), pds_modulus(orders[k + 1])
        closest, nextsize = scalability(n, nxt)
        paper = PAPER_TABLE1.get(d)
        row = {"delta": d, "n": n, "closest": closest, "next": nextsize,
               "paper_closest": paper[1] if paper else None, "paper_next": paper[2] if paper else None}
        if paper and paper[3]:
            h = paper[3]
            hc, hn = scalability(h, 2 * h)
            row.update(hypercube=h, hc_closest=hc, hc_next=hn, paper_hc_closest=paper[4], paper_hc_next=paper[5])
        rows.append(row)
    return rows


def product_sizes(limit: int = 1000, max_delta: int = 32) -> dict:
    """Sec. 2: sizes of multidimensional PDNs (>= 2 factors, the 3-node {0,1} PDN allowed) up to ``limit``."""
    single = [pds_modulus(d) for d in prime_power_orders(max_delta)]
    base = [3] + single
    prods: set[int] = set()

    def rec(start, prod, k):
        if k >= 2:
            prods.add(prod)
        for i in range(start, len(base)):
            if prod * base[i] <= limit:
                rec(i, prod * base[i], k + 1)
    rec(0, 1, 0)
    powers = sorted(p for p in prods if any(p == m ** q for m in single for q in range(2, 11)))
    new = sorted(prods - set(single))
    return {"limit": limit, "table1_sizes": len(single), "new_sizes": len(new), "powers": powers, "sizes": new}


# ---- exact graph metrics on small graphs -------------------------------------------------------------
def _adjacency(nodes, edges) -> np.ndarray:
    idx = {v: i for i, v in enumerate(nodes)}
    a = np.zeros((len(nodes), len(nodes)), dtype=np.int64)
    for u, v in edges:
        if u != v:
            a[idx[u], idx[v]] = a[idx[v], idx[u]] = 1
    return a


def diameter_of(adj: np.ndarray, keep=None) -> float:
    """Diameter of the subgraph induced by ``keep`` (bool mask); ``inf`` if disconnected."""
    sub = adj if keep is None else adj[np.ix_(keep, keep)]
    m = sub.shape[0]
    if m <= 1:
        return 0
    reach = np.eye(m, dtype=bool)
    for k in range(1, m):
        reach = reach | ((reach.astype(np.int64) @ sub) > 0)
        if reach.all():
            return k
    return math.inf


def exact_bisection(nodes, edges, limit: int = 22) -> int | None:
    """Minimum number of links cut by splitting the nodes into halves (sizes floor/ceil of n/2)."""
    nodes = list(nodes)
    m = len(nodes)
    if m > limit:
        return None
    idx = {v: i for i, v in enumerate(nodes)}
    e = np.array([(idx[u], idx[v]) for u, v in edges if u != v], dtype=np.int64)
    combos = list(itertools.combinations(range(1, m), m // 2 - 1))
    combos = np.array(combos, dtype=np.int64).reshape(len(combos), m // 2 - 1)     # (1, 0) for m = 2, 3
    side = np.zeros((len(combos), m), dtype=bool)
    side[:, 0] = True                                   # node 0 on the smaller side, wlog
    np.put_along_axis(side, combos, True, axis=1)
    cut = (side[:, e[:, 0]] != side[:, e[:, 1]]).sum(axis=1)
    best = int(cut.min())
    if m % 2:                                           # odd: node 0 may also be on the larger side
        combos = np.array(list(itertools.combinations(range(1, m), m // 2)), dtype=np.int64)
        side = np.zeros((len(combos), m), dtype=bool)
        np.put_along_axis(side, combos, True, axis=1)
        best = min(best, int((side[:, e[:, 0]] != side[:, e[:, 1]]).sum(axis=1).min()))
    return best


def _pdn_edges(topo) -> list[tuple[int, int]]:
    return [(u, v) for u, _p, v, _q in topo.links()]


def mean_distances(dist: np.ndarray) -> tuple[float, float]:
    """(mean over ordered pairs of distinct nodes, mean over all ordered pairs incl. self)."""
    m = dist.shape[0]
    total = float(dist.sum())
    return total / (m * (m - 1)), total / (m * m)


# ---- theorems ----------------------------------------------------------------------------------------
def single_fault_diameters(topo: PerfectDifferenceNetwork) -> dict:
    """Diameter after removing one link or one node (by vertex transitivity: those at node 0)."""
    adj = _adjacency(topo.nodes(), _pdn_edges(topo))
    link_diam = 0
    for p in range(topo.num_ports(0)):
        far = topo.neighbor(0, p)
        if far is None:
            continue
        a = adj.copy()
        a[0, far[0]] = a[far[0], 0] = 0
        link_diam = max(link_diam, diameter_of(a))
    keep = np.ones(topo.n, dtype=bool)
    keep[0] = False
    return {"link": link_diam, "node": diameter_of(adj, keep)}


def fault_diameter(topo: PerfectDifferenceNetwork, exhaustive_limit: int = 13, samples: int = 200,
                   seed: int = 1) -> dict:
    """Largest diameter after removing up to c-1 nodes (c = connectivity, Definition 5): every fault
    set containing node 0 (all others are translates) when n <= ``exhaustive_limit``, else ``samples``
    random sets of c-1 nodes (a lower bound)."""
    adj = _adjacency(topo.nodes(), _pdn_edges(topo))
    c = nx.node_connectivity(nx.Graph(to_networkx(topo))) if topo.n <= 200 else topo.connected_degree
    worst, worst_set, checked = 0, (), 0
    if topo.n <= exhaustive_limit:
        sets = (s for k in range(0, c - 1) for s in itertools.combinations(range(1, topo.n), k))
        sets = ((0,) + s for s in sets)
        exhaustive = True
    else:
        rng = random.Random(seed)
        sets = (tuple(rng.sample(range(topo.n), c - 1)) for _ in range(samples))
        exhaustive = False
    for faults in sets:
        keep = np.ones(topo.n, dtype=bool)
        keep[list(faults)] = False
        dia = diameter_of(adj, keep)
        checked += 1
        if dia > worst:
            worst, worst_set = dia, faults
    return {"connectivity": c, "max_faults": c - 1, "fault_diameter": worst, "worst_faults": list(worst_set),
            "fault_sets": checked, "exhaustive": exhaustive}


def hamiltonian_chords(topo: PerfectDifferenceNetwork) -> dict:
    """Theorem 5: each chord s coprime to n gives the Hamiltonian cycle 0, s, 2s, ...; distinct chords
    are distinct links, so the cycles are edge-disjoint (checked)."""
    cycles: dict[frozenset, int] = {}           # distinct cycles (a degenerate chord repeats one)
    coprime = []
    for s in topo.chords:
        if math.gcd(s, topo.n) != 1:
            continue
        coprime.append(s)
        port = topo.offset_port[s % topo.n]
        walk = [0]
        for _ in range(topo.n):
            walk.append(topo.neighbor(walk[-1], port)[0])
        assert len(set(walk[:-1])) == topo.n and walk[-1] == 0
        cycles.setdefault(frozenset(frozenset(e) for e in zip(walk, walk[1:])), s)
    edges = [e for cyc in cycles for e in cyc]
    return {"coprime_chords": coprime, "hamiltonian_cycles": len(cycles),
            "edge_disjoint": len(edges) == len(set(edges)),
            "tolerated_link_faults": max(len(cycles) - 1, 0)}


def link_loads(routing: ObliviousPDNRouting) -> tuple[int, int]:
    """(min, max) number of all-pairs Algorithm 1 paths on a directed channel (Theorem 1: delta)."""
    topo = routing.topology
    load: dict[tuple[int, int], int] = {ch: 0 for ch in topo.channels()}
    for s in topo.nodes():
        for d in topo.nodes():
            if s == d:
                continue
            header, node = routing.inject(s, d), s
            while node != d:
                hop = routing.route(node, header)
                load[(node, hop.port)] += 1
                node, header = topo.neighbor(node, hop.port)[0], hop.header
    return min(load.values()), max(load.values())


def routing_vs_bfs(routing, pairs=None) -> dict:
    topo = routing.topology
    pairs = pairs if pairs is not None else [(s, d) for s in topo.nodes() for d in topo.nodes() if s != d]
    dist = {s: topo.distances_from(s) for s in {p[0] for p in pairs}}
    hops = np.array([routing.hops(s, d) for s, d in pairs])
    bfs = np.array([dist[s][d] for s, d in pairs])
    return {"pairs": len(pairs), "mean_hops": float(hops.mean()), "max_hops": int(hops.max()),
            "mean_bfs": float(bfs.mean()), "max_bfs": int(bfs.max()), "all_shortest": bool((hops == bfs).all())}


# ---- Table 2 comparison networks (analysis only) -----------------------------------------------------
def _kxk(delta):
    nodes = [(a, b) for a in range(delta) for b in range(delta)]
    edges = [(u, v) for u, v in itertools.combinations(nodes, 2) if u[0] == v[0] or u[1] == v[1]]
    return nodes, edges, nodes


def _kxk_bipartite(delta):
    """Fig. 9 as we read it: delta^2 hosts, delta row and delta column switches; host (a, b) is linked
    to row switch a and column switch b."""
    hosts = [(a, b) for a in range(delta) for b in range(delta)]
    nodes = hosts + [("r", a) for a in range(delta)] + [("c", b) for b in range(delta)]
    edges = [((a, b), ("r", a)) for a, b in hosts] + [((a, b), ("c", b)) for a, b in hosts]
    return nodes, edges, hosts


def _swap(delta):
    nodes = [(i, j) for i in range(delta) for j in range(delta)]
    edges = [((i, j), (i, k)) for i in range(delta) for j, k in itertools.combinations(range(delta), 2)]
    edges += [((i, j), (j, i)) for i, j in itertools.combinations(range(delta), 2)]
    return nodes, edges, nodes


def _graph_metrics(nodes, edges, hosts, bisection_limit):
    g = nx.Graph()
    g.add_nodes_from(nodes)
    g.add_edges_from(edges)
    lengths = dict(nx.all_pairs_shortest_path_length(g))
    dist = np.array([[lengths[u][v] for v in hosts] for u in hosts], dtype=float)
    excl, incl = mean_distances(dist)
    degree = max(g.degree(h) for h in hosts)
    bis = exact_bisection(nodes, edges, bisection_limit) if set(hosts) == set(nodes) else None
    return {"nodes": len(hosts), "degree": degree, "links": g.number_of_edges(), "diameter": int(dist.max()),
            "avg_distance": excl, "avg_distance_incl_self": incl, "bisection": bis}


def table2(d: int, bisection_limit: int = 16) -> dict:
    ours = {"K_d x K_d": _graph_metrics(*_kxk(d), bisection_limit),
            "Fig. 9": _graph_metrics(*_kxk_bipartite(d), bisection_limit),
            "Swap(K_d)": _graph_metrics(*_swap(d), bisection_limit)}
    pdn = PerfectDifferenceNetwork(registry_set(d))
    ours["basic PDN"] = _graph_metrics(list(pdn.nodes()), _pdn_edges(pdn), list(pdn.nodes()), bisection_limit)
    bip = BipartitePDN(registry_set(d))
    ours["bipartite PDN"] = _graph_metrics(list(bip.nodes()), [(u, v) for u, _p, v, _q in bip.links()],
                                           list(range(bip.n)), bisection_limit)
    return {"delta": d, "paper": paper_table2(d), "ours": ours}


# ---- one network: properties, collectives, products --------------------------------------------------
def properties(topo: PerfectDifferenceNetwork, exact_limit: int = 16, samples: int = 200) -> dict:
    d, n = topo.delta, topo.n
    dist = topo.distance_matrix()
    excl, incl = mean_distances(dist.astype(float))
    oblivious = ObliviousPDNRouting(topo)
    out = {
        "set": list(topo.pds), "delta": d, "nodes": n, "zero_free": topo.zero_free,
        "ports": topo.num_ports(0), "degree": topo.connected_degree,
        "unconnected_ports": [topo.port_name(0, p) for p in range(topo.num_ports(0)) if not topo.port_connected[p]],
        "links": topo.num_links, "diameter": int(dist.max()),
        "avg_distance": excl, "avg_distance_incl_self": incl,
        "paper_avg_distance": avg_distance(d), "paper_avg_distance_sec2": avg_distance_incl_self(d, n),
        "bisection": exact_bisection(list(topo.nodes()), _pdn_edges(topo), exact_limit),
        "bisection_bound_table2": bisection_bound_table2(d, n), "bisection_bound_text": bisection_bound_text(d, n),
        "algorithm1": routing_vs_bfs(oblivious),
        "rom_entries": n - 1, "rom_port_bits": (topo.num_ports(0) - 1).bit_length(),
        "paper_table_bits": routing_table_bits(d),
    }
    lo, hi = link_loads(oblivious)
    out["theorem1_channel_load"] = {"min": lo, "max": hi, "paper": d}
    adaptive = AdaptivePDNRouting(topo)
    out["deadlock"] = {
        "oblivious": {"vcs": oblivious.num_vcs, "acyclic": check_deadlock(oblivious).deadlock_free},
        "adaptive_1vc": {"vcs": 1, "acyclic": check_deadlock(AdaptivePDNRouting(topo, hop_vcs=False)).deadlock_free},
        "adaptive_hop_vcs": {"vcs": adaptive.num_vcs, "acyclic": check_deadlock(adaptive).deadlock_free},
    }
    out["single_fault"] = single_fault_diameters(topo)
    out["fault_diameter"] = fault_diameter(topo, exact_limit, samples)
    out["theorem5"] = hamiltonian_chords(topo)
    if not topo.zero_free:
        zf = PerfectDifferenceNetwork(zero_free(topo.pds))
        out["theorem3_zero_free"] = {"set": list(zf.pds), "degree": zf.connected_degree,
                                     "degenerate_chords": not all(zf.port_connected), **single_fault_diameters(zf)}
        out["collective"] = collective(topo)
    return out


def collective(topo: PerfectDifferenceNetwork) -> dict:
    d, n = topo.delta, topo.n
    bc = run_broadcast(PDNBroadcast(topo), 0)
    sp = run_schedule(topo, *broadcast_single_port(topo, 0))
    steps, init = all_to_all_broadcast(topo)
    a2a = run_schedule(topo, steps, init)
    steps, init = complete_exchange(topo)
    ce = run_schedule(topo, steps, init)
    exp = set().union(*init)
    steps, init = complete_exchange(topo, pipelined=True)
    cep = run_schedule(topo, steps, init)
    steps, init = emulate_complete_network(topo)
    emu = run_schedule(topo, steps, init)
    shift_steps = {}
    for c in range(1, n):
        st, ini = shift_permutation(topo, c)
        rep = run_schedule(topo, st, ini)
        assert personalized_complete(rep, set().union(*ini)) and rep.max_channel == 1
        shift_steps[c] = rep.steps
    return {
        "alg3_all_port": {"steps": bc.steps, "messages": bc.messages, "exactly_once": bc.exactly_once,
                          "paper_steps": 2, "paper_messages": d * d + d},
        "alg3_single_port": {"steps": sp.steps, "messages": sp.transmissions, "max_receives": sp.max_receives,
                             "paper_steps": 2 * d},
        "alg4_all_to_all": {"steps": a2a.steps, "max_sends": a2a.max_sends, "max_receives": a2a.max_receives,
                            "complete": all(len(h) == n for h in a2a.holdings) and a2a.duplicates == 0,
                            "paper_steps": n - 1},
        "alg5_complete_exchange": {"steps": ce.steps, "max_sends": ce.max_sends, "max_receives": ce.max_receives,
                                   "complete": personalized_complete(ce, exp), "paper_steps": 2 * d * d},
        "alg5_pipelined": {"steps": cep.steps, "max_sends": cep.max_sends, "max_fwd_sends": cep.max_fwd_sends,
                           "max_bwd_sends": cep.max_bwd_sends, "complete": personalized_complete(cep, exp),
                           "paper_steps": n},
        "alg6_shift": {"one_step": sorted(c for c, s in shift_steps.items() if s == 1),
                       "max_steps": max(shift_steps.values()), "paper_max_steps": 2},
        "theorem1_emulation": {"steps": emu.steps, "max_channel": emu.max_channel,
                               "complete": personalized_complete(emu, exp), "paper_steps": d},
    }


def product_properties(orders) -> dict:
    topo = ProductPDN(orders)
    dor = DimensionOrderPDNRouting(topo)
    dist = np.stack([topo.distances_from(s) for s in [0]])     # vertex-transitive
    m = topo.num_nodes
    excl = float(dist.sum()) / (m - 1)
    incl = float(dist.sum()) / m
    parts = [PerfectDifferenceNetwork(h.pds) for h in topo.dims]
    return {"factors": [list(h.pds) for h in reversed(topo.dims)], "nodes": m, "degree": topo.degree,
            "diameter": int(dist.max()), "avg_distance": excl, "avg_distance_incl_self": incl,
            "sum_factor_avg_incl_self": sum(float(p.distances_from(0).sum()) / p.n for p in parts),
            "dor": routing_vs_bfs(dor, [(0, d) for d in range(1, m)]),
            "theorem2_acyclic": check_deadlock(dor).deadlock_free}
