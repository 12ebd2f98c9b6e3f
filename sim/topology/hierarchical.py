"""Hierarchical interconnection networks (HINs) of Dandamudi and Eager and their level-2 families.

Level-2 families (each a standalone :class:`Topology`; the binary hypercube BH is
:class:`~cubenoc.sim.topology.hypercube.Hypercube`):

* ``Ring(n)`` -- BR, the bidirectional ring. Port 0 leads to ``v+1 mod n`` (arriving on its port 1),
  port 1 to ``v-1 mod n`` (arriving on its port 0). ``n = 2`` gives two parallel links, as eq. (9)
  counts (K links for K clusters).
* ``CompleteGraph(n)`` -- CC, complete connection. Port ``p`` of node ``v`` leads to node ``p`` if
  ``p < v`` else ``p + 1`` (absolute numbering: the port towards node ``u`` is ``u - (u > v)``).
* ``CubeConnectedCycles(n)`` -- CCC of dimension ``n`` (the paper's D_c): ``n * 2**n`` nodes
  ``(w, i)``, ``w`` an n-bit cycle address and ``i`` the position on the cycle, numbered ``w * n + i``
  (cycle-major). Port 0 is the cube link to ``(w ^ 2**i, i)``, port 1 the cycle link to
  ``(w, i+1 mod n)``, port 2 the cycle link to ``(w, i-1 mod n)``. Written ``0110:2`` (w in binary,
  then the position). ``n = 2`` has parallel cycle links, as eq. (13) counts (3 n 2**(n-1) links).

``Hierarchical(level1, level2, ..., replication=1)`` -- a HIN of two or more levels (Sec. II-C: "one
node from each cluster is selected to act as an interface node and these K_1 interface nodes are again
divided into K_2 clusters ... Then, one node from each level 2 cluster is selected as level 2 interface
node to be linked together by a level 3 network, etc."). A node has one position per level: ``x_1`` in
its level-1 cluster (a copy of ``level1``), ``x_2`` of that cluster's interface node in its level-2
cluster (a copy of ``level2``), ...; the top level is a single network. The node number is mixed radix,
level 1 least significant: ``x_1 + n_1 (x_2 + n_2 (x_3 + ...))``; for two levels ``c * n + x``
(cluster-major: for BH/BH the paper's D-bit address, the low d bits the node within its cluster).
Position 0 is the interface node at every level (the paper leaves the choice open): the level-l
interface node of a cluster is the one whose positions ``x_1 .. x_l`` are all 0, so the interface node
of a level-2 cluster is also the interface node of its own level-1 cluster, as Sec. II-C requires (the
level-2 cluster's members are level-1 interface nodes).

Port numbering (fixed; the routers use it): at every node, ports ``0 .. P1-1`` are the level-1 ports
(``P1 = level1.num_ports(x_1)``, e.g. dimension i of BH(d) on port i). A node with ``x_1 = 0`` adds
``replication * P2`` level-2 ports, one with ``x_1 = x_2 = 0`` then ``replication * P3`` level-3 ports,
and so on: port ``base_l + p * r + k`` is replica ``k`` (``0 <= k < r``) of port ``p`` of the level-l
network, and leads to the same replica of the far end's port; ``base_l`` is the same on every node
that has level-l ports. The local port follows, as for every family (``d`` for an ordinary BH node,
``d + r * P2`` for a two-level interface node). Addresses are written from the top level down, each part
in its own family's notation (``01.101`` for BH(3)/BH(2), ``0110:2.101`` for BH(3)/CCC(4), ``1.0.11``
for BH(2)/BH(1)/BH(1)); a plain integer is the node number.

Over 400 lines: the level-2 families and the composition that numbers their ports level by level are one
port numbering, read together.
"""
from __future__ import annotations

import math

from cubenoc.errors import CubenocError, require_int

from .base import Topology
from .hypercube import Hypercube

#: the node of each cluster that carries the level-2 ports
INTERFACE = 0
MAX_NODES = 1 << 16  # the router contract's DEST_WIDTH = 16


