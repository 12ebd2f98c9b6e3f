"""Algorithm B (Q_n broadcast, Sullivan and Bashkow) and Algorithm D (Q(n, k) broadcast) of Tzeng and Wei.

Ports as in :mod:`cubenoc.sim.topology.hypercube`: port ``i`` = dimension ``i`` (the paper's "link i"),
port ``n`` = the skip (Sec. V item 1: "the skip is referred to as link n").

Algorithm B (Sec. II-B): the tag is the ``weight``. The originator sends on every link ``l`` with
``weight = l``; a receiver keeps a copy and sends on every link ``l < weight`` with ``weight = l``.
Every node keeps one copy after n steps (a binomial spanning tree).

Algorithm D (Sec. V): the tag is ``<op, index, count>``; ``op = 1`` is the paper's "+" (broadcast),
``op = 0`` its "-" (forward without keeping a copy). The originator sends ``<+, l, c>`` on every
regular link l, ``c = k + ceil((n-k)/2)``, and ``<-, n-k, c'>`` over its skip, ``c' = floor((n-k)/2)``.
A receiver with ``op = +`` or ``index = n`` keeps a copy and, if ``count > 1``, sends ``<+, l, count-1>``
on every link ``l < index``; otherwise (``op = -``, ``index < n``) it forwards ``<-, index+1, count>`` on
link ``index`` without a copy. The skip copy thus walks X' = X xor (2^(n-k)-1), then along links
n-k .. n-1 to the complement X-bar, which broadcasts over all n dimensions for c' levels while X covers
the c levels nearest to itself: Theorem 3, ``c`` steps, one copy per node. Only the originator's skip
is ever used.
"""
from __future__ import annotations

from ..routing.base import HeaderLayout, Hop
from ..topology.hypercube import EnhancedHypercube, Hypercube
from .base import BroadcastAlgorithm

OP_FORWARD = 0   # the paper's "-"
OP_BROADCAST = 1  # the paper's "+"


def _ceil_half(x: int) -> int:
    return -(-x // 2)


def counts_d(n: int, k: int) -> tuple[int, int]:
    """Algorithm D's initial counts (Sec. V item 3): ``c = k + ceil((n-k)/2)`` on regular links and
    ``c' = floor((n-k)/2)`` over the skip; ``c + c' = n`` (proof of Theorem 3)."""
    return k + _ceil_half(n - k), (n - k) // 2


class BinomialBroadcast(BroadcastAlgorithm):
    """Algorithm B on Q_n (also runs on Q(n, k), ignoring the skips)."""

    name = "algorithm_b"

    def __init__(self, topology: Hypercube):
        if not isinstance(topology, Hypercube):
            raise TypeError(f"Algorithm B needs a Hypercube, got {topology!r}")
        super().__init__(topology)
        self.n = topology.n
        # weight takes the values 0..n-1 on the wire (the originator's n is never sent)
        self._layout = HeaderLayout([("weight", max(1, (self.n - 1).bit_length()))])


    def _send_below(self, weight: int) -> list[Hop]:
        return [Hop(l, {"weight": l}) for l in range(weight)]

    def start(self, src: int) -> list[Hop]:
        self.topology.check_node(src)
        return self._send_below(self.n)       # weight = log2 N = n at the originator

    def forward(self, node: int, header: dict) -> tuple[bool, list[Hop]]:
        return True, self._send_below(header["weight"])

    def expected_steps(self, src: int = 0) -> int:
        return self.n                          # log2 N steps (Sec. II-B)


class EnhancedBroadcast(BroadcastAlgorithm):
    """Algorithm D on Q(n, k), tag ``<op, index, count>``."""

    name = "algorithm_d"

    def __init__(self, topology: EnhancedHypercube):
        if not isinstance(topology, EnhancedHypercube):
            raise TypeError(f"Algorithm D needs an EnhancedHypercube, got {topology!r}")
        super().__init__(topology)
        self.n, self.k = topology.n, topology.k
        self.c, self.c_skip = counts_d(self.n, self.k)
        # index: 0..n (n = "reached the far node"); count: 1..c
        self._layout = HeaderLayout([("op", 1), ("index", self.n.bit_length()),
                                     ("count", self.c.bit_length())])


    def start(self, src: int) -> list[Hop]:
        self.topology.check_node(src)
        hops = [Hop(l, {"op": OP_BROADCAST, "index": l, "count": self.c}) for l in range(self.n)]
        hops.append(Hop(self.topology.skip_port,
                        {"op": OP_FORWARD, "index": self.n - self.k, "count": self.c_skip}))
        return hops

    def forward(self, node: int, header: dict) -> tuple[bool, list[Hop]]:
        op, index, count = header["op"], header["index"], header["count"]
        if op == OP_BROADCAST or index == self.n:
            if count > 1:
                return True, [Hop(l, {"op": OP_BROADCAST, "index": l, "count": count - 1})
                              for l in range(index)]
            return True, []
        # forward without a copy over link `index`; it never equals the skip port n here
        return False, [Hop(index, {"op": OP_FORWARD, "index": index + 1, "count": count})]

    def expected_steps(self, src: int = 0) -> int:
        return self.c                           # Theorem 3: k + ceil((n-k)/2), the diameter


def broadcast_for(topology: Hypercube) -> BroadcastAlgorithm:
    """Algorithm D on an enhanced hypercube, Algorithm B on a regular one."""
    if isinstance(topology, EnhancedHypercube):
        return EnhancedBroadcast(topology)
    return BinomialBroadcast(topology)
