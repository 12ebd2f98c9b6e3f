"""Enhanced hypercube Q(n, k) (Tzeng and Wei): the quantities of :mod:`.enhanced_formulas` computed directly
on the network, the rows that put both side by side, and the data of Tables I-II and the figures.

Direct computation: BFS distances on :class:`EnhancedHypercube` weighted by p_l, and the link traversals
of Algorithm C (:class:`EcubeRouting`, the per-hop rule the routers run) over all source/destination
pairs weighted the same way. Q(n, k) is a Cayley graph of Z_2^n (node x reaches x XOR e_i and
x XOR (2^(n-k)-1)) and Algorithm C's tag depends only on src XOR dst, so every source sees the same
distances and the same per-port traffic: above ``ALL_PAIRS_MAX_N`` the walk runs from node 0 only and
scales by 2^n (the tests confirm source 0 equals every source for small n). Direct computation is done
up to ``CHECK_MAX_N`` = 12 (4096 nodes: about a second for all k); from there to ``MAX_N`` = 30 only the
formulas are evaluated (the JSON then has ``null`` for the measured values).

Finding (see docs/papers/enhanced.md): eq. (7) spreads the regular-link traversals equally over all
regular links. For k >= 1 that is only an average: Algorithm C never changes the k high tag bits, so a
link of a high dimension carries exactly the regular hypercube's density TD, more than TD_r. We report
``TD_r_max`` (the most loaded regular link) by a closed form and by counting.
"""
from __future__ import annotations

from cubenoc.errors import CubenocError

from ..broadcast.base import run_broadcast
from ..broadcast.hypercube import broadcast_for
from ..routing.hypercube import EcubeRouting
from ..topology.hypercube import EnhancedHypercube, Hypercube
from .enhanced_formulas import (COSTS_LOWER_FIT, COSTS_LOWER_TEXT, COSTS_UPPER, PAPER_G, PAPER_SIZES, diameter_enhanced,
                                dmean_enhanced, dmean_hypercube, eta, k_opt, p_l, td_hypercube, td_regular,
                                td_regular_max, td_skip)

CHECK_MAX_N = 12      # BFS distances and Algorithm C traversal counting
ALL_PAIRS_MAX_N = 6   # walk every source; above, node 0 and translation invariance

FIGURES = (1, 4, 5, 6, 7, 8)
FIG_G = tuple(round(1.0 + 0.05 * i, 2) for i in range(11))   # g = 1.0 .. 1.5 (the paper's range)


# ---- direct computation on the network -------------------------------------------------------------
def _sources(topo, sources):
    if sources is None:
        return list(topo.nodes()) if topo.n <= ALL_PAIRS_MAX_N else [0]
    return list(sources)


def bfs_dmean(n: int, k: int | None, g: float, sources=None) -> float:
    """D_mean by BFS on Q(n, k) (or Q_n for ``k=None``), weighting each destination by p_{Hamming}."""
    topo = Hypercube(n) if k is None else EnhancedHypercube(n, k)
    srcs = _sources(topo, sources)
    total = 0.0
    for s in srcs:
        dist = topo.distances_from(s)
        total += sum(p_l(n, g, (s ^ v).bit_count()) * int(dist[v]) for v in topo.nodes() if v != s)
    return total / len(srcs)


def traversal_counts(n: int, k: int | None, g: float, sources=None) -> dict:
    """Walk Algorithm C (Algorithm A for ``k=None``) from every source in ``sources`` to every node with
    the routers' per-hop rule, weighting each pair by p_{Hamming}. Returns per-port densities
    (messages per link per unit time, both directions, each node issuing one message per unit time),
    the per-link loads, and the weighted mean hop count (= D_mean by Theorem 1)."""
    topo = Hypercube(n) if k is None else EnhancedHypercube(n, k)
    routing = EcubeRouting(topo)
    srcs = _sources(topo, sources)
    ports = topo.num_ports(0)
    load: dict[tuple[int, int], float] = {}   # (lower node, port) -> weighted traversals
    hops_total = 0.0
    for s in srcs:
        for d in topo.nodes():
            if d == s:
                continue
            w = p_l(n, g, (s ^ d).bit_count())
            node, header = s, routing.inject(s, d)
            while True:
                hop = routing.route(node, header)
                if hop.port == topo.local_port(node):
                    break
                far, _ = topo.neighbor(node, hop.port)
                key = (min(node, far), hop.port)
                load[key] = load.get(key, 0.0) + w
                hops_total += w
                node, header = far, hop.header
    scale = topo.num_nodes / len(srcs)         # translation invariance when not every source is walked
    links_per_port = topo.num_nodes // 2
    per_port = [0.0] * ports
    for (_u, p), v in load.items():
        per_port[p] += v
    per_port = [scale * v / links_per_port for v in per_port]
    return {"per_port": per_port, "links": load, "sources": len(srcs), "D_mean": hops_total / len(srcs)}


def measured(n: int, k: int | None, g: float) -> dict:
    """BFS D_mean and diameter, counted traffic, and Algorithm B/D run from node 0 (n <= CHECK_MAX_N)."""
    topo = Hypercube(n) if k is None else EnhancedHypercube(n, k)
    tc = traversal_counts(n, k, g)
    dims = tc["per_port"][:n]
    trace = run_broadcast(broadcast_for(topo), 0)
    return {
        "diameter": topo.diameter(),
        "D_mean": bfs_dmean(n, k, g),
        "D_mean_routed": tc["D_mean"],
        "TD_r": sum(dims) / n,
        "TD_r_max": max(dims),
        "TD_s": tc["per_port"][n] if k is not None else None,
        "TD_per_dimension": dims,
        "broadcast_steps": trace.steps,
        "broadcast_exactly_once": trace.exactly_once,
        "pairs_walked": tc["sources"] * (topo.num_nodes - 1),
    }


