"""Hierarchical interconnection networks (seed 001): link cost L, distance P, LP ratio, M/M/1 delay R, LR ratio.

Notation of the paper: ``N = 2**D`` nodes, clusters of ``n = 2**d`` nodes (level 1 is BH(d)), ``K = N/n``
clusters joined by a level-2 network (BH, BR, CC or CCC of dimension D_c, ``K = D_c 2**D_c``), locality
``alpha`` = probability that a message stays in its cluster (messages to oneself allowed, Sec. III-A),
rate ``lam`` per node, link service rates ``mu_CL`` (cluster links) and ``mu_NCL`` (level-2 links;
replicating a level-2 link ``i`` times is modelled, as in Sec. IV-A, by ``mu_NCL = i mu_CL`` and ``i``
times the level-2 link cost). The reference network is BH(D) with the same clusters (its cluster links
are the low d dimensions).

Every quantity is computed by the paper's formulas (eqs 1-21, transcribed one function each) and, on the
explicit graph (:class:`Hierarchical`, :class:`Hypercube`):

* P by BFS over the locality-weighted pair distribution, and by the routed path lengths of
  :class:`HierarchicalRouting` (CCC: the sweep rule, which is not always shortest);
* L by counting links;
* R by Kleinrock's formula on per-channel arrival rates: the paper's routing model (at every hop the
  message picks uniformly among the ports on a shortest path, Sec. III-B assumption 6 / Sec. IV-B) as
  an exact fluid computation, or our deterministic routing, or the Sec. IV-B least-used selection.

Findings (docs/papers/hierarchical.md): the CCC average distance of eq. (14) (quoted from Wittie) is not
the CCC's mean distance (it matches the with-self mean for D_c = 2 and 4 only), and eq. (21)'s
lambda_link,NCL for the CCC spreads the level-2 traffic evenly, while cube and cycle links carry different
loads; everything else agrees with the explicit computation to rounding.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from cubenoc.errors import CubenocError, require_int

from ..routing.hierarchical import BalancedHierarchicalRouting, HierarchicalRouting, LeastUsedSelector
from ..routing.level2 import Level2Routing
from ..topology.base import Topology
from ..topology.hierarchical import (CompleteGraph, CubeConnectedCycles, Hierarchical, Ring, ccc_dimension_for,
                                     network_from_spec)
from ..topology.hypercube import Hypercube
from .report import AnalysisResult, table

CODES = ("BH/BH", "BH/BR", "BH/CC", "BH/CCC")
LEVEL2_OF = {"bh": "BH/BH", "br": "BH/BR", "cc": "BH/CC", "ccc": "BH/CCC"}
EXPLICIT_MAX_NODES = 1024      # BFS and fluid loads on the explicit graph
ROUTED_MAX_NODES = 256         # every pair walked through the routing function
ALPHAS = tuple(round(0.1 * i, 1) for i in range(11))
INF = math.inf

# Table II as printed: cluster size -> alpha.
TABLE_II = {4: 0.5, 9: 0.67, 16: 0.75, 25: 0.80, 36: 0.83, 49: 0.86, 64: 0.875}
# Sec. IV-B / Fig. 12 as printed (D = 6, d = 3, lam = 1, mu_CL = 1.5, mu_NCL = 3): alpha -> (utilisation of
# the cluster links at the interface node, delay with random routing, delay with the improved routing);
# the delays are the paper's simulation results.
SEC_IVB = {0.5: (0.94, 15.2, 6.3), 0.6: (0.82, 5.3, 3.8)}


# ---- the network of a configuration ----------------------------------------------------------------
def level2_size(code: str, k: int) -> int:
    """The level-2 family's size parameter for ``k`` clusters (BH: dimension, CCC: D_c, BR/CC: k)."""
    if code == "BH/BH":
        if k < 2 or k & (k - 1):
            raise CubenocError(f"BH/BH needs a power-of-two number of clusters, got {k}")
        return k.bit_length() - 1
    if code == "BH/CCC":
        return ccc_dimension_for(k)
    require_int(k, "number of clusters", 2, None)
    return k


def level2_network(code: str, k: int) -> Topology:
    size = level2_size(code, k)
    return {"BH/BH": Hypercube, "BH/BR": Ring, "BH/CC": CompleteGraph, "BH/CCC": CubeConnectedCycles}[code](size)


def exists(code: str, k: int) -> bool:
    try:
        level2_size(code, k)
        return True
    except CubenocError:
        return False


