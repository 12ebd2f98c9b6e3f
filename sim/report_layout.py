"""Where each node of a network is drawn, in the layout people draw that family in (the HTML report's
topology picture, sim/report_svg.py):

* hypercube and enhanced hypercube: nested cubes, each dimension a fixed direction (three dimensions make a
  cube, the next three place copies of it), so every dimension's edges are parallel and the skip links of
  Q(n, k) (complement links for k = 0) cross them as curves;
* perfect difference networks: the nodes on a circle, the links its chords; a product of PDNs is circles
  of circles;
* metacube MC(k, m): one block per class, in it one small m-cube per cluster; cross-edges are curves
  between the class blocks;
* hierarchical networks: each level-1 cluster on a small circle with its interface node facing the
  middle, the clusters on a circle per higher level (levels nest outwards).

Coordinates are in arbitrary units (the drawing scales them); :func:`link_class` names each link's kind for
the legend and says whether it is drawn as a curve.
"""
from __future__ import annotations

import math

import numpy as np

from .topology.hierarchical import Hierarchical
from .topology.hypercube import EnhancedHypercube, Hypercube
from .topology.metacube import Metacube
from .topology.pdn import PerfectDifferenceNetwork, ProductPDN

#: a network with more nodes than this is not drawn (its hottest links are still listed)
MAX_DRAWN_NODES = 1024


def _cube_vectors(n: int, unit: float = 1.0) -> np.ndarray:
    """The direction of each of n dimensions: three make a projected cube, each next three a copy of the
    figure so far placed 2.8 times further out."""
    base = np.array([(1.0, 0.0), (0.0, 1.0), (0.5, 0.4)])
    return np.array([base[i % 3] * unit * 2.8 ** (i // 3) for i in range(n)])


def _cube_positions(n: int, values: np.ndarray, unit: float = 1.0) -> np.ndarray:
    """Positions of the n-bit ``values`` on the nested-cube drawing."""
    vec = _cube_vectors(n, unit)
    bits = (values[:, None] >> np.arange(n)) & 1
    return bits @ vec if n else np.zeros((values.size, 2))


def _circle(count: int, radius: float = 1.0, start: float = -math.pi / 2) -> np.ndarray:
    t = start + 2 * math.pi * np.arange(count) / max(count, 1)
    return radius * np.stack([np.cos(t), np.sin(t)], axis=1)


def _nested_circles(digits: np.ndarray, radix: list[int]) -> np.ndarray:
    """Mixed-radix ``digits[node, level]`` (level 0 innermost): each level's groups on a circle around their
    parent's point, level 0 facing the middle of its parent circle (the interface of a HIN cluster)."""
    radius = [1.0]
    for r in radix[1:]:
        radius.append(1.35 * radius[-1] / math.sin(math.pi / r) if r > 2 else 2.6 * radius[-1])
    pos = np.zeros((digits.shape[0], 2))
    angle = np.full(digits.shape[0], -math.pi / 2)
    for lvl in reversed(range(len(radix))):
        if lvl < len(radix) - 1:          # face the parent circle's middle: start opposite the way out
            angle = angle + math.pi
        theta = angle + 2 * math.pi * digits[:, lvl] / radix[lvl]
        pos += radius[lvl] * np.stack([np.cos(theta), np.sin(theta)], axis=1)
        angle = theta
    return pos


def node_positions(topo) -> np.ndarray:
    """``float [N, 2]``: where each node is drawn (see the module docstring)."""
    N = topo.num_nodes
    nodes = np.arange(N, dtype=np.int64)
    if isinstance(topo, Hypercube):
        return _cube_positions(topo.n, nodes)
    if isinstance(topo, Metacube):
        return _metacube_positions(topo, nodes)
    if isinstance(topo, Hierarchical):
        digits = np.array([topo.positions(v) for v in range(N)], dtype=np.int64)
        return _nested_circles(digits, list(topo.sizes))
    if isinstance(topo, ProductPDN):
        digits = np.array([topo.coords(v) for v in range(N)], dtype=np.int64)
        return _nested_circles(digits, list(topo.radix))
    return _circle(N)


def _metacube_positions(topo, nodes: np.ndarray) -> np.ndarray:
    """MC(k, m): the classes side by side (k = 1) or in a grid, each class's clusters in a grid, each cluster
    an m-cube."""
    m, h = topo.m, topo.h
    cls = nodes >> topo.field_bits
    mask = (1 << m) - 1
    fields = np.stack([(nodes >> (m * i)) & mask for i in range(h)], axis=1)
    own = fields[np.arange(nodes.size), cls]                      # the nodeID m_c: the place in its cluster
    cluster = np.zeros(nodes.size, dtype=np.int64)                # the other fields: which cluster
    for i in reversed(range(h)):
        cluster = np.where(i == cls, cluster, (cluster << m) | fields[:, i])
    per_class = 1 << (m * (h - 1))
    cols = math.ceil(math.sqrt(per_class))
    cube = _cube_positions(m, own, 1.0)
    span = cube.max(axis=0) + 1.6 if m else np.array([1.6, 1.6])     # one cluster's cell
    cell = np.stack([cluster % cols, cluster // cols], axis=1) * span
    rows = math.ceil(per_class / cols)
    block = np.array([cols * span[0], rows * span[1]]) + 3.0        # one class's block, with a gap
    ccols = 2 if h > 2 else h
    where = np.stack([cls % ccols, cls // ccols], axis=1) * block
    return where + cell + cube


def link_class(topo, node: int, port: int) -> tuple[str, bool]:
    """``(kind, curved)`` of the link on ``port`` of ``node``: its kind for the legend (``dimension 2``,
    ``skip``, ``cross-edge``, ``level 2`` ...) and whether it is drawn as a curve (the links that are not
    the family's base structure: skips, cross-edges, links above level 1)."""
    if isinstance(topo, EnhancedHypercube) and port == topo.skip_port:
        return ("complement link" if topo.k == 0 else "skip link"), True
    if isinstance(topo, Hypercube):
        return f"dimension {port}", False
    if isinstance(topo, Metacube):
        return ("cube-edge", False) if port < topo.m else ("cross-edge", True)
    if isinstance(topo, Hierarchical):
        level = topo.port_level(node, port)
        return f"level {level}", level > 1
    if isinstance(topo, PerfectDifferenceNetwork):
        off = topo.port_offsets[port]
        return f"chord ±{min(off, topo.n - off)}", False
    if isinstance(topo, ProductPDN):
        return f"dimension {topo.port_dim(port)[0]}", False
    return "link", False
