"""Safety-level binomial-tree broadcast in an injured hypercube (Wu Sec. 2.2, 2.3, 3.3).

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

One definition: :func:`fork` is the whole per-node decision as a pure function of the node's
:class:`LocalView` (what its safety-level unit and fault inputs show it at run time: its own level, the
levels its neighbours send over the sideband, the partition order, the fault bits of its ports) and the
tag. :class:`SafetyBroadcast` builds each node's view from the levels (computed by ``sim/safety.py`` or
read back from the hardware) and calls :func:`fork` for ``start`` and ``forward``; the RTL fork unit
(``rtl/safety/fork.py``) is tested against the same function.
"""
from __future__ import annotations

from dataclasses import dataclass

from cubenoc.errors import CubenocError

from ..routing.base import HeaderLayout, Hop
from ..safety import FaultSet, Levels, MODELS, compute, format_address
from ..topology.hypercube import Hypercube
from .base import BroadcastAlgorithm, BroadcastTrace, run_broadcast


def tag_layout(n: int) -> HeaderLayout:
    """The broadcast tag: ``label`` (n bits, LSB first), ``nocopy``, ``handoff``: n + 2 bits."""
    return HeaderLayout([("label", n), ("nocopy", 1), ("handoff", 1)])


@dataclass(frozen=True)
class LocalView:
    """What node u knows at run time (the fork unit's level and fault inputs), per dimension k:

    * ``own_level``: u's SL level (SL models) or global level GSL (DSL models); safe iff == n;
    * ``nbr_levels[k]``: the level ordering the coordinate sequence: u^k's SL level, or for DSL its RDSL
      ``ns_kk`` (element k of the DSL vector u^k sends);
    * ``order``: u's partition order from the adjustment process (DSL models; else None);
    * ``nbr_safe[k]``: u^k is safe (SL: ``nbr_levels[k] == n``; DSL: u^k's GSL == n);
    * ``link_faulty[k]``, ``nbr_faulty[k]``: the link to u^k / the node u^k is faulty;
    * d = 2 only: ``nbr_links[k][j]`` = link of u^k along j is faulty, ``nbr_nbrs[k][j]`` = u^{kj} is
      faulty (the distance-2 information the SL(2)/DSL(2) unit receives as ``rx_fault`` / ``rx_nbrs``).
    """

    n: int
    model: str
    own_level: int
    nbr_levels: tuple
    nbr_safe: tuple
    link_faulty: tuple
    nbr_faulty: tuple
    order: tuple | None = None
    nbr_links: tuple | None = None
    nbr_nbrs: tuple | None = None

    @property
    def safe(self) -> bool:
        return self.own_level == self.n

    def usable(self, k: int) -> bool:
        """A message may go to u^k: neither the link nor the neighbour is faulty."""
        return not self.link_faulty[k] and not self.nbr_faulty[k]

    def reach_via(self, a: int, b: int) -> bool:
        """u -> u^a -> u^ab is usable (non-faulty middle node, both links non-faulty)."""
        return self.usable(a) and not self.nbr_links[a][b]


def coordinate_sequence(view: LocalView, label: int, source: bool = False) -> list[int]:
    """The dimensions set in ``label`` in the order u splits them (Sec. 2.2, module docstring)."""
    n = view.n
    if source and view.model.startswith("DSL") and view.safe:
        cs = [int(k) for k in view.order]
    else:
        cs = sorted((k for k in range(n) if label >> k & 1), key=lambda k: (-view.nbr_levels[k], k))
    if view.model.endswith("2") and len(cs) >= 2:
        a, b = cs[-2], cs[-1]
        if not view.nbr_nbrs[a][b] and not view.reach_via(a, b) and view.reach_via(b, a):
            cs[-2], cs[-1] = b, a
    return cs


def handoff_dimension(view: LocalView) -> int | None:
    """The lowest dimension k with u^k safe over a non-faulty link (None if there is none)."""
    for k in range(view.n):
        if view.nbr_safe[k] and not view.link_faulty[k]:
            return k
    return None


def _split(view: LocalView, label: int, cs: list[int], nocopy_dim: int | None) -> list[Hop]:
    hops = []
    for k in cs:
        if label >> k & 1:
            label &= ~(1 << k)
            if view.usable(k):
                hops.append(Hop(k, {"label": label, "nocopy": int(k == nocopy_dim), "handoff": 0}, 0))
    return hops


def fork(view: LocalView, tag: dict | None, origin: bool) -> tuple[bool, list[Hop]]:
    """The fork decision at one node: ``(keep, hops)``. ``origin``: the head is at the source's local
    FIFO (``tag`` is ignored; the source keeps its own copy, so ``keep`` is False); otherwise ``tag`` is
    the received broadcast tag. An unsafe origin with no safe neighbour sends nothing."""
    full = (1 << view.n) - 1
    if origin:
        if view.safe:
            return False, _split(view, full, coordinate_sequence(view, full, True), None)
        k = handoff_dimension(view)
        if k is None:
            return False, []
        return False, [Hop(k, {"label": 1 << k, "nocopy": 0, "handoff": 1}, 0)]
    if tag["handoff"]:
        back = tag["label"].bit_length() - 1
        return True, _split(view, full, coordinate_sequence(view, full, True), back)
    label = tag["label"]
    return not tag["nocopy"], _split(view, label, coordinate_sequence(view, label), None)


def levels_of(batch: Levels, b: int) -> Levels:
    """Fault set ``b`` of a batched :func:`~cubenoc.sim.safety.compute` result, as a batch of one."""
    def pick(a):
        return None if a is None else a[b:b + 1]
    return Levels(batch.model, batch.n, pick(batch.init), pick(batch.level), pick(batch.rounds),
                  pick(batch.adsl), pick(batch.order), pick(batch.gsl))


