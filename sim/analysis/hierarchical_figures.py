"""The figures and tables of Dandamudi and Eager (hierarchical interconnection networks) from the measurements of
:mod:`.hierarchical_measure`: Figs. 6, 7, 10, 11, the static figures against alpha and size, Sec. IV-B, Tables I
and II, and the CCC distances.
"""
from __future__ import annotations

import math

from ..routing.hierarchical import BalancedHierarchicalRouting, HierarchicalRouting, LeastUsedSelector
from ..routing.level2 import Level2Routing
from ..topology.hierarchical import CubeConnectedCycles
from .hierarchical_formulas import level_distance as hf_level_distance
from .hierarchical_formulas import level_links as hf_level_links
from .hierarchical_formulas import CODES, SEC_IVB, TABLE_II, ccc_replication_for, lr_ratio, p_level2, queueing
from .hierarchical_measure import (ALPHAS, build, kleinrock, level_network, networks_for, random_routing_loads,
                                   routed_loads, row)


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


def table_i(log_n=range(4, 13, 2), bfs_max: int = 256) -> dict:
    """Table I: links and mean distance (distinct nodes) of CC, BH and BR against N, by the formulas of
    eqs (1), (9)-(12)'s level terms and, up to ``bfs_max`` nodes, counted and by BFS on the graph; each
    divided by the table's order (N^2 and 1; N log N and log N; N and N) to show it tends to a constant."""
    out = {}
    for fam, orders in (("CC", (lambda N: N * N, lambda N: 1.0)), ("BH", (lambda N: N * math.log2(N), math.log2)),
                        ("BR", (lambda N: N, lambda N: N))):
        rows = []
        for m in log_n:
            N = 2 ** m
            L, P = int(hf_level_links(fam, N)), hf_level_distance(fam, N)
            r = {"N": N, "L": L, "P": P, "L/order": L / orders[0](N), "P/order": P / orders[1](N)}
            if N <= bfs_max:
                t = level_network(fam, N)
                r["L_count"], r["P_bfs"] = t.num_links, float(t.distances_from(0).sum() / (N - 1))
            rows.append(r)
        out[fam] = {"order": {"CC": ("N^2", "1"), "BH": ("N log N", "log N"), "BR": ("N", "N")}[fam], "rows": rows}
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
