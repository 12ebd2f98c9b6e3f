"""Minimal table routing for any network (:class:`MinimalTableRouting`), deadlock-free by construction or
by a check of the tables.

Every packet takes a shortest path, from tables (``table[dest, node]`` -> output port). Three ways to keep
the channel dependency graph (Dally and Seitz) acyclic, spec key ``routing`` (docs/anynet.md):

* ``port_order``: each router takes its lowest-numbered port on a shortest path, one VC; kept when that
  table's dependency graph is acyclic (:func:`one_vc_acyclic`, a search for a cycle among the N x P channels).
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
every source to every destination counted). The tables are numpy arrays computed with numpy alone, no
compiler (the catalog imports this module for every command): the up*/down* programme a distance layer at a
time for a chunk of destinations, the balance a destination at a time (the loads carry over), the cycle
search by :class:`~cubenoc.sim.dependency_graph.DependencyGraph`; docs/anynet.md "Speed" times the
4,096-router files. The RTL builds the tables as node-generic ROMs (rtl/route/table.py).
"""
from __future__ import annotations

import numpy as np

from cubenoc.errors import CubenocError

from ..dependency_graph import DependencyGraph
from ..topology.anynet import AnyNetwork
from .base import HeaderLayout, Hop, RoutingFunction

#: the most virtual channels an anynet network's routers get (a network needing more is refused)
MAX_VCS = 4
#: the root is chosen among at most this many centres (the one whose routes need the fewest VCs): 8 up to
#: 512 routers, then one (each try is a pass over every pair: 1 to 3 CPU seconds at 4,096 routers)
ROOT_CANDIDATES = 8
ROOT_TRIES_UP_TO = 512


def _bits(values: int) -> int:
    return max(1, (values - 1).bit_length())


def updown_tables(nbr: np.ndarray, dist: np.ndarray, root: int):
    """``(down, turns, port, free)`` of the up*/down* order about ``root``: ``down[v, p]`` the hop on port p
    of v goes down; ``turns[s, d, v]`` the fewest down -> up turns left on a shortest path from v to d for a
    packet that arrived going down (s = 1) or not (s = 0); ``port[s, d, v]`` the first hop of that path
    (the lowest port among equals; -1 at d itself); ``free[d, v]`` the first down hop of v towards d after
    which no turn is left (-1: none). Destination-major."""
    n = nbr.shape[0]
    rank = np.empty(n, dtype=np.int64)
    rank[np.lexsort((np.arange(n), dist[root]))] = np.arange(n)
    safe = np.where(nbr >= 0, nbr, 0)
    down = (nbr >= 0) & (rank[safe] > rank[:, None])
    turns = np.zeros((2, n, n), dtype=np.int16)
    port = np.full((2, n, n), -1, dtype=np.int8)
    free = np.full((n, n), -1, dtype=np.int8)
    _updown_dp(nbr, dist, down, turns, port, free)
    return down, turns, port, free


#: (destination, router, port) triples worked on at once (each array of them a few bytes per triple)
CHUNK = 1 << 21
#: a key ``value << PORT_BITS | port`` (ports < 64) orders by value, then port: the least is the lowest port
#: among the least values, as a loop over the ports keeping the first strictly better one would pick
PORT_BITS = 6
_NONE, _NONE32 = np.int64(1) << 62, np.int32(1) << 30     # the keys of no hop (int64, int32)


