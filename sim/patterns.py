"""Destination patterns of the synthetic traffic (sim/traffic.py): ``pattern(src_array, rng) -> dst_array``,
made by ``make_pattern(name, topology, **kw)``.

=================  ===========================================================================================
``uniform``        uniform over the other N - 1 nodes (as ``bernoulli_traffic`` and BookSim's ``uniform``)
``locality``       Tzeng and Wei Sec. II-A: a given node at Hamming distance l >= 1 with ``p_l = alpha0 g^-l``
                   (:func:`cubenoc.sim.analysis.enhanced_formulas.phi`; g = 1 is uniform); N = 2^n
``alpha``          Dandamudi and Eager Sec. III-A: with probability alpha a node of the source's cluster (itself
                   included, as the paper allows), otherwise uniform over the nodes of the other clusters
``bitcomp``        bit-complement ``d = ~s`` (N = 2^n)
``transpose``      swap the high and low halves of the address (N = 2^n, n even)
``bitrev``         bit-reversal of the n-bit address (N = 2^n)
``hotspot``        with probability ``fraction`` the ``hotspot`` node, otherwise uniform (other nodes);
                   ``fraction = 1`` is all-to-one: every other node sends only to the hotspot, which
                   itself sends nothing (the pattern gives -1: no packet)
``neighbor``       a uniformly chosen network neighbour of the source (one hop)
=================  ===========================================================================================
"""
from __future__ import annotations

import numpy as np

from cubenoc.errors import CubenocError, require_int

from .analysis.enhanced_formulas import check_g, phi

PATTERNS = ("uniform", "locality", "alpha", "bitcomp", "transpose", "bitrev", "hotspot", "neighbor")


def _address_bits(topology, pattern: str) -> int:
    n_nodes = topology.num_nodes
    if n_nodes < 2 or n_nodes & (n_nodes - 1):
        raise CubenocError(f"traffic {pattern!r} needs a power-of-two node count, {topology!r} has {n_nodes}")
    return n_nodes.bit_length() - 1


def _uniform_other(src: np.ndarray, n: int, rng) -> np.ndarray:
    dst = rng.integers(0, n - 1, size=src.shape[0])
    return dst + (dst >= src)


def make_pattern(name: str, topology, *, g: float = 2.0, alpha: float = 0.8, cluster_size: int | None = None,
                 hotspot: int = 0, fraction: float = 0.1):
    """The destination function of pattern ``name`` on ``topology`` (see the module docstring)."""
    name = str(name).lower()
    N = topology.num_nodes
    if N < 2:
        raise CubenocError(f"traffic needs at least 2 nodes, got {N}")
    if name == "uniform":
        return lambda src, rng: _uniform_other(src, N, rng)
    if name == "locality":
        return _locality(topology, g)
    if name == "alpha":
        return _by_cluster(topology, alpha, cluster_size)
    if name in ("bitcomp", "transpose", "bitrev"):
        return _permutation(topology, name)
    if name == "hotspot":
        return _hotspot(N, hotspot, fraction)
    if name == "neighbor":
        return _neighbor(topology)
    raise CubenocError(f"traffic must be one of {', '.join(PATTERNS)}, got {name!r}")


def _locality(topology, g: float):
    """Tzeng and Wei Sec. II-A: a node at Hamming distance l >= 1 with probability proportional to g^-l."""
    n = _address_bits(topology, "locality")
    g = check_g(g)
    probs = np.array([0.0] + [phi(n, g, l) for l in range(1, n + 1)])
    probs /= probs.sum()

    def locality(src, rng):
        k = src.shape[0]
        dist = rng.choice(n + 1, size=k, p=probs)
        # a uniformly random set of `dist` bits: the first `dist` of a random permutation of 0..n-1
        ranks = np.argsort(rng.random((k, n)), axis=1)
        flip = ((ranks < dist[:, None]).astype(np.int64) << np.arange(n, dtype=np.int64)).sum(axis=1)
        return src ^ flip
    return locality


def _by_cluster(topology, alpha: float, cluster_size: int | None):
    """Dandamudi and Eager Sec. III-A: the source's cluster with probability alpha, else another cluster."""
    N = topology.num_nodes
    if not 0.0 <= alpha <= 1.0:
        raise CubenocError(f"alpha must be in [0, 1], got {alpha}")
    c = cluster_size if cluster_size is not None else getattr(topology, "cluster_size", None)
    if c is None:
        raise CubenocError(f"traffic 'alpha' needs clusters: a hierarchical network or --cluster-size, "
                           f"{topology!r} has none")
    c = require_int(c, "cluster size", 1, N)
    if N % c:
        raise CubenocError(f"cluster size must divide the {N} nodes, got {c}")
    if c == N and alpha < 1:
        raise CubenocError("traffic 'alpha' < 1 needs more than one cluster")

    def by_cluster(src, rng):
        k = src.shape[0]
        base = src - src % c
        inside = base + rng.integers(0, c, size=k)                  # self allowed (Sec. III-A)
        other = rng.integers(0, max(N - c, 1), size=k)
        other = other + (other >= base) * c                         # skip the own cluster
        return np.where(rng.random(k) < alpha, inside, other)
    return by_cluster


def _permutation(topology, name: str):
    """Bit complement, transpose or bit reversal of the n-bit address."""
    n = _address_bits(topology, name)
    N = topology.num_nodes
    mask = N - 1
    if name == "bitcomp":
        return lambda src, rng: src ^ mask
    if name == "transpose":
        if n % 2:
            raise CubenocError(f"traffic 'transpose' needs an even number of address bits, got {n}")
        h = n // 2
        lo = (1 << h) - 1
        return lambda src, rng: ((src & lo) << h) | (src >> h)
    rev = np.zeros(N, dtype=np.int64)
    for b in range(n):
        rev |= ((np.arange(N) >> b) & 1) << (n - 1 - b)
    return lambda src, rng: rev[src]


def _hotspot(N: int, hotspot: int, fraction: float):
    """The hotspot with probability ``fraction``, else uniform; fraction 1: all-to-one."""
    hotspot = require_int(hotspot, "hotspot node", 0, N - 1)
    if not 0.0 <= fraction <= 1.0:
        raise CubenocError(f"hotspot fraction must be in [0, 1], got {fraction}")

    if fraction == 1.0:             # all-to-one: the hotspot node does not send to itself
        return lambda src, rng: np.where(src == hotspot, -1, hotspot)

    def hot(src, rng):
        return np.where(rng.random(src.shape[0]) < fraction, hotspot, _uniform_other(src, N, rng))
    return hot


def _neighbor(topology):
    """A uniformly chosen network neighbour of the source."""
    N = topology.num_nodes
    ports = max(topology.num_ports(v) for v in topology.nodes())
    table = np.full((N, ports), -1, dtype=np.int64)
    for v in topology.nodes():
        nb = sorted({far[0] for p in range(topology.num_ports(v))
                     if (far := topology.neighbor(v, p)) is not None and far[0] != v})
        table[v, :len(nb)] = nb
    count = (table >= 0).sum(axis=1)
    if (count == 0).any():
        raise CubenocError(f"traffic 'neighbor': node {int(np.argmin(count))} has no neighbour")

    def neighbor(src, rng):
        j = (rng.random(src.shape[0]) * count[src]).astype(np.int64)
        return table[src, j]
    return neighbor
