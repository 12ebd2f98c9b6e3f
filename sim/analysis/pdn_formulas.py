"""Perfect difference networks (Parhami and Rakov): the paper's formulas and printed Table 1,
to check against the paper line by line. Everything else the analysis reports is computed on the
explicit graphs (:mod:`.pdn_measure`); docs/papers/pdn.md compares the two.
"""
from __future__ import annotations

import math

# ---- Table 1 as printed (delta: n, closest, next, hypercube size, its closest, its next) -----------
PAPER_TABLE1 = {
    2: (7, 0.300, 0.625, 8, 0.333, 0.778), 3: (13, 0.235, 0.500, 16, 0.333, 0.882),
    4: (21, 0.192, 0.409, None, None, None), 5: (31, 0.295, 0.781, 32, 0.333, 0.939),
    7: (57, 0.123, 0.431, 64, 0.333, 0.969), 8: (73, 0.110, 0.230, None, None, None),
    9: (91, 0.188, 0.446, None, None, None), 11: (133, 0.158, 0.366, 128, 0.333, 0.984),
    13: (183, 0.197, 0.484, None, None, None), 16: (273, 0.059, 0.120, 256, 0.333, 0.992),
    17: (307, 0.108, 0.237, None, None, None), 19: (381, 0.184, 0.448, None, None, None),
    23: (553, 0.081, 0.175, 512, 0.333, 0.996), 25: (651, 0.075, 0.161, None, None, None),
    27: (757, 0.070, 0.149, None, None, None), 29: (871, 0.065, 0.139, None, None, None),
    31: (993, 0.031, 0.063, 1024, 0.333, 0.998), 32: (1057, 0.142, 0.330, None, None, None),
}


def nodes(delta: int) -> int:
    """Definition 2: a PDN of order delta has n = delta^2 + delta + 1 nodes."""
    return delta * delta + delta + 1


def avg_distance(delta: int) -> float:
    """Sec. 3 (proof of Theorem 1, quoting [19]) and Table 2: mean distance 2 delta / (delta + 1)."""
    return 2 * delta / (delta + 1)


def avg_distance_incl_self(delta: int, n: int) -> float:
    """Sec. 2 reading: 2 delta^2 / n, the mean over all n^2 ordered pairs including a node to itself."""
    return 2 * delta * delta / n


def bisection_bound_table2(delta: int, n: int) -> float:
    """Table 2: bisection width >= (delta + 1) n / 4."""
    return (delta + 1) * n / 4


def bisection_bound_text(delta: int, n: int) -> int:
    """Sec. 3: the lower bound ceil((delta + 1)(n + 1) / 4) of [19]."""
    return math.ceil((delta + 1) * (n + 1) / 4)


def routing_table_bits(delta: int) -> int:
    """Sec. 3: Algorithm 1's table, delta (delta + 1) ceil(log2(delta + 1)) bits."""
    return delta * (delta + 1) * math.ceil(math.log2(delta + 1)) if delta else 0


def scalability(a: int, b: int) -> tuple[float, float]:
    """Table 1 (Sec. 2): between consecutive sizes a < b: worst ``|n_real - n_target| / n_target`` to the closest size
    (over integer targets a..b) and to the next larger size (target a+1)."""
    closest = max(min(t - a, b - t) / t for t in range(a, b + 1))
    return closest, (b - (a + 1)) / (a + 1)


def paper_table2(d: int) -> dict:
    """Table 2's formulas evaluated at delta = d (bisection entries are bounds)."""
    n = nodes(d)
    return {
        "K_d x K_d": {"nodes": d * d, "degree": 2 * d - 2, "links": d * d * (d - 1) / 2, "diameter": 2,
                      "avg_distance": 2 * (d - 1) / d, "bisection": f"<= {d ** 3 / 4:g}"},
        "Fig. 9": {"nodes": 2 * d * d, "degree": 2, "links": 4 * d * d, "diameter": 4, "avg_distance": 2,
                   "bisection": f"~ {d * d}"},
        "Swap(K_d)": {"nodes": d * d, "degree": d, "links": d * (d - 1) * (d + 1) / 2, "diameter": 3,
                      "avg_distance": "~ 3", "bisection": f"<= {d * d / 4:g}"},
        "basic PDN": {"nodes": n, "degree": 2 * d, "links": d * n, "diameter": 2, "avg_distance": avg_distance(d),
                      "bisection": f">= {bisection_bound_table2(d, n):g}"},
        "bipartite PDN": {"nodes": n, "degree": d + 1, "links": (d + 1) * n, "diameter": 2, "avg_distance": 2,
                          "bisection": "?"},
    }
