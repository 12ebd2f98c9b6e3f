"""Wu's safety levels (J. Wu, "Optimal Broadcasting in Injured Hypercubes Using Directed Safety
Levels"): SL(1) (Definition 2), SL(2) (Sec. 3.2), DSL(1) with the adjustment process, ADSL and the global
safety level GSL (Sec. 3.3), DSL(2) (Sec. 3.4), and the exact r-node test ``Opt`` (Sec. 1, 2.2; :mod:`.safety_opt`).

Addresses and dimensions
    Node numbers are those of :class:`~cubenoc.sim.topology.hypercube.Hypercube`: dimension ``k`` is bit
    ``k`` of the node number and router port ``k``. Address *strings* use the paper's notation
    ``u_0 u_1 ... u_{n-1}`` (Sec. 2.1): character ``k`` is dimension ``k``, so ``0001`` is node 8 in a
    4-cube (the reverse of ``Hypercube.format_node``). Directed levels are dimension-ordered
    ``(s_0, ..., s_{n-1})`` as in Table 1.

Faults
    A :class:`FaultSet` holds faulty nodes and faulty links ``(node, dim)`` (normalised to the end with
    bit ``dim`` clear). In SL(1)/DSL(1) both ends of a faulty link count as faulty (Sec. 2.3); in SL(2)
    and DSL(2) they are non-faulty nodes that know their own links and distance-2 reachability.

Local rules (what the hardware's SafetyLevelUnit computes each round over sideband wires)
    :func:`sl_rule`, :func:`dsl_rule`, :func:`adjust` and :func:`global_level` are pure functions of a
    node's own initial state and its neighbours' values of the previous round. :func:`compute` runs them
    as synchronous rounds, vectorised with numpy over nodes and over a batch of fault sets, until nothing
    changes, and reports the number of rounds in which some level changed (the paper's bound: n-1 rounds
    for SL(1), n-2 for SL(2) and DSL(1), n-3 for DSL(2)).

The decision process (Definition 2) with reference sequence ``ref`` and top level ``top``: sort the
neighbour levels nondescending; the level is ``top`` if the sorted sequence is >= ``ref`` element-wise,
else the first index ``j`` where ``sorted[j] < ref[j]`` (the paper writes this as ``(ns_i0..ns_il) >=
(ref_0..ref_l)`` and ``ns_i(l+1) = l`` => ``l + 1``; with the masked reference ``(0, 0, 2, 3, ...)`` of
SL(2)/DSL(2) a first violation at ``j = 2`` may have ``sorted[2] = 0``, which the paper's wording leaves
undefined; we give it level 2, the only value consistent with the exact distance-2 information that
makes the node unassigned).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations

import numpy as np

from cubenoc.errors import CubenocError, require_int

from .topology.hypercube import Hypercube

MODELS = ("SL1", "SL2", "DSL1", "DSL2")
MAX_N = 16
#: largest n for which :func:`.safety_opt.r_nodes` (exact Opt, O(4^n * n) per fault set) is run by the analysis
OPT_MAX_N = 10
LEVEL = np.int8


# ---- addresses and fault sets -------------------------------------------------------------------------
def format_address(node: int, n: int) -> str:
    """Paper notation ``u_0 u_1 ... u_{n-1}``: character k is bit k (dimension k)."""
    return "".join("1" if node >> k & 1 else "0" for k in range(n))


def parse_address(text: str, n: int) -> int:
    """Inverse of :func:`format_address`; a plain decimal node number is accepted too."""
    t = str(text).strip()
    if t.isdigit() and len(t) == n and set(t) <= {"0", "1"}:
        return sum(1 << k for k, c in enumerate(t) if c == "1")
    raise CubenocError(f"node address must be {n} binary digits u_0..u_{n - 1} (dimension 0 first) "
                       f"for a {n}-cube, got {text!r}")


def parse_link(text: str, n: int) -> tuple[int, int]:
    """``0000-0001`` (two adjacent addresses) -> ``(node, dim)``."""
    parts = str(text).strip().split("-")
    if len(parts) != 2:
        raise CubenocError(f"a link must be written ADDR-ADDR (e.g. {'0' * n}-{'0' * (n - 1)}1), got {text!r}")
    u, v = (parse_address(p, n) for p in parts)
    diff = u ^ v
    if diff == 0 or diff & (diff - 1):
        raise CubenocError(f"{text!r} is not a hypercube edge: the two addresses must differ in exactly one bit")
    return (u & v, diff.bit_length() - 1)


@dataclass(frozen=True)
class FaultSet:
    """Faulty nodes and faulty links ``(node, dim)`` of an injured n-cube."""

    n: int
    nodes: frozenset = field(default_factory=frozenset)
    links: frozenset = field(default_factory=frozenset)

    @classmethod
    def build(cls, n: int, nodes=(), links=()) -> "FaultSet":
        n = require_int(n, "n", 2, MAX_N)
        N = 1 << n
        ns = set()
        for v in nodes:
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 <= v < N:
                raise CubenocError(f"faulty node must be in 0..{N - 1} for a {n}-cube, got {v!r}")
            ns.add(int(v))
        ls = set()
        for link in links:
            try:
                u, d = link
            except (TypeError, ValueError):
                raise CubenocError(f"a faulty link is (node, dim), got {link!r}") from None
            if not (isinstance(u, (int, np.integer)) and 0 <= u < N):
                raise CubenocError(f"link end must be in 0..{N - 1} for a {n}-cube, got {u!r}")
            if not (isinstance(d, (int, np.integer)) and 0 <= d < n):
                raise CubenocError(f"link dimension must be in 0..{n - 1} for a {n}-cube, got {d!r}")
            ls.add((int(u) & ~(1 << int(d)), int(d)))
        if len(ns) >= N:
            raise CubenocError(f"too many faulty nodes: at most {N - 1} of the {N} nodes of a {n}-cube may be faulty")
        return cls(n, frozenset(ns), frozenset(ls))

    @classmethod
    def parse(cls, n: int, nodes: str = "", links: str = "") -> "FaultSet":
        """From comma-separated paper-notation addresses: ``nodes='0011,0100'``, ``links='0000-0001'``."""
        n = require_int(n, "n", 2, MAX_N)
        nl = [parse_address(t, n) for t in str(nodes or "").split(",") if t.strip()]
        ll = [parse_link(t, n) for t in str(links or "").split(",") if t.strip()]
        return cls.build(n, nl, ll)

    @property
    def topology(self) -> Hypercube:
        return Hypercube(self.n)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """``(NF, LF)``: ``NF[v]`` node v faulty, ``LF[v, d]`` link on port d of v faulty (symmetric)."""
        N = 1 << self.n
        nf = np.zeros(N, bool)
        nf[list(self.nodes)] = True
        lf = np.zeros((N, self.n), bool)
        for u, d in self.links:
            lf[u, d] = lf[u ^ (1 << d), d] = True
        return nf, lf

    def link_faulty(self, u: int, d: int) -> bool:
        return (u & ~(1 << d), d) in self.links

    def describe(self) -> str:
        nodes = ",".join(format_address(v, self.n) for v in sorted(self.nodes)) or "-"
        links = ",".join(f"{format_address(u, self.n)}-{format_address(u | 1 << d, self.n)}"
                         for u, d in sorted(self.links)) or "-"
        return f"faulty nodes {nodes}; faulty links {links}"


# ---- the local rules (pure functions; bit-exact reference for the RTL) ----------------------------------
def reference(m: int, d: int) -> tuple[int, ...]:
    """Reference sequence of length m: (0, 1, ..., m-1) for d = 1, masked (0, 0, 2, ..., m-1) for d = 2."""
    return tuple(0 if (d == 2 and j < 2) else j for j in range(m))


def decide(levels, ref, top: int) -> int:
    """The decision process of Definition 2 (see the module docstring)."""
    for j, (a, r) in enumerate(zip(sorted(levels), ref)):
        if a < r:
            return j
    return top


def sl_rule(fixed: int | None, nbr_levels, n: int, d: int) -> int:
    """SL(d) round at one node: ``fixed`` is the initial level of a faulty/assigned node (else None),
    ``nbr_levels[k]`` the level of the neighbour along dimension k in the previous round."""
    return fixed if fixed is not None else decide(nbr_levels, reference(n, d), n)


def dsl_rule(fixed, relevant, n: int, d: int) -> tuple[int, ...]:
    """DSL(d) round at one node: ``fixed[k]`` is the initial value of an assigned element (else None);
    ``relevant[j] = ns_jj``, the neighbour along j's directed level excluding j (its RDSL)."""
    ref = reference(n - 1, d)
    return tuple(fixed[k] if fixed[k] is not None
                 else decide([relevant[j] for j in range(n) if j != k], ref, n - 1) for k in range(n))