def _chunks(n: int, P: int):
    """Slices of destinations, ``CHUNK // (n P)`` at a time."""
    step = max(1, CHUNK // max(1, n * P))
    return [(d0, min(n, d0 + step)) for d0 in range(0, n, step)]


def _closer(nbr: np.ndarray, dist: np.ndarray, d0: int, d1: int) -> np.ndarray:
    """``closer[i, p, v]``: port p of v leads one hop closer to destination ``d0 + i`` (dist is symmetric:
    row d is every router's distance to d)."""
    dc = dist[d0:d1]
    n, P = nbr.shape
    closer, less = np.empty((d1 - d0, P, n), dtype=np.bool_), dc - 1
    for p in range(P):
        np.equal(np.take(dc, np.maximum(nbr[:, p], 0), axis=1), less, out=closer[:, p])
        closer[:, p] &= nbr[:, p] >= 0
    return closer


def _closer_bits(nbr: np.ndarray, dist: np.ndarray, d0: int, d1: int) -> np.ndarray:
    """``bits[i, v]``: bit p set where port p of v leads one hop closer to destination ``d0 + i``; unsigned,
    little-endian, 1, 2, 4 or 8 bytes as the ports need."""
    kind = np.dtype(f"<u{next(b for b in (1, 2, 4, 8) if 8 * b >= nbr.shape[1])}")
    bits = np.zeros((d1 - d0, nbr.shape[0]), dtype=kind)
    for p, hit in enumerate(_closer(nbr, dist, d0, d1).transpose(1, 0, 2)):
        bits |= np.left_shift(hit.view(np.uint8), kind.type(p), dtype=kind)
    return bits


def _updown_dp(nbr, dist, down, turns, port, free):
    """Fill ``turns``, ``port`` and ``free`` (:func:`updown_tables`). A router's fewest turns follow from its
    closer neighbours', so the distance layers go nearest first, each for a chunk of destinations at once:
    the chunk's pairs (d, v) sorted by distance, each closer hop's key (turns left after it, its port) goes
    to its pair's least (``np.minimum.at``)."""
    n, P = nbr.shape
    nbrf, downf = nbr.reshape(-1).astype(np.int64), down.reshape(-1)
    for d0, d1 in _chunks(n, P):
        dc = dist[d0:d1].ravel()
        order = np.argsort(dc, kind="stable")                  # (i n + v) by distance, then i, then v
        start = np.concatenate(([0], np.cumsum(np.bincount(dc))))
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        bits = _closer_bits(nbr, dist, d0, d1).ravel()[order]
        hop = np.flatnonzero(np.unpackbits(bits.view(np.uint8), bitorder="little").view(np.bool_))
        shift = 2 + bits.itemsize.bit_length()                 # 8 * itemsize bits per pair
        row, p = hop >> shift, hop & ((1 << shift) - 1)        # the closer hops, pair by pair
        lead = np.searchsorted(row, start)                     # each distance's first hop
        v = (order % n)[row]
        c = v * P + p
        dn = downf[c]
        after_at = 2 * rank[(order - order % n)[row] + nbrf[c]] + dn   # (d, w, state after the hop), sorted
        p = p.astype(np.int32)
        up = (~dn).astype(np.int32) << PORT_BITS               # an up hop after a down one: one turn more
        best = np.zeros((order.size, 2), dtype=np.int32)       # per sorted pair and state: the least key
        fst = np.full(order.size, 64, dtype=np.int32)          # the least key of a free hop (< 64: one)
        tt = np.zeros(2 * order.size, dtype=np.int32)          # per sorted pair and state: the fewest turns
        for k in range(1, start.size - 1):
            rows, h = slice(start[k], start[k + 1]), slice(lead[k], lead[k + 1])
            after = tt[after_at[h]]                            # the turns left after each hop
            key = (after << PORT_BITS) | p[h]
            best[rows] = _NONE32
            np.minimum.at(best[:, 0], row[h], key)
            np.minimum.at(best[:, 1], row[h], key + up[h])
            np.minimum.at(fst, row[h], (np.minimum(after, 1) << PORT_BITS) | up[h] | p[h])
            tt[2 * start[k]:2 * start[k + 1]] = best[rows].reshape(-1) >> PORT_BITS
        for out, value in ((turns[0], tt[0::2]), (turns[1], tt[1::2]), (port[0], best[:, 0] & 63),
                           (port[1], best[:, 1] & 63), (free, np.where(fst < 64, fst, -1))):
            out[d0:d1] = value[rank].reshape(d1 - d0, n)
        port[:, np.arange(d0, d1), np.arange(d0, d1)] = -1     # d itself: no hop


def _choices(nbr, dist, down, turns, free, mode, d0, d1) -> list[np.ndarray]:
    """``ok[s][i, p, v]``: port p of v is an equally good hop to destination ``d0 + i`` (for the packets in
    state s; :func:`balance`'s modes)."""
    closer = _closer(nbr, dist, d0, d1)
    if mode == 2:
        return [closer]
    n = nbr.shape[0]
    t0, t1 = turns[0, d0:d1], turns[1, d0:d1]
    both, has_free = np.concatenate((t0, t1), axis=1), free[d0:d1] >= 0     # both[i, s n + w]
    out = [np.empty_like(closer) for _ in range(1 if mode == 0 else 2)]
    for p in range(nbr.shape[1]):
        dn = down[:, p]
        after = np.take(both, np.maximum(nbr[:, p], 0) + n * dn, axis=1)      # the turns left after the hop
        if mode == 0:                   # a turn-free down hop where there is one, else a turn-free up hop
            np.logical_and(closer[:, p], (after == 0) & (has_free == dn), out=out[0][:, p])
        else:                           # as few turns as the programme found, in either state
            np.logical_and(closer[:, p], after == t0, out=out[0][:, p])
            np.logical_and(closer[:, p], after + ~dn == t1, out=out[1][:, p])
    return out


def _layers(dc: np.ndarray):
    """Per row of distances: the routers nearest first (ties by id), each router's position in that order,
    and where each distance starts."""
    D, n = dc.shape
    K = int(dc.max()) + 1
    start = np.zeros((D, K + 1), dtype=np.int64)
    np.cumsum(np.bincount((np.arange(D)[:, None] * K + dc).ravel(), minlength=D * K).reshape(D, K), axis=1,
              out=start[:, 1:])
    order = np.argsort(dc, axis=1, kind="stable")
    pos = np.empty_like(order)
    np.put_along_axis(pos, order, np.arange(n)[None, :], axis=1)
    return order, pos, start


def balance(nbr, dist, down, turns, port, free, mode):
    """Among the hops that are equally good, the one on the least-loaded channel (the lowest port among
    equals), per destination: the loads are the packets of every source to every earlier destination, and
    for a router's second state (mode 1) its first state's packets of this destination too. A router's
    channels carry only its own choices, so a destination's choices are made at once; then its packets flow
    down the distance layers, farthest first. ``mode`` 0: up*/down* on one VC, one port per (d, v)
    (returned; a turn-free down hop where there is one, else a turn-free up hop); 1: up*/down* with VCs,
    ``port[s, d, v]`` rewritten for the states packets arrive in (hops with as few turns as the programme
    found); 2: any shortest path (VCs by hop count), one port per (d, v) (returned)."""
    n, P = nbr.shape
    key = np.repeat(np.arange(P, dtype=np.int64)[:, None], n, axis=1)   # [p, v]: load << PORT_BITS | p
    table = np.full((n, n), -1, dtype=np.int8)
    nbrf = nbr.reshape(-1).astype(np.int64)
    to = (nbr + n * down).T.reshape(-1).astype(np.int64)   # [p n + v]: the next (router, arrived going down)
    for d0, d1 in _chunks(n, P):
        ok = _choices(nbr, dist, down, turns, free, mode, d0, d1)
        order, pos, start = _layers(dist[d0:d1])
        for i, d in enumerate(range(d0, d1)):
            walk = order[i], pos[i], start[i].tolist()
            if mode == 1:
                _route_two_states(key, ok[0][i], ok[1][i], to, walk, d, port)
            else:
                table[d] = _route_one_state(key, ok[0][i], nbrf, walk, d)
    return table


def _route_one_state(key, ok, nbrf, walk, d):
    """One destination's hops on one VC (``ok[p, v]``: port p is a choice); ``key``'s loads updated. ``walk``:
    the routers by distance, each one's position in that order, where each distance starts."""
    P, n = ok.shape
    order, pos, start = walk
    every = np.arange(n)
    hop = np.where(ok, key, _NONE).min(axis=0) & 63
    nxt = pos[nbrf[every * P + hop]][order]     # by position: the next router's position
    flow = np.ones(n)                           # by position: the sources whose packets pass the router
    for k in range(len(start) - 2, 0, -1):      # farthest first
        np.add.at(flow, nxt[start[k]:start[k + 1]], flow[start[k]:start[k + 1]].copy())
    flow = flow[pos]
    flow[d] = 0
    key.reshape(-1)[hop * n + every] += flow.astype(np.int64) << PORT_BITS
    hop[d] = -1
    return hop


def _route_two_states(key, ok0, ok1, to, walk, d, port):
    """One destination's ``port[s, d, v]`` (up*/down* with VCs). State 0's hops at once; state 1 keeps the
    same hop where it stays the least loaded once state 0's packets are on it, else takes its best other
    hop: per layer only that comparison, once the layer's packets in state 0 are known. ``to[p n + v]``: where
    port p of v leads, as (router, arrived going down)."""
    n = ok0.shape[1]
    order, pos, start = walk
    every = np.arange(n)
    hop0 = np.where(ok0, key, _NONE).min(axis=0) & 63
    key1 = np.where(ok1, key, _NONE)
    at0 = hop0 * n + every
    same = key1.reshape(-1)[at0]
    key1.reshape(-1)[at0] = _NONE
    other = key1.min(axis=0)
    stay = (other - same) / 64.0                # state 1 keeps hop0 while state 0's packets are fewer than this
    pos2 = np.concatenate((pos, pos + n))
    nxt0, nxt1 = pos2[to[at0]][order], pos2[to[(other & 63) * n + every]][order]
    stay_at = stay[order]
    flow = np.zeros(2 * n)                      # by state and position: the packets arriving
    flow[:n] = 1
    for k in range(len(start) - 2, 0, -1):
        a, b = start[k], start[k + 1]
        f0 = flow[a:b].copy()                   # (a copy: np.add.at is slower on a view of its target)
        np.add.at(flow, nxt0[a:b], f0)
        if k < len(start) - 2:                  # (none arrive at the farthest going down)
            np.add.at(flow, np.where(f0 < stay_at[a:b], nxt0[a:b], nxt1[a:b]), flow[n + a:n + b].copy())
    flow = flow[pos2]
    flow[[d, n + d]] = 0
    f0, f1 = flow[:n], flow[n:]
    hop1 = np.where(f0 < stay, hop0, other & 63)
    key.reshape(-1)[at0] += f0.astype(np.int64) << PORT_BITS
    key.reshape(-1)[hop1 * n + every] += f1.astype(np.int64) << PORT_BITS
    hop0[d] = port[0, d, d]
    port[0, d] = hop0
    np.copyto(port[1, d], hop1, casting="unsafe", where=f1 > 0)


def port_order_table(nbr, dist):
    """``table[d, v]``: the lowest-numbered port of v on a shortest path to d (-1 at d): the lowest bit set
    of :func:`_closer_bits`, a power of two whose exponent ``frexp`` gives exactly (0 where none is set)."""
    n, P = nbr.shape
    table = np.empty((n, n), dtype=np.int8)
    for d0, d1 in _chunks(n, P):
        bits = _closer_bits(nbr, dist, d0, d1)
        table[d0:d1] = np.frexp((bits & (~bits + 1)).astype(np.float64))[1] - 1
    return table


def one_vc_acyclic(nbr, table) -> bool:
    """Whether the channel dependency graph (Dally and Seitz) of the destination table ``table[d, v]`` on one
    VC is acyclic: its edges ``(u, p) -> (v, o)`` for every destination whose route takes port p of u and
    then port o of v, searched for a cycle by :class:`~cubenoc.sim.dependency_graph.DependencyGraph`."""
    n, P = nbr.shape
    nbrf = nbr.reshape(-1).astype(np.int64)
    dep = np.zeros(n * P * P, dtype=np.bool_)            # [(u, p), o]
    u = np.arange(n)
    for d0, d1 in _chunks(n, 1):
        p = table[d0:d1].astype(np.int64)
        c = u * P + p                                     # the channel u takes (-1 at u = d: dropped)
        v = nbrf[c]
        d = np.arange(d0, d1)[:, None]
        o = p.reshape(-1)[((d - d0) * n + v).reshape(-1)].reshape(p.shape)     # the port v takes next
        dep[(c * P + o)[(u != d) & (v != d)]] = True
    held, o = np.divmod(np.flatnonzero(dep), P)
    wanted = nbrf[held] * P + o
    return DependencyGraph(edges=zip(held.tolist(), wanted.tolist())).find_cycle() is None


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
