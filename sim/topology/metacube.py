"""The metacube MC(k, m) of Li, Peng and Chu, Sec. 2.

Address (Sec. 2, Fig. 2): ``n = m*2**k + k`` bits written ``(c, m_{h-1}, ..., m_1, m_0)`` with
``h = 2**k``: the k-bit class ``c`` on top, then ``h`` fields of m bits, field ``m_0`` in the lowest
bits. The node integer is exactly these bits: ``node = c << (m*h) | sum(m_i << (m*i))``. The nodeID of
a node of class ``c`` is its field ``m_c``; the other fields form its clusterID.

Edges (Sec. 2, Sec. 4 notation ``s^(i)``):

* cube-edges: flip bit ``j`` (0 <= j < m) of field ``m_c``, where ``c`` is the node's own class
  (``s^(j)``); both ends have the same class, so the edge is the same field's bit seen from either end;
* cross-edges: flip bit ``i`` (0 <= i < k) of the class field (``s^(m+i)``); the fields stay.

Port numbering (fixed; the routers use it): port ``j`` (0 <= j < m) is the cube-edge flipping bit j of
field ``m_c``; port ``m+i`` (0 <= i < k) is the cross-edge flipping class bit i; the local port is
``m+k``. Every link joins the same port number at both ends. This is the paper's dimension numbering
``s^(i)``, ``0 <= i <= m+k-1``, of Sec. 4.

Notation: ``format_node`` prints ``01,111,101,110,000`` (class, then ``m_{h-1}`` down to ``m_0``, each
most-significant bit first), as in the paper's example of Sec. 2: the cluster neighbours of
``(01,111,101,110,000)`` differ in field ``m_1 = 110``, the second field from the right.
"""
from __future__ import annotations

from cubenoc.errors import CubenocError, require_int

from .base import Topology

#: largest address width we build (2**MAX_BITS nodes; the RTL's DEST_WIDTH is 16)
MAX_BITS = 24


class Metacube(Topology):
    """MC(k, m): 2**k classes, each a set of m-cube clusters; ``m + k`` ports per node."""

    family = "metacube"

    def __init__(self, k: int, m: int):
        k = require_int(k, "k")
        m = require_int(m, "m")
        if not 1 <= k <= 4:
            raise CubenocError(f"k (class bits) must be in 1..4 for MC(k, m), got {k} "
                               f"(MC(0, m) is the hypercube Q_m: use the hypercube family)")
        if not 1 <= m <= 16:
            raise CubenocError(f"m (cluster dimension) must be in 1..16 for MC(k, m), got {m}")
        bits = m * (1 << k) + k
        if bits > MAX_BITS:
            raise CubenocError(f"MC(k, m) has 2**(m*2**k + k) nodes; m*2**k + k must be at most {MAX_BITS}, "
                               f"got {bits} for k={k}, m={m}")
        self.k, self.m = k, m
        self.h = 1 << k                 # number of classes = number of fields
        self.field_bits = m * self.h    # the m*2**k low bits
        self.n = bits                   # address width

    @property
    def params(self) -> dict:
        return {"k": self.k, "m": self.m}

    @property
    def num_nodes(self) -> int:
        return 1 << self.n

    def num_ports(self, node: int) -> int:
        return self.m + self.k

    # ---- address fields --------------------------------------------------------------------------
    def node_class(self, node: int) -> int:
        """The k-bit classID ``c``."""
        return node >> self.field_bits

    def field(self, node: int, i: int) -> int:
        """Field ``m_i`` (m bits)."""
        return (node >> (self.m * i)) & ((1 << self.m) - 1)

    def node_id(self, node: int) -> int:
        """The nodeID ``m_c`` (the field selected by the node's class)."""
        return self.field(node, self.node_class(node))

    def make_node(self, c: int, fields) -> int:
        """The node ``(c, m_{h-1}, ..., m_0)`` from its class and ``fields[i] = m_i``."""
        if not 0 <= c < self.h or len(fields) != self.h or not all(0 <= f < (1 << self.m) for f in fields):
            raise CubenocError(f"MC({self.k},{self.m}) needs a class in 0..{self.h - 1} and {self.h} fields "
                               f"in 0..{(1 << self.m) - 1}, got {c}, {list(fields)}")
        node = c << self.field_bits
        for i, f in enumerate(fields):
            node |= f << (self.m * i)
        return node

    # ---- wiring ----------------------------------------------------------------------------------
    def neighbor(self, node: int, port: int):
        if 0 <= port < self.m:               # cube-edge: bit `port` of field m_c
            return node ^ (1 << (self.m * self.node_class(node) + port)), port
        if self.m <= port < self.m + self.k:  # cross-edge: class bit port-m
            return node ^ (1 << (self.field_bits + port - self.m)), port
        return None

    def port_name(self, node: int, port: int) -> str:
        if 0 <= port < self.m:
            return f"cube{port}"
        if self.m <= port < self.m + self.k:
            return f"cross{port - self.m}"
        return super().port_name(node, port)

    def is_vertex_transitive_hint(self) -> bool:
        # x -> (c XOR a, m_{i XOR a}) composed with XOR on the fields is an automorphism mapping any
        # node to any other (the paper's "symmetric network", Sec. 1); tests check it by BFS.
        return True

    # ---- notation --------------------------------------------------------------------------------
    def format_node(self, node: int) -> str:
        self.check_node(node)
        parts = [format(self.node_class(node), f"0{self.k}b")]
        parts += [format(self.field(node, i), f"0{self.m}b") for i in reversed(range(self.h))]
        return ",".join(parts)

    def parse_node(self, text: str) -> int:
        raw = str(text).strip()
        s = raw.strip("()").replace(" ", "")
        parts = s.split(",")
        widths = [self.k] + [self.m] * self.h
        if len(parts) == 1 and len(s) == self.n and set(s) <= {"0", "1"}:
            return int(s, 2)                  # the address as one bit string
        if len(parts) != len(widths) or any(len(p) != w or not set(p) <= {"0", "1"}
                                            for p, w in zip(parts, widths)):
            example = ",".join(["0" * self.k] + ["0" * self.m] * self.h)
            raise CubenocError(f"a node of MC({self.k},{self.m}) is written as a {self.k}-bit class and "
                               f"{self.h} fields of {self.m} bits, e.g. {example}; got {raw!r}")
        return int("".join(parts), 2)
