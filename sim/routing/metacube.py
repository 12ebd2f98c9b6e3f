"""Metacube routing along a weak Hamiltonian path of classes (Li, Peng and Chu Sec. 4.1), as the routers run it.

Class path (Sec. 4.1, Lemma 1 and Step 1): a *weak Hamiltonian path* of the class cube Q_k from the
source class ``c^s`` to the destination class ``c^t``: a Hamiltonian path when one exists (``c^s XOR
c^t`` of odd weight, r = 2**k - 1 cross-edges), else a Hamiltonian cycle (``c^s = c^t``) or an extended
Hamiltonian path (r = 2**k). :func:`weak_hamiltonian_path` builds it exactly as the proof of Lemma 1
does (base case n = 2 from Fig. 6, induction on the top dimension, Gray-code Hamiltonian cycles through a
given edge). The construction commutes with XOR, so the path is ``c^s XOR W[c^s XOR c^t]`` with
``W[d]`` the path from class 0 to class ``d``; the routers hold ``W`` as a small table (2**k entries of
at most 2**k + 1 classes). For class 00 to 00 of Q_2 it is the paper's cycle 00, 01, 11, 10, 00.

Route header (LSB first, all routing state; the RTL carries exactly these fields):

* ``dest`` (n bits): the destination address ``(c^t, m_{h-1}, ..., m_0)``;
* ``cdiff`` (k bits): ``c^s XOR c^t``, which selects the class path ``W[cdiff]`` (and ``c^s = c^t XOR
  cdiff``);
* ``pos`` (k+1 bits, full variant only): the position ``i`` of the current class ``c_i`` on the class
  path (0 .. r).

Per-hop decision at a node of class ``c`` (cube ports 0..m-1, cross ports m..m+k-1, local m+k):

* full variant (``metacube_whp``, Steps 2-3 exactly): while ``pos < 2**k`` and field ``m_c`` of the
  node differs from the destination's, take the cube port of the *lowest* differing bit (the worked
  example corrects 000 -> 001 -> 011, bit 0 first); otherwise, at ``pos = r`` eject, else take the cross
  port of the class bit ``W[cdiff][pos] XOR W[cdiff][pos+1]`` and increment ``pos``. The path always
  walks the whole class path: ``sum_i d_i + r`` hops (Theorem 2's bound), except a packet to its own
  node, which the source injects at ``pos = r`` so that it ejects at once (0 hops, not a tour of the
  class cycle).
* shortest variant (``metacube_skip``, the bypass remarked before Theorem 2): the classes are taken
  in the same order ``c_0, ..., c_{h-1}`` but only those whose field still differs; the target is the
  first such class (or ``c^t`` when none is left). In the target class: correct its field (lowest
  bit first) or eject; elsewhere: the cross port of the lowest bit of ``c XOR target``. No position
  is needed: the fields of classes before the target are already correct.

Virtual channels (the class path wraps around the class cube, so one VC deadlocks): the output VC
counts the *descents* so far on the packet's class sequence under the Gray-code ranking of the classes
(a cross hop to a class of lower rank ``G^{-1}(c)``, e.g. the wrap 10 -> 00), saturating at
``num_vcs - 1``; it travels in the ``vc`` header field. With h + 1 VCs nothing saturates: within a VC
the classes rise in rank and the cube ports rise within a class, so ordering channels by (vc, rank of
the class, port) orders every packet's channels. ``num_vcs`` is the fewest VCs for which the
dependency graph projected onto classes (:func:`class_dependency_graph`; every real dependency maps onto
one of its edges, for every m) is acyclic: 2, 3, 6 for k = 1, 2, 3 (full) and 2, 4, 7 (shortest).
"""
from __future__ import annotations

from functools import lru_cache

from cubenoc.errors import CubenocError

from ..dependency_graph import DependencyGraph
from ..topology.metacube import Metacube
from .base import HeaderLayout, Hop, RoutingFunction


def gray(i: int) -> int:
    """The reflected Gray code ``G(i) = i XOR (i >> 1)``."""
    return i ^ (i >> 1)


def gray_rank(c: int) -> int:
    """``G^{-1}(c)``: the position of ``c`` on the Gray-code Hamiltonian cycle of the class cube."""
    i = 0
    while c:
        i ^= c
        c >>= 1
    return i


