"""Enhanced hypercube Q(n, k) analysis (seed 000): diameter, D_mean, traffic density, eta, Tables I-II.

Traffic model (Sec. II-A): a message from a node goes to a given node of regular-cube distance class
H_l (Hamming distance l) with probability ``p_l = alpha0 * g**-l`` (``p_l = g * p_{l+1}``); alpha0
normalises ``sum_l C(n,l) p_l = 1`` (eq. 2) and depends on n and g only, so the enhanced hypercube uses
the same p_l per Hamming class. g = 1 is uniform traffic.

Every quantity is computed twice: by the paper's closed forms (eqs. 1-8, Theorem 2) and by direct
computation on the network -- BFS distances on :class:`EnhancedHypercube` weighted by p_l, and the link
traversals of Algorithm C (:class:`EcubeRouting`, the per-hop rule the routers run) over all
source/destination pairs weighted the same way. Q(n, k) is a Cayley graph of Z_2^n (node x reaches
x XOR e_i and x XOR (2^(n-k)-1)) and Algorithm C's tag depends only on src XOR dst, so every source sees
the same distances and the same per-port traffic: above ``ALL_PAIRS_MAX_N`` the walk runs from node 0
only and scales by 2^n (the tests confirm source 0 equals every source for small n). Direct computation
is done up to ``CHECK_MAX_N`` = 12 (4096 nodes: about a second for all k); from there to ``MAX_N`` = 30
only the formulas are evaluated (the JSON then has ``null`` for the measured values).

Finding (see docs/papers/enhanced.md): eq. (7) spreads the regular-link traversals equally over all
regular links. For k >= 1 that is only an average: Algorithm C never changes the k high tag bits, so a
link of a high dimension carries exactly the regular hypercube's density TD, more than TD_r. We report
``TD_r_max`` (the most loaded regular link) by a closed form and by counting.
"""
from __future__ import annotations

import math
from functools import lru_cache

from cubenoc.errors import CubenocError, require_int

from .report import AnalysisResult, table

MAX_N = 30            # formulas (binomials and powers of g stay well inside float range)
CHECK_MAX_N = 12      # BFS distances and Algorithm C traversal counting
ALL_PAIRS_MAX_N = 6   # walk every source; above, node 0 and translation invariance
MAX_G = 100.0

PAPER_SIZES = (5, 10, 15, 20)      # the n columns of Tables I and II
PAPER_G = (1.0, 1.2, 1.5)          # the g rows

# Table I as printed (rows: TD_r, TD_s, TD_r/TD; the third row label is garbled in the scan as
# "TD_s/TD_r" and "TD_r/TD_s"; the text says it is the ratio of TD_r to TD).
TABLE_I = {
    1.0: {"TD_r": (0.77, 0.75, 0.82, 0.82), "TD_s": (0.39, 0.75, 0.61, 0.82), "TD_r/TD": (0.75, 0.75, 0.82, 0.82)},
    1.2: {"TD_r": (0.71, 0.75, 0.79, 0.81), "TD_s": (0.52, 0.54, 0.54, 0.53), "TD_r/TD": (0.75, 0.82, 0.87, 0.89)},
    1.5: {"TD_r": (0.69, 0.71, 0.74, 0.75), "TD_s": (0.39, 0.33, 0.30, 0.30), "TD_r/TD": (0.79, 0.89, 0.93, 0.94)},
}
# Table II as printed: eta for two unit-cost assumptions.
TABLE_II = {
    "upper": {1.0: (1.10, 1.12, 1.11, 1.11), 1.2: (1.07, 1.07, 1.05, 1.05), 1.5: (1.03, 1.01, 1.00, 1.00)},
    "lower": {1.0: (1.14, 1.14, 1.12, 1.11), 1.2: (1.10, 1.08, 1.06, 1.05), 1.5: (1.06, 1.03, 1.01, 1.01)},
}
# Unit costs (C_pe, C_nl, C_cc) of eq. (8). Upper half: "C_pe = 10 C_nl, C_nl = C_cc". Lower half as the
# text states it, "C_pe = 100 C_nl, C_nl = 10 C_cc", and the reading the printed numbers fit instead,
# "C_pe = 100 C_cc, C_nl = 10 C_cc" (see docs/papers/enhanced.md).
COSTS_UPPER = (10.0, 1.0, 1.0)
COSTS_LOWER_TEXT = (1000.0, 10.0, 1.0)
COSTS_LOWER_FIT = (100.0, 10.0, 1.0)

