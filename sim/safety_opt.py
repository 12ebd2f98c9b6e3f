"""The exact r-node test of Opt, the optimal model the safety levels approximate (sim/safety.py; Sec. 2.2):
:func:`r_table` by dynamic programming over (node, free dimensions), the r-node set (:func:`r_nodes`), the
level each node reaches (:func:`r_levels`) and an explicit spanning binomial tree as a witness
(:func:`r_node_order`).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .safety import FaultSet, _nbr_index


def r_table(NF: np.ndarray, LF: np.ndarray) -> list[np.ndarray]:
    """``r[S][b, v]``: v is an r-node of the subcube through v whose free dimensions are the mask S
    (Sec. 2.2): v is non-faulty and S can be split one dimension d at a time so that each split-off
    half (v^d with the remaining free dimensions) either holds no non-faulty node, or is reached over a
    non-faulty link and v^d is an r-node of it. Dynamic programming over (node, S): O(4^n n) per fault
    set, exact for every n (the analysis runs it up to ``OPT_MAX_N``)."""
    NF = np.asarray(NF, bool)
    LF = np.asarray(LF, bool)
    if NF.ndim == 1:
        NF, LF = NF[None], LF[None]
    n = LF.shape[-1]
    NB = _nbr_index(n)
    ok = ~NF
    full = (1 << n) - 1
    empty = [None] * (full + 1)      # empty[S][b, v]: subcube (v, S) holds no non-faulty node
    r = [None] * (full + 1)
    g = [None] * (full + 1)          # g[S][b, v]: the split exists (v's own status aside)
    empty[0], r[0], g[0] = NF, ok, np.ones_like(ok)
    for S in range(1, full + 1):
        low = (S & -S).bit_length() - 1
        S1 = S ^ (1 << low)
        empty[S] = empty[S1] & empty[S1][:, NB[:, low]]
        acc = np.zeros_like(ok)
        for d in range(n):
            if S >> d & 1:
                S2 = S ^ (1 << d)
                child = empty[S2][:, NB[:, d]] | (~LF[:, :, d] & r[S2][:, NB[:, d]])
                acc |= child & g[S2]
        g[S] = acc
        r[S] = ok & acc
    return r


def r_nodes(NF: np.ndarray, LF: np.ndarray) -> np.ndarray:
    """Exact r-node set ``[B, N]``: r-nodes of the whole cube (:func:`r_table`)."""
    r = r_table(NF, LF)
    return r[-1]


def r_levels(NF: np.ndarray, LF: np.ndarray) -> np.ndarray:
    """``[B, N]``: the largest k such that v is an r-node of every subcube of dimension <= k through v
    (0 for a faulty node) -- what a safety level k promises (Wu, Sec. 1: 'a spanning incomplete binomial
    tree rooted at u in any m-subcube (m <= l) containing u'), computed exactly."""
    r = r_table(NF, LF)
    n = int(len(r)).bit_length() - 1
    level = np.where(r[0], n, 0)
    for S in range(1, len(r)):
        level = np.where(r[0] & ~r[S], np.minimum(level, bin(S).count("1") - 1), level)
    return level


def r_node_order(faults: FaultSet, u: int, free: int | None = None) -> dict | None:
    """An explicit incomplete spanning binomial tree from ``u`` (a witness for Opt): ``{node: cs}`` the
    coordinate sequence each tree node uses for its subcube, or None if u is not an r-node.
    Plain recursive search, meant for small cubes (tests and the CLI)."""
    n = faults.n
    nf, lf = faults.arrays()
    full = (1 << n) - 1 if free is None else free

    @lru_cache(maxsize=None)
    def empty(v, S):
        base = v & ~S
        sub = S
        while True:
            if not nf[base | sub]:
                return False
            if sub == 0:
                return True
            sub = (sub - 1) & S

    @lru_cache(maxsize=None)
    def seq(v, R):
        """A dimension order splitting R at v, or None."""
        if R == 0:
            return ()
        for d in range(n):
            if R >> d & 1:
                S2 = R ^ (1 << d)
                w = v ^ (1 << d)
                if empty(w, S2) or (not lf[v, d] and not nf[w] and seq(w, S2) is not None):
                    rest = seq(v, S2)
                    if rest is not None:
                        return (d,) + rest
        return None

    if nf[u] or seq(u, full) is None:
        return None
    tree = {}

    def walk(v, R):
        cs = seq(v, R)
        tree[v] = cs
        rem = R
        for d in cs:
            rem ^= 1 << d
            w = v ^ (1 << d)
            if not nf[w] and not empty(w, rem):
                walk(w, rem)
    walk(u, full)
    return tree