def _long_way(u: int, v: int, dims: list[int]) -> list[int]:
    """The Hamiltonian path from ``u`` to its neighbour ``v`` in the subcube spanned by ``dims``: a
    Gray-code Hamiltonian cycle through the edge (u, v) (Lemma 1 proof: renumber so u = 0...00 and
    v = 0...01) with that edge removed."""
    j = (u ^ v).bit_length() - 1
    order = [j] + [d for d in dims if d != j]     # renumbered bit b is cube dimension order[b]

    def unrenumber(g: int) -> int:
        x = u
        for b, d in enumerate(order):
            if g >> b & 1:
                x ^= 1 << d
        return x
    size = 1 << len(order)
    return [unrenumber(0)] + [unrenumber(gray(i)) for i in range(size - 1, 0, -1)]


def weak_hamiltonian_path(s: int, t: int, dims) -> list[int]:
    """A weak Hamiltonian path from ``s`` to ``t`` in the cube spanned by ``dims`` (Lemma 1).

    n = 1: <s, t> or the cycle <s, s', s>. n = 2: Fig. 6 (a)-(d) translated to ``s``. n >= 3, split on
    the top dimension: Case 1 (same subcube) replaces the first edge (s, s^(j)) of the path in the
    subcube by a detour through the other subcube; Case 2 (different subcubes) goes the long way round a
    Hamiltonian cycle of s's subcube to s^(j) (j = the lowest dimension), crosses, and continues with
    the path from s^(j, n-1) to t.
    """
    dims = sorted(dims)
    if len(dims) == 1:
        bit = 1 << dims[0]
        return [s, s ^ bit, s] if s == t else [s, t]
    if len(dims) == 2:
        a, b = 1 << dims[0], 1 << dims[1]
        fig6 = {0: [0, a, a | b, b, 0],        # (a) Hamiltonian cycle, t = 00
                a: [0, b, a | b, a],           # (b) Hamiltonian path, t = 01
                b: [0, a, a | b, b],           # (c) Hamiltonian path, t = 10
                a | b: [0, a, a | b, b, a | b]}  # (d) extended Hamiltonian path, t = 11
        return [s ^ x for x in fig6[s ^ t]]
    top, low = 1 << dims[-1], dims[:-1]
    if not (s ^ t) & top:                      # Case 1
        p = weak_hamiltonian_path(s, t, low)
        return [s] + _long_way(s ^ top, p[1] ^ top, low) + p[1:]
    sj = s ^ (1 << low[0])                     # Case 2
    return _long_way(s, sj, low) + weak_hamiltonian_path(sj ^ top, t, low)


@lru_cache(maxsize=None)
def class_paths(k: int) -> tuple[tuple[int, ...], ...]:
    """``W[d]``: the weak Hamiltonian path from class 0 to class ``d`` for every ``d`` (the routers' table)."""
    return tuple(tuple(weak_hamiltonian_path(0, d, range(k))) for d in range(1 << k))


def descents(classes) -> list[int]:
    """Running count of descents (cross hops to a class of lower Gray rank) along a class sequence."""
    out, n = [0], 0
    for a, b in zip(classes, classes[1:]):
        n += gray_rank(b) < gray_rank(a)
        out.append(n)
    return out