def adjust(ns) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The adjustment process (Sec. 3.3). ``ns[i][j]``: neighbour u^i's directed level excluding j.
    Returns ``(adsl, order)``: ``adsl = (as_i0, ..., as_i(n-1))`` (nondescending) and the partition order
    ``order = (i_(n-1), ..., i_0)`` (the first dimension selected first). Ties: lowest row, then column."""
    n = len(ns)
    selected: list[int] = []
    prev = n  # as_i(n) = n
    values = []
    for _ in range(n):
        best = None
        for p in range(n):
            if p in selected:
                continue
            for q in selected + [p]:
                if best is None or ns[p][q] > best[0] or (ns[p][q] == best[0] and p < best[1]):
                    best = (ns[p][q], p)
        val, p = best
        prev = min(val, prev)
        values.append(prev)
        selected.append(p)
    return tuple(reversed(values)), tuple(selected)


def global_level(init, adsl, n: int, d: int) -> int:
    """GSL (Sec. 3.3/3.4): 0 for a faulty node; for DSL(2) an assigned node's level is the minimum of its
    assigned elements; otherwise the decision process on ADSL with reference (0,1,..,n-1) / (0,0,2,..,n-1)."""
    if d == 1:
        if all(x == 0 for x in init):
            return 0
    else:
        assigned = [x for x in init if x < 2]
        if assigned:
            return min(assigned)
    return decide(adsl, reference(n, d), n)


# ---- initialisation from the fault set (exact distance-1 / distance-2 information) ---------------------
@lru_cache(maxsize=None)
def _nbr_index(n: int) -> np.ndarray:
    """``NB[v, d] = v ^ 2**d``."""
    v = np.arange(1 << n)
    return v[:, None] ^ (1 << np.arange(n))[None, :]


def _blocked_pairs(NF: np.ndarray, LF: np.ndarray) -> dict:
    """For each dimension pair (i, j): ``[B, N]`` True where u cannot reach the non-faulty node u^{ij}
    over either of the two shortest paths (a path is blocked by a faulty middle node or a faulty link)."""
    n = LF.shape[-1]
    NB = _nbr_index(n)
    out = {}
    for i, j in combinations(range(n), 2):
        ui, uj, uij = NB[:, i], NB[:, j], NB[:, i] ^ (1 << j)
        via_i = ~NF[:, ui] & ~LF[:, :, i] & ~LF[:, ui, j]
        via_j = ~NF[:, uj] & ~LF[:, :, j] & ~LF[:, uj, i]
        out[i, j] = ~NF[:, uij] & ~via_i & ~via_j
    return out


def initial_levels(NF: np.ndarray, LF: np.ndarray, model: str) -> np.ndarray:
    """Initial levels: ``[B, N]`` for SL, ``[B, N, n]`` for DSL (values n / n-1 mean unassigned)."""
    n = LF.shape[-1]
    faulty1 = NF | LF.any(-1)          # d = 1: both ends of a faulty link count as faulty
    if model == "SL1":
        return np.where(faulty1, 0, n).astype(LEVEL)
    if model == "DSL1":
        return np.where(faulty1[..., None], 0, n - 1).astype(LEVEL).repeat(n, -1)
    blocked = _blocked_pairs(NF, LF)
    if model == "SL2":
        one = np.zeros_like(NF)
        for b in blocked.values():
            one |= b
        s = np.where(one, 1, n)
        return np.where(faulty1, 0, s).astype(LEVEL)
    if model == "DSL2":
        B, N = NF.shape
        s = np.full((B, N, n), n - 1, LEVEL)
        for k in range(n):
            one = np.zeros_like(NF)
            for (i, j), b in blocked.items():
                if k not in (i, j):
                    one |= b
            zero = NF | np.delete(LF, k, axis=-1).any(-1)
            s[:, :, k] = np.where(zero, 0, np.where(one, 1, n - 1))
        return s
    raise CubenocError(f"model must be one of {', '.join(MODELS)}, got {model!r}")


# ---- vectorised rounds ---------------------------------------------------------------------------------
def decide_vec(levels: np.ndarray, ref, top: int) -> np.ndarray:
    """:func:`decide` over the last axis of ``levels``."""
    s = np.sort(levels, axis=-1)
    viol = s < np.asarray(ref, dtype=LEVEL)
    return np.where(viol.any(-1), viol.argmax(-1), top).astype(LEVEL)


@lru_cache(maxsize=None)
def _excluding(n: int) -> np.ndarray:
    """``EX[k] = [j for j != k]``."""
    return np.array([[j for j in range(n) if j != k] for k in range(n)], dtype=np.intp)


def sl_round(level: np.ndarray, fixed: np.ndarray, n: int, d: int) -> np.ndarray:
    """One synchronous SL(d) round for every node: :func:`sl_rule` vectorised."""
    new = decide_vec(level[:, _nbr_index(n)], reference(n, d), n)
    return np.where(fixed, level, new)


def relevant_levels(dsl: np.ndarray) -> np.ndarray:
    """``R[b, v, j] = ns_jj``: the neighbour along j's directed level excluding j."""
    n = dsl.shape[-1]
    return dsl[:, _nbr_index(n), np.arange(n)]


