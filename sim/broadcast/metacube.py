"""One-to-all broadcast in MC(k, m) (Li, Peng and Chu Sec. 4.2, Table 3, Theorem 3) as a one-port schedule.

The paper's algorithm is for the one-port model (a node sends at most one message and receives at most
one per step) with globally synchronised phases, so it does not fit the all-port, forward-on-receipt
model of :class:`~cubenoc.sim.broadcast.base.BroadcastAlgorithm`. It is represented here as an explicit
schedule: a list of steps, each a list of transfers ``(sender, port, receiver)``.

1. binomial tree on the class cube through the cross-edges (class bit 0 first): k steps, one node per
   class (all with the source's fields);
2. for i = 0 .. 2**k - 1: every cluster that holds the message in exactly one node broadcasts it
   through a binomial tree on its cube-edges (bit 0 first): m steps;
3. if i < 2**k - 1: every node u sends to ``next(u)``, the node with the same fields in the next class
   of the Gray-code cycle of classes (00 -> 01 -> 11 -> 10 -> 00): 1 step.

Time (Theorem 3): ``k + 2**k * m + 2**k - 1 = (m+1) 2**k + k - 1``.

Duplicates: as printed, step 3 sends from *every* node, but ``next(u)`` already holds the message for
2**(m*i) nodes per class in iteration i -- Table 3 itself lists ``000000000 -> 010000000`` and
``100000000 -> 000000000`` (to the source). ``dedupe=True`` (default) keeps only the sends to nodes
without the message: in iteration i a node of class c sends iff its field ``m_{p^i(c)}``
differs from the source's (p = previous class on the Gray cycle): a local test on the header. The step count is unchanged.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from cubenoc.errors import CubenocError

from ..routing.base import HeaderLayout, Hop
from ..routing.metacube import gray, gray_rank
from ..topology.metacube import Metacube
from .base import BroadcastAlgorithm


def next_class(c: int, k: int) -> int:
    """The successor of class ``c`` on the Gray-code Hamiltonian cycle of the class cube."""
    return gray((gray_rank(c) + 1) % (1 << k))


def prev_class(c: int, k: int) -> int:
    return gray((gray_rank(c) - 1) % (1 << k))


@dataclass
class BroadcastSchedule:
    src: int
    steps: list[list[tuple[int, int, int]]]          # per step: (sender, port, receiver)
    phases: list[str] = field(default_factory=list)  # per step: "class", "cluster i", "next i"

    @property
    def num_steps(self) -> int:
        return len(self.steps)

    def receipts(self, num_nodes: int) -> list[int]:
        """Copies each node ends up with (the source counts its own)."""
        got = [0] * num_nodes
        got[self.src] = 1
        for step in self.steps:
            for _u, _p, v in step:
                got[v] += 1
        return got

    @property
    def messages(self) -> int:
        return sum(len(s) for s in self.steps)


def broadcast_schedule(topo: Metacube, src: int, dedupe: bool = True) -> BroadcastSchedule:
    """The Sec. 4.2 schedule from ``src``; ``dedupe=False`` is the algorithm exactly as printed."""
    topo.check_node(src)
    k, m, h = topo.k, topo.m, topo.h
    have = {src}
    steps, phases = [], []

    def run(transfers, phase):
        steps.append(transfers)
        phases.append(phase)
        have.update(v for _u, _p, v in transfers)

    # 1. binomial tree on the class cube
    for i in range(k):
        run([(u, m + i, topo.neighbor(u, m + i)[0]) for u in sorted(have)], "class")
    for it in range(h):
        # 2. binomial tree in every cluster that holds the message in one node only
        cluster_of = {}
        for u in have:
            cid = u & ~(((1 << m) - 1) << (m * topo.node_class(u)))
            cluster_of.setdefault(cid, []).append(u)
        roots = {us[0] for us in cluster_of.values() if len(us) == 1}
        assert all(len(us) in (1, 1 << m) for us in cluster_of.values()), "partially covered cluster"
        active = set(roots)
        for j in range(m):
            transfers = [(u, j, topo.neighbor(u, j)[0]) for u in sorted(active)]
            active.update(v for _u, _p, v in transfers)
            run(transfers, f"cluster {it}")
        # 3. through the next link
        if it < h - 1:
            transfers = []
            for u in sorted(have):
                c = topo.node_class(u)
                port = m + (c ^ next_class(c, k)).bit_length() - 1
                v = topo.neighbor(u, port)[0]
                if dedupe:
                    keep = topo.field(u, _prev_power(c, it, k)) != topo.field(src, _prev_power(c, it, k))
                    assert keep == (v not in have), "the local dedupe rule disagrees with the global state"
                    if not keep:
                        continue
                transfers.append((u, port, v))
            run(transfers, f"next {it}")
    return BroadcastSchedule(src, steps, phases)


class MetacubeBroadcast(BroadcastAlgorithm):
    """The Sec. 4.2 schedule as routers run it (all-port, forward on receipt; docs/router.md
    "Broadcast and multicast"): the same tree as :func:`broadcast_schedule` (``dedupe=True``), each
    node acting as soon as it holds the message instead of at the schedule's global phase.

    Tag ``<phase, iter, first, moved>``: ``phase`` 0 = the class binomial tree over cross-edges (bit 0
    first, as the schedule: a copy that came over class bit j sends on class bits j+1 .. k-1, i.e.
    ``first = j + 1``); ``phase`` 1 = the cluster binomial tree of iteration ``iter`` over cube-edges
    (cube bits ``first`` .. m-1). A node reached in the class tree is its class's iteration-0 cluster
    root (``first = 0``). A node of iteration i sends on to ``next(u)`` (the root of iteration i+1,
    ``first = 0``) iff i < 2**k - 1 and ``moved``: the copy took a cube-edge in iteration
    0. That is the schedule's dedupe rule "field m_{p^i(c)} differs from the source's" made local:
    p^i(c) is the class of iteration 0 on this copy's chain, and only iteration 0's cube hops change
    that field. Every node keeps one copy; the deepest chain is k + 2**k m + 2**k - 1 hops, Theorem 3's
    step count (:func:`theorem3_steps`)."""

    name = "metacube_broadcast"

    def __init__(self, topology: Metacube):
        if not isinstance(topology, Metacube):
            raise TypeError(f"MetacubeBroadcast needs a Metacube, got {topology!r}")
        super().__init__(topology)
        self.k, self.m, self.h = topology.k, topology.m, topology.h
        self._layout = HeaderLayout([("phase", 1), ("iter", max(1, self.k)),
                                     ("first", max(self.k, self.m).bit_length()), ("moved", 1)])


    def _cluster(self, it: int, first: int, moved: int):
        return [Hop(j, {"phase": 1, "iter": it, "first": j + 1, "moved": moved}) for j in range(first, self.m)]

    def _next(self, node: int, it: int, moved: int):
        if not moved or it >= self.h - 1:
            return []
        c = self.topology.node_class(node)
        port = self.m + (c ^ next_class(c, self.k)).bit_length() - 1
        return [Hop(port, {"phase": 1, "iter": it + 1, "first": 0, "moved": moved})]

    def _class(self, first: int):
        return [Hop(self.m + i, {"phase": 0, "iter": 0, "first": i + 1, "moved": 0}) for i in range(first, self.k)]

    def start(self, src: int):
        self.topology.check_node(src)
        return self._class(0) + self._cluster(0, 0, 1)

    def forward(self, node: int, header: dict):
        phase, it, first, moved = header["phase"], header["iter"], header["first"], header["moved"]
        if phase == 0:
            if not 1 <= first <= self.k or it or moved:
                raise CubenocError(f"class-tree tag out of range: {header}")
            return True, self._class(first) + self._cluster(0, 0, 1)
        if first > self.m or it >= self.h:
            raise CubenocError(f"cluster tag out of range: {header}")
        return True, self._cluster(it, first, moved) + self._next(node, it, moved)

    def expected_steps(self, src: int = 0) -> int:
        return theorem3_steps(self.k, self.m)


def router_broadcast_refusal(network: str) -> str:
    """Why the routers do not fork the metacube broadcast, and what to use instead: the one line every
    command prints for a metacube spec with ``broadcast=1`` (``--broadcast``), and :meth:`RouterConfig.check
    <cubenoc.sim.router_config.RouterConfig.check>` for the catalog's routing (docs/router.md "Broadcast and
    multicast"). The broadcast routers have one VC; in one VC both this tree (a copy crosses to the next
    class, fills its cluster, crosses again ... round the class cycle) and the class-path unicast routing
    have a cycle of channel dependencies (``check_broadcast_deadlock`` / ``check_deadlock``), and the
    catalog's routing needs 2 or more VCs."""
    return (f"{network}: the routers do not fork the metacube broadcast: its Sec. 4.2 tree and the class-path "
            "routing go round the class cycle, which needs 2 or more virtual channels to be deadlock-free, and "
            "broadcast routers have one; leave out broadcast (the metacube's unicast routers reach every node: "
            "send one packet per destination) or broadcast on a hypercube, enhanced or pdn network")


def _prev_power(c: int, i: int, k: int) -> int:
    """``p^i(c)``: i steps back along the Gray cycle of classes."""
    for _ in range(i):
        c = prev_class(c, k)
    return c


def theorem3_steps(k: int, m: int) -> int:
    """Theorem 3: one-to-all broadcast in MC(k, m) takes (m+1) 2**k + k - 1 steps."""
    return (m + 1) * (1 << k) + k - 1


def check_one_port(topo: Metacube, sched: BroadcastSchedule) -> None:
    """Every transfer is over a link from a node that has the message; per step each node sends at
    most one message and receives at most one (the one-port model of Sec. 4.2)."""
    have = {sched.src}
    for n, step in enumerate(sched.steps, 1):
        senders = [u for u, _p, _v in step]
        receivers = [v for _u, _p, v in step]
        assert len(set(senders)) == len(senders), f"step {n}: a node sends twice"
        assert len(set(receivers)) == len(receivers), f"step {n}: a node receives twice"
        for u, p, v in step:
            assert u in have, f"step {n}: {topo.format_node(u)} sends before it has the message"
            assert topo.neighbor(u, p) == (v, p), f"step {n}: no link {u} port {p} -> {v}"
        have.update(receivers)
