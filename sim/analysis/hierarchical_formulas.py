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
from .interface_trips import interface_trips, links_at_level, p_j  # noqa: F401  (p(j), eq. 16: hf.p_j)

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
def level_size(fam: str, k: int) -> int:
    """The size parameter of the ``k``-node member of a family (BH: dimension, CCC: D_c, BR/CC: k)."""
    if fam == "BH":
        if k < 2 or k & (k - 1):
            raise CubenocError(f"a BH level needs a power-of-two number of nodes, got {k}")
        return k.bit_length() - 1
    if fam == "CCC":
        return ccc_dimension_for(k)
    require_int(k, "number of clusters", 2, None)
    return k


def level2_size(code: str, k: int) -> int:
    """The level-2 family's size parameter for ``k`` clusters (BH: dimension, CCC: D_c, BR/CC: k)."""
    if code == "BH/BH" and (k < 2 or k & (k - 1)):
        raise CubenocError(f"BH/BH needs a power-of-two number of clusters, got {k}")
    return level_size(code.split("/")[1], k)


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


def level_distance(fam: str, k: int) -> float:
    """Mean distance between two different nodes of the ``k``-node level network: the P_level 2 terms of
    eqs (8), (10), (12), (14) (CCC: Wittie's expression quoted in eq. 14)."""
    if fam == "BH":
        m = level_size(fam, k)
        return m * 2 ** (m - 1) / (2 ** m - 1)
    if fam == "BR":                      # eq. (10)'s term holds for an even ring (the paper's K = 2^(D-d));
        return k ** 2 / (4 * (k - 1)) if k % 2 == 0 else (k + 1) / 4      # an odd ring's: (K+1)/4
    if fam == "CC":
        return 1.0
    dc = level_size(fam, k)
    return 7 / 4 * dc - 3 + (dc + 1) / 2 ** (dc - 1)


def level_links(fam: str, k: int) -> float:
    """Links of the ``k``-node level network (the second terms of eqs 6, 9, 11, 13)."""
    size = level_size(fam, k)
    return {"BH": size * 2 ** (size - 1), "BR": k, "CC": k * (k - 1) / 2, "CCC": 3 * size * 2 ** (size - 1)}[fam]


def p_level2(code: str, k: int) -> float:
    """Mean level-2 distance between different clusters used in eqs (8), (10), (12), (14)."""
    return level_distance(code.split("/")[1], k)


def l_level2(code: str, k: int) -> float:
    """Links of the level-2 network (the second terms of eqs 6, 9, 11, 13)."""
    return level_links(code.split("/")[1], k)


def two_levels(code: str, d: int, k: int) -> tuple:
    """The levels of a two-level HIN ``code`` (``BH/CCC``) with BH(d) clusters and ``k`` clusters."""
    return (("BH", 2 ** d), (code.split("/")[1], k))


def l_hin(code: str, d: int, k: int, replication: float = 1) -> float:
    """Eqs (6), (9), (11), (13): K BH(d) clusters plus the level-2 links (times the replication)."""
    return l_levels(two_levels(code, d, k), replication)


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
    return p_levels(two_levels(code, d, k), alpha)


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


def lam_ncl(code: str, alpha: float, d: int, k: int, lam: float) -> float:
    """lambda_link,NCL of Sec. III-B2/3 (every level-2 half-duplex link equally loaded)."""
    return across_rate(two_levels(code, d, k), 2, alpha, lam)


def queueing(code: str, alpha: float, d: int, k: int, lam: float, mu_cl: float, mu_ncl: float) -> dict:
    """Eqs (16)-(21): per-level rates and delays, R and the level-2 utilisation."""
    q = queueing_levels(two_levels(code, d, k), alpha, lam, mu_cl, mu_ncl)
    one, two = q["levels"]
    return {"R": q["R"], "Delta_avg": one["Delta_avg"], "Delta_CL_avg": one["Delta_up"],
            "Delta_NCL_avg": two["Delta_avg"], "util_CL": one["util"], "util_NCL": two["util"][0]}


# ---- more than two levels (Sec. II-C's general structure) ----------------------------------------
# A HIN of levels 1..m is a tuple ((family, K_1), ...): family BH, BR, CC or CCC, K its node count n_l
# (level 1: the cluster, BH). Locality as in Sec. III-A: alpha stays in the level-1 cluster, the rest goes
# uniformly to the N - n_1 nodes of the other clusters. A message whose highest differing level is h
# goes up levels 1..h-1 to their interface nodes, across level h, down levels h-1..1: eq. (7) becomes
#   P = alpha P_1 + (1 - alpha) sum_h q_h [2 sum_(l<h) P_l^0 + P_h],
# with q_h the share of intercluster messages whose top level is h, P_l^0 the mean distance of a level-l
# node to the interface position 0 (self included: P_l (n_l - 1) / n_l, every level network here being
# vertex-transitive; d/2 for BH(d)) and P_h the mean distance between different nodes; two levels: eq. (7).
# Eqs (16)-(18) likewise: a level below the top carries its across messages evenly and the trips leaving
# and entering its cluster through position 0, each channel its share of them (BH: p(j), eq. 16; BR, CC,
# CCC: :mod:`.interface_trips`), so R sums the same per-level delays.
def level_nodes(levels) -> list[int]:
    """M_l: nodes in a level-l cluster, l = 0 (1 node) .. m (the network)."""
    out = [1]
    for _, k in levels:
        out.append(out[-1] * k)
    return out