class _SizeN(Topology):
    """A cluster topology whose one parameter is its node count ``n``."""

    @property
    def params(self) -> dict:
        return {"n": self.n}

    @property
    def num_nodes(self) -> int:
        return self.n


class Ring(_SizeN):
    """BR: the bidirectional ring of ``n`` nodes (``n >= 2``)."""

    family = "ring"
    paper_code = "BR"

    def __init__(self, n: int):
        self.n = require_int(n, "ring size n", 2, MAX_NODES)

    def num_ports(self, node: int) -> int:
        return 2

    def neighbor(self, node: int, port: int):
        if port == 0:
            return (node + 1) % self.n, 1
        if port == 1:
            return (node - 1) % self.n, 0
        return None

    def port_name(self, node: int, port: int) -> str:
        return {0: "cw", 1: "ccw"}.get(port) or super().port_name(node, port)

    def is_vertex_transitive_hint(self) -> bool:
        return True


class CompleteGraph(_SizeN):
    """CC: every pair of the ``n`` nodes joined by a link (``n >= 2``)."""

    family = "complete"
    paper_code = "CC"

    def __init__(self, n: int):
        self.n = require_int(n, "complete-graph size n", 2, 4096)

    def num_ports(self, node: int) -> int:
        return self.n - 1

    @staticmethod
    def port_to(node: int, other: int) -> int:
        """The port of ``node`` that leads to ``other`` (absolute numbering)."""
        return other - (other > node)

    def neighbor(self, node: int, port: int):
        if 0 <= port < self.n - 1:
            other = port + (port >= node)
            return other, self.port_to(other, node)
        return None

    def port_name(self, node: int, port: int) -> str:
        if 0 <= port < self.n - 1:
            return f"to{port + (port >= node)}"
        return super().port_name(node, port)

    def is_vertex_transitive_hint(self) -> bool:
        return True


class CubeConnectedCycles(Topology):
    """CCC of dimension ``n`` (D_c of eq. 13): ``n * 2**n`` nodes of degree 3 (``n >= 2``)."""

    family = "ccc"
    paper_code = "CCC"
    CUBE, CW, CCW = 0, 1, 2

    def __init__(self, n: int):
        self.n = require_int(n, "CCC dimension D_c", 2, 12)

    @property
    def params(self) -> dict:
        return {"n": self.n}

    @property
    def num_nodes(self) -> int:
        return self.n << self.n

    def split(self, node: int) -> tuple[int, int]:
        """``(w, i)``: cycle address and position of ``node``."""
        return divmod(node, self.n)

    def join(self, w: int, i: int) -> int:
        return w * self.n + i

    def num_ports(self, node: int) -> int:
        return 3

    def neighbor(self, node: int, port: int):
        w, i = self.split(node)
        if port == self.CUBE:
            return self.join(w ^ (1 << i), i), self.CUBE
        if port == self.CW:
            return self.join(w, (i + 1) % self.n), self.CCW
        if port == self.CCW:
            return self.join(w, (i - 1) % self.n), self.CW
        return None

    def port_name(self, node: int, port: int) -> str:
        return {0: "cube", 1: "cw", 2: "ccw"}.get(port) or super().port_name(node, port)

    def format_node(self, node: int) -> str:
        w, i = self.split(node)
        return f"{w:0{self.n}b}:{i}"

    def parse_node(self, text: str) -> int:
        text = str(text).strip()
        if ":" in text:
            w_text, _, i_text = text.partition(":")
            try:
                w = int(w_text, 2) if len(w_text) == self.n and set(w_text) <= {"0", "1"} else int(w_text, 0)
                i = int(i_text, 0)
            except ValueError:
                raise CubenocError(f"bad CCC address {text!r}: expected w:i, e.g. {'0' * self.n}:0") from None
            if not (0 <= w < (1 << self.n) and 0 <= i < self.n):
                raise CubenocError(f"CCC address {text!r} out of range: w in 0..{(1 << self.n) - 1}, "
                                   f"i in 0..{self.n - 1}")
            return self.join(w, i)
        return super().parse_node(text)

    def is_vertex_transitive_hint(self) -> bool:
        return True