FIGURES = (1, 4, 5, 6, 7, 8)
FIG_G = tuple(round(1.0 + 0.05 * i, 2) for i in range(11))   # g = 1.0 .. 1.5 (the paper's range)


# ---- parameters ------------------------------------------------------------------------------------
def check_n(n, lo: int = 2) -> int:
    return require_int(n, "n", lo, MAX_N)


def check_k(n: int, k, upto: int | None = None) -> int:
    hi = n - 2 if upto is None else upto
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= hi:
        raise CubenocError(f"k must be in 0..{'n-2' if upto is None else 'n'} for an n-cube (n={n}), got {k}")
    return k


def check_g(g) -> float:
    try:
        g = float(g)
    except (TypeError, ValueError):
        raise CubenocError(f"g must be a number in 1..{MAX_G:g}, got {g!r}") from None
    if not 1.0 <= g <= MAX_G:   # p_l = g p_{l+1} with g >= 1 (g = 1: uniform), Sec. II-A
        raise CubenocError(f"g must be in 1..{MAX_G:g} (g = 1 is uniform traffic), got {g:g}")
    return g


def _ceil_half(x: int) -> int:
    return -(-x // 2)


# ---- closed forms -----------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def alpha0(n: int, g: float) -> float:
    """Eq. (2)'s normaliser: ``1 / sum_{l=1..n} C(n,l) g^-l``."""
    return 1.0 / sum(math.comb(n, l) * g ** -l for l in range(1, n + 1))


def p_l(n: int, g: float, l: int) -> float:
    """Probability that a message goes to one given node of class H_l (l >= 1)."""
    return alpha0(n, g) * g ** -l if l > 0 else 0.0


def phi(n: int, g: float, l: int) -> float:
    """Eq. (2): probability that a message travels l links in Q_n."""
    return math.comb(n, l) * p_l(n, g, l)


def dmean_hypercube(n: int, g: float) -> float:
    """Eqs. (1)-(2): D_mean of Q_n."""
    return sum(l * phi(n, g, l) for l in range(1, n + 1))


def td_hypercube(n: int, g: float) -> float:
    """TD of Q_n: eq. (7) with TD_s = 0 (Sec. IV-A)."""
    return 2 * dmean_hypercube(n, g) / n


def diameter_enhanced(n: int, k: int) -> int:
    """Theorem 2: ``k + ceil((n-k)/2)``."""
    return k + _ceil_half(n - k)


def dmean_class_far(n: int, k: int, g: float, j: int) -> float:
    """Eq. (3): the D_mean contribution of class H_{n-k+j}, 0 <= j <= k."""
    m = n - k
    s = sum(math.comb(k, i + j) * math.comb(m, i) * min(1 + j + 2 * i, m + j) for i in range(min(k - j, m) + 1))
    return p_l(n, g, m + j) * s


def dmean_class_near(n: int, k: int, g: float, j: int) -> float:
    """Eq. (4): the D_mean contribution of class H_{n-k-j}, 1 <= j <= n-k (j = n-k is the source: 0)."""
    m = n - k
    s = sum(math.comb(k, i) * math.comb(m, i + j) * min(1 + j + 2 * i, m - j) for i in range(min(k, m - j) + 1))
    return p_l(n, g, m - j) * s


def dmean_enhanced(n: int, k: int, g: float) -> float:
    """Eq. (5). Valid for k = 0..n: k = n-1 (skip parallel to link 0) and k = n (a self-loop) give Q_n's
    D_mean, as the paper notes for Fig. 4."""
    return (sum(dmean_class_far(n, k, g, j) for j in range(k + 1))
            + sum(dmean_class_near(n, k, g, j) for j in range(1, n - k + 1)))


def skip_probability(n: int, k: int, g: float) -> float:
    """The probability that a message takes its source's skip (Algorithm C): half of eq. (6)."""
    m = n - k
    return sum(math.comb(m, l) * sum(math.comb(k, j) * p_l(n, g, l + j) for j in range(k + 1))
               for l in range(_ceil_half(m) + 1, m + 1))


def td_skip(n: int, k: int, g: float) -> float:
    """Eq. (6): TD_s; each skip is shared by two nodes."""
    return 2 * skip_probability(n, k, g)


def td_regular(n: int, k: int, g: float) -> float:
    """Eq. (7): TD_r = (2 D_mean - TD_s) / n, the mean density over the regular links."""
    return (2 * dmean_enhanced(n, k, g) - td_skip(n, k, g)) / n


def td_regular_max(n: int, k: int, g: float) -> float:
    """The most loaded regular link. Algorithm C leaves the k high tag bits alone, so each of the k high
    dimensions carries Q_n's TD; the n-k low dimensions share the rest equally (by symmetry)."""
    if k == 0:
        return td_regular(n, 0, g)
    td = td_hypercube(n, g)
    low = (n * td_regular(n, k, g) - k * td) / (n - k)
    return max(td, low)


def cost_per_node(degree: int, costs: tuple[float, float, float]) -> float:
    """Eq. (8) per node: C_pe + C_nl * links + C_cc * connections with links = connections = the node's
    degree (every available link used; the reading that reproduces Table II, see the docs)."""
    c_pe, c_nl, c_cc = costs
    return c_pe + (c_nl + c_cc) * degree


def eta(n: int, k: int, g: float, costs=COSTS_UPPER) -> float:
    """Sec. VI-A: eta = (cost x D_mean of Q_n) / (cost x D_mean of Q(n, k)); > 1 favours Q(n, k)."""
    return (cost_per_node(n, costs) * dmean_hypercube(n, g)) / (cost_per_node(n + 1, costs) * dmean_enhanced(n, k, g))


MEASURES = {
    "diameter": lambda n, k, g: diameter_enhanced(n, k),
    "D_mean": dmean_enhanced,
    "TD_r": td_regular,
    "TD_r_max": td_regular_max,
}


def k_opt(n: int, g: float, measure: str = "D_mean") -> int:
    """The k in 0..n-2 minimising a measure (Sec. IV: 'optimal' enhanced hypercube); the smallest on ties.
    eta's k_opt is D_mean's (the cost does not depend on k)."""
    f = MEASURES[measure]
    vals = [f(n, k, g) for k in range(n - 1)]
    best = min(vals)
    return next(k for k, v in enumerate(vals) if v <= best + 1e-12)


# ---- direct computation on the network -------------------------------------------------------------
def _sources(topo, sources):
    if sources is None:
        return list(topo.nodes()) if topo.n <= ALL_PAIRS_MAX_N else [0]
    return list(sources)


def bfs_dmean(n: int, k: int | None, g: float, sources=None) -> float:
    """D_mean by BFS on Q(n, k) (or Q_n for ``k=None``), weighting each destination by p_{Hamming}."""
    from ..topology.hypercube import EnhancedHypercube, Hypercube
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
    from ..routing.hypercube import EcubeRouting
    from ..topology.hypercube import EnhancedHypercube, Hypercube
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
    from ..broadcast.base import run_broadcast
    from ..broadcast.hypercube import broadcast_for
    from ..topology.hypercube import EnhancedHypercube, Hypercube
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


# ---- rows, tables, figures --------------------------------------------------------------------------
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
        return {"figure": fig, "x": "n", "n": ns, "series": series}
    raise CubenocError(f"--figure must be one of {', '.join(map(str, FIGURES))} (Figs. 2, 3, 9 are drawings), got {fig}")


# ---- CLI -------------------------------------------------------------------------------------------
def add_arguments(parser) -> None:
    parser.add_argument("--n", type=int, default=10, help=f"cube dimension (2..{MAX_N}; BFS and traversal "
                        f"counting up to {CHECK_MAX_N}, formulas only beyond)")
    parser.add_argument("--k", type=int, default=None, help="enhanced: only this k (0..n-2); default every k")
    parser.add_argument("--g", type=float, default=1.0, help="locality: p_l = g p_{l+1} (1 = uniform)")
    parser.add_argument("--cost", default="10:1:1", metavar="PE:NL:CC",
                        help="unit costs C_pe:C_nl:C_cc of eq. (8) for eta (default 10:1:1, Table II upper half)")
    parser.add_argument("--table", type=int, default=None, help="reproduce Table 1 or 2 next to the printed values")
    parser.add_argument("--figure", type=int, default=None, help=f"data of Fig. {', '.join(map(str, FIGURES))}")
    parser.add_argument("--no-check", action="store_true", help="formulas only (skip BFS and traversal counting)")


def _parse_costs(text: str) -> tuple[float, float, float]:
    try:
        vals = tuple(float(x) for x in str(text).split(":"))
    except ValueError:
        vals = ()
    if len(vals) != 3 or any(not math.isfinite(v) or v < 0 for v in vals):
        raise CubenocError(f"--cost must be three non-negative numbers C_pe:C_nl:C_cc, e.g. 10:1:1, got {text!r}")
    return vals


def analyze(args) -> AnalysisResult:
    family = getattr(args, "family_name", "enhanced")
    if args.table is not None:
        if args.table not in (1, 2):
            raise CubenocError(f"--table must be 1 or 2, got {args.table}")
        return _table_result(args.table)
    if args.figure is not None:
        return _figure_result(figure_data(args.figure))
    g = check_g(args.g)
    check = not args.no_check
    if family == "hypercube":
        if args.k is not None:
            raise CubenocError("--k applies to `analyze enhanced` only (Q_n has no skips)")
        n = check_n(args.n, 1)
        return _hypercube_result(n, g, check)
    n = check_n(args.n, 2)
    costs = _parse_costs(args.cost)
    ks = [check_k(n, args.k)] if args.k is not None else list(range(n - 1))
    return _enhanced_result(n, g, ks, costs, check)


def _f(x, digits=4):
    return "-" if x is None else (f"{x:.{digits}f}" if isinstance(x, float) else str(x))


def _hypercube_result(n, g, check) -> AnalysisResult:
    row = hypercube_row(n, g, check)
    m = row["measured"]
    data = {"family": "hypercube", "n": n, "g": g, "alpha0": alpha0(n, g), **row}
    rows = [["diameter", row["diameter"], m and m["diameter"]],
            ["D_mean (eqs 1-2)", row["D_mean"], m and m["D_mean"]],
            ["TD (eq 7, TD_s=0)", row["TD"], m and m["TD_r"]],
            ["broadcast steps (Alg. B)", row["broadcast_steps"], m and m["broadcast_steps"]]]
    text = (f"Q_{n} (2^{n} nodes), g = {g:g}, alpha0 = {alpha0(n, g):.6g}\n"
            + table([[a, _f(b), _f(c)] for a, b, c in rows], ["measure", "formula", "BFS / Algorithm A"])
            + ("" if m else f"\n(measured values only for n <= {CHECK_MAX_N})"))
    return AnalysisResult(data, text, lambda path: _plot_figure(figure_data(1), path))


def _enhanced_result(n, g, ks, costs, check) -> AnalysisResult:
    rows = [enhanced_row(n, k, g, costs, check) for k in ks]
    reg = hypercube_row(n, g, check)
    kopt = {m: k_opt(n, g, m) for m in MEASURES}
    kopt["eta"] = kopt["D_mean"]
    data = {"family": "enhanced", "n": n, "g": g, "alpha0": alpha0(n, g), "costs": list(costs),
            "rows": rows, "regular": reg, "k_opt": kopt,
            "check_max_n": CHECK_MAX_N}
    head = ["k", "diam", "D_mean", "D_mean BFS", "TD_r", "TD_r count", "TD_r max", "TD_s", "TD_s count",
            "eta", "bcast"]
    body = []
    for r in rows:
        m = r["measured"] or {}
        body.append([r["k"], f"{r['diameter']}/{_f(m.get('diameter'))}", r["D_mean"], _f(m.get("D_mean")),
                     r["TD_r"], _f(m.get("TD_r")), r["TD_r_max"], r["TD_s"], _f(m.get("TD_s")), r["eta"],
                     f"{r['broadcast_steps']}/{_f(m.get('broadcast_steps'))}"])
    text = (f"Q(n, k) for n = {n}, g = {g:g} (alpha0 = {alpha0(n, g):.6g}); costs C_pe:C_nl:C_cc = "
            f"{':'.join(f'{c:g}' for c in costs)}\n"
            + table(body, head)
            + f"\nQ_{n}: diameter {n}, D_mean {reg['D_mean']:.4f}, TD {reg['TD']:.4f}, broadcast {n} steps"
            + "\ndiam and bcast: Theorem 2/3 value / BFS and Algorithm D run; 'count' = Algorithm C traversals"
            + ("" if rows[0]["measured"] else f"\n(measured values only for n <= {CHECK_MAX_N})")
            + "\nk_opt: " + ", ".join(f"{m} {k}" for m, k in kopt.items()))

    def plot(path):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
        kk = [r["k"] for r in rows]
        a.plot(kk, [r["D_mean"] for r in rows], "o-", label="Q(n,k) eq. 5")
        a.axhline(reg["D_mean"], ls="--", c="gray", label=f"Q_{n}")
        a.set(xlabel="k", ylabel="D_mean", title=f"n={n}, g={g:g}")
        a.legend()
        b.plot(kk, [r["TD_r"] for r in rows], "o-", label="TD_r eq. 7")
        b.plot(kk, [r["TD_r_max"] for r in rows], "^:", label="TD_r max link")
        b.plot(kk, [r["TD_s"] for r in rows], "s-", label="TD_s eq. 6")
        b.axhline(reg["TD"], ls="--", c="gray", label=f"TD of Q_{n}")
        b.set(xlabel="k", ylabel="messages / link / unit time")
        b.legend()
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)
    return AnalysisResult(data, text, plot)


