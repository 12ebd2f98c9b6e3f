"""Tzeng & Wei, enhanced hypercubes: the claims of Secs. IV-VII outside the tables -- the
(diameter x degree) comparison, the recommendation "k = 0 for even n, k = 1 for odd n", broadcast when
a node may use only a few links per step, and the running text's binomials before eq. (3).
docs/papers/enhanced.md explains them.
"""
from __future__ import annotations

import heapq
import itertools
import math
from functools import lru_cache

from ..broadcast.hypercube import BinomialBroadcast, EnhancedBroadcast
from ..topology.hypercube import EnhancedHypercube, Hypercube
from .enhanced_formulas import diameter_enhanced, dmean_enhanced, dmean_hypercube, k_opt, td_hypercube, td_regular
from .report import table


def recommended_k(n: int) -> int:
    """Sec. VII: a skip with k = 0 for even n, k = 1 for odd n."""
    return n % 2


# ---- Sec. VII: diameter x degree -----------------------------------------------------------------------
def diameter_degree(ns=range(2, 21), gs=(1.2, 1.5)) -> list[dict]:
    """(diameter x degree) of Q_n (n x n) against Q(n, k) ((n + 1)(k + ceil((n-k)/2)), Theorem 2) at the
    recommended k, at D_mean's k_opt for each g, and the largest k that still beats Q_n."""
    rows = []
    for n in ns:
        cube = n * n
        enh = {k: (n + 1) * diameter_enhanced(n, k) for k in range(n - 1)}
        rec = recommended_k(n)
        at_opt = {g: enh[k_opt(n, g)] for g in gs}
        rows.append({"n": n, "Q_n": cube, "k_rec": rec, "Q(n,k_rec)": enh[rec],
                     **{f"at_k_opt_g{g:g}": v for g, v in at_opt.items()},
                     "largest_k_better": max((k for k, v in enh.items() if v < cube), default=None),
                     "verdict": "holds" if enh[rec] < cube and all(v < cube for v in at_opt.values()) else "FAILS"})
    return rows


# ---- Sec. VII: the recommended k against the best k -----------------------------------------------------
def recommendation(ns=range(3, 21), gs=(1.0, 1.2, 1.5)) -> list[dict]:
    """Improvement over Q_n (D_mean, eq. 5; TD_r, eq. 7) at the recommended k as a fraction of the best
    improvement over all k (1 = optimal)."""
    rows = []
    for n, g in itertools.product(ns, gs):
        rec = recommended_k(n)
        out = {"n": n, "g": g, "k_rec": rec}
        for name, f, base in (("D_mean", dmean_enhanced, dmean_hypercube), ("TD_r", td_regular, td_hypercube)):
            best_k = k_opt(n, g, name)
            gain_best = base(n, g) - f(n, best_k, g)
            gain_rec = base(n, g) - f(n, rec, g)
            out[f"k_opt_{name}"] = best_k
            out[f"fraction_{name}"] = gain_rec / gain_best if gain_best > 0 else 1.0
        rows.append(out)
    return rows


def recommendation_summary(rows) -> dict:
    worst = {m: min(rows, key=lambda r: r[f"fraction_{m}"]) for m in ("D_mean", "TD_r")}
    return {m: {"worst_fraction": r[f"fraction_{m}"], "at": {"n": r["n"], "g": r["g"]},
                "optimal_cases": sum(r[f"fraction_{m}"] > 1 - 1e-9 for r in rows), "cases": len(rows)}
            for m, r in worst.items()}


# ---- Sec. V: broadcast when a node sends on at most p links per step -------------------------------------
def port_limited_broadcast(alg, src: int = 0, ports: int | None = None) -> int:
    """Steps until every node holds a copy when each node sends at most ``ports`` messages per step
    (``None``: all at once, as Algorithms B and D assume). The algorithm's own tree of copies is kept;
    a node sends first the copies with the deepest remaining subtree (optimal order for a fixed tree)."""
    topo = alg.topology

    def key(h):
        return tuple(sorted(h.items()))

    @lru_cache(maxsize=None)
    def height(node, hdr) -> int:
        _keep, hops = alg.forward(node, dict(hdr))
        return max((1 + height(topo.neighbor(node, h.port)[0], key(h.header)) for h in hops), default=0)

    pending: dict[int, list] = {}
    seq = itertools.count()

    def queue(node, hops):
        for h in hops:
            far = topo.neighbor(node, h.port)[0]
            heapq.heappush(pending.setdefault(node, []), (-1 - height(far, key(h.header)), next(seq), far, h.header))

    informed = {src: 0}
    queue(src, alg.start(src))
    step = 0
    while any(pending.values()):
        step += 1
        sends = []
        for node, q in pending.items():
            for _ in range(min(len(q), ports or len(q))):
                sends.append(heapq.heappop(q))
        for _h, _s, far, header in sends:
            keep, hops = alg.forward(far, header)
            if keep:
                if far in informed:
                    raise AssertionError(f"{alg.name}: node {far} kept two copies")
                informed[far] = step
            queue(far, hops)
    if len(informed) != topo.num_nodes:
        raise AssertionError(f"{alg.name}: {topo.num_nodes - len(informed)} nodes never reached")
    return max(informed.values())