class MetacubeRouting(RoutingFunction):
    """Sec. 4.1 routing on MC(k, m): ``shortest=False`` walks the whole class path (the paper's
    algorithm), ``shortest=True`` skips classes with nothing to correct; ``vcs=True`` (default) adds
    the descent-count virtual channels that make it deadlock-free, ``vcs=False`` uses one VC;
    ``num_vcs`` overrides the VC count (for experiments; the deadlock checker judges it)."""

    def __init__(self, topology: Metacube, shortest: bool = False, vcs: bool = True,
                 num_vcs: int | None = None):
        if not isinstance(topology, Metacube):
            raise CubenocError(f"metacube routing needs a Metacube topology, got {topology!r}")
        super().__init__(topology)
        t = topology
        self.k, self.m, self.h, self.n = t.k, t.m, t.h, t.n
        self.shortest = bool(shortest)
        self.paths = class_paths(self.k)
        if num_vcs is None:
            num_vcs = minimal_vcs(self.k, self.shortest) if vcs else 1
        self.num_vcs = int(num_vcs)
        if not 1 <= self.num_vcs <= self.h + 1:
            raise CubenocError(f"num_vcs must be in 1..{self.h + 1} for MC({self.k},{self.m}), got {num_vcs}")
        self.name = ("metacube_skip" if self.shortest else "metacube_whp") + f"_{self.num_vcs}vc"
        fields = [("dest", self.n), ("cdiff", self.k)]
        if not self.shortest:
            fields.append(("pos", self.k + 1))
        if self.num_vcs > 1:
            fields.append(("vc", (self.num_vcs - 1).bit_length()))
        self._layout = HeaderLayout(fields)

    def next_vc(self, vc: int, c: int, c_next: int) -> int:
        """The VC after a cross hop from class ``c`` to ``c_next``: one more on a descent (lower Gray
        rank), saturating at ``num_vcs - 1``."""
        return min(vc + (gray_rank(c_next) < gray_rank(c)), self.num_vcs - 1)

    def _walk(self, cs: int, ct: int, need: int) -> list[int]:
        """The class sequence from class ``cs`` to ``ct`` when the fields in ``need`` (bit i = field
        m_i) differ: the class path for the full variant, the skipping walk for the shortest one."""
        p = [cs ^ c for c in self.paths[cs ^ ct]]
        if not self.shortest:
            return p
        seq = [cs]
        for tgt in [c for c in p[:self.h] if need >> c & 1] + [ct]:
            while seq[-1] != tgt:
                seq.append(seq[-1] ^ ((seq[-1] ^ tgt) & -(seq[-1] ^ tgt)))
        return seq


    def inject(self, src: int, dst: int) -> dict:
        self.check_pair(src, dst)
        t = self.topology
        hdr = {"dest": dst, "cdiff": t.node_class(src) ^ t.node_class(dst)}
        if not self.shortest:       # a packet to its own node starts at the end of the class cycle: 0 hops
            hdr["pos"] = len(self.paths[0]) - 1 if src == dst else 0
        if self.num_vcs > 1:
            hdr["vc"] = 0
        return hdr

    def _field_diff(self, node: int, dest: int, c: int) -> int:
        shift = self.m * c
        mask = (1 << self.m) - 1
        return ((node ^ dest) >> shift) & mask

    def route(self, node: int, header: dict) -> Hop:
        t = self.topology
        dest, cdiff = header["dest"], header["cdiff"]
        vc = header.get("vc", 0)
        c = t.node_class(node)
        cs = t.node_class(dest) ^ cdiff
        p = self.paths[cdiff]
        if self.shortest:
            target = cs ^ p[-1]
            for i in range(self.h):
                if self._field_diff(node, dest, cs ^ p[i]):
                    target = cs ^ p[i]
                    break
            if target == c:
                diff = self._field_diff(node, dest, c)
                if diff == 0:
                    return Hop(t.local_port(node), dict(header), vc)
                return Hop((diff & -diff).bit_length() - 1, dict(header), vc)
            step = (c ^ target) & -(c ^ target)
            new = dict(header)
            if self.num_vcs > 1:
                vc = new["vc"] = self.next_vc(vc, c, c ^ step)
            return Hop(self.m + step.bit_length() - 1, new, vc)
        pos = header["pos"]
        r = len(p) - 1
        if pos > r or c != cs ^ p[pos]:
            raise CubenocError(f"metacube header {header} inconsistent at node {t.format_node(node)}")
        if pos < self.h:
            diff = self._field_diff(node, dest, c)
            if diff:
                return Hop((diff & -diff).bit_length() - 1, dict(header), vc)
        if pos == r:
            return Hop(t.local_port(node), dict(header), vc)
        step = p[pos] ^ p[pos + 1]
        new = dict(header, pos=pos + 1)
        if self.num_vcs > 1:
            vc = new["vc"] = self.next_vc(vc, c, c ^ step)
        return Hop(self.m + step.bit_length() - 1, new, vc)

    def path_bound(self, src: int, dst: int) -> int:
        """Theorem 2 / Step 3: the full variant's length ``sum_i d_i(s, t) + r`` (0 to its own node)."""
        t = self.topology
        if src == dst:
            return 0
        dsum = sum(bin(self._field_diff(src, dst, i)).count("1") for i in range(self.h))
        return dsum + len(self.paths[t.node_class(src) ^ t.node_class(dst)]) - 1


