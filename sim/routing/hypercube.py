"""Algorithm A (e-cube) and Algorithm C (enhanced hypercube) of Tzeng and Wei, as the routers run them.

Header: one field ``tag``. For Q_n it is the n-bit relative address ``src XOR dest``. For Q(n, k) it
has one more bit, bit ``w = n`` (the skip port's number, Sec. VI-B): the source interface applies
Algorithm C once, at injection -- when more than ceil((n-k)/2) of the low n-k tag bits are set it
complements them and sets bit w. Every router then runs the same per-hop rule (``route_ecube_skip``):

* bit w set  -> leave on the skip port w and clear bit w;
* else the highest set bit i -> leave on port i (dimension i) and clear bit i;
* a zero tag -> eject on the local port.

Higher ports are always taken before lower ones, so the channel dependency graph is acyclic (the
paper's deadlock argument; :mod:`cubenoc.sim.deadlock` checks it).
"""
from __future__ import annotations

from ..topology.hypercube import EnhancedHypercube, Hypercube
from .base import HeaderLayout, Hop, RoutingFunction


def skip_pays(tag: int, n: int, k: int) -> bool:
    """Algorithm C's test: more than ceil((n-k)/2) of the low n-k bits of the tag are set."""
    low = tag & ((1 << (n - k)) - 1)
    return bin(low).count("1") > -(-(n - k) // 2)


def inject_tag(src: int, dst: int, n: int, k: int | None) -> int:
    """The tag the source interface builds: Algorithm A for ``k=None``, else Algorithm C (Sec. VI-B)."""
    tag = src ^ dst
    if k is not None and skip_pays(tag, n, k):
        tag = (tag ^ ((1 << (n - k)) - 1)) | (1 << n)
    return tag


def route_ecube_skip(tag: int, width: int) -> tuple[int | None, int]:
    """The per-hop rule on a ``width``-bit tag: ``(port, new_tag)``, port ``None`` meaning eject.

    The highest set bit wins; bit w = n is the highest bit of an enhanced hypercube's tag, so the skip is
    taken first. For Q_n this is exactly Algorithm A.
    """
    if tag == 0:
        return None, 0
    i = tag.bit_length() - 1
    assert i < width, f"tag {tag:#x} wider than {width} bits"
    return i, tag & ~(1 << i)


class EcubeRouting(RoutingFunction):
    """Algorithm A on Q_n, or Algorithm C with the skip on port w on Q(n, k)."""

    num_vcs = 1

    def __init__(self, topology: Hypercube):
        if not isinstance(topology, Hypercube):
            raise TypeError(f"EcubeRouting needs a Hypercube or EnhancedHypercube, got {topology!r}")
        super().__init__(topology)
        self.n = topology.n
        self.k = topology.k if isinstance(topology, EnhancedHypercube) else None
        self.name = "ecube" if self.k is None else "ecube_skip"
        self._layout = HeaderLayout([("tag", self.n + (0 if self.k is None else 1))])


    def inject(self, src: int, dst: int) -> dict:
        self.check_pair(src, dst)
        return {"tag": inject_tag(src, dst, self.n, self.k)}

    def route(self, node: int, header: dict) -> Hop:
        port, tag = route_ecube_skip(header["tag"], self._layout.width)
        if port is None:
            port = self.topology.local_port(node)
        return Hop(port, {"tag": tag})
