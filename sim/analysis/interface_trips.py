"""Interface trips of a level network below a HIN's top level (Dandamudi and Eager, "Hierarchical
interconnection networks for multicomputer systems", Sec. III-B2, generalised from BH to BR, CC and CCC).

Below the top, a level's links carry the level's own across messages (spread evenly) and the trips between
a uniformly random position of the level network (self included) and the interface at position 0: *up* on
the way out of the cluster, *down* on the way in. Under the paper's routing model (Sec. III-B2: "the routing
algorithm utilizes all the shortest paths with equal probability"; here, as on the explicit graph of
:mod:`.hierarchical_measure`, a uniform choice among the shortest-path ports at every hop) a channel (one
direction of a link) towards 0 carries the share ``s`` of one up trip, one away from 0 the same share of
one down trip. :func:`interface_trips` lists a level network's channels as classes ``(channels, s)``: the
counts add up to 2 L (both directions of every link) and ``sum(channels * s) = 2 P^0`` (one trip each way).

* BH(d): the j-level links of eq. (16): ``(2 (d-j+1) C(d, j-1), p(j))``.
* BR(k): the two links at distance j (joining distance j-1 and j, one on each side, j = 1 .. floor(k/2))
  carry the trips of the positions at distance >= j on their side; the position k/2 of an even ring
  splits its trips half each way (a tie: two shortest paths; the routers' tie rule sends whole trips by
  node parity, the same per-link total): ``(4, (k + 1 - 2j) / (2k))``, and for odd k the far link none.
* CC(k): the k-1 links at position 0 carry 1/k each way, the others none.
* CCC(D_c): no closed form here: the shares computed on the CCC by the same per-hop fluid as the
  explicit graph (:func:`fluid_trips`, :mod:`.channel_fluid`; up to D_c = 8).
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from cubenoc.errors import CubenocError

from ..topology.base import Topology
from ..topology.hierarchical import CubeConnectedCycles, ccc_dimension_for
from .channel_fluid import Channels, fluid_to

FLUID_MAX_NODES = 2048          # CCC(8): a BFS per destination stays well under a second


def p_j(d: int, j: int) -> float:
    """p(j): probability that an intercluster message crosses a given j-level link (Sec. III-B2)."""
    return sum(math.comb(d, m) for m in range(j, d + 1)) / ((d - j + 1) * math.comb(d, j - 1) * 2 ** d)


def links_at_level(d: int, j: int) -> int:
    """(d-j+1) C(d, j-1): the j-level links of BH(d) (between distance j-1 and j from the interface)."""
    return (d - j + 1) * math.comb(d, j - 1)


@lru_cache(maxsize=64)
def interface_trips(fam: str, k: int) -> tuple[tuple[int, float], ...]:
    """The channels of the ``k``-node level network ``fam`` as classes ``(channels, share of one
    node<->interface trip)`` (the module docstring; BH's shares are eq. 16's p(j), in order of j)."""
    if fam == "BH":
        d = k.bit_length() - 1
        return tuple((2 * links_at_level(d, j), p_j(d, j)) for j in range(1, d + 1))
    if fam == "BR":
        near = tuple((4, (k + 1 - 2 * j) / (2 * k)) for j in range(1, k // 2 + 1))
        return near + (((2, 0.0),) if k % 2 else ())
    if fam == "CC":
        return ((2 * (k - 1), 1 / k),) + ((((k - 1) * (k - 2), 0.0),) if k > 2 else ())
    if fam == "CCC":
        if k > FLUID_MAX_NODES:
            raise CubenocError(f"the delay of a CCC below the top level is computed on the CCC, up to D_c = 8 "
                               f"({FLUID_MAX_NODES} nodes); got {k} nodes")
        return classes(fluid_trips(CubeConnectedCycles(ccc_dimension_for(k))))
    raise CubenocError(f"no interface trips for a level network {fam!r}: it must be BH, BR, CC or CCC")


def classes(shares: np.ndarray) -> tuple[tuple[int, float], ...]:
    """Per-channel shares grouped by value (to 1e-12), largest first."""
    _, inverse, counts = np.unique(np.round(-shares, 12), return_inverse=True, return_counts=True)
    return tuple((int(c), float(shares[inverse == i].mean())) for i, c in enumerate(counts))


def fluid_trips(net: Topology) -> np.ndarray:
    """Per channel of :class:`~.channel_fluid.Channels`, the share of one up trip plus one down trip between a
    uniform node (self included) and node 0, each hop a uniform choice among the ports on a shortest path."""
    ch, k = Channels(net, 0), net.num_nodes
    load = fluid_to(ch, ch.bfs(0), np.full(k, 1 / k))                        # up: every node to 0
    for y in range(1, k):                                                     # down: 0 to every node
        start = np.zeros(k)
        start[0] = 1 / k
        load += fluid_to(ch, ch.bfs(y), start)
    return load