def dsl_round(dsl: np.ndarray, fixed: np.ndarray, n: int, d: int) -> np.ndarray:
    """One synchronous DSL(d) round for every node: :func:`dsl_rule` vectorised."""
    rel = relevant_levels(dsl)[..., _excluding(n)]          # [B, N, k, n-1]
    new = decide_vec(rel, reference(n - 1, d), n - 1)
    return np.where(fixed, dsl, new)


def adjust_vec(dsl: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`adjust` for every node: ``(adsl [B,N,n] nondescending, order [B,N,n] first-selected first)``."""
    B, N, n = dsl.shape
    M = dsl[:, _nbr_index(n), :].astype(np.int16)          # M[b, v, i, j] = ns_ij at v
    eye = np.eye(n, dtype=bool)
    selected = np.zeros((B, N, n), bool)
    prev = np.full((B, N), n, np.int16)
    adsl = np.zeros((B, N, n), LEVEL)
    order = np.zeros((B, N, n), np.int8)
    for step in range(n):
        allowed = ~selected[..., :, None] & (selected[..., None, :] | eye)
        rowmax = np.where(allowed, M, -1).max(-1)          # [B, N, n]
        p = rowmax.argmax(-1)                               # lowest row among the maxima
        val = np.take_along_axis(rowmax, p[..., None], -1)[..., 0]
        prev = np.minimum(prev, val)
        adsl[:, :, n - 1 - step] = prev
        order[:, :, step] = p
        np.put_along_axis(selected, p[..., None], True, -1)
    return adsl, order


@dataclass
class Levels:
    """Result of :func:`compute` for a batch of fault sets (axis 0) and every node (axis 1)."""
    model: str
    n: int
    init: np.ndarray                   # [B, N] (SL) or [B, N, n] (DSL)
    level: np.ndarray                  # SL level or DSL vector after settling
    rounds: np.ndarray                 # [B]: rounds in which some level changed
    adsl: np.ndarray | None = None     # [B, N, n] (DSL only)
    order: np.ndarray | None = None    # [B, N, n] partition order from the adjustment (DSL only)
    gsl: np.ndarray | None = None      # [B, N]: SL level or global safety level

    @property
    def safe(self) -> np.ndarray:
        return self.gsl == self.n

    @property
    def assigned(self) -> np.ndarray:
        """Nodes whose level is fixed by initialisation (faulty / assigned)."""
        init = self.init if self.init.ndim == 2 else self.init.min(-1)
        return init < (1 if self.model.endswith("1") else 2)


def compute(NF: np.ndarray, LF: np.ndarray, model: str, max_rounds: int | None = None) -> Levels:
    """Settle ``model`` for a batch: ``NF [B, N]`` faulty nodes, ``LF [B, N, n]`` faulty links."""
    NF = np.asarray(NF, bool)
    LF = np.asarray(LF, bool)
    if NF.ndim == 1:
        NF, LF = NF[None], LF[None]
    n = LF.shape[-1]
    d = 2 if model.endswith("2") else 1
    init = initial_levels(NF, LF, model)
    fixed = init < (1 if d == 1 else 2)
    step = sl_round if model.startswith("SL") else dsl_round
    cur = init
    rounds = np.zeros(NF.shape[0], np.int64)
    limit = max_rounds if max_rounds is not None else 2 * n + 2
    for r in range(1, limit + 1):
        new = step(cur, fixed, n, d)
        changed = (new != cur).reshape(len(new), -1).any(1)
        if not changed.any():
            break
        rounds[changed] = r
        cur = new
    else:
        raise AssertionError(f"{model} did not settle within {limit} rounds")
    res = Levels(model, n, init, cur, rounds)
    if model.startswith("SL"):
        res.gsl = cur
        return res
    res.adsl, res.order = adjust_vec(cur)
    if d == 1:
        g = decide_vec(res.adsl, reference(n, 1), n)
        res.gsl = np.where(init.max(-1) == 0, 0, g).astype(LEVEL)
    else:
        g = decide_vec(res.adsl, reference(n, 2), n)
        amin = np.where(fixed, init, n).min(-1)
        res.gsl = np.where(fixed.any(-1), amin, g).astype(LEVEL)
    return res


def compute_all(faults: FaultSet) -> dict[str, Levels]:
    nf, lf = faults.arrays()
    return {m: compute(nf, lf, m) for m in MODELS}


def sample_faults(rng: np.random.Generator, n: int, f: int, mix: str, trials: int):
    """``(NF [B,N], LF [B,N,n])``: ``f`` distinct faults per trial. node: f faulty nodes; link: f faulty
    links; mixed: f - f//2 nodes and f//2 links. Links are drawn among links not touching a faulty node."""
    N = 1 << n
    nn = {"node": f, "link": 0, "mixed": f - f // 2}[mix]
    nl = f - nn
    NF = np.zeros((trials, N), bool)
    if nn:
        pick = np.argsort(rng.random((trials, N)), axis=1)[:, :nn]
        np.put_along_axis(NF, pick, True, 1)
    LF = np.zeros((trials, N, n), bool)
    if nl:
        lu = np.array([u for d in range(n) for u in range(N) if not u >> d & 1])
        ld = np.array([d for d in range(n) for u in range(N) if not u >> d & 1])
        keys = rng.random((trials, len(lu)))
        keys[NF[:, lu] | NF[:, lu ^ (1 << ld)]] = np.inf
        pick = np.argsort(keys, axis=1)[:, :nl]
        u, d = lu[pick], ld[pick]
        b = np.repeat(np.arange(trials), nl).reshape(trials, nl)
        LF[b, u, d] = True
        LF[b, u ^ (1 << d), d] = True
    return NF, LF