# ---- static analysis: eqs (1)-(14) -----------------------------------------------------------------
def l_bh(D: float) -> float:
    """Eq. (1): links of BH(D)."""
    return D * 2 ** (D - 1)


def p_bh_intra(d: int) -> float:
    """Eq. (3): mean distance within a cluster (self included) = d/2."""
    return sum(math.comb(d, i) * i for i in range(d + 1)) / 2 ** d


def p_bh_inter(D: float, d: int) -> float:
    """Eq. (4), closed form."""
    return (D * 2 ** (D - 1) - d * 2 ** (d - 1)) / (2 ** D - 2 ** d)


def p_bh_inter_sum(D: int, d: int) -> float:
    """Eq. (4), the double sum."""
    s = sum(math.comb(D - d, i) * math.comb(d, j) * (i + j) for i in range(1, D - d + 1) for j in range(d + 1))
    return s / (2 ** D - 2 ** d)


def p_bh(alpha: float, D: float, d: int) -> float:
    """Eq. (5)."""
    return alpha * d / 2 + (1 - alpha) * p_bh_inter(D, d)


def p_level2(code: str, k: int) -> float:
    """Mean level-2 distance between different clusters used in eqs (8), (10), (12), (14)."""
    if code == "BH/BH":
        m = level2_size(code, k)
        return m * 2 ** (m - 1) / (2 ** m - 1)
    if code == "BH/BR":
        return k ** 2 / (4 * (k - 1))
    if code == "BH/CC":
        return 1.0
    dc = level2_size(code, k)
    return 7 / 4 * dc - 3 + (dc + 1) / 2 ** (dc - 1)


def l_level2(code: str, k: int) -> float:
    """Links of the level-2 network (the second terms of eqs 6, 9, 11, 13)."""
    size = level2_size(code, k)
    return {"BH/BH": size * 2 ** (size - 1), "BH/BR": k, "BH/CC": k * (k - 1) / 2,
            "BH/CCC": 3 * size * 2 ** (size - 1)}[code]


def l_hin(code: str, d: int, k: int, replication: float = 1) -> float:
    """Eqs (6), (9), (11), (13): K BH(d) clusters plus the level-2 links (times the replication)."""
    return k * d * 2 ** (d - 1) + replication * l_level2(code, k)


def l_hin_paper(code: str, D: float, d: int, dc: int | None = None) -> float:
    """Eqs (6), (9), (11), (13) exactly as printed (N = 2^D, K = 2^(D-d); BH/CCC with D_c)."""
    if code == "BH/BH":
        return d * 2 ** (D - 1) + (D - d) * 2 ** (D - d - 1)
    if code == "BH/BR":
        return 2 ** (D - d) * (d * 2 ** (d - 1) + 1)
    if code == "BH/CC":
        return d * 2 ** (D - 1) + 2 ** (D - d - 1) * (2 ** (D - d) - 1)
    return d * 2 ** (D - 1) + 3 * dc * 2 ** (dc - 1)


def p_hin(code: str, alpha: float, d: int, k: int) -> float:
    """Eq. (7) with P_level1 = d/2: alpha d/2 + (1-alpha)(d + P_level2) -- eqs (8), (10), (12), (14)."""
    return alpha * d / 2 + (1 - alpha) * (2 * d / 2 + p_level2(code, k))


def p_bhbh_closed(alpha: float, D: float, d: int) -> float:
    """Eq. (8) as printed."""
    return alpha * d / 2 + (1 - alpha) * ((D + d) * 2 ** (D - 1) - d * 2 ** d) / (2 ** D - 2 ** d)


def lp_ratio(code: str, alpha: float, d: int, k: int) -> float:
    D = d + math.log2(k)
    return l_hin(code, d, k) * p_hin(code, alpha, d, k) / (l_bh(D) * p_bh(alpha, D, d))


# ---- queueing analysis: eqs (15)-(21) --------------------------------------------------------------
def mm1(mu: float, lam: float) -> float:
    """M/M/1 delay 1/(mu - lam); infinite at or beyond saturation."""
    return 1.0 / (mu - lam) if lam < mu else INF


def r_bh(alpha: float, D: float, d: int, lam: float, mu_cl: float, mu_ncl: float) -> float:
    """Eq. (15) with lambda_link,CL = lam/2 and lambda_link,NCL = (1-alpha) lam 2^(D-1)/(2^D - 2^d)."""
    lam_cl = lam / 2
    lam_ncl = (1 - alpha) * lam * 2 ** (D - 1) / (2 ** D - 2 ** d)
    return d / 2 * mm1(mu_cl, lam_cl) + (1 - alpha) * (D - d) * 2 ** (D - 1) / (2 ** D - 2 ** d) * mm1(mu_ncl, lam_ncl)


