"""Hierarchical interconnection networks (Dandamudi and Eager): the paper's quantities measured on the explicit
graph (:class:`Hierarchical`, :class:`Hypercube`), the rows that put them next to the formulas of
:mod:`.hierarchical_formulas` (the data of the paper's figures and tables: :mod:`.hierarchical_figures`).

* P by BFS over the locality-weighted pair distribution, and by the routed path lengths of
  :class:`HierarchicalRouting` (CCC: the sweep rule, which is not always shortest);
* L by counting links;
* R by Kleinrock's formula on per-channel arrival rates: the paper's routing model (at every hop the
  message picks uniformly among the ports on a shortest path, Sec. III-B assumption 6 / Sec. IV-B) as
  an exact fluid computation, or our deterministic routing (every pair walked, or -- exactly -- only the
  sources that represent the orbits of the model's XOR symmetry: 32,768 nodes in seconds to minutes), or
  the Sec. IV-B least-used selection.

Findings (docs/papers/hierarchical.md): the CCC average distance of eq. (14) (quoted from Wittie) is not
the CCC's mean distance (it matches the with-self mean for D_c = 2 and 4 only), and eq. (21)'s
lambda_link,NCL for the CCC spreads the level-2 traffic evenly, while cube and cycle links carry different
loads; everything else agrees with the explicit computation to rounding.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from cubenoc.errors import CubenocError

from ..routing.hierarchical import HierarchicalRouting
from ..symmetric_tables import symmetry_of
from ..topology.base import Topology
from ..topology.hierarchical import CompleteGraph, CubeConnectedCycles, Hierarchical, Ring
from ..topology.hypercube import Hypercube
from .channel_fluid import Channels, fluid_to
from .hierarchical_formulas import (INF, exists, l_bh, l_hin, l_levels, level2_size, level_size, lp_ratio, lr_ratio,
                                    p_bh, p_hin, p_levels, p_per_level, queueing, queueing_levels, r_bh)

EXPLICIT_MAX_NODES = 1024      # BFS and fluid loads on the explicit graph
ROUTED_MAX_NODES = 256         # every pair walked through the routing function
ALPHAS = tuple(round(0.1 * i, 1) for i in range(11))


# ---- explicit graph ---------------------------------------------------------------------------------
def level_network(fam: str, k: int) -> Topology:
    """The ``k``-node BH, BR, CC or CCC."""
    return {"BH": Hypercube, "BR": Ring, "CC": CompleteGraph, "CCC": CubeConnectedCycles}[fam](level_size(fam, k))


def level2_network(code: str, k: int) -> Topology:
    level2_size(code, k)                      # the two-level family's own message for a wrong k
    return level_network(code.split("/")[1], k)


def build_levels(levels, replication: int = 1) -> Hierarchical:
    """The explicit HIN of ``levels`` (``(("BH", 8), ("BH", 4), ...)``, as the formulas take them)."""
    return Hierarchical(*(level_network(fam, k) for fam, k in levels), replication=replication)


def build(code: str | None, d: int, k: int, replication: int = 1) -> Topology:
    """The explicit network: BH(D) for ``code=None`` (the reference), else the HIN."""
    if code is None:
        return Hypercube(d + k.bit_length() - 1)
    return Hierarchical(Hypercube(d), level2_network(code, k), replication=replication)


def pair_weight(same_cluster: bool, n: int, k: int) -> tuple[float, float]:
    """The (intracluster, intercluster) message fraction of one source-destination pair: ``1/n`` within a
    cluster (self included), ``1/((K-1) n)`` to each node of another cluster. It depends only on whether
    the two are in the same cluster."""
    return (1 / n, 0.0) if same_cluster else (0.0, 1 / ((k - 1) * n))


def weights(n_nodes: int, n: int, t: int) -> np.ndarray:
    """Per-source message fractions to destination ``t`` (:func:`pair_weight` of every source): column 0
    intracluster, column 1 intercluster."""
    k = n_nodes // n
    w = np.zeros((n_nodes, 2))
    same = np.arange(n_nodes) // n == t // n
    w[same] = pair_weight(True, n, k)
    w[~same] = pair_weight(False, n, k)
    return w


def explicit_distance(topo: Topology, n: int) -> tuple[float, float]:
    """(intracluster, intercluster) mean BFS distance. Two levels: sources in cluster 0 (every level-2
    family here is vertex-transitive and the HIN's clusters are alike, so cluster 0 represents every
    cluster); more levels: every source (a cluster that holds a higher interface node is not like the
    others)."""
    ch = Channels(topo, n.bit_length() - 1)
    intra = inter = 0.0
    sources = range(n) if len(getattr(topo, "levels", ())) <= 2 else topo.nodes()
    for s in sources:
        dist = ch.bfs(s)
        w = weights(topo.num_nodes, n, s)
        intra += dist @ w[:, 0]
        inter += dist @ w[:, 1]
    return intra / len(sources), inter / len(sources)


def routed_distance(routing, n: int) -> tuple[float, float]:
    """(intracluster, intercluster) mean routed path length over every pair."""
    t = routing.topology
    acc = np.zeros(2)
    for s in t.nodes():
        w = weights(t.num_nodes, n, s)
        for dst in t.nodes():
            if dst != s:
                acc += routing.hops(s, dst) * w[dst]
    return acc[0] / t.num_nodes, acc[1] / t.num_nodes


@lru_cache(maxsize=32)
def random_routing_loads(code: str | None, d: int, k: int) -> tuple[np.ndarray, np.ndarray, "Channels"]:
    """Per-channel message rates for unit lam, split (intracluster, intercluster), when every message picks
    uniformly among the ports on a shortest path at each hop (the paper's model), on :func:`build`."""
    return random_routing_loads_on(build(code, d, k), 2 ** d)


def random_routing_loads_on(topo: Topology, n: int) -> tuple[np.ndarray, np.ndarray, "Channels"]:
    """:func:`random_routing_loads` on any network of clusters of ``n`` nodes. Exact fluid computation
    per destination over the BFS levels."""
    ch = Channels(topo, n.bit_length() - 1)
    loads = np.zeros((len(ch.u), 2))
    for t in topo.nodes():
        flow = weights(topo.num_nodes, n, t)
        flow[t] = 0.0
        loads += fluid_to(ch, ch.bfs(t), flow)
    return loads[:, 0], loads[:, 1], ch


def routed_loads(routing, n: int, select=None, symmetric: bool = False) -> tuple[np.ndarray, np.ndarray, "Channels"]:
    """Per-channel rates (unit lam) of a routing function, every pair walked; ``select(node, hops, weight)``
    picks among the candidates (default: the routing's own choice).

    ``symmetric=True`` walks only the orbit representatives of the sources (the model's XOR translation
    symmetry, :func:`~cubenoc.sim.symmetric_tables.symmetry_of`: 16 of the 32,768 sources of BH(4)/BH(11))
    to every destination, adding each hop's rate to the channel ``(representative of node, port)``. It is
    exact: the rates (:func:`pair_weight`) and the routes move with the translation, so every channel of
    an orbit carries the same load; the group acts freely, so that load is the sum over representative
    sources and all destinations of the pair's rate times the number of the route's channels in the
    orbit. The per-orbit loads are then copied to every channel. A network without a known symmetry, or
    a ``select`` (a stateful choice), is refused."""
    t = routing.topology
    ch = Channels(t, n.bit_length() - 1)
    k = t.num_nodes // n
    sources, rep = t.nodes(), (lambda v: v)
    if symmetric:
        sym = symmetry_of(t, routing)
        if sym is None:
            raise CubenocError(f"no translation symmetry known for {t!r} with {routing.name}: "
                               "routed_loads(symmetric=True) cannot be used")
        if select is not None:
            raise CubenocError("routed_loads(symmetric=True) takes the routing's own choice (no select)")
        sources = sorted({sym.orbit(v)[0] for v in t.nodes()})
        rep = (lambda v: sym.orbit(v)[0])
    # messages per channel of the (intracluster, intercluster) pairs, times the pair's rate at the end
    count = np.zeros((len(ch.u), 2), dtype=np.int64)
    rate = {same: pair_weight(same, n, k) for same in (True, False) if same or k > 1}
    for s in sources:
        for dst in t.nodes():
            if dst == s:
                continue
            same = s // n == dst // n
            node, hdr = s, routing.inject(s, dst)
            while node != dst:
                hops = routing.candidates(node, hdr)
                hop = hops[0] if select is None else select(node, hops, sum(rate[same]))
                count[ch.index[(rep(node), hop.port)], 1 - same] += 1
                node, hdr = t.neighbor(node, hop.port)[0], hop.header
    if symmetric:                        # every channel carries its orbit representative's load
        count = count[[ch.index[(rep(int(u)), int(p))] for u, p in zip(ch.u, ch.p)]]
    return count[:, 0] * rate[True][0], count[:, 1] * rate.get(False, (0, 0))[1], ch


@dataclass
class LaneChannels:
    """The channels of :func:`split_lanes`: their level-2 flag, all :func:`kleinrock` reads."""
    ncl: np.ndarray


def split_lanes(loads, n: int, lanes: int):
    """The one-lane HIN's per-channel loads (:func:`routed_loads` of :class:`HierarchicalRouting` with
    r = 1) as the same HIN's with ``lanes`` replicas of every level-2 link. A message takes lane
    ``x mod lanes`` (x: its source's node in the cluster); level-2 routes do not depend on x and every x
    sends the same traffic, so lane l carries ``#{x < n: x mod lanes = l} / n`` of the link's load, and the
    cluster channels keep theirs. The r-lane walk gives the same channel loads (tested)."""
    a, b, ch = loads
    share = np.bincount(np.arange(n) % lanes, minlength=lanes) / n
    ncl = ch.ncl
    a2 = np.concatenate([a[~ncl]] + [a[ncl] * s for s in share])
    b2 = np.concatenate([b[~ncl]] + [b[ncl] * s for s in share])
    return a2, b2, LaneChannels(np.repeat([False, True], [int((~ncl).sum()), int(ncl.sum()) * lanes]))


def kleinrock(loads, alpha: float, lam: float, mu_cl: float, mu_ncl: float, n_nodes: int) -> dict:
    """Mean message delay sum_c lam_c/(mu_c - lam_c) / (N lam), and the largest utilisations."""
    a, b, ch = loads
    lam_c = lam * (alpha * a + (1 - alpha) * b)
    mu = np.where(ch.ncl, mu_ncl, mu_cl)
    util = lam_c / mu
    r = INF if (util >= 1).any() else float(np.sum(lam_c / (mu - lam_c)) / (n_nodes * lam))
    return {"R": r, "max_util_CL": float(util[~ch.ncl].max()),
            "max_util_NCL": float(util[ch.ncl].max()) if ch.ncl.any() else 0.0}


# ---- rows ---------------------------------------------------------------------------------------------
def row(code: str | None, d: int, k: int, alpha: float, lam: float, mu_cl: float, mu_ncl: float,
        replication: int = 1, explicit: bool = True) -> dict:
    """Every measure of one network (``code=None``: the BH reference) by formula and, if small, explicitly."""
    D = d + math.log2(k)
    n = 2 ** d
    if code is None:
        out = {"network": f"BH({D:g})", "L": int(l_bh(D)), "P": p_bh(alpha, D, d), "LP_ratio": 1.0,
               "R": r_bh(alpha, D, d, lam, mu_cl, mu_cl), "LR_ratio": 1.0}
    else:
        q = queueing(code, alpha, d, k, lam, mu_cl, mu_ncl)
        net = f"{code}" + (f"(D_c={level2_size(code, k)})" if code == "BH/CCC" else "")
        L = l_hin(code, d, k, replication)
        out = {"network": net, "L": int(L) if L == int(L) else L, "P": p_hin(code, alpha, d, k),
               "LP_ratio": lp_ratio(code, alpha, d, k), "R": q["R"],
               "LR_ratio": lr_ratio(code, alpha, d, k, lam, mu_cl, mu_ncl, replication),
               "util_NCL": q["util_NCL"], "util_CL_1": q["util_CL"][0]}
    out.update({"N": n * k, "K": k, "d": d})
    if explicit and n * k <= EXPLICIT_MAX_NODES:
        topo = build(code, d, k)
        intra, inter = explicit_distance(topo, n)
        out["P_bfs"] = alpha * intra + (1 - alpha) * inter
        out["L_count"] = topo.num_links + (replication - 1) * (topo.num_links - k * d * 2 ** (d - 1))
        out["R_explicit"] = kleinrock(random_routing_loads(code, d, k), alpha, lam, mu_cl,
                                      mu_cl if code is None else mu_ncl, n * k)["R"]
        if code is not None and n * k <= ROUTED_MAX_NODES:
            intra, inter = routed_distance(HierarchicalRouting(topo), n)
            out["P_routed"] = alpha * intra + (1 - alpha) * inter
    return out


def levels_name(levels) -> str:
    """``BH(2)/BH(2)/BH(2)``: the paper's notation of a HIN given as levels."""
    return "/".join(f"{fam}({level_size(fam, k) if fam in ('BH', 'CCC') else k})" for fam, k in levels)


def row_levels(levels, alpha: float, lam: float, mu_cl: float, mu_ncl: float, replication: int = 1,
               explicit: bool = True) -> dict:
    """Every measure of a HIN of any number of levels by formula (:func:`p_levels`,
    :func:`queueing_levels`) and, if small, on the explicit graph (BFS, routed, Kleinrock on the random
    shortest-path loads), with ``per_level``: each level's links, hops per message and delay per message
    (formula and, if explicit, measured), which add up to L, P and R. The ratios are to BH(D) with the
    same clusters (N = 2^D only)."""
    n, N = levels[0][1], math.prod(k for _, k in levels)
    q = queueing_levels(levels, alpha, lam, mu_cl, mu_ncl)
    hops = p_per_level(levels, alpha)
    out = {"network": levels_name(levels), "N": N, "K": N // n, "L": int(l_levels(levels, replication)),
           "P": p_levels(levels, alpha), "R": q["R"]}
    per = []
    for i, (fam, k) in enumerate(levels):
        copies = N // math.prod(kk for _, kk in levels[:i + 1])
        per.append({"level": i + 1, "network": levels_name([(fam, k)]), "copies": copies,
                    "L": int(l_levels(levels[i:i + 1])) * copies * (replication if i else 1), "P": hops[i],
                    "R": q["levels"][i]["R"], "max_util": max(q["levels"][i]["util"])})
    if N & (N - 1) == 0 and n & (n - 1) == 0 and levels[0][0] == "BH":
        d, D = n.bit_length() - 1, N.bit_length() - 1
        r_ref = r_bh(alpha, D, d, lam, mu_cl, mu_cl)
        out["LP_ratio"] = out["L"] * out["P"] / (l_bh(D) * p_bh(alpha, D, d))
        out["LR_ratio"] = INF if math.isinf(out["R"]) or math.isinf(r_ref) else out["L"] * out["R"] / (l_bh(D) * r_ref)
    if explicit and N <= EXPLICIT_MAX_NODES:
        topo = build_levels(levels)
        intra, inter = explicit_distance(topo, n)
        out["L_count"] = topo.num_links + (replication - 1) * (topo.num_links - N // n * int(l_levels(levels[:1])))
        out["P_bfs"] = alpha * intra + (1 - alpha) * inter
        loads = random_routing_loads_on(topo, n)
        kr = kleinrock(loads, alpha, lam, mu_cl, mu_ncl, N)
        out["R_explicit"] = kr["R"]
        a, b, ch = loads
        lam_c = lam * (alpha * a + (1 - alpha) * b)
        level_of = np.array([topo.port_level(int(u), int(p)) for u, p in zip(ch.u, ch.p)])
        mu = np.where(ch.ncl, mu_ncl, mu_cl)
        for i, p in enumerate(per):
            on = level_of == i + 1
            p["L_count"] = int(on.sum()) // 2 * (replication if i else 1)
            p["P_random"] = float(lam_c[on].sum() / (N * lam))
            p["R_explicit"] = INF if (lam_c[on] >= mu[on]).any() else float((lam_c[on] / (mu[on] - lam_c[on])).sum() / (N * lam))
        if N <= ROUTED_MAX_NODES:
            routing = HierarchicalRouting(topo)
            intra, inter = routed_distance(routing, n)
            out["P_routed"] = alpha * intra + (1 - alpha) * inter
    out["per_level"] = per
    return out


def networks_for(codes, d: int, k: int) -> list[str]:
    return [c for c in codes if exists(c, k)]
