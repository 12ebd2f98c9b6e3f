"""Safety-level binomial-tree broadcast in an injured hypercube (seed 002 Sec. 2.2, 2.3, 3.3).

Header (the broadcast tag): ``label`` (n bits, bit k = 1 when dimension k is still free, i.e. a ``*`` of
the destination subcube: the paper's LABEL word), ``nocopy`` (forward without keeping a copy) and
``handoff`` (an unsafe source hands the broadcast to a safe neighbour; ``label`` is then the one-hot
dimension leading back to the originator).

At a node with LABEL ``L`` and coordinate sequence ``cs = i_1 .. i_m`` over the dimensions set in ``L``:
for each ``i_k`` in turn, clear bit ``i_k`` of L and send (data, L) to ``u^{i_k}`` - unless that neighbour
is faulty or the link to it is faulty (both are local knowledge; "there is no need of forwarding the
message to it"). The coordinate sequence is the paper's "nonascending safety level sequence of u's
neighbours" under the chosen model:

* SL(1), SL(2): the neighbours' safety levels;
* DSL(1), DSL(2): the neighbours' relevant directed levels ``ns_kk`` (neighbour u^k's level excluding k,
  the level of the half-cube the subcube sent to u^k lies in); at a safe source the partition order of
  the adjustment process (the dimension selected first is split first);
* ties go to the lower dimension. With distance-2 information (SL(2), DSL(2)) the last two dimensions
  ``a, b`` (u^a gets ``{u^a, u^ab}``, u^b gets ``{u^b}``) are swapped when u^ab is non-faulty and reachable
  only through u^b: the masked reference sequence (0, 0, 2, ...) promises exactly that u reaches every
  distance-2 node, not through which neighbour.

A safe source (level / global level n) starts with LABEL all ones. An unsafe source sends a ``handoff``
to its lowest-dimension safe neighbour over a non-faulty link, which broadcasts as the source and sends
the copy for the originator with ``nocopy`` set, so every non-faulty node keeps exactly one copy.
"""
from __future__ import annotations

import numpy as np

from cubenoc.errors import CubenocError

from ..routing.base import HeaderLayout, Hop
from ..safety import MODELS, FaultSet, compute
from ..topology.hypercube import Hypercube
from .base import BroadcastAlgorithm, BroadcastTrace, run_broadcast


