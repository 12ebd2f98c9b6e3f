"""Minimal table routing for any network (:class:`MinimalTableRouting`), deadlock-free by up*/down* layers.

Every packet takes a shortest path. To make the channel dependency graph acyclic, the routers are ordered
as up*/down* orders them (Schroeder et al., "Autonet: a high-speed, self-configuring local area network
using point-to-point links"): a root (a centre of the graph), and each router ranked by its distance from
the root, then its id. A hop to a lower-ranked router goes *up*, to a higher-ranked one *down*. A route that
never turns from a down hop to an up hop is an up*/down* route, and the dependencies among such routes
cannot close a cycle (along up hops the rank falls, along down hops it rises, and no dependency leads from
a down channel back to an up one). A shortest path may need such a turn (around a ring it must); then the
packet moves to the next virtual channel: its VC is the number of down -> up turns it has made, so within
one VC every route is up*/down* and between VCs dependencies only go upwards. The choice among the shortest
paths minimises those turns (a dynamic programme over the distance to the destination, per state "the
packet arrived going down" or not); the VCs the network needs are one more than the most turns any route
makes (1 for the hypercube, the PDN {0,1,3,9}; 2 for a ring).

Header: ``dest``, and with more than one VC ``down`` (the hop the packet arrived on went down) and ``vc``
(the turns so far). With one VC the table is a function of (node, dest) alone: at each router the packet
takes a turn-free down hop where one exists, else the table's up hop (both keep every route turn-free).
The tables are numpy arrays, destination-major (``table[dest, node]``), filled by compiled loops (the
4,096-node 12-cube in about a second); the RTL builds them as per-node ROMs (rtl/route/rom.py).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cubenoc.errors import CubenocError

from ..topology.anynet import AnyNetwork
from .base import HeaderLayout, Hop, RoutingFunction

#: the most virtual channels an anynet network's routers get (a network needing more is refused)
MAX_VCS = 4
#: the root is chosen among at most this many centres (the one whose routes need the fewest VCs)
ROOT_CANDIDATES = 8


def _bits(values: int) -> int:
    return max(1, (values - 1).bit_length())


def updown_tables(nbr: np.ndarray, dist: np.ndarray, root: int):
    """``(down, turns, port, free)`` of the up*/down* order about ``root``: ``down[v, p]`` the hop on port p
    of v goes down; ``turns[s, d, v]`` the fewest down -> up turns left on a shortest path from v to d for a
    packet that arrived going down (s = 1) or not (s = 0); ``port[s, d, v]`` the first hop of that path
    (-1 at d itself); ``free[d, v]`` the first down hop of v towards d after which no turn is left (-1:
    none). Destination-major, so that one destination's work stays in the cache."""
    n, P = nbr.shape
    rank = np.empty(n, dtype=np.int64)
    rank[np.lexsort((np.arange(n), dist[root]))] = np.arange(n)
    safe = np.where(nbr >= 0, nbr, 0)
    down = (nbr >= 0) & (rank[safe] > rank[:, None])
    turns = np.zeros((2, n, n), dtype=np.int16)
    port = np.full((2, n, n), -1, dtype=np.int8)
    free = np.full((n, n), -1, dtype=np.int8)
    _updown_dp(nbr.astype(np.int32), dist, down, turns, port, free)
    return down, turns, port, free


@njit(cache=True, nogil=True)
def _updown_dp(nbr, dist, down, turns, port, free):     # pragma: no cover (compiled)
    n, P = nbr.shape
    order = np.empty(n, dtype=np.int64)
    start = np.empty(n + 2, dtype=np.int64)
    for d in range(n):
        row = dist[d]                     # dist is symmetric: row d is every node's distance to d
        start[:] = 0
        for v in range(n):
            start[row[v] + 1] += 1
        for k in range(1, n + 1):
            start[k] += start[k - 1]
        for v in range(n):                # counting sort by distance to d, nearest first
            order[start[row[v]]] = v
            start[row[v]] += 1
        up_d, down_d = turns[0, d], turns[1, d]
        for i in range(n):
            v = order[i]
            k = row[v]
            if k == 0:
                continue
            b0, b1, p0, p1, f = 1 << 14, 1 << 14, -1, -1, -1
            for p in range(P):
                w = nbr[v, p]
                if w < 0:
                    break
                if row[w] != k - 1:
                    continue
                if down[v, p]:
                    c = down_d[w]
                    if c == 0 and f < 0:
                        f = p
                    if c < b0:
                        b0, p0 = c, p
                    if c < b1:
                        b1, p1 = c, p
                else:
                    c = up_d[w]
                    if c < b0:
                        b0, p0 = c, p
                    if c + 1 < b1:
                        b1, p1 = c + 1, p
            up_d[v], down_d[v] = b0, b1
            port[0, d, v], port[1, d, v] = p0, p1
            free[d, v] = f


class MinimalTableRouting(RoutingFunction):
    """Shortest-path table routing on an :class:`AnyNetwork`, VCs by up*/down* turns (module docstring)."""

    name = "anynet_minimal"

    def __init__(self, topology: AnyNetwork, max_vcs: int = MAX_VCS):
        if not isinstance(topology, AnyNetwork):
            raise TypeError(f"MinimalTableRouting needs an AnyNetwork, got {topology!r}")
        super().__init__(topology)
        n = topology.num_nodes
        dist = topology.distances
        ecc = dist.max(axis=1)
        centres = np.nonzero(ecc == ecc.min())[0][:ROOT_CANDIDATES]
        best = None
        for root in centres.tolist():
            down, turns, port, free = updown_tables(topology.nbr, dist, root)
            need = int(turns[0].max()) + 1
            if best is None or need < best[0]:
                best = (need, root, down, turns, port, free)
            if need == 1:
                break
        need, self.root, self.down, turns, port, free = best
        if need > max_vcs:
            d, v = np.unravel_index(int(np.argmax(turns[0])), turns[0].shape)
            raise CubenocError(f"{topology.source}: its shortest routes need {need} virtual channels (the route from "
                               f"router {v} to {d} turns from a down hop to an up hop {need - 1} times about the "
                               f"up*/down* root {self.root}); the routers take at most {max_vcs}")
        self.num_vcs = need
        self.turns = turns
        if need == 1:
            self.table = np.where(free >= 0, free, port[0])
            self._layout = HeaderLayout([("dest", _bits(n))])
        else:
            self.table = port
            self._layout = HeaderLayout([("dest", _bits(n)), ("down", 1), ("vc", _bits(need))])

    def inject(self, src: int, dst: int) -> dict:
        self.check_pair(src, dst)
        return {"dest": dst} if self.num_vcs == 1 else {"dest": dst, "down": 0, "vc": 0}

    def route(self, node: int, header: dict) -> Hop:
        topo, dst = self.topology, header["dest"]
        if dst >= topo.num_nodes:
            raise CubenocError(f"destination {dst} is not a router of {topo!r}")
        if node == dst:
            return Hop(topo.local_port(node), dict(header))
        if self.num_vcs == 1:
            return Hop(int(self.table[dst, node]), dict(header))
        s = header["down"]
        p = int(self.table[s, dst, node])
        down = bool(self.down[node, p])
        vc = header["vc"] + (1 if s and not down else 0)
        if vc >= self.num_vcs:
            raise CubenocError(f"a packet with {header} at {node} would need VC {vc}: not a header any packet carries")
        return Hop(p, {"dest": dst, "down": int(down), "vc": vc}, vc)