class SafetyBroadcast(BroadcastAlgorithm):
    """The safety-level broadcast on an injured n-cube. ``levels`` (optional): the settled levels of
    ``model`` for ``faults`` (a batch of one, e.g. read back from the hardware or :func:`levels_of`);
    computed with ``sim.safety.compute`` when omitted. Every decision is :func:`fork` on the node's
    :meth:`view` of those levels."""

    name = "safety-level broadcast"

    def __init__(self, faults: FaultSet, model: str = "DSL2", levels: Levels | None = None):
        if model not in MODELS:
            raise CubenocError(f"model must be one of {', '.join(MODELS)}, got {model!r}")
        super().__init__(Hypercube(faults.n))
        self.faults = faults
        self.model = model
        self.n = faults.n
        self.nf, self.lf = faults.arrays()
        if levels is None:
            levels = compute(self.nf, self.lf, model)
        elif levels.model != model or levels.n != self.n or levels.gsl is None or levels.gsl.shape[0] != 1:
            raise CubenocError(f"levels must be the settled {model} levels of one {self.n}-cube fault set "
                               f"(got {levels.model}, n = {levels.n})")
        self.levels = levels
        self.gsl = self.levels.gsl[0]
        if model.startswith("SL"):
            self._nbr = self.levels.level[0]                      # neighbour v^k's level: _nbr[v^k]
        else:
            self._dsl = self.levels.level[0]
        self._layout = tag_layout(self.n)
        self._views: dict[int, LocalView] = {}


    # ---- the per-node view and decisions ------------------------------------------------------------
    def view(self, v: int) -> LocalView:
        """Node v's :class:`LocalView` (cached)."""
        got = self._views.get(v)
        if got is not None:
            return got
        n = self.n
        nbrs = [v ^ (1 << k) for k in range(n)]
        d2 = self.model.endswith("2")
        self._views[v] = got = LocalView(
            n=n, model=self.model, own_level=int(self.gsl[v]),
            nbr_levels=tuple(self.neighbour_level(v, k) for k in range(n)),
            nbr_safe=tuple(self.safe(w) for w in nbrs),
            link_faulty=tuple(bool(x) for x in self.lf[v]),
            nbr_faulty=tuple(bool(self.nf[w]) for w in nbrs),
            order=None if self.model.startswith("SL") else tuple(int(x) for x in self.levels.order[0, v]),
            nbr_links=tuple(tuple(bool(x) for x in self.lf[w]) for w in nbrs) if d2 else None,
            nbr_nbrs=tuple(tuple(bool(self.nf[w ^ (1 << j)]) for j in range(n)) for w in nbrs) if d2 else None)
        return got

    def neighbour_level(self, v: int, k: int) -> int:
        """The level of u^k that orders the coordinate sequence at v (SL level, or RDSL ns_kk)."""
        w = v ^ (1 << k)
        return int(self._nbr[w]) if self.model.startswith("SL") else int(self._dsl[w, k])

    def safe(self, v: int) -> bool:
        return int(self.gsl[v]) == self.n

    def coordinate_sequence(self, v: int, label: int, source: bool = False) -> list[int]:
        return coordinate_sequence(self.view(v), label, source)

    def handoff_neighbour(self, src: int) -> int | None:
        """The dimension of the safe neighbour an unsafe source hands the broadcast to (None if none)."""
        return handoff_dimension(self.view(src))

    def start(self, src: int) -> list[Hop]:
        self.topology.check_node(src)
        if self.nf[src]:
            raise CubenocError(f"broadcast source {src} is faulty")
        if not self.safe(src) and self.handoff_neighbour(src) is None:
            raise CubenocError(f"source {src} is unsafe under {self.model} and has no safe neighbour")
        return fork(self.view(src), None, True)[1]

    def forward(self, node: int, header: dict) -> tuple[bool, list[Hop]]:
        self.layout.check(header)
        return fork(self.view(node), header, False)

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


def subcube(node: int, label: int, n: int) -> str:
    """The subcube a tag stands for, in the paper's notation (Sec. 2.1): ``node``'s address
    ``u_0 .. u_{n-1}`` with ``*`` at the free dimensions of ``label``."""
    return "".join("*" if label >> k & 1 else str(node >> k & 1) for k in range(n))


def tree_lines(alg: SafetyBroadcast, src: int) -> list[str]:
    """The broadcast tree from ``src`` as indented text: per received copy the port (dimension) it came
    over, the node, the subcube of its tag, and whether it keeps a copy (docs/safety_hw.md)."""
    n = alg.n
    head = f"{format_address(src, n)} source, level {int(alg.gsl[src])}"
    if alg.safe(src):
        head += ", cs " + " ".join(map(str, alg.coordinate_sequence(src, (1 << n) - 1, source=True)))
    lines = [head]

    def walk(v, hops, depth):
        for h in hops:
            w = v ^ (1 << h.port)
            hdr = h.header
            if hdr["handoff"]:
                what = f"hand-over (back along {h.port})"
            else:
                what = subcube(w, hdr["label"], n) + ("  no copy" if hdr["nocopy"] else "")
            keep, nxt = alg.forward(w, hdr)
            cs = ""
            if nxt:
                label = (1 << n) - 1 if hdr["handoff"] else hdr["label"]
                cs = "  cs " + " ".join(map(str, alg.coordinate_sequence(w, label, source=bool(hdr["handoff"]))))
            lines.append(f"{'    ' * depth}+-d{h.port}-> {format_address(w, n)}  {what}{cs}")
            walk(w, nxt, depth + 1)

    walk(src, alg.start(src), 1)
    return lines
