"""Binary hypercube Q_n and the enhanced hypercube Q(n, k) of Tzeng and Wei.

Port numbering (fixed; the routers use it): port ``i`` (0 <= i < n) is dimension ``i``, the link to
``x XOR 2**i``. The enhanced hypercube adds the skip on port ``w = n``: the link between ``x`` and ``x``
with its low ``n-k`` bits complemented, ``x XOR (2**(n-k) - 1)`` (Tzeng and Wei Sec. III, Sec. VI-B). The
local port is the next number (``n`` for Q_n, ``n+1`` for Q(n, k)).
"""
from __future__ import annotations

from cubenoc.errors import CubenocError, require_int

from .base import Topology

MAX_N = 20


class Hypercube(Topology):
    """The binary n-cube: ``2**n`` nodes, node ``x`` linked to ``x ^ (1 << i)`` on port ``i``."""

    family = "hypercube"

    def __init__(self, n: int):
        self.n = require_int(n, "n", 1, MAX_N)

    @property
    def params(self) -> dict:
        return {"n": self.n}

    @property
    def num_nodes(self) -> int:
        return 1 << self.n

    def num_ports(self, node: int) -> int:
        return self.n

    def neighbor(self, node: int, port: int):
        if 0 <= port < self.n:
            return node ^ (1 << port), port
        return None

    def port_name(self, node: int, port: int) -> str:
        if 0 <= port < self.n:
            return f"dim{port}"
        return super().port_name(node, port)

    def format_node(self, node: int) -> str:
        return format(node, f"0{self.n}b")

    def parse_node(self, text: str) -> int:
        text = str(text).strip()
        if len(text) == self.n and set(text) <= {"0", "1"}:
            return int(text, 2)
        return super().parse_node(text)

    def is_vertex_transitive_hint(self) -> bool:
        return True


class EnhancedHypercube(Hypercube):
    """Q(n, k): a hypercube plus one skip per node on port ``w = n`` to ``x ^ (2**(n-k) - 1)``.

    ``k`` is in ``0..n-2`` (Tzeng and Wei Sec. III): ``k = 0`` joins each node to its complement (the
    farthest node); larger ``k`` joins nodes closer together. ``n-k >= 2`` keeps the skip distinct from
    the dimension-0 link.
    """

    family = "enhanced"

    def __init__(self, n: int, k: int):
        n = require_int(n, "n", 2, MAX_N)
        super().__init__(n)
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= n - 2:
            raise CubenocError(f"k must be in 0..n-2 for an n-cube (n={n}), got {k}")
        self.k = k

    @property
    def params(self) -> dict:
        return {"n": self.n, "k": self.k}

    @property
    def skip_port(self) -> int:
        """Port w of Sec. VI-B: the skip sits on the first port past the n dimensions."""
        return self.n

    @property
    def skip_mask(self) -> int:
        """``2**(n-k) - 1``: the low n-k address bits a skip complements."""
        return (1 << (self.n - self.k)) - 1

    def num_ports(self, node: int) -> int:
        return self.n + 1

    def neighbor(self, node: int, port: int):
        if port == self.skip_port:
            return node ^ self.skip_mask, port
        return super().neighbor(node, port)

    def port_name(self, node: int, port: int) -> str:
        if port == self.skip_port:
            return "skip"
        return super().port_name(node, port)