# ---- rows, tables, figures ---------------------------------------------------------------------------
def enhanced_row(n: int, k: int, g: float, costs=COSTS_UPPER, check: bool = True) -> dict:
    row = {
        "k": k,
        "diameter": diameter_enhanced(n, k),
        "D_mean": dmean_enhanced(n, k, g),
        "TD_r": td_regular(n, k, g),
        "TD_s": td_skip(n, k, g),
        "TD_r_max": td_regular_max(n, k, g),
        "eta": eta(n, k, g, costs),
        "broadcast_steps": diameter_enhanced(n, k),   # Theorem 3
    }
    row["measured"] = measured(n, k, g) if check and n <= CHECK_MAX_N else None
    return row


def hypercube_row(n: int, g: float, check: bool = True) -> dict:
    row = {"diameter": n, "D_mean": dmean_hypercube(n, g), "TD": td_hypercube(n, g), "broadcast_steps": n}
    row["measured"] = measured(n, None, g) if check and n <= CHECK_MAX_N else None
    return row


def table_i() -> dict:
    """Table I: TD_r, TD_s and TD_r/TD at k = k_opt for D_mean (the k the printed values fit; Sec. IV-A)."""
    out = {}
    for g in PAPER_G:
        cols = []
        for n in PAPER_SIZES:
            k = k_opt(n, g, "D_mean")
            tdr = td_regular(n, k, g)
            cols.append({"n": n, "k": k, "TD_r": tdr, "TD_s": td_skip(n, k, g), "TD_r/TD": tdr / td_hypercube(n, g),
                         "k_opt_TD_r": k_opt(n, g, "TD_r")})
        out[g] = cols
    return out


def table_ii() -> dict:
    """Table II: eta at k = k_opt(D_mean) for the two unit-cost assumptions (eq. 8)."""
    out = {}
    for half, variants in (("upper", {"text": COSTS_UPPER}),
                           ("lower", {"text": COSTS_LOWER_TEXT, "fit": COSTS_LOWER_FIT})):
        out[half] = {}
        for g in PAPER_G:
            cols = []
            for n in PAPER_SIZES:
                k = k_opt(n, g, "D_mean")
                cols.append({"n": n, "k": k, **{name: eta(n, k, g, c) for name, c in variants.items()}})
            out[half][g] = cols
    return out


def figure_data(fig: int) -> dict:
    """What each missing figure plots (inferred from the captions and prose), as series."""
    if fig == 1:   # D_mean of Q_n versus g for several n (Sec. II-A)
        ns = (5, 10, 15, 17, 20)
        return {"figure": 1, "x": "g", "y": "D_mean (Q_n)", "g": list(FIG_G),
                "series": {f"n={n}": [dmean_hypercube(n, g) for g in FIG_G] for n in ns}}
    if fig == 4:   # D_mean versus k (0..n; k = n-1, n give Q_n) for n = 10, 20 and g = 1.0, 1.2, 1.5
        series = {}
        for n in (10, 20):
            for g in PAPER_G:
                series[f"n={n}, g={g}"] = {"k": list(range(n + 1)), "D_mean": [dmean_enhanced(n, k, g) for k in range(n + 1)]}
        return {"figure": 4, "x": "k", "y": "D_mean", "series": series}
    if fig == 5:   # D_mean reduction (Q_n minus the optimal Q(n, k)) versus g
        ns = (5, 10, 15, 20)
        series = {}
        for n in ns:
            red, ks = [], []
            for g in FIG_G:
                k = k_opt(n, g, "D_mean")
                red.append(dmean_hypercube(n, g) - dmean_enhanced(n, k, g))
                ks.append(k)
            series[f"n={n}"] = {"reduction": red, "k_opt": ks}
        return {"figure": 5, "x": "g", "y": "D_mean reduction", "g": list(FIG_G), "series": series}
    if fig in (6, 7, 8):
        ns = list(range(3, 21))
        gs = {6: (1.2, 1.5), 7: (1.0,), 8: (1.2, 1.5)}[fig]
        series = {}
        for g in gs:
            if fig == 6:   # minimum D_mean versus n with k_opt
                ks = [k_opt(n, g, "D_mean") for n in ns]
                series[f"g={g}"] = {"k_opt": ks, "D_mean_min": [dmean_enhanced(n, k, g) for n, k in zip(ns, ks)],
                                    "D_mean_Qn": [dmean_hypercube(n, g) for n in ns]}
            else:          # minimum TD_r versus n, with TD_s, TD and k_opt
                ks = [k_opt(n, g, "TD_r") for n in ns]
                series[f"g={g}"] = {"k_opt": ks, "TD_r_min": [td_regular(n, k, g) for n, k in zip(ns, ks)],
                                    "TD_s": [td_skip(n, k, g) for n, k in zip(ns, ks)],
                                    "TD": [td_hypercube(n, g) for n in ns]}
        y = ("minimum D_mean (at k_opt) and Q_n's" if fig == 6 else
             "minimum TD_r (at k_opt), with TD_s and Q_n's TD")
        return {"figure": fig, "x": "n", "y": y, "n": ns, "series": series}
    raise CubenocError(f"--figure must be one of {', '.join(map(str, FIGURES))} (Figs. 2, 3, 9 are drawings), got {fig}")
