"""The one interface every network family implements.

Nodes are the integers ``0 .. num_nodes-1``. Each node has network ports ``0 .. num_ports(node)-1``
(the router's ports, fixed per family and documented there); the router adds one local
injection/ejection port numbered ``local_port(node) == num_ports(node)``. Every network port is one end
of a bidirectional link: ``neighbor(node, port)`` gives ``(other_node, other_port)``, the port on the
other node that leads back, or ``None`` for a port that is not connected (a router may be built with
unused ports).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from functools import cached_property

import numpy as np

from cubenoc.errors import CubenocError


class Topology(ABC):
    """A network family instance: nodes, ports, and the neighbour on each port."""

    #: short family name, as used on the command line (``cubenoc generate FAMILY``)
    family: str = "topology"

    # ---- what a family defines -------------------------------------------------------------------
    @property
    @abstractmethod
    def num_nodes(self) -> int:
        """Number of nodes (routers)."""

    @abstractmethod
    def num_ports(self, node: int) -> int:
        """Number of network ports of ``node`` (the local port is not counted)."""

    @abstractmethod
    def neighbor(self, node: int, port: int) -> tuple[int, int] | None:
        """``(other_node, other_port)`` at the far end of ``port`` of ``node``, or ``None``."""

    def port_name(self, node: int, port: int) -> str:
        """Human-readable name of a port (``local`` for the local port)."""
        if port == self.local_port(node):
            return "local"
        return f"p{port}"

    def format_node(self, node: int) -> str:
        """A node address in the paper's notation."""
        return str(node)

    def parse_node(self, text: str) -> int:
        """Inverse of :meth:`format_node`; raises :class:`CubenocError` on bad input."""
        try:
            node = int(str(text).strip(), 0)
        except ValueError:
            raise CubenocError(f"bad node address {text!r} for {self}") from None
        return self.check_node(node)

    @property
    def params(self) -> dict:
        """The constructor parameters (for reports and generated file names)."""
        return {}

    # ---- derived ---------------------------------------------------------------------------------
    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}({args})"

    @property
    def name(self) -> str:
        """A file-name friendly identifier, e.g. ``enhanced_n4_k0``."""
        return "_".join([self.family] + [f"{k}{v}" for k, v in self.params.items()]).replace(" ", "")

    def nodes(self) -> range:
        return range(self.num_nodes)

    def local_port(self, node: int) -> int:
        """The router's local injection/ejection port: one past the network ports."""
        return self.num_ports(node)

    def check_node(self, node: int) -> int:
        if isinstance(node, bool) or not isinstance(node, (int, np.integer)) or not 0 <= node < self.num_nodes:
            raise CubenocError(f"node must be in 0..{self.num_nodes - 1} for {self}, got {node!r}")
        return int(node)

    def check_port(self, node: int, port: int) -> int:
        self.check_node(node)
        if not 0 <= port < self.num_ports(node):
            raise CubenocError(f"port must be in 0..{self.num_ports(node) - 1} at node {node} of {self}, got {port}")
        return port

    @property
    def degree(self) -> int:
        """Maximum number of network ports over all nodes."""
        return max(self.num_ports(v) for v in self.nodes())

    def links(self) -> list[tuple[int, int, int, int]]:
        """Every bidirectional link once, as ``(u, port_u, v, port_v)`` with ``(u, port_u) < (v, port_v)``."""
        out = []
        for u in self.nodes():
            for p in range(self.num_ports(u)):
                far = self.neighbor(u, p)
                if far is not None and (u, p) < far:
                    out.append((u, p, far[0], far[1]))
        return out

    @property
    def num_links(self) -> int:
        return len(self.links())

    def channels(self) -> list[tuple[int, int]]:
        """Every directed channel ``(node, out_port)`` that is connected."""
        return [(u, p) for u in self.nodes() for p in range(self.num_ports(u)) if self.neighbor(u, p) is not None]

    def validate(self) -> None:
        """Check the port wiring is consistent (each link's two ends name each other)."""
        for u in self.nodes():
            for p in range(self.num_ports(u)):
                far = self.neighbor(u, p)
                if far is None:
                    continue
                v, q = far
                if self.neighbor(v, q) != (u, p):
                    raise AssertionError(f"{self}: port {p} of {u} leads to port {q} of {v}, "
                                         f"which leads to {self.neighbor(v, q)}")

    # ---- distances -------------------------------------------------------------------------------
    @cached_property
    def _adjacency(self) -> list[list[int]]:
        adj = []
        for u in self.nodes():
            seen = []
            for p in range(self.num_ports(u)):
                far = self.neighbor(u, p)
                if far is not None and far[0] != u and far[0] not in seen:
                    seen.append(far[0])
            adj.append(seen)
        return adj

    def distances_from(self, src: int) -> np.ndarray:
        """BFS hop distances from ``src`` (``-1`` where unreachable)."""
        self.check_node(src)
        adj = self._adjacency
        dist = np.full(self.num_nodes, -1, dtype=np.int64)
        dist[src] = 0
        queue = deque([src])
        while queue:
            u = queue.popleft()
            for v in adj[u]:
                if dist[v] < 0:
                    dist[v] = dist[u] + 1
                    queue.append(v)
        return dist

    def distance_matrix(self) -> np.ndarray:
        """All-pairs BFS distances (``num_nodes`` x ``num_nodes``); meant for networks up to ~16k nodes."""
        return np.stack([self.distances_from(s) for s in self.nodes()])

    def is_vertex_transitive_hint(self) -> bool:
        """True when distances from node 0 represent every node (families override)."""
        return False

    def diameter(self) -> int:
        srcs = [0] if self.is_vertex_transitive_hint() else self.nodes()
        return int(max(self.distances_from(s).max() for s in srcs))

    def mean_distance(self, include_self: bool = False) -> float:
        """Mean BFS distance over ordered pairs of distinct nodes (or all pairs with ``include_self``)."""
        srcs = [0] if self.is_vertex_transitive_hint() else list(self.nodes())
        total = sum(int(self.distances_from(s).sum()) for s in srcs)
        n = self.num_nodes
        pairs = len(srcs) * (n if include_self else n - 1)
        return total / pairs
