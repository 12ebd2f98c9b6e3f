"""Minimal table routing for any network (:class:`MinimalTableRouting`), deadlock-free by construction or
by a check of the tables.

Every packet takes a shortest path, from tables (``table[dest, node]`` -> output port). Three ways to keep
the channel dependency graph (Dally and Seitz) acyclic, spec key ``routing`` (docs/anynet.md):

* ``port_order``: each router takes its lowest-numbered port on a shortest path, one VC; kept when that
  table's dependency graph is acyclic (:func:`one_vc_acyclic`, a topological sort of the N x P channels).
  A hypercube written in dimension order gets dimension-order routing, as balanced as e-cube.
* ``updown``: the routers ordered as up*/down* orders them (Schroeder et al., "Autonet: a high-speed,
  self-configuring local area network using point-to-point links"): a root (a centre of the graph), each
  router ranked by its distance from the root, then its id; a hop to a lower rank goes *up*, to a higher
  rank *down*. Routes that never turn from a down hop to an up hop cannot close a cycle (along up hops the
  rank falls, along down hops it rises, and no dependency leads from a down channel back to an up one). A
  shortest path that must make such a turn (around a ring it must) moves to the next VC at the turn: a
  packet's VC is the number of down -> up turns it has made, so within a VC every route is up*/down* and
  between VCs dependencies only climb. The choice among the shortest paths makes the fewest turns (a
  dynamic programme over the distance to the destination, per state "the packet arrived going down" or
  not); the network gets one more VC than the most turns a route makes. Header ``dest``, plus ``down`` and
  ``vc`` with more than one VC; with one, the table is a function of (node, dest) alone (a turn-free down
  hop where there is one, else a turn-free up hop). Up*/down* routes crowd the links near the root.
* ``hops``: any shortest path, VC = hops taken (dependencies only climb from VC h to h + 1): as many VCs as
  the diameter. Header ``dest``, ``hop``.
* ``auto`` (the default): ``port_order`` where it is acyclic, else ``updown``.

Among equally good hops the tables take the one on the least-loaded channel (:func:`balance`, the packets of
every source to every destination counted). The tables are numpy arrays filled by compiled loops (the
4,096-node 12-cube in about a second); the RTL builds them as node-generic ROMs (rtl/route/table.py).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cubenoc.errors import CubenocError

from ..topology.anynet import AnyNetwork
from .base import HeaderLayout, Hop, RoutingFunction

#: the most virtual channels an anynet network's routers get (a network needing more is refused)
MAX_VCS = 4
#: the root is chosen among at most this many centres (the one whose routes need the fewest VCs): 8 up to
#: 512 routers, then one (each try is a pass over every pair: about a second at 4,096 routers)
ROOT_CANDIDATES = 8
ROOT_TRIES_UP_TO = 512


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
def _by_distance(row, order, start):     # pragma: no cover (compiled)
    """``order``: the nodes by ``row`` (their distances to one destination), nearest first (a counting sort;
    ``start`` is scratch of n + 2 entries)."""
    n = row.shape[0]
    start[:] = 0
    for v in range(n):
        start[row[v] + 1] += 1
    for k in range(1, n + 1):
        start[k] += start[k - 1]
    for v in range(n):
        order[start[row[v]]] = v
        start[row[v]] += 1


@njit(cache=True, nogil=True)
def _shortest_ports(nbr, row, v, out):     # pragma: no cover (compiled)
    """How many ports of ``v`` lead one hop closer to the destination whose distances are ``row``; those ports
    in ``out``, lowest first."""
    count = 0
    for p in range(nbr.shape[1]):
        w = nbr[v, p]
        if w < 0:
            break
        if row[w] == row[v] - 1:
            out[count] = p
            count += 1
    return count


@njit(cache=True, nogil=True)
def _updown_dp(nbr, dist, down, turns, port, free):     # pragma: no cover (compiled)
    n, P = nbr.shape
    order = np.empty(n, dtype=np.int64)
    start = np.empty(n + 2, dtype=np.int64)
    hops = np.empty(P, dtype=np.int64)
    for d in range(n):
        row = dist[d]                     # dist is symmetric: row d is every node's distance to d
        _by_distance(row, order, start)
        up_d, down_d = turns[0, d], turns[1, d]
        for i in range(n):
            v = order[i]
            k = row[v]
            if k == 0:
                continue
            b0, b1, p0, p1, f = 1 << 14, 1 << 14, -1, -1, -1
            for j in range(_shortest_ports(nbr, row, v, hops)):
                p = hops[j]
                w = nbr[v, p]
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


@njit(cache=True, nogil=True)
def balance(nbr, dist, down, turns, port, free, mode):     # pragma: no cover (compiled)
    """Among the hops that are equally good, the one on the least-loaded channel: per destination, routers
    farthest first, each carrying the packets of every source whose route passes it; the loads add up over
    the destinations. ``mode`` 0: up*/down* on one VC, one port per (d, v) (returned; a turn-free down hop
    where there is one, else a turn-free up hop); 1: up*/down* with VCs, ``port[s, d, v]`` rewritten for the
    states packets arrive in (hops with as few turns as the programme found); 2: any shortest path (VCs by
    hop count), one port per (d, v) (returned)."""
    one_vc = mode != 1
    n, P = nbr.shape
    load = np.zeros(n * P, dtype=np.float64)
    table = np.full((n, n), -1, dtype=np.int8)
    order = np.empty(n, dtype=np.int64)
    start = np.empty(n + 2, dtype=np.int64)
    flow = np.zeros((2, n), dtype=np.float64)
    hops = np.empty(P, dtype=np.int64)
    for d in range(n):
        row = dist[d]
        _by_distance(row, order, start)
        flow[:] = 0.0
        flow[0, :] = 1.0
        for i in range(n - 1, -1, -1):           # farthest first
            v = order[i]
            k = row[v]
            if k == 0:
                continue
            for s in range(1 if one_vc else 2):
                f = flow[0, v] + flow[1, v] if one_vc else flow[s, v]
                if f == 0.0:
                    continue
                best, bp = np.inf, -1
                for j in range(_shortest_ports(nbr, row, v, hops)):
                    p = hops[j]
                    w = nbr[v, p]
                    dn = down[v, p]
                    if mode == 2:
                        ok = True
                    elif one_vc:
                        ok = (dn and turns[1, d, w] == 0) if free[d, v] >= 0 else (not dn and turns[0, d, w] == 0)
                    else:
                        c = turns[1 if dn else 0, d, w] + (1 if s == 1 and not dn else 0)
                        ok = c == turns[s, d, v]
                    if ok and load[v * P + p] < best:
                        best, bp = load[v * P + p], p
                load[v * P + bp] += f
                w = nbr[v, bp]
                flow[1 if down[v, bp] and not one_vc else 0, w] += f
                if one_vc:
                    table[d, v] = bp
                else:
                    port[s, d, v] = bp
    return table


@njit(cache=True, nogil=True)
def port_order_table(nbr, dist):     # pragma: no cover (compiled)
    """``table[d, v]``: the lowest-numbered port of v on a shortest path to d (-1 at d)."""
    n, P = nbr.shape
    table = np.full((n, n), -1, dtype=np.int8)
    for d in range(n):
        row = dist[d]
        for v in range(n):
            k = row[v]
            if k == 0:
                continue
            for p in range(P):
                w = nbr[v, p]
                if w < 0:
                    break
                if row[w] == k - 1:
                    table[d, v] = p
                    break
    return table


@njit(cache=True, nogil=True)
def one_vc_acyclic(nbr, table):     # pragma: no cover (compiled)
    """Whether the channel dependency graph (Dally and Seitz) of the destination table ``table[d, v]`` on one
    VC is acyclic: its edges ``(u, p) -> (v, o)`` for every destination whose route takes port p of u and
    then port o of v, the graph sorted topologically (Kahn) over the N x P channels."""
    n, P = nbr.shape
    dep = np.zeros((n * P, P), dtype=np.bool_)
    for d in range(n):
        for u in range(n):
            if u == d:
                continue
            p = table[d, u]
            v = nbr[u, p]
            if v != d:
                dep[u * P + p, table[d, v]] = True
    indeg = np.zeros(n * P, dtype=np.int64)
    for c in range(n * P):
        v = nbr[c // P, c % P]
        if v < 0:
            continue
        for o in range(P):
            if dep[c, o]:
                indeg[v * P + o] += 1
    ready = np.empty(n * P, dtype=np.int64)
    top = 0
    for c in range(n * P):
        if indeg[c] == 0:
            ready[top] = c
            top += 1
    done = 0
    while top > 0:
        top -= 1
        c = ready[top]
        done += 1
        v = nbr[c // P, c % P]
        if v < 0:
            continue
        for o in range(P):
            if dep[c, o]:
                indeg[v * P + o] -= 1
                if indeg[v * P + o] == 0:
                    ready[top] = v * P + o
                    top += 1
    return done == n * P


#: the routing schemes (spec key ``routing``): ``auto`` takes ``port_order`` where its one VC is acyclic,
#: else ``updown``
SCHEMES = ("auto", "port_order", "updown", "hops")


class MinimalTableRouting(RoutingFunction):
    """Shortest-path table routing on an :class:`AnyNetwork` (module docstring). ``scheme``:

    * ``port_order``: each router takes its lowest-numbered port on a shortest path, one VC, kept only when
      that table's channel dependency graph is acyclic (on a hypercube written in dimension order this is
      dimension-order routing);
    * ``updown``: VCs by up*/down* turns (the fewest the shortest paths allow);
    * ``hops``: any shortest path (the least-loaded channel among them), VC = hops taken: as many VCs as the
      diameter;
    * ``auto``: ``port_order`` where it is acyclic, else ``updown``.
    """

    name = "anynet_minimal"

    def __init__(self, topology: AnyNetwork, scheme: str = "auto", max_vcs: int = MAX_VCS):
        if not isinstance(topology, AnyNetwork):
            raise TypeError(f"MinimalTableRouting needs an AnyNetwork, got {topology!r}")
        if scheme not in SCHEMES:
            raise CubenocError(f"anynet routing must be one of {', '.join(SCHEMES)}, got {scheme!r}")
        super().__init__(topology)
        n = topology.num_nodes
        dist = topology.distances
        nbr = topology.nbr.astype(np.int32)
        self.root, self.down, self.scheme, self.hop_vcs = None, None, scheme, False
        if scheme in ("auto", "port_order"):
            table = port_order_table(nbr, dist)
            if one_vc_acyclic(nbr, table):            # the lowest port on a shortest path: one VC will do
                self.name, self.num_vcs, self.table, self.scheme = "anynet_port_order", 1, table, "port_order"
                self._layout = HeaderLayout([("dest", _bits(n))])
                return
            if scheme == "port_order":
                raise CubenocError(f"{topology.source}: the lowest-port shortest paths have a cycle of channel "
                                   f"dependencies on one VC; routing=updown or routing=hops make it deadlock-free")
            self.scheme = "updown"
        if self.scheme == "hops":
            need = int(dist.max())
            if need > max_vcs:
                raise CubenocError(f"{topology.source}: VCs by hop count need one per hop of the diameter, {need}; "
                                   f"the routers take at most {max_vcs} (routing=updown needs fewer)")
            self.name, self.num_vcs, self.hop_vcs = "anynet_hops", max(need, 1), True
            dummy = np.zeros((2, n, n), dtype=np.int16)
            self.table = balance(nbr, dist, np.zeros(nbr.shape, dtype=np.bool_), dummy,
                                 np.zeros((2, n, n), dtype=np.int8), np.zeros((n, n), dtype=np.int8), 2)
            self._layout = HeaderLayout([("dest", _bits(n)), ("hop", _bits(self.num_vcs))])
            return
        self.name = "anynet_updown"
        ecc = dist.max(axis=1)
        centres = np.nonzero(ecc == ecc.min())[0][:ROOT_CANDIDATES if n <= ROOT_TRIES_UP_TO else 1]
        best = None
        for root in centres.tolist():
            down, turns, port, free = updown_tables(nbr, dist, root)
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
        balanced = balance(nbr, dist, self.down, turns, port, free, 0 if need == 1 else 1)
        if need == 1:
            self.table = balanced
            self._layout = HeaderLayout([("dest", _bits(n))])
        else:
            self.table = port
            self._layout = HeaderLayout([("dest", _bits(n)), ("down", 1), ("vc", _bits(need))])

    def inject(self, src: int, dst: int) -> dict:
        self.check_pair(src, dst)
        if self.hop_vcs:
            return {"dest": dst, "hop": 0}
        return {"dest": dst} if self.num_vcs == 1 else {"dest": dst, "down": 0, "vc": 0}

    def route(self, node: int, header: dict) -> Hop:
        topo, dst = self.topology, header["dest"]
        if dst >= topo.num_nodes:
            raise CubenocError(f"destination {dst} is not a router of {topo!r}")
        if node == dst:
            return Hop(topo.local_port(node), dict(header))
        if self.hop_vcs:
            h = header["hop"]
            if h >= self.num_vcs:
                raise CubenocError(f"a packet with {header} at {node} has taken more hops than the diameter")
            return Hop(int(self.table[dst, node]), {"dest": dst, "hop": min(h + 1, self.num_vcs - 1)}, h)
        if self.num_vcs == 1:
            return Hop(int(self.table[dst, node]), dict(header))
        s = header["down"]
        p = int(self.table[s, dst, node])
        down = bool(self.down[node, p])
        vc = header["vc"] + (1 if s and not down else 0)
        if vc >= self.num_vcs:
            raise CubenocError(f"a packet with {header} at {node} would need VC {vc}: not a header any packet carries")
        return Hop(p, {"dest": dst, "down": int(down), "vc": vc}, vc)