class SafetyBroadcast(BroadcastAlgorithm):
    name = "safety-level broadcast"

    def __init__(self, faults: FaultSet, model: str = "DSL2"):
        if model not in MODELS:
            raise CubenocError(f"model must be one of {', '.join(MODELS)}, got {model!r}")
        super().__init__(Hypercube(faults.n))
        self.faults = faults
        self.model = model
        self.n = faults.n
        self.nf, self.lf = faults.arrays()
        self.levels = compute(self.nf, self.lf, model)
        self.gsl = self.levels.gsl[0]
        if model.startswith("SL"):
            self._nbr = self.levels.level[0]                      # neighbour v^k's level: _nbr[v^k]
        else:
            self._dsl = self.levels.level[0]
        self._layout = HeaderLayout([("label", self.n), ("nocopy", 1), ("handoff", 1)])

    @property
    def layout(self) -> HeaderLayout:
        return self._layout

    # ---- the per-node decisions -------------------------------------------------------------------
    def neighbour_level(self, v: int, k: int) -> int:
        """The level of u^k that orders the coordinate sequence at v (SL level, or RDSL ns_kk)."""
        w = v ^ (1 << k)
        return int(self._nbr[w]) if self.model.startswith("SL") else int(self._dsl[w, k])

    def safe(self, v: int) -> bool:
        return int(self.gsl[v]) == self.n

    def _reach_via(self, v: int, a: int, b: int) -> bool:
        """v -> v^a -> v^ab is usable (non-faulty middle node, both links non-faulty)."""
        w = v ^ (1 << a)
        return not self.nf[w] and not self.lf[v, a] and not self.lf[w, b]

    def coordinate_sequence(self, v: int, label: int, source: bool = False) -> list[int]:
        dims = [k for k in range(self.n) if label >> k & 1]
        if source and self.model.startswith("DSL") and self.safe(v):
            cs = [int(k) for k in self.levels.order[0, v]]
        else:
            cs = sorted(dims, key=lambda k: (-self.neighbour_level(v, k), k))
        if self.model.endswith("2") and len(cs) >= 2:
            a, b = cs[-2], cs[-1]
            if not self.nf[v ^ (1 << a) ^ (1 << b)] and not self._reach_via(v, a, b) and self._reach_via(v, b, a):
                cs[-2], cs[-1] = b, a
        return cs

    def _send(self, v: int, label: int, cs: list[int], nocopy_dim: int | None = None) -> list[Hop]:
        hops = []
        for k in cs:
            if label >> k & 1:
                label &= ~(1 << k)
                if self.nf[v ^ (1 << k)] or self.lf[v, k]:
                    continue
                hdr = {"label": label, "nocopy": int(k == nocopy_dim), "handoff": 0}
                hops.append(Hop(k, hdr, 0))
        return hops

    def handoff_neighbour(self, src: int) -> int | None:
        """The dimension of the safe neighbour an unsafe source hands the broadcast to (None if none)."""
        for k in range(self.n):
            w = src ^ (1 << k)
            if self.safe(w) and not self.lf[src, k]:
                return k
        return None

    def start(self, src: int) -> list[Hop]:
        self.topology.check_node(src)
        if self.nf[src]:
            raise CubenocError(f"broadcast source {src} is faulty")
        full = (1 << self.n) - 1
        if self.safe(src):
            return self._send(src, full, self.coordinate_sequence(src, full, source=True))
        k = self.handoff_neighbour(src)
        if k is None:
            raise CubenocError(f"source {src} is unsafe under {self.model} and has no safe neighbour")
        return [Hop(k, {"label": 1 << k, "nocopy": 0, "handoff": 1}, 0)]

    def forward(self, node: int, header: dict) -> tuple[bool, list[Hop]]:
        self.layout.check(header)
        full = (1 << self.n) - 1
        if header["handoff"]:
            back = header["label"].bit_length() - 1
            return True, self._send(node, full, self.coordinate_sequence(node, full, source=True), back)
        label = header["label"]
        return not header["nocopy"], self._send(node, label, self.coordinate_sequence(node, label))

    def root(self, src: int) -> int:
        """The safe node the tree grows from (src itself, or the handoff neighbour)."""
        return src if self.safe(src) else src ^ (1 << self.handoff_neighbour(src))


def fault_skips(faults: FaultSet) -> tuple[frozenset, frozenset]:
    """``(skip_nodes, skip_links)`` for :func:`run_broadcast`."""
    links = set()
    for u, d in faults.links:
        links.add((u, d))
        links.add((u ^ (1 << d), d))
    return frozenset(faults.nodes), frozenset(links)


def check_broadcast(alg: SafetyBroadcast, src: int) -> tuple[bool, BroadcastTrace, str]:
    """Run from ``src``; ``ok`` iff every non-faulty node keeps exactly one copy, each over a shortest
    path from the safe root (kept at step dist(root, v), plus one for a handoff), and no message goes
    to a faulty node or over a faulty link."""
    skip_nodes, skip_links = fault_skips(alg.faults)
    trace = run_broadcast(alg, src, skip_nodes=skip_nodes, skip_links=skip_links)
    root = alg.root(src)
    extra = 0 if root == src else 1
    for step, u, port, w in trace.edges:
        if w in skip_nodes or (u, port) in skip_links:
            return False, trace, f"message from {u} on port {port} lost at a fault"
    for v in range(1 << alg.n):
        if v in skip_nodes:
            continue
        if trace.copies[v] != 1:
            return False, trace, f"node {v} kept {trace.copies[v]} copies"
        if v != src:
            want = bin(v ^ root).count("1") + extra
            if trace.step_kept[v] != want:
                return False, trace, f"node {v} kept its copy at step {trace.step_kept[v]}, not {want}"
    return True, trace, "ok"