def p_j(d: int, j: int) -> float:
    """p(j): probability that an intercluster message crosses a given j-level link (Sec. III-B2)."""
    return sum(math.comb(d, m) for m in range(j, d + 1)) / ((d - j + 1) * math.comb(d, j - 1) * 2 ** d)


def links_at_level(d: int, j: int) -> int:
    """(d-j+1) C(d, j-1): the j-level links of BH(d) (between distance j-1 and j from the interface)."""
    return (d - j + 1) * math.comb(d, j - 1)


def lam_cl_j(alpha: float, d: int, j: int, lam: float) -> float:
    """lambda_link,CL,j = alpha lam/2 + n lam (1-alpha) p(j) (eq. 16)."""
    return alpha * lam / 2 + 2 ** d * lam * (1 - alpha) * p_j(d, j)


def lam_ncl(code: str, alpha: float, d: int, k: int, lam: float) -> float:
    """lambda_link,NCL of Sec. III-B2/3 (every level-2 half-duplex link equally loaded)."""
    if code == "BH/BH":
        D = d + math.log2(k)
        return 2 ** (D - 1) * (1 - alpha) * lam / (2 ** (D - d) - 1)
    if code == "BH/BR":
        return 2 ** (d - 1) * lam * (1 - alpha) * k ** 2 / (4 * (k - 1))
    if code == "BH/CC":
        return 2 ** d * lam * (1 - alpha) / (k - 1)
    return 2 ** d * lam * (1 - alpha) / 3 * p_level2(code, k)


def queueing(code: str, alpha: float, d: int, k: int, lam: float, mu_cl: float, mu_ncl: float) -> dict:
    """Eqs (16)-(21): per-level rates and delays, R and the level-2 utilisation."""
    dj = [mm1(mu_cl, lam_cl_j(alpha, d, j, lam)) for j in range(1, d + 1)]
    nl = [links_at_level(d, j) for j in range(1, d + 1)]
    d_avg = sum(c * x for c, x in zip(nl, dj)) / (d * 2 ** (d - 1))
    d_cl = sum(x * c * p_j(d, j) for j, (c, x) in enumerate(zip(nl, dj), start=1))
    l2 = lam_ncl(code, alpha, d, k, lam)
    d_ncl = mm1(mu_ncl, l2)
    r = alpha * d / 2 * d_avg + (1 - alpha) * (2 * d_cl + p_level2(code, k) * d_ncl)
    if alpha == 1.0:
        r = d / 2 * d_avg
    return {"R": r, "Delta_avg": d_avg, "Delta_CL_avg": d_cl, "Delta_NCL_avg": d_ncl,
            "util_CL": [lam_cl_j(alpha, d, j, lam) / mu_cl for j in range(1, d + 1)], "util_NCL": l2 / mu_ncl}


def lr_ratio(code: str, alpha: float, d: int, k: int, lam: float, mu_cl: float, mu_ncl: float,
             replication: float = 1) -> float:
    D = d + math.log2(k)
    r_h = queueing(code, alpha, d, k, lam, mu_cl, mu_ncl)["R"]
    r_r = r_bh(alpha, D, d, lam, mu_cl, mu_cl)
    if math.isinf(r_h) or math.isinf(r_r):
        return INF
    return l_hin(code, d, k, replication) * r_h / (l_bh(D) * r_r)


# ---- explicit graph ---------------------------------------------------------------------------------
def build(code: str | None, d: int, k: int, replication: int = 1) -> Topology:
    """The explicit network: BH(D) for ``code=None`` (the reference), else the HIN."""
    if code is None:
        return Hypercube(d + k.bit_length() - 1)
    return Hierarchical(Hypercube(d), level2_network(code, k), replication)