def l_levels(levels, replication: float = 1) -> float:
    """Eqs (6), (9), (11), (13) for any number of levels: N / M_l copies of each level-l network, the
    levels above 1 replicated."""
    m = level_nodes(levels)
    return sum(m[-1] // m[i + 1] * level_links(fam, k) * (replication if i else 1)
               for i, (fam, k) in enumerate(levels))


def top_level_shares(levels) -> list[float]:
    """q_h (index h - 1): the share of intercluster messages whose highest differing level is h (0 for h = 1)."""
    m = level_nodes(levels)
    return [0.0] + [(m[h] - m[h - 1]) / (m[-1] - m[1]) for h in range(2, len(levels) + 1)]


def p_to_interface(fam: str, k: int) -> float:
    """P_l^0: mean distance of a level node to position 0, self included (d/2 for BH(d), eq. 3)."""
    return level_distance(fam, k) * (k - 1) / k


def p_levels(levels, alpha: float) -> float:
    """Eq. (7) for any number of levels (above): two levels give eqs (8), (10), (12), (14)."""
    return sum(p_per_level(levels, alpha))


def p_per_level(levels, alpha: float) -> list[float]:
    """The hops of P (:func:`p_levels`) taken in each level's networks: level l carries the up and down
    trips of the messages whose top level is above it, and the across trips of those whose top it is."""
    up = [p_to_interface(fam, k) for fam, k in levels]
    q = top_level_shares(levels)
    return [(alpha * up[0] if i == 0 else 0.0)
            + (1 - alpha) * (2 * sum(q[i + 1:]) * up[i] + q[i] * level_distance(fam, k))
            for i, (fam, k) in enumerate(levels)]


def across_rate(levels, level: int, alpha: float, lam: float) -> float:
    """Per half-duplex link of a level-``level`` network, the rate of the messages whose top level it is
    (spread evenly by random shortest-path routing): level 1 alpha lam/2 for BH (Sec. III-B2), the top
    level of two lambda_link,NCL of Sec. III-B2/3."""
    fam, k = levels[level - 1]
    m = level_nodes(levels)
    if level == 1:
        per_node, dist = alpha * lam, p_to_interface(fam, k)             # self included, Sec. III-A
    else:
        per_node = m[level - 1] * (1 - alpha) * lam * (m[level] - m[level - 1]) / (m[-1] - m[1])
        dist = level_distance(fam, k)
    return per_node * dist * k / (2 * level_links(fam, k))


def outbound_rate(levels, level: int, alpha: float, lam: float) -> float:
    """The rate of messages leaving one level-``level`` cluster (each direction through its interface):
    n lam (1 - alpha) at level 1 (eq. 16), 0 at the top."""
    m = level_nodes(levels)
    return m[level] * (1 - alpha) * lam * (m[-1] - m[level]) / (m[-1] - m[1])


def level_queue(levels, level: int, alpha: float, lam: float, mu: float) -> dict:
    """One level's channel rates and delays (eq. 16 generalised): every channel carries the level's across
    messages evenly and, below the top, its share s of the node<->interface trips (:func:`interface_trips`;
    BH: p(j)), so rate = lambda'_j + lambda''_j = a + o s. Delta_avg is the mean channel delay (eq. 18's
    Delta_Avg, Delta_NCL-Avg); Delta_up the delay of one trip, the mean of an up and a down trip
    (Delta_CL-Avg); they are per channel, one direction of a link, as the explicit graph counts them."""
    fam, k = levels[level - 1]
    a, o = across_rate(levels, level, alpha, lam), outbound_rate(levels, level, alpha, lam)
    channels = 2 * level_links(fam, k)
    trips = interface_trips(fam, k) if level < len(levels) else ((channels, 0.0),)
    rates = [a + o * s for _, s in trips]
    delays = [mm1(mu, x) for x in rates]
    d_avg = sum(c * x for (c, _), x in zip(trips, delays)) / channels
    d_up = sum(c * s * x for (c, s), x in zip(trips, delays) if s) / 2
    return {"rates": rates, "util": [x / mu for x in rates], "Delta_avg": d_avg, "Delta_up": d_up}


def queueing_levels(levels, alpha: float, lam: float, mu_cl: float, mu_ncl: float) -> dict:
    """Eqs (16)-(18) for any number of levels and any of BH, BR, CC, CCC at each (above): per level the
    channel rates (:func:`level_queue`), the mean link delay of its evenly spread messages (Delta_Avg /
    Delta_NCL-Avg), the delay of one trip between a node and the interface (Delta_CL-Avg), the delay it
    adds to the mean message (``R`` of the level), and R, eq. (17) generalised:
    R = alpha R_1 + (1 - alpha) sum_h q_h [2 sum_(l<h) Delta_up_l + P_h Delta_avg_h]."""
    out = [level_queue(levels, i + 1, alpha, lam, mu_cl if i == 0 else mu_ncl) for i in range(len(levels))]
    q = top_level_shares(levels)
    for i, x in enumerate(out):             # the delay each level adds to the mean message, as p_per_level
        above = sum(q[i + 1:])
        inter = (2 * above * x["Delta_up"] if above else 0.0) + \
            (q[i] * level_distance(*levels[i]) * x["Delta_avg"] if q[i] else 0.0)
        intra = p_to_interface(*levels[0]) * x["Delta_avg"] if i == 0 else 0.0
        x["R"] = intra if alpha == 1.0 else alpha * intra + (1 - alpha) * inter
    return {"R": sum(x["R"] for x in out), "levels": out}


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
