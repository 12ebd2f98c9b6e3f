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
The tables are numpy arrays; the RTL builds them as per-node ROMs (rtl/route/rom.py).
"""
from __future__ import annotations

import numpy as np

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
    """``(down, turns, port)`` of the up*/down* order about ``root``: ``down[v, p]`` the hop on port p of v
    goes down; ``turns[s, v, d]`` the fewest down -> up turns left on a shortest path from v to d for a
    packet that arrived going down (s = 1) or not (s = 0); ``port[s, v, d]`` the first hop of that path
    (-1 at d itself). Vectorised over every (v, d) pair at one distance at a time."""
    n, P = nbr.shape
    rank = np.empty(n, dtype=np.int64)
    rank[np.lexsort((np.arange(n), dist[root]))] = np.arange(n)
    safe = np.where(nbr >= 0, nbr, 0)
    down = (nbr >= 0) & (rank[safe] > rank[:, None])
    big = np.iinfo(np.int16).max
    turns = np.zeros((2, n, n), dtype=np.int16)
    port = np.full((2, n, n), -1, dtype=np.int8)
    for k in range(1, int(dist.max()) + 1):
        vs, ds = np.nonzero(dist == k)
        best = np.full((2, vs.size), big, dtype=np.int32)
        bestp = np.full((2, vs.size), -1, dtype=np.int8)
        for p in range(P):
            w = safe[vs, p]
            ok = (nbr[vs, p] >= 0) & (dist[w, ds] == k - 1)
            dn = down[vs, p]
            after = turns[dn.astype(np.int64), w, ds].astype(np.int32)
            for s in (0, 1):
                cost = after + (s & ~dn)
                take = ok & (cost < best[s])
                best[s, take], bestp[s, take] = cost[take], p
        turns[:, vs, ds] = best
        port[:, vs, ds] = bestp
    return down, turns, port


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
            down, turns, port = updown_tables(topology.nbr, dist, root)
            need = int(turns[0].max()) + 1
            if best is None or need < best[0]:
                best = (need, root, down, turns, port)
            if need == 1:
                break
        need, self.root, self.down, turns, port = best
        if need > max_vcs:
            v, d = np.unravel_index(int(np.argmax(turns[0])), turns[0].shape)
            raise CubenocError(f"{topology.source}: its shortest routes need {need} virtual channels (the route from "
                               f"router {v} to {d} turns from a down hop to an up hop {need - 1} times about the "
                               f"up*/down* root {self.root}); the routers take at most {max_vcs}")
        self.num_vcs = need
        self.turns = turns
        if need == 1:
            self.table = self._turn_free(topology.nbr, dist, port[0], turns)
            self._layout = HeaderLayout([("dest", _bits(n))])
        else:
            self.table = port
            self._layout = HeaderLayout([("dest", _bits(n)), ("down", 1), ("vc", _bits(need))])

    def _turn_free(self, nbr, dist, up_port, turns) -> np.ndarray:
        """One port per (v, d): the first down hop whose route on has no turn, else ``up_port`` (docstring)."""
        n, P = nbr.shape
        safe = np.where(nbr >= 0, nbr, 0)
        table = up_port.copy()
        chosen = np.zeros((n, n), dtype=bool)
        d = np.arange(n)[None, :]
        for p in range(P):
            w = safe[:, p][:, None]
            ok = (nbr[:, p] >= 0)[:, None] & self.down[:, p][:, None] & (dist[w, d] == dist - 1) & \
                (turns[1][w, d] == 0) & ~chosen
            table[ok] = p
            chosen |= ok
        return table

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
            return Hop(int(self.table[node, dst]), dict(header))
        s = header["down"]
        p = int(self.table[s, node, dst])
        down = bool(self.down[node, p])
        vc = header["vc"] + (1 if s and not down else 0)
        if vc >= self.num_vcs:
            raise CubenocError(f"a packet with {header} at {node} would need VC {vc}: not a header any packet carries")
        return Hop(p, {"dest": dst, "down": int(down), "vc": vc}, vc)