class Channels:
    """Directed channels ``(u, port) -> v`` as numpy arrays, with the level-2 flag."""

    def __init__(self, topo: Topology, d: int):
        u, p, v, ncl = [], [], [], []
        for node in topo.nodes():
            for port in range(topo.num_ports(node)):
                far = topo.neighbor(node, port)
                if far is not None:
                    u.append(node), p.append(port), v.append(far[0])
                    ncl.append(topo.is_level2_port(node, port) if isinstance(topo, Hierarchical) else port >= d)
        self.u, self.p, self.v = np.array(u), np.array(p), np.array(v)
        self.ncl = np.array(ncl, dtype=bool)
        self.index = {(a, b): i for i, (a, b) in enumerate(zip(u, p))}
        self.n_nodes = topo.num_nodes

    def bfs(self, src: int) -> np.ndarray:
        if not hasattr(self, "_nbr"):
            deg = np.bincount(self.u, minlength=self.n_nodes)
            nbr = np.full((self.n_nodes, max(1, int(deg.max()))), -1, dtype=np.int64)
            order = np.argsort(self.u, kind="stable")
            slot = np.arange(len(order)) - np.searchsorted(self.u[order], self.u[order])
            nbr[self.u[order], slot] = self.v[order]
            self._nbr = nbr
        dist = np.full(self.n_nodes, -1, dtype=np.int64)
        dist[src] = 0
        frontier, level = np.array([src]), 0
        while frontier.size:
            level += 1
            nxt = self._nbr[frontier].ravel()
            nxt = nxt[nxt >= 0]
            nxt = np.unique(nxt[dist[nxt] < 0])
            dist[nxt] = level
            frontier = nxt
        return dist


def weights(n_nodes: int, n: int, t: int) -> np.ndarray:
    """Per-source message fractions to destination ``t``: column 0 intracluster (1/n, self included),
    column 1 intercluster (1/((K-1) n))."""
    k = n_nodes // n
    w = np.zeros((n_nodes, 2))
    same = np.arange(n_nodes) // n == t // n
    w[same, 0] = 1 / n
    w[~same, 1] = 1 / ((k - 1) * n)
    return w