def paper_code(topo: Topology) -> str:
    """The paper's name of a family: BH, BR, CC, CCC."""
    if type(topo) is Hypercube:
        return "BH"
    return getattr(topo, "paper_code", type(topo).__name__)


def paper_size(topo: Topology) -> int:
    """The family's size parameter: the dimension of BH and CCC, the node count of BR and CC."""
    return topo.n


class Hierarchical(Topology):
    """A HIN of two or more levels (Sec. II-C): ``levels[0]`` is the cluster network, each higher level
    joins the interface nodes of the level below in clusters of its own size, the top level is one
    network; each link above level 1 replicated ``replication`` times (parallel links, Sec. IV-A, the
    mu_NCL / mu_CL ratio of Fig. 11)."""

    family = "hin"

    def __init__(self, *levels: Topology, replication: int = 1):
        if len(levels) < 2:
            raise CubenocError(f"a HIN has at least two levels, got {len(levels)}")
        for i, net in enumerate(levels, start=1):
            if not isinstance(net, Topology) or isinstance(net, Hierarchical):
                kind = "(e.g. Hypercube(3))" if i == 1 else "(BH, BR, CC or CCC)"
                raise CubenocError(f"level{i} must be a flat network {kind}, got {net!r}")
        self.levels = tuple(levels)
        self.level1, self.level2 = levels[0], levels[1]
        self.replication = require_int(replication, "replication", 1, 64)
        self.sizes = tuple(net.num_nodes for net in levels)        # n_1, n_2, ...: n_l = K_(l-1) / K_l
        self.cluster_size = self.sizes[0]
        self.num_clusters = math.prod(self.sizes[1:])              # K_1
        if self.cluster_size < 2:
            raise CubenocError(f"clusters must have at least 2 nodes, got {self.cluster_size}")
        if math.prod(self.sizes) > MAX_NODES:
            raise CubenocError(f"a HIN may have at most {MAX_NODES} nodes (16-bit destinations), got "
                               f"{' x '.join(map(str, self.sizes))} = {math.prod(self.sizes)}")
        self._p1 = [levels[0].num_ports(x) for x in levels[0].nodes()]
        # first router port of each level (index l - 1): the ports of level l >= 2 are on nodes whose
        # positions below l are all INTERFACE, so the levels below contribute the ports of that position
        self._base = [0, self._p1[INTERFACE]]
        for net in levels[1:-1]:
            self._base.append(self._base[-1] + self.replication * net.num_ports(INTERFACE))

    # ---- identity ------------------------------------------------------------------------------
    @property
    def params(self) -> dict:
        return {f"level{i}": net for i, net in enumerate(self.levels, start=1)} | {"replication": self.replication}

    @property
    def spec(self) -> str:
        """The paper's notation, e.g. ``BH(3)/CCC(2)`` (``x2`` appended for replicated links above level 1)."""
        s = "/".join(f"{paper_code(net)}({paper_size(net)})" for net in self.levels)
        return s + (f"x{self.replication}" if self.replication > 1 else "")

    @property
    def name(self) -> str:
        return "hin_" + "_".join(f"{paper_code(net).lower()}{paper_size(net)}" for net in self.levels) + \
            f"_r{self.replication}"

    # ---- addressing ----------------------------------------------------------------------------
    def split(self, node: int) -> tuple[int, int]:
        """``(cluster, node_in_cluster)``: the level-1 cluster and the position in it."""
        return divmod(node, self.cluster_size)

    def join(self, cluster: int, local: int) -> int:
        return cluster * self.cluster_size + local

    def positions(self, node: int) -> tuple[int, ...]:
        """``(x_1, x_2, ...)``: the node's position in its level-1 cluster, its level-1 cluster's position
        in its level-2 cluster, ... (mixed radix, level 1 the least significant digit)."""
        out = []
        for size in self.sizes:
            node, x = divmod(node, size)
            out.append(x)
        return tuple(out)

    def node_at(self, positions) -> int:
        """Inverse of :meth:`positions`."""
        node = 0
        for size, x in zip(reversed(self.sizes), reversed(tuple(positions))):
            node = node * size + x
        return node

    def top_level(self, node: int) -> int:
        """The highest level whose ports ``node`` carries: 1, plus one per leading INTERFACE position."""
        pos = self.positions(node)
        level = 1
        while level < len(self.levels) and pos[level - 1] == INTERFACE:
            level += 1
        return level

    def interface(self, cluster: int) -> int:
        """The (level-1) interface node of ``cluster``."""
        return self.join(cluster, INTERFACE)

    def is_interface(self, node: int) -> bool:
        return node % self.cluster_size == INTERFACE

    def format_node(self, node: int) -> str:
        """The positions from the top level down, each in its level's notation: ``01.101`` for
        BH(3)/BH(2), ``1.0.11`` for BH(2)/BH(1)/BH(1)."""
        pos = self.positions(node)
        return ".".join(net.format_node(x) for net, x in zip(reversed(self.levels), reversed(pos)))

    def parse_node(self, text: str) -> int:
        text = str(text).strip()
        if "." in text:
            parts = text.split(".")
            form = ".".join(f"level{i}" for i in range(len(self.levels), 0, -1))
            if len(parts) != len(self.levels):
                raise CubenocError(f"bad HIN address {text!r} for {self.spec}: expected {form}")
            try:
                pos = [net.parse_node(x) for net, x in zip(self.levels, reversed(parts))]
            except CubenocError as exc:
                raise CubenocError(f"bad HIN address {text!r} ({form}) for {self.spec}: {exc}") from None
            return self.node_at(pos)
        return super().parse_node(text)

    # ---- ports ---------------------------------------------------------------------------------
    @property
    def num_nodes(self) -> int:
        return math.prod(self.sizes)

    def level1_ports(self, node: int) -> int:
        """P1: the number of level-1 ports of ``node`` (the first port numbers)."""
        return self._p1[node % self.cluster_size]

    def level_port(self, level: int, port: int, replica: int = 0) -> int:
        """The router port of replica ``replica`` of port ``port`` of the level-``level`` network (2, 3,
        ...), on a node that carries that level."""
        return self._base[level - 1] + port * self.replication + replica

    def level2_port(self, node: int, l2_port: int, replica: int = 0) -> int:
        """The router port of replica ``replica`` of level-2 port ``l2_port`` at interface ``node``."""
        return self.level_port(2, l2_port, replica)

    def num_ports(self, node: int) -> int:
        top = self.top_level(node)
        if top == 1:
            return self._p1[node % self.cluster_size]
        return self.level_port(top, self.levels[top - 1].num_ports(self.positions(node)[top - 1]))

    def port_level(self, node: int, port: int) -> int:
        """The level (1, 2, ...) of network port ``port`` of ``node``."""
        top = self.top_level(node)
        return next(level for level in range(top, 0, -1) if port >= self._base[level - 1])

    def neighbor(self, node: int, port: int):
        if not 0 <= port < self.num_ports(node):
            return None
        level = self.port_level(node, port)
        pos = list(self.positions(node))
        if level == 1:
            far = self.levels[0].neighbor(pos[0], port)
            if far is None:
                return None
            pos[0] = far[0]
            return self.node_at(pos), far[1]
        l_port, replica = divmod(port - self._base[level - 1], self.replication)
        far = self.levels[level - 1].neighbor(pos[level - 1], l_port)
        if far is None:
            return None
        pos[level - 1] = far[0]
        return self.node_at(pos), self.level_port(level, far[1], replica)

    def port_name(self, node: int, port: int) -> str:
        if port == self.local_port(node):
            return "local"
        level = self.port_level(node, port)
        if level == 1:
            return self.levels[0].port_name(node % self.cluster_size, port)
        l_port, replica = divmod(port - self._base[level - 1], self.replication)
        name = f"l{level}." + self.levels[level - 1].port_name(self.positions(node)[level - 1], l_port)
        return name + (f".{replica}" if self.replication > 1 else "")

    def is_level2_port(self, node: int, port: int) -> bool:
        """A port above level 1 (a noncluster link of Sec. III-B1)."""
        return self.level1_ports(node) <= port < self.num_ports(node)


