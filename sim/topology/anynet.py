"""A user's own network: any connected graph with one node per router (:class:`AnyNetwork`).

The graph usually comes from a BookSim anynet file (:mod:`cubenoc.sim.anynet_file`, docs/anynet.md). Nodes
are ``0 .. N-1``; node v's network ports are its neighbours in the order the file lists them
(:attr:`AnyNetwork.adjacency`), the local port one past them, as in every family. Every link is
bidirectional: port p of u leads to v, and v's port back to u is the position of u in v's list.
"""
from __future__ import annotations

from functools import cached_property
from pathlib import Path

import numpy as np

from cubenoc.errors import CubenocError

from .base import Topology

#: most network ports of one router: the model's port masks are 62-bit words (sim/model/tables.py)
MAX_PORTS = 61
#: most routers: the distances and route tables hold every (router, destination) pair (N^2 entries; 8,192
#: routers: 128 MB of distances, 384 MB of up*/down* tables)
MAX_ROUTERS = 8192


class AnyNetwork(Topology):
    """The network of ``adjacency`` (node -> its neighbours, in port order; each link in both lists).
    ``source`` names where it came from (the file), for reports and file names."""

    family = "anynet"

    def __init__(self, adjacency, source: str = "graph"):
        adj = [list(map(int, nbrs)) for nbrs in adjacency]
        n = len(adj)
        if n < 1:
            raise CubenocError("a network needs at least one router")
        if n > MAX_ROUTERS:
            raise CubenocError(f"{n:,} routers: the route tables hold every pair of routers, at most {MAX_ROUTERS:,}")
        self.adjacency = adj
        self.source = str(source)
        P = max((len(a) for a in adj), default=0)
        if P > MAX_PORTS:
            worst = max(range(n), key=lambda v: len(adj[v]))
            raise CubenocError(f"router {worst} has {P} links; a router has at most {MAX_PORTS} network ports")
        nbr = np.full((n, max(P, 1)), -1, dtype=np.int64)
        back = np.full((n, max(P, 1)), -1, dtype=np.int64)
        index = [{w: p for p, w in enumerate(a)} for a in adj]
        for v, a in enumerate(adj):
            if len(index[v]) != len(a):
                raise CubenocError(f"router {v} lists a neighbour twice")
            for p, w in enumerate(a):
                if not 0 <= w < n or w == v or v not in index[w]:
                    raise CubenocError(f"router {v}'s port {p} leads to {w}, which is not a router linked back to {v}")
                nbr[v, p], back[v, p] = w, index[w][v]
        #: ``nbr[v, p]`` the neighbour on port p (-1: no port), ``back[v, p]`` its port that leads back
        self.nbr, self.back = nbr, back
        self._ports = [len(a) for a in adj]

    @property
    def num_nodes(self) -> int:
        return len(self.adjacency)

    def num_ports(self, node: int) -> int:
        return self._ports[node]

    def neighbor(self, node: int, port: int):
        if not 0 <= port < self._ports[node]:
            return None
        return int(self.nbr[node, port]), int(self.back[node, port])

    @property
    def params(self) -> dict:
        return {"file": self.source, "nodes": self.num_nodes}

    @property
    def name(self) -> str:
        stem = "".join(c if c.isalnum() else "_" for c in Path(self.source).stem)
        return f"anynet_{stem}"

    @cached_property
    def distances(self) -> np.ndarray:
        """All-pairs hop distances ``[N, N]`` (int16; -1 unreachable), every source's BFS at once."""
        return all_pairs_distances(self.nbr)

    def distance_matrix(self) -> np.ndarray:
        return self.distances.astype(np.int64)

    def distances_from(self, src: int) -> np.ndarray:
        self.check_node(src)
        return self.distances[src].astype(np.int64)

    def diameter(self) -> int:
        return int(self.distances.max())

    def mean_distance(self, include_self: bool = False) -> float:
        n = self.num_nodes
        pairs = n * (n if include_self else n - 1)
        return float(self.distances.sum(dtype=np.int64)) / pairs if pairs else 0.0


def all_pairs_distances(nbr: np.ndarray) -> np.ndarray:
    """Hop distances of the undirected graph ``nbr[v, p]`` (-1: no port) from every node at once: a BFS
    whose frontier is a bit set of sources per node, so one step is an OR of each node's neighbours' rows
    (``N^2 / 8`` bytes per port and step; the 4,096-node 12-cube in about a second)."""
    n, P = nbr.shape
    words = (n + 63) // 64
    eye = np.zeros((n + 1, words * 64), dtype=bool)         # row n: the empty row a missing port reads
    eye[np.arange(n), np.arange(n)] = True
    reached = np.packbits(eye, axis=1, bitorder="little").view(np.uint64)
    frontier = reached.copy()
    rows = np.where(nbr >= 0, nbr, n)
    dist = np.full((n, n), -1, dtype=np.int16)
    dist[np.arange(n), np.arange(n)] = 0
    for step in range(1, n):
        new = np.zeros_like(frontier)
        for p in range(P):
            new[:n] |= frontier[rows[:, p]]
        new &= ~reached
        if not new[:n].any():
            break
        reached |= new
        frontier = new
        hit = np.unpackbits(new[:n].view(np.uint8), axis=1, bitorder="little")[:, :n].astype(bool)
        dist[hit] = step                    # row: the node reached, column: the source; symmetric
    return dist