def _table_result(which: int) -> AnalysisResult:
    if which == 1:
        t = table_i()
        rows = []
        for g, cols in t.items():
            for key in ("TD_r", "TD_s", "TD_r/TD"):
                rows.append([g, key] + [f"{c[key]:.3f} ({TABLE_I[g][key][i]:.2f})" for i, c in enumerate(cols)])
            rows.append([g, "k (k_opt D_mean)"] + [f"{c['k']} (TD_r: {c['k_opt_TD_r']})" for c in cols])
        text = ("Table I: traffic density at k = k_opt for D_mean; ours (paper's printed value)\n"
                + table(rows, ["g", "measure"] + [f"n={n}" for n in PAPER_SIZES]))
        data = {"table": 1, "ours": {str(g): v for g, v in t.items()},
                "paper": {str(g): v for g, v in TABLE_I.items()}}
    else:
        t = table_ii()
        rows = []
        for half, byg in t.items():
            for g, cols in byg.items():
                rows.append([half, g] + [
                    " / ".join(f"{c[v]:.3f}" for v in ("text", "fit") if v in c) + f" ({TABLE_II[half][g][i]:.2f})"
                    for i, c in enumerate(cols)])
        text = ("Table II: eta at k = k_opt for D_mean; ours (paper's printed value)\n"
                "upper: C_pe:C_nl:C_cc = 10:1:1; lower: 1000:10:1 as the text states / 100:10:1 (the reading "
                "the printed values fit)\n" + table(rows, ["half", "g"] + [f"n={n}" for n in PAPER_SIZES]))
        data = {"table": 2, "ours": {h: {str(g): v for g, v in byg.items()} for h, byg in t.items()},
                "paper": {h: {str(g): v for g, v in byg.items()} for h, byg in TABLE_II.items()},
                "costs": {"upper": COSTS_UPPER, "lower_text": COSTS_LOWER_TEXT, "lower_fit": COSTS_LOWER_FIT}}
    return AnalysisResult(data, text, None)