def port_limited_rows(ns=range(4, 11), ports=(1, 2, 3, None)) -> list[dict]:
    rows = []
    for n in ns:
        k = recommended_k(n)
        for p in ports:
            b = port_limited_broadcast(BinomialBroadcast(Hypercube(n)), 0, p)
            d = port_limited_broadcast(EnhancedBroadcast(EnhancedHypercube(n, k)), 0, p)
            # with p sends per step the informed nodes grow at most (p + 1)-fold per step; and no
            # broadcast beats the diameter (Theorem 2)
            bound = max(math.ceil(n / math.log2(p + 1) - 1e-9) if p else 1, diameter_enhanced(n, k))
            rows.append({"n": n, "k": k, "ports": p or "all", "Q_n_algorithm_B": b, "Q(n,k)_algorithm_D": d,
                         "lower_bound": bound, "saving": b - d})
    return rows


# ---- Sec. IV: the binomials of the text before eq. (3) ---------------------------------------------------
def class_counts(n: int, k: int) -> list[dict]:
    """Nodes of class H_{n-k+j} with i zeros among the low n-k address bits (so i + j ones among the k high
    bits), counted, next to eq. (3)'s C(k, i+j) C(n-k, i) and the text's C(n-k, i+j) C(k, i)."""
    m = n - k
    rows = []
    for j in range(k + 1):
        for i in range(min(k - j, m) + 1):
            count = sum(1 for v in range(1 << n) if bin(v).count("1") == m + j
                        and m - bin(v & ((1 << m) - 1)).count("1") == i)
            rows.append({"j": j, "i": i, "counted": count, "eq3": math.comb(k, i + j) * math.comb(m, i),
                         "text": math.comb(m, i + j) * math.comb(k, i)})
    return rows


def claims(n_max: int = 20) -> dict:
    rec = recommendation(range(3, n_max + 1))
    return {"diameter_degree": diameter_degree(range(2, n_max + 1)), "recommendation": rec,
            "recommendation_summary": recommendation_summary(rec),
            "port_limited_broadcast": port_limited_rows(range(4, min(n_max, 10) + 1)),
            "class_counts_n5_k2": class_counts(5, 2)}


def text(data: dict) -> str:
    lines = ["(diameter x degree), Sec. VII: Q_n = n^2 against Q(n, k) = (n+1)(k + ceil((n-k)/2))",
             table([[r["n"], r["Q_n"], r["k_rec"], r["Q(n,k_rec)"], r["at_k_opt_g1.2"], r["at_k_opt_g1.5"],
                     r["largest_k_better"], r["verdict"]] for r in data["diameter_degree"]],
                   ["n", "Q_n", "k rec", "Q(n,k rec)", "at k_opt g=1.2", "at k_opt g=1.5", "largest k better",
                    "smaller"])]
    s = data["recommendation_summary"]
    lines += ["", "Recommendation 'k = 0 for even n, k = 1 for odd n' (Sec. VII; g = 1, 1.2, 1.5): improvement over "
              "Q_n at that k as a fraction of the best k's"]
    for m, v in s.items():
        lines.append(f"  {m}: optimal in {v['optimal_cases']} of {v['cases']} cases; worst fraction "
                     f"{v['worst_fraction']:.3f} at n = {v['at']['n']}, g = {v['at']['g']:g}")
    lines += ["", "Broadcast with at most p sends per node per step (Sec. V's closing remark), the algorithms' trees:",
              table([[r["n"], r["k"], r["ports"], r["Q_n_algorithm_B"], r["Q(n,k)_algorithm_D"], r["lower_bound"],
                      r["saving"]] for r in data["port_limited_broadcast"]],
                    ["n", "k", "p", "Q_n Alg. B", "Q(n,k) Alg. D", "lower bound", "steps saved"])]
    bad = [r for r in data["class_counts_n5_k2"] if r["counted"] != r["text"]]
    lines += ["", "Text before eq. (3): nodes of H_(n-k+j) with i low zeros, n = 5, k = 2 (counted | eq. 3 | text):",
              "  " + "; ".join(f"j={r['j']} i={r['i']}: {r['counted']} | {r['eq3']} | {r['text']}"
                               for r in data["class_counts_n5_k2"]),
              f"  eq. (3)'s C(k,i+j) C(n-k,i) matches every count; the text's C(n-k,i+j) C(k,i) misses {len(bad)}"]
    return "\n".join(lines)