# ---- class-level deadlock analysis (valid for every m) ---------------------------------------------
#: what a packet may do in a class it visits: correct its field (``must``), maybe (``opt``), or not
NO, OPT, MUST = "no", "opt", "must"


def class_walks(k: int, shortest: bool):
    """Every class-level walk: ``[(class, mode), ...]`` over all source classes, cdiff values and (for
    the shortest variant) sets of fields that need correcting. The full variant may correct the field
    of each class c_0 .. c_{h-1} (``opt``) and nothing at position h; the shortest variant corrects the
    target classes (``must``) and only passes the others (``no``)."""
    h = 1 << k
    for cs in range(h):
        for p in class_paths(k):
            if not shortest:
                yield [(cs ^ c, OPT if i < h else NO) for i, c in enumerate(p)]
                continue
            for mask in range(1 << h):
                walk = [[cs, NO]]
                targets = [(cs ^ p[i], True) for i in range(h) if mask >> i & 1] + [(cs ^ p[-1], False)]
                for tgt, work in targets:
                    c = walk[-1][0]
                    while c != tgt:
                        c ^= (c ^ tgt) & -(c ^ tgt)     # e-cube on the class bits, lowest first
                        walk.append([c, NO])
                    if work:
                        walk[-1][1] = MUST
                yield [tuple(w) for w in walk]


@lru_cache(maxsize=None)
def _class_segments(k: int, shortest: bool) -> frozenset:
    """The distinct visits over all class walks: ``(held, c, mode, out)`` with ``held``/``out`` the cross
    hops in and out as ``(from class, class bit, descents so far)`` or ``None`` (source / eject)."""
    segs = set()
    for walk in class_walks(k, shortest):
        desc, held = 0, None
        for idx, (c, mode) in enumerate(walk):
            out = None
            if idx + 1 < len(walk):
                c2 = walk[idx + 1][0]
                desc += gray_rank(c2) < gray_rank(c)
                out = (c, (c ^ c2).bit_length() - 1, desc)
            segs.add((held, c, mode, out))
            held = out
    return frozenset(segs)


def class_dependency_graph(k: int, m: int, shortest: bool, num_vcs: int):
    """The channel dependency graph projected onto classes: a channel ``(node, port, vc)`` becomes
    ``(class of node, port, vc)``. Every real dependency projects onto an edge here, so if this graph is
    acyclic the real one is, for every cluster size (ports 0..m-1 cube, m.. cross, as in the topology).
    The VC of a hop is the descent count, saturating at ``num_vcs - 1``."""
    g = DependencyGraph()
    top = num_vcs - 1

    def chan(x):
        return None if x is None else (x[0], m + x[1], min(x[2], top))
    for held, c, mode, out in _class_segments(k, shortest):
        vc = 0 if held is None else min(held[2], top)
        held, out = chan(held), chan(out)
        cube = [(c, j, vc) for j in range(m)] if mode != NO else []
        for j, q in enumerate(cube):
            if held is not None:
                g.add_edge(held, q)
            for q2 in cube[j + 1:]:
                g.add_edge(q, q2)
            if out is not None:
                g.add_edge(q, out)
        if mode != MUST and held is not None and out is not None:
            g.add_edge(held, out)
        for x in (held, out):
            if x is not None:
                g.add_node(x)
    return g


def class_level_cycle(k: int, m: int, shortest: bool, num_vcs: int):
    """A cycle of the class-level dependency graph (``None``: deadlock-free for every MC(k, m))."""
    return class_dependency_graph(k, m, shortest, num_vcs).find_cycle()


@lru_cache(maxsize=None)
def minimal_vcs(k: int, shortest: bool) -> int:
    """The fewest VCs for which the descent-count assignment is deadlock-free at class level. ``h + 1``
    always works (at most h descents, so nothing saturates and the rank argument applies)."""
    for v in range(1, (1 << k) + 2):
        if class_level_cycle(k, 2, shortest, v) is None:
            return v
    raise AssertionError("unreachable: h + 1 VCs never saturate")