def _figure_result(fd: dict) -> AnalysisResult:
    lines = [f"Fig. {fd['figure']}: {fd.get('y', '')} versus {fd['x']}"]
    s = fd["series"]
    if fd["figure"] in (1, 5):
        head = ["g"] + list(s)
        rows = []
        for i, g in enumerate(fd["g"]):
            row = [g]
            for v in s.values():
                row.append(v[i] if isinstance(v, list) else f"{v['reduction'][i]:.4f} (k={v['k_opt'][i]})")
            rows.append(row)
        lines.append(table(rows, head))
    elif fd["figure"] == 4:
        for name, v in s.items():
            lines.append(f"{name}: " + " ".join(f"{k}:{d:.3f}" for k, d in zip(v["k"], v["D_mean"])))
    else:
        for name, v in s.items():
            lines.append(name)
            keys = [key for key in v if key != "k_opt"]
            rows = [[n, v["k_opt"][i]] + [v[key][i] for key in keys] for i, n in enumerate(fd["n"])]
            lines.append(table(rows, ["n", "k_opt"] + keys))
    return AnalysisResult(fd, "\n".join(lines), lambda path: _plot_figure(fd, path))


def _plot_figure(fd: dict, path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    f, s = fd["figure"], fd["series"]
    if f == 1:
        for name, ys in s.items():
            ax.plot(fd["g"], ys, "o-", label=name)
    elif f == 4:
        for name, v in s.items():
            ax.plot(v["k"], v["D_mean"], "o-", label=name)
    elif f == 5:
        for name, v in s.items():
            ax.plot(fd["g"], v["reduction"], "o-", label=name)
    else:
        key = "D_mean_min" if f == 6 else "TD_r_min"
        for name, v in s.items():
            ax.plot(fd["n"], v[key], "o-", label=f"{key}, {name}")
            for x, y, k in zip(fd["n"], v[key], v["k_opt"]):
                ax.annotate(str(k), (x, y), textcoords="offset points", xytext=(0, 5), fontsize=7)
            others = ("D_mean_Qn",) if f == 6 else ("TD_s", "TD")
            for o in others:
                ax.plot(fd["n"], v[o], "--", label=f"{o}, {name}")
    ax.set(xlabel=fd["x"], ylabel=fd.get("y", key if f in (6, 7, 8) else ""), title=f"seed 000, Fig. {f}")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
