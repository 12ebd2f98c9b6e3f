"""Enhanced hypercube Q(n, k) (Tzeng and Wei): the paper's closed forms, one function per
equation or theorem, to check against the paper line by line, and the printed Tables I-II.

Traffic model (Sec. II-A): a message from a node goes to a given node of regular-cube distance class
H_l (Hamming distance l) with probability ``p_l = alpha0 * g**-l`` (``p_l = g * p_{l+1}``); alpha0
normalises ``sum_l C(n,l) p_l = 1`` (eq. 2) and depends on n and g only, so the enhanced hypercube uses
the same p_l per Hamming class. g = 1 is uniform traffic.

Eqs (1)-(2) D_mean of Q_n; Theorem 2 the diameter; eqs (3)-(5) D_mean of Q(n, k); eqs (6)-(7) the
traffic densities TD_s, TD_r; eq. (8) and Sec. VI-A the cost and eta. :func:`td_regular_max` is ours,
not the paper's (the busiest regular link; eq. (7) is the mean, see docs/papers/enhanced.md). What the
formulas are checked against on the network is in :mod:`.enhanced_measure`.
"""
from __future__ import annotations

import math
from functools import lru_cache

from cubenoc.errors import CubenocError, require_int

MAX_N = 30            # formulas (binomials and powers of g stay well inside float range)
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
# text states it, "C_pe = 100 C_nl, C_nl = 10 C_cc", and a reading closer to the printed numbers,
# "C_pe = 100 C_cc, C_nl = 10 C_cc" (8 of 12 cells after rounding; no single cost ratio gives all 12,
# see docs/papers/enhanced.md).
COSTS_UPPER = (10.0, 1.0, 1.0)
COSTS_LOWER_TEXT = (1000.0, 10.0, 1.0)
COSTS_LOWER_FIT = (100.0, 10.0, 1.0)


# ---- parameters (the domain of the formulas) -------------------------------------------------------
def check_n(n, lo: int = 2) -> int:
    """The cube dimension n, lo..MAX_N (a one-line CubenocError otherwise)."""
    return require_int(n, "n", lo, MAX_N)


def check_k(n: int, k, upto: int | None = None) -> int:
    """Q(n, k) needs 0 <= k <= n - 2 (Sec. III); ``upto`` widens it (Fig. 4 runs k to n)."""
    hi = n - 2 if upto is None else upto
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= hi:
        raise CubenocError(f"k must be in 0..{'n-2' if upto is None else 'n'} for an n-cube (n={n}), got {k}")
    return k


def check_g(g) -> float:
    """The locality g >= 1 of Sec. II-A (g = 1 uniform), at most MAX_G."""
    try:
        g = float(g)
    except (TypeError, ValueError):
        raise CubenocError(f"g must be a number in 1..{MAX_G:g}, got {g!r}") from None
    if not 1.0 <= g <= MAX_G:   # p_l = g p_{l+1} with g >= 1 (g = 1: uniform), Sec. II-A
        raise CubenocError(f"g must be in 1..{MAX_G:g} (g = 1 is uniform traffic), got {g:g}")
    return g


def _ceil_half(x: int) -> int:
    return -(-x // 2)


# ---- closed forms ------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def alpha0(n: int, g: float) -> float:
    """Eq. (2)'s normaliser: ``1 / sum_{l=1..n} C(n,l) g^-l``."""
    return 1.0 / sum(math.comb(n, l) * g ** -l for l in range(1, n + 1))


def p_l(n: int, g: float, l: int) -> float:
    """Sec. II-A: probability that a message goes to one given node of class H_l (l >= 1), alpha0 g^-l."""
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
    """Theorem 2: the diameter of Q(n, k), ``k + ceil((n-k)/2)`` (also Theorem 3's broadcast steps)."""
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
