"""The directed channels of a network as numpy arrays, and the paper's routing model on them as a fluid
(Dandamudi and Eager, "Hierarchical interconnection networks for multicomputer systems", Sec. III-B2: "the
routing algorithm utilizes all the shortest paths with equal probability"; here a uniform choice among the
shortest-path ports at every hop). Used by the explicit-graph measures (:mod:`.hierarchical_measure`) and
the interface trips of a level network (:mod:`.interface_trips`)."""
from __future__ import annotations

import numpy as np

from ..topology.base import Topology
from ..topology.hierarchical import Hierarchical


class Channels:
    """Directed channels ``(u, port) -> v`` as numpy arrays, with the level-2 flag."""

    def __init__(self, topo: Topology, d: int):
        u, p, v, ncl = [], [], [], []
        for node in topo.nodes():
            for port in range(topo.num_ports(node)):
                far = topo.neighbor(node, port)
                if far is not None:
                    u.append(node), p.append(port), v.append(far[0])
                    ncl.append(topo.is_level2_port(node, port) if isinstance(topo, Hierarchical) else port >= d)
        self.u, self.p, self.v = np.array(u), np.array(p), np.array(v)
        self.ncl = np.array(ncl, dtype=bool)
        self.index = {(a, b): i for i, (a, b) in enumerate(zip(u, p))}
        self.n_nodes = topo.num_nodes

    def bfs(self, src: int) -> np.ndarray:
        if not hasattr(self, "_nbr"):
            deg = np.bincount(self.u, minlength=self.n_nodes)
            nbr = np.full((self.n_nodes, max(1, int(deg.max()))), -1, dtype=np.int64)
            order = np.argsort(self.u, kind="stable")
            slot = np.arange(len(order)) - np.searchsorted(self.u[order], self.u[order])
            nbr[self.u[order], slot] = self.v[order]
            self._nbr = nbr
        dist = np.full(self.n_nodes, -1, dtype=np.int64)
        dist[src] = 0
        frontier, level = np.array([src]), 0
        while frontier.size:
            level += 1
            nxt = self._nbr[frontier].ravel()
            nxt = nxt[nxt >= 0]
            nxt = np.unique(nxt[dist[nxt] < 0])
            dist[nxt] = level
            frontier = nxt
        return dist


def fluid_to(ch: Channels, dist: np.ndarray, flow: np.ndarray) -> np.ndarray:
    """Per-channel load of ``flow`` (per node; a column per kind of message) moving to the root of ``dist``
    (:meth:`Channels.bfs` of the root), split evenly at every node among its channels one hop closer."""
    flow = flow.astype(float).copy()
    load = np.zeros((len(ch.u), *flow.shape[1:]))
    closer = np.nonzero(dist[ch.v] == dist[ch.u] - 1)[0]
    fan = np.bincount(ch.u[closer], minlength=len(dist)).reshape(-1, *[1] * (flow.ndim - 1))
    for level in range(int(dist.max()), 0, -1):
        e = closer[dist[ch.u[closer]] == level]
        share = flow[ch.u[e]] / fan[ch.u[e]]
        load[e] += share
        np.add.at(flow, ch.v[e], share)
    return load