# ---- building from the command line (`cubenoc analyze hin`, `cubenoc generate hin`) -----------------
LEVEL2_FAMILIES = ("bh", "br", "cc", "ccc")
LEVEL1_FAMILIES = ("bh", "cc")


def ccc_dimension_for(k: int) -> int:
    """The D_c with ``D_c * 2**D_c == k``; a clear error when there is none."""
    for dc in range(2, 13):
        if dc << dc == k:
            return dc
    sizes = ", ".join(str(dc << dc) for dc in range(2, 9))
    raise CubenocError(f"no CCC has {k} nodes: a CCC of dimension D_c has D_c*2^D_c nodes ({sizes}, ...)")


def network_from_spec(spec: str, num_nodes: int | None = None, level: str = "level2") -> Topology:
    """``bh:3`` (BH(3), 8 nodes), ``br:8``, ``cc:8``, ``ccc:2`` (CCC(2), 8 nodes); without ``:SIZE`` the
    network with ``num_nodes`` nodes."""
    allowed = LEVEL1_FAMILIES if level == "level1" else LEVEL2_FAMILIES
    fam, _, size = str(spec).strip().lower().partition(":")
    if fam not in allowed:
        raise CubenocError(f"{level} must be one of {', '.join(allowed)} (optionally :SIZE, e.g. bh:3), got {spec!r}")
    if size:
        size = require_int(size, f"{level} size of {fam}", 1, MAX_NODES)
        if fam == "bh":
            return Hypercube(size)
        return {"br": Ring, "cc": CompleteGraph, "ccc": CubeConnectedCycles}[fam](size)
    if num_nodes is None:
        raise CubenocError(f"{level} {fam!r} needs a size ({fam}:SIZE) or the total number of nodes")
    if fam == "bh":
        if num_nodes < 2 or num_nodes & (num_nodes - 1):
            raise CubenocError(f"a BH {level} needs a power-of-two node count, got {num_nodes}")
        return Hypercube(num_nodes.bit_length() - 1)
    if fam == "ccc":
        return CubeConnectedCycles(ccc_dimension_for(num_nodes))
    return {"br": Ring, "cc": CompleteGraph}[fam](num_nodes)