def explicit_distance(topo: Topology, n: int) -> tuple[float, float]:
    """(intracluster, intercluster) mean BFS distance, sources in cluster 0 (every level-2 family here is
    vertex-transitive and the HIN's clusters are alike, so cluster 0 represents every cluster)."""
    ch = Channels(topo, n.bit_length() - 1)
    intra = inter = 0.0
    for s in range(n):
        dist = ch.bfs(s)
        w = weights(topo.num_nodes, n, s)
        intra += dist @ w[:, 0]
        inter += dist @ w[:, 1]
    return intra / n, inter / n


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
    uniformly among the ports on a shortest path at each hop (the paper's model). Exact fluid computation
    per destination over the BFS levels."""
    topo = build(code, d, k)
    n = 2 ** d
    ch = Channels(topo, d)
    loads = np.zeros((len(ch.u), 2))
    for t in topo.nodes():
        dist = ch.bfs(t)
        down = dist[ch.v] == dist[ch.u] - 1
        cnt = np.bincount(ch.u[down], minlength=topo.num_nodes)
        flow = weights(topo.num_nodes, n, t)
        flow[t] = 0.0
        edges = np.nonzero(down)[0]
        lvl = dist[ch.u[edges]]
        for level in range(int(dist.max()), 0, -1):
            e = edges[lvl == level]
            share = flow[ch.u[e]] / cnt[ch.u[e], None]
            loads[e] += share
            np.add.at(flow, ch.v[e], share)
    return loads[:, 0] * 1.0, loads[:, 1] * 1.0, ch


def routed_loads(routing, n: int, select=None) -> tuple[np.ndarray, np.ndarray, "Channels"]:
    """Per-channel rates (unit lam) of a routing function, every pair walked; ``select(node, hops, weight)``
    picks among the candidates (default: the routing's own choice)."""
    t = routing.topology
    ch = Channels(t, n.bit_length() - 1)
    loads = np.zeros((len(ch.u), 2))
    for s in t.nodes():
        for dst in t.nodes():
            if dst == s:
                continue
            w = weights(t.num_nodes, n, dst)[s]
            node, hdr = s, routing.inject(s, dst)
            while node != dst:
                hops = routing.candidates(node, hdr)
                hop = hops[0] if select is None else select(node, hops, float(w.sum()))
                loads[ch.index[(node, hop.port)]] += w
                node, hdr = t.neighbor(node, hop.port)[0], hop.header
    return loads[:, 0], loads[:, 1], ch


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


def networks_for(codes, d: int, k: int) -> list[str]:
    return [c for c in codes if exists(c, k)]


# ---- figures and tables -----------------------------------------------------------------------------
def figure_static_alpha(d: int, k: int, explicit: bool = True) -> dict:
    """Figs 2 and 3: P and LP ratio against alpha."""
    series = {}
    for code in [None] + networks_for(CODES, d, k):
        rows = [row(code, d, k, a, 1, 3, 3, explicit=explicit and a in (0.0, 0.5, 1.0)) for a in ALPHAS]
        series[rows[0]["network"]] = [{key: r[key] for key in ("P", "LP_ratio", "P_bfs", "P_routed") if key in r}
                                      | {"alpha": a} for a, r in zip(ALPHAS, rows)]
    return {"N": 2 ** d * k, "K": k, "d": d, "series": series}


def figure_static_size(d: int = 4, alpha: float = 0.8, log_n=range(5, 16)) -> dict:
    """Figs 4 and 5: P, LP ratio and L against N (n fixed at 2^d, K = N/n)."""
    series = {}
    for m in log_n:
        k = 2 ** (m - d)
        for code in [None] + networks_for(CODES, d, k):
            r = row(code, d, k, alpha, 1, 3, 3, explicit=False)
            series.setdefault(r["network"].split("(")[0] if code else "BH", []).append(
                {"N": 2 ** m, "L": r["L"], "P": r["P"], "LP_ratio": r["LP_ratio"]})
    return {"d": d, "alpha": alpha, "series": series}


def figure_6(alphas=tuple(round(0.5 + 0.05 * i, 2) for i in range(11))) -> dict:
    """Fig. 6: R and LR ratio against alpha (d = 3, D = 9, D_c = 4, lam = 1, mu = 3)."""
    d, k = 3, 64
    series = {}
    for code in [None] + list(CODES):
        for a in alphas:
            r = row(code, d, k, a, 1, 3, 3, explicit=False)
            series.setdefault(r["network"], []).append({"alpha": a, "R": r["R"], "LR_ratio": r["LR_ratio"],
                                                        "util_NCL": r.get("util_NCL")})
    return {"d": d, "D": 9, "series": series}


def ccc_replication_for(d: int, k: int, alpha: float, lam: float, mu: float, limit: float = 0.8) -> int:
    """Fig. 7: the smallest integer i with level-2 utilisation below 80 % when mu_NCL = i mu_CL."""
    l2 = lam_ncl("BH/CCC", alpha, d, k, lam)
    return max(1, math.floor(l2 / (limit * mu)) + 1)


def figure_7(d: int = 4, alpha: float = 0.8, log_n=range(6, 16)) -> dict:
    """Fig. 7: R and LR ratio against N (d = 4, lam = 1, mu = 3, alpha = 0.8; BH/CCC replicated)."""
    series = {}
    for m in log_n:
        k = 2 ** (m - d)
        for code in [None] + networks_for(CODES, d, k):
            i = ccc_replication_for(d, k, alpha, 1, 3) if code == "BH/CCC" else 1
            r = row(code, d, k, alpha, 1, 3, 3 * i, replication=i, explicit=False)
            series.setdefault(r["network"].split("(")[0] if code else "BH", []).append(
                {"N": 2 ** m, "R": r["R"], "LR_ratio": r["LR_ratio"], "replication": i})
    return {"d": d, "alpha": alpha, "series": series}


def figure_10() -> dict:
    """Fig. 10: utilisation of j-level cluster links (j = 0: level-2 links), d = 4, D = 15, D_c = 8."""
    d, k, mu = 4, 2 ** 11, 3
    out = {}
    for code, ratio in (("BH/BH", 1), ("BH/CCC", 4)):
        q = queueing(code, 0.8, d, k, 1, mu, ratio * mu)
        out[code] = {"mu_NCL/mu_CL": ratio, "util": [q["util_NCL"]] + q["util_CL"]}
    return out


def figure_11(ratios=range(1, 17)) -> dict:
    """Fig. 11: LR ratio against mu_NCL/mu_CL (replication i), d = 4, D = 15, D_c = 8; the knee."""
    d, k, mu = 4, 2 ** 11, 3
    out = {}
    for code in ("BH/BH", "BH/CCC"):
        pts = [{"ratio": i, "LR_ratio": lr_ratio(code, 0.8, d, k, 1, mu, i * mu, replication=i)} for i in ratios]
        best = min(pts, key=lambda p: p["LR_ratio"])
        out[code] = {"points": pts, "knee": best["ratio"]}
    return out


def sec_ivb(explicit: bool = True) -> dict:
    """Sec. IV-B (Fig. 12): interface-link utilisation and delays for BH/BH, D = 6, d = 3, mu_CL = 1.5,
    mu_NCL = 3; by formula, by the exact fluid model of random routing, by e-cube and by least-used."""
    d, k, lam, mu_cl, mu_ncl = 3, 8, 1, 1.5, 3
    out = {}
    topo = build("BH/BH", d, k)
    ecube = routed_loads(HierarchicalRouting(topo), 2 ** d) if explicit else None
    balanced = routed_loads(BalancedHierarchicalRouting(topo), 2 ** d, LeastUsedSelector().select) if explicit else None
    for a, (util_p, r_rand_p, r_impr_p) in SEC_IVB.items():
        q = queueing("BH/BH", a, d, k, lam, mu_cl, mu_ncl)
        res = {"paper_util": util_p, "util_CL_1": q["util_CL"][0], "paper_R_random_sim": r_rand_p,
               "R_formula": q["R"], "paper_R_improved_sim": r_impr_p}
        if explicit:
            res["R_random_explicit"] = kleinrock(random_routing_loads("BH/BH", d, k), a, lam, mu_cl, mu_ncl, 64)["R"]
            for name, loads in (("ecube", ecube), ("least_used", balanced)):
                kr = kleinrock(loads, a, lam, mu_cl, mu_ncl, 64)
                res[f"R_{name}"] = kr["R"]
                res[f"max_util_CL_{name}"] = kr["max_util_CL"]
        out[a] = res
    return out


def table_ii(sizes=(4, 9, 16, 25, 36, 49, 64)) -> dict:
    """Table II: alpha = 1 - 1/sqrt(n) for nearest-neighbour traffic on a torus of sqrt(n) x sqrt(n)
    clusters, and the fraction counted on an explicit 4x4-cluster torus."""
    out = {}
    for n in sizes:
        s = math.isqrt(n)
        side = 4 * s
        inside = total = 0
        for x in range(side):
            for y in range(side):
                for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    u, v = (x + dx) % side, (y + dy) % side
                    total += 1
                    inside += (u // s, v // s) == (x // s, y // s)
        out[n] = {"paper": TABLE_II[n], "formula": 1 - 1 / math.sqrt(n), "counted": inside / total}
    return out


def ccc_distance_table(dims=range(2, 9)) -> dict:
    """The CCC mean distance of eq. (14) against BFS (without and with self) and the sweep rule."""
    out = {}
    for dc in dims:
        t = CubeConnectedCycles(dc)
        nn = t.num_nodes
        total = int(t.distances_from(0).sum())     # vertex-transitive
        res = {"K": nn, "formula": p_level2("BH/CCC", nn), "bfs": total / (nn - 1), "bfs_with_self": total / nn}
        if dc <= 5:
            r = Level2Routing(t)
            res["routed"] = sum(r.hops(s, x) for s in t.nodes() for x in t.nodes()) / (nn * (nn - 1))
        out[dc] = res
    return out


# ---- CLI ------------------------------------------------------------------------------------------------
FIGURES = ("2", "3", "4", "5", "6", "7", "10", "11", "12", "table2", "ccc")


def add_arguments(parser) -> None:
    parser.add_argument("--level1", default="bh:4", help="cluster network, bh:d (default bh:4: 16-node clusters)")
    parser.add_argument("--level2", default="bh,br,cc,ccc",
                        help="comma list of level-2 families bh, br, cc, ccc, each optionally :SIZE "
                             "(bh:6 = BH(6), ccc:4 = CCC(4)); without a size it follows --nodes")
    parser.add_argument("--nodes", type=int, default=1024, help="total nodes N (default 1024)")
    parser.add_argument("--alpha", type=float, default=0.8, help="locality: P(destination in own cluster)")
    parser.add_argument("--lam", type=float, default=1.0, help="message rate per node")
    parser.add_argument("--mu-cl", type=float, default=3.0, help="service rate of cluster links")
    parser.add_argument("--mu-ncl", type=float, default=None, help="service rate of level-2 links (default mu-cl)")
    parser.add_argument("--replication", type=int, default=1,
                        help="parallel level-2 links i: mu_NCL = i mu_CL and i times the level-2 link cost")
    parser.add_argument("--explicit", action="store_true",
                        help=f"also compute on the explicit graph (N <= {EXPLICIT_MAX_NODES})")
    parser.add_argument("--figure", default=None, choices=FIGURES, help="print the data of a figure/table")


def _check(args) -> tuple[int, int, list[tuple[str, int]]]:
    l1 = network_from_spec(args.level1, level="level1")
    if not isinstance(l1, Hypercube):
        raise CubenocError(f"the analysis covers BH clusters only (--level1 bh:d), got {args.level1!r}")
    d = l1.n
    if not 0.0 <= args.alpha <= 1.0:
        raise CubenocError(f"alpha must be in 0..1, got {args.alpha}")
    for name in ("lam", "mu_cl"):
        if getattr(args, name) <= 0:
            raise CubenocError(f"{name.replace('_', '-')} must be positive, got {getattr(args, name)}")
    if args.mu_ncl is not None and args.mu_ncl <= 0:
        raise CubenocError(f"mu-ncl must be positive, got {args.mu_ncl}")
    require_int(args.replication, "replication", 1, 64)
    if args.replication > 1 and args.mu_ncl is not None:
        raise CubenocError("give either --replication (mu_NCL = i mu_CL) or --mu-ncl, not both")
    nets = []
    for spec in str(args.level2).split(","):
        fam, _, size = spec.strip().lower().partition(":")
        if fam not in LEVEL2_OF:
            raise CubenocError(f"level2 must be a comma list of bh, br, cc, ccc (optionally :SIZE), got {spec!r}")
        if size:
            k = network_from_spec(spec).num_nodes
        else:
            n_nodes = require_int(args.nodes, "nodes", 4, 1 << 20)
            if n_nodes % (2 ** d):
                raise CubenocError(f"nodes must be a multiple of the cluster size {2 ** d}, got {n_nodes}")
            k = n_nodes // 2 ** d
            if not exists(LEVEL2_OF[fam], k) and "," not in str(args.level2):
                level2_size(LEVEL2_OF[fam], k)   # raises the family's own message
        nets.append((LEVEL2_OF[fam], k))
    if len({k for _, k in nets}) > 1:
        raise CubenocError("all level-2 networks must have the same number of clusters: "
                           + ", ".join(f"{c}: K={k}" for c, k in nets))
    k = nets[0][1]
    if k < 2 or k & (k - 1):
        # the BH reference (and eqs 1-5) need N = 2^D
        raise CubenocError(f"the BH reference needs a power-of-two number of clusters, got K={k}")
    return d, k, [(c, kk) for c, kk in nets if exists(c, kk)]


def analyze(args) -> AnalysisResult:
    if args.figure:
        return _figure(args.figure)
    d, k, nets = _check(args)
    mu_ncl = args.mu_ncl if args.mu_ncl is not None else args.mu_cl * args.replication
    rows = [row(None, d, k, args.alpha, args.lam, args.mu_cl, args.mu_cl, explicit=args.explicit)]
    rows += [row(c, d, k, args.alpha, args.lam, args.mu_cl, mu_ncl, args.replication, explicit=args.explicit)
             for c, _ in nets]
    cols = ["network", "N", "K", "L", "P", "LP_ratio", "R", "LR_ratio"]
    extra = [c for c in ("L_count", "P_bfs", "P_routed", "R_explicit") if any(c in r for r in rows)]
    text = (f"Hierarchical networks, clusters BH({d}) (n = {2 ** d}), K = {k}, alpha = {args.alpha}, "
            f"lam = {args.lam}, mu_CL = {args.mu_cl}, mu_NCL = {mu_ncl}, level-2 replication {args.replication}\n"
            + table([[r.get(c, "") for c in cols + extra] for r in rows], cols + extra)
            + "\nR = inf: some link saturated (utilisation >= 1).")
    skipped = [LEVEL2_OF[f.split(':')[0]] for f in args.level2.split(",")
               if not exists(LEVEL2_OF[f.split(':')[0].strip().lower()], k)] if "," in args.level2 else []
    if skipped:
        text += f"\nno {', '.join(skipped)} network has K = {k} clusters (skipped)."
    data = {"d": d, "K": k, "alpha": args.alpha, "lam": args.lam, "mu_CL": args.mu_cl, "mu_NCL": mu_ncl,
            "replication": args.replication, "networks": [_json(r) for r in rows]}

    def plot(path: str) -> None:
        _plot_alpha(figure_static_alpha(d, k, explicit=False), path, f"N = {2 ** d * k}, K = {k}")
    return AnalysisResult(data, text, plot)


def _json(obj):
    if isinstance(obj, dict):
        return {str(k): _json(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_json(v) for v in obj]
    if isinstance(obj, float) and math.isinf(obj):
        return None
    return obj


def _figure(which: str) -> AnalysisResult:
    if which in ("2", "3"):
        d, k = 4, (8 if which == "2" else 64)
        data = figure_static_alpha(d, k)
        rows = [[net, p["alpha"], p["P"], p.get("P_bfs", ""), p.get("P_routed", ""), p["LP_ratio"]]
                for net, pts in data["series"].items() for p in pts]
        text = table(rows, ["network", "alpha", "P", "P_bfs", "P_routed", "LP_ratio"])
        plot = lambda path: _plot_alpha(data, path, f"Fig. {which}: N = {16 * k}, K = {k}")  # noqa: E731
    elif which in ("4", "5"):
        data = figure_static_size()
        rows = [[net, p["N"], p["L"], p["P"], p["LP_ratio"]] for net, pts in data["series"].items() for p in pts]
        text = table(rows, ["network", "N", "L", "P", "LP_ratio"])
        plot = lambda path: _plot_size(data, path, ("L",) if which == "5" else ("P", "LP_ratio"))  # noqa: E731
    elif which == "6":
        data = figure_6()
        rows = [[net, p["alpha"], p["R"], p["LR_ratio"], "" if p["util_NCL"] is None else p["util_NCL"]]
                for net, pts in data["series"].items() for p in pts]
        text = table(rows, ["network", "alpha", "R", "LR_ratio", "util_NCL"])
        plot = lambda path: _plot_xy(data["series"], "alpha", ("R", "LR_ratio"), path)  # noqa: E731
    elif which == "7":
        data = figure_7()
        rows = [[net, p["N"], p["replication"], p["R"], p["LR_ratio"]] for net, pts in data["series"].items() for p in pts]
        text = table(rows, ["network", "N", "i", "R", "LR_ratio"])
        plot = lambda path: _plot_xy(data["series"], "N", ("R", "LR_ratio"), path, logx=True)  # noqa: E731
    elif which == "10":
        data = figure_10()
        rows = [[code, v["mu_NCL/mu_CL"]] + v["util"] for code, v in data.items()]
        text = table(rows, ["network", "mu_NCL/mu_CL", "j=0 (NCL)"] + [f"j={j}" for j in range(1, 5)])
        plot = None
    elif which == "11":
        data = figure_11()
        rows = [[code, p["ratio"], p["LR_ratio"]] for code, v in data.items() for p in v["points"]]
        text = table(rows, ["network", "mu_NCL/mu_CL", "LR_ratio"]) + "\n" + "\n".join(
            f"{code}: smallest LR ratio at mu_NCL = {v['knee']} mu_CL" for code, v in data.items())
        plot = lambda path: _plot_xy({c: v["points"] for c, v in data.items()}, "ratio", ("LR_ratio",), path)  # noqa: E731
    elif which == "12":
        data = sec_ivb()
        cols = list(next(iter(data.values())).keys())
        text = table([[a] + [v[c] for c in cols] for a, v in data.items()], ["alpha"] + cols)
        plot = None
    elif which == "table2":
        data = table_ii()
        text = table([[n, v["paper"], v["formula"], v["counted"]] for n, v in data.items()],
                     ["n", "paper", "1-1/sqrt(n)", "counted (torus)"])
        plot = None
    else:
        data = ccc_distance_table()
        text = table([[dc, v["K"], v["formula"], v["bfs"], v["bfs_with_self"], v.get("routed", "")]
                      for dc, v in data.items()], ["D_c", "K", "eq. 14 term", "BFS", "BFS incl. self", "routed"])
        plot = None
    return AnalysisResult(_json(data), text, plot)


# ---- plots ----------------------------------------------------------------------------------------------
def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _plot_alpha(data: dict, path: str, title: str) -> None:
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for net, pts in data["series"].items():
        a = [p["alpha"] for p in pts]
        axes[0].plot(a, [p["P"] for p in pts], marker="o", label=net)
        axes[1].plot(a, [p["LP_ratio"] for p in pts], marker="o", label=net)
    for ax, lab in zip(axes, ("average distance P", "LP ratio")):
        ax.set_xlabel("alpha"), ax.set_ylabel(lab), ax.grid(True)
    axes[0].legend()
    fig.suptitle(title)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


def _plot_size(data: dict, path: str, keys) -> None:
    _plot_xy(data["series"], "N", keys, path, logx=True)


def _plot_xy(series: dict, x: str, keys, path: str, logx: bool = False) -> None:
    plt = _plt()
    fig, axes = plt.subplots(1, len(keys), figsize=(5 * len(keys), 4), squeeze=False)
    for ax, key in zip(axes[0], keys):
        for net, pts in series.items():
            pts = [p for p in pts if p.get(key) is not None and not math.isinf(p[key])]
            ax.plot([p[x] for p in pts], [p[key] for p in pts], marker="o", label=net)
        ax.set_xlabel(x), ax.set_ylabel(key), ax.grid(True)
        if logx:
            ax.set_xscale("log", base=2)
    axes[0][0].legend()
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
