"""Hierarchical interconnection networks (Dandamudi and Eager): the paper's formulas, one
function per equation, to check against the paper line by line.

Notation of the paper: ``N = 2**D`` nodes, clusters of ``n = 2**d`` nodes (level 1 is BH(d)), ``K = N/n``
clusters joined by a level-2 network (BH, BR, CC or CCC of dimension D_c, ``K = D_c 2**D_c``), locality
``alpha`` = probability that a message stays in its cluster (messages to oneself allowed, Sec. III-A),
rate ``lam`` per node, link service rates ``mu_CL`` (cluster links) and ``mu_NCL`` (level-2 links;
replicating a level-2 link ``i`` times is modelled, as in Sec. IV-A, by ``mu_NCL = i mu_CL`` and ``i``
times the level-2 link cost). The reference network is BH(D) with the same clusters (its cluster links
are the low d dimensions).

Sec. III-A (no contention): L (links) and P (mean distance), eqs (1)-(14), LP ratio (Sec. III-A1d).
Sec. III-B (M/M/1 links): R (mean delay), eqs (15)-(21), LR ratio (Sec. III-B4). The printed values
the analysis is compared with (Table II, Sec. IV-B) are here too. What these formulas are checked
against on the explicit graph is in :mod:`.hierarchical_measure`; docs/papers/hierarchical.md.
"""
from __future__ import annotations

import math

from cubenoc.errors import CubenocError, require_int

from ..topology.hierarchical import ccc_dimension_for

CODES = ("BH/BH", "BH/BR", "BH/CC", "BH/CCC")
LEVEL2_OF = {"bh": "BH/BH", "br": "BH/BR", "cc": "BH/CC", "ccc": "BH/CCC"}
INF = math.inf

# Table II as printed: cluster size -> alpha.
TABLE_II = {4: 0.5, 9: 0.67, 16: 0.75, 25: 0.80, 36: 0.83, 49: 0.86, 64: 0.875}
# Sec. IV-B / Fig. 12 as printed (D = 6, d = 3, lam = 1, mu_CL = 1.5, mu_NCL = 3): alpha -> (utilisation of
# the cluster links at the interface node, delay with random routing, delay with the improved routing);
# the delays are the paper's simulation results.
SEC_IVB = {0.5: (0.94, 15.2, 6.3), 0.6: (0.82, 5.3, 3.8)}


# ---- the level-2 network of K clusters ----------------------------------------------------------------
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


def exists(code: str, k: int) -> bool:
    """Whether the level-2 family has a member with ``k`` nodes (BH: 2^m, CCC: D_c 2^D_c)."""
    try:
        level2_size(code, k)
        return True
    except CubenocError:
        return False


# ---- static analysis (Sec. III-A): eqs (1)-(14) --------------------------------------------------
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
    """Sec. III-A1d: LP ratio = (L_H x P_H) / (L_R x P_R), the reference R = BH(D)."""
    D = d + math.log2(k)
    return l_hin(code, d, k) * p_hin(code, alpha, d, k) / (l_bh(D) * p_bh(alpha, D, d))


# ---- queueing analysis (Sec. III-B): eqs (15)-(21) ----------------------------------------------
def mm1(mu: float, lam: float) -> float:
    """Sec. III-B: each link an M/M/1 queue (Kleinrock's independence assumption), delay 1/(mu - lam);
    infinite at or beyond saturation."""
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
    """Sec. III-B4: the LR ratio, "defined similar to the LP ratio" with R (eqs 15, 18-21) in place of P."""
    D = d + math.log2(k)
    r_h = queueing(code, alpha, d, k, lam, mu_cl, mu_ncl)["R"]
    r_r = r_bh(alpha, D, d, lam, mu_cl, mu_cl)
    if math.isinf(r_h) or math.isinf(r_r):
        return INF
    return l_hin(code, d, k, replication) * r_h / (l_bh(D) * r_r)


def ccc_replication_for(d: int, k: int, alpha: float, lam: float, mu: float, limit: float = 0.8) -> int:
    """Fig. 7: the smallest integer i with level-2 utilisation below 80 % when mu_NCL = i mu_CL."""
    l2 = lam_ncl("BH/CCC", alpha, d, k, lam)
    return max(1, math.floor(l2 / (limit * mu)) + 1)