def hierarchical_from_spec(level1: str, *higher: str, num_nodes: int | None = None,
                           replication: int = 1) -> Hierarchical:
    """``hierarchical_from_spec("bh:3", "ccc", num_nodes=192)``: BH(3) clusters; each higher level from
    its spec (``ccc:3``); the top level may leave out its size, which then follows from the total
    ``num_nodes`` (a multiple of the product of the levels below)."""
    if not higher:
        raise CubenocError("a HIN needs level1 and at least level2")
    below = [network_from_spec(level1, level="level1")]
    for i, text in enumerate(higher[:-1], start=2):
        below.append(network_from_spec(text, level=f"level{i}"))
    under = math.prod(net.num_nodes for net in below)
    top_name, k = f"level{len(higher) + 1}", None
    if num_nodes is not None:
        num_nodes = require_int(num_nodes, "nodes", 2, MAX_NODES)
        if num_nodes % under:
            what = "the cluster size" if len(below) == 1 else f"the {len(below)} lower levels' product"
            raise CubenocError(f"nodes must be a multiple of {what} {under}, got {num_nodes}")
        k = num_nodes // under
    top = network_from_spec(higher[-1], k, level=top_name)
    if k is not None and top.num_nodes != k:
        clusters = "clusters" if len(below) == 1 else f"level-{len(below)} clusters"
        raise CubenocError(f"{higher[-1]} has {top.num_nodes} {clusters} but nodes={num_nodes} needs {k}")
    return Hierarchical(*below, top, replication=replication)
