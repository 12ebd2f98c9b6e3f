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

``Hierarchical(level1, level2, replication=1)`` -- two-level HIN (Sec. II-C). Cluster ``c`` (a node of
``level2``, ``0 <= c < K``) is a copy of ``level1`` (``n`` nodes); node ``x`` of cluster ``c`` is the
integer ``c * n + x`` (cluster-major: for BH/BH the node number is the paper's D-bit address, the low
d bits the node within its cluster). Node ``x = 0`` of each cluster is its interface node.

Port numbering (fixed; the routers use it): at every node, ports ``0 .. P1-1`` are the level-1 ports
(``P1 = level1.num_ports(x)``, e.g. dimension i of BH(d) on port i). The interface node adds
``replication * P2`` level-2 ports (``P2 = level2.num_ports(c)``): port ``P1 + l * r + k`` is replica
``k`` (``0 <= k < r``) of level-2 port ``l``, and leads to the same replica of the far end's level-2 port.
The local port follows, as for every family (``d`` for an ordinary BH node, ``d + r * P2`` for an
interface node). Addresses are written ``cluster.node`` with each part in its own family's notation
(``01.101`` for BH(2)/BH(3), ``0110:2.101`` for BH(3)/CCC(4)); a plain integer is the node number.
"""
from __future__ import annotations

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
    """A two-level HIN: ``level2.num_nodes`` clusters, each a copy of ``level1``, joined through their
    interface nodes (node 0 of each cluster) by ``level2``; each level-2 link replicated
    ``replication`` times (parallel links, Sec. IV-A, the mu_NCL / mu_CL ratio of Fig. 11)."""

    family = "hin"

    def __init__(self, level1: Topology, level2: Topology, replication: int = 1):
        if not isinstance(level1, Topology) or isinstance(level1, Hierarchical):
            raise CubenocError(f"level1 must be a flat network (e.g. Hypercube(3)), got {level1!r}")
        if not isinstance(level2, Topology) or isinstance(level2, Hierarchical):
            raise CubenocError(f"level2 must be a flat network (BH, BR, CC or CCC), got {level2!r}")
        self.level1 = level1
        self.level2 = level2
        self.replication = require_int(replication, "replication", 1, 64)
        self.cluster_size = level1.num_nodes
        self.num_clusters = level2.num_nodes
        if self.cluster_size < 2:
            raise CubenocError(f"clusters must have at least 2 nodes, got {self.cluster_size}")
        if self.cluster_size * self.num_clusters > MAX_NODES:
            raise CubenocError(f"a HIN may have at most {MAX_NODES} nodes (16-bit destinations), got "
                               f"{self.cluster_size} x {self.num_clusters} = {self.cluster_size * self.num_clusters}")
        self._p1 = [level1.num_ports(x) for x in level1.nodes()]

    # ---- identity ------------------------------------------------------------------------------
    @property
    def params(self) -> dict:
        return {"level1": self.level1, "level2": self.level2, "replication": self.replication}

    @property
    def spec(self) -> str:
        """The paper's notation, e.g. ``BH(3)/CCC(2)`` (``x2`` appended for replicated level-2 links)."""
        s = (f"{paper_code(self.level1)}({paper_size(self.level1)})/"
             f"{paper_code(self.level2)}({paper_size(self.level2)})")
        return s + (f"x{self.replication}" if self.replication > 1 else "")

    @property
    def name(self) -> str:
        return (f"hin_{paper_code(self.level1).lower()}{paper_size(self.level1)}_"
                f"{paper_code(self.level2).lower()}{paper_size(self.level2)}_r{self.replication}")

    # ---- addressing ----------------------------------------------------------------------------
    def split(self, node: int) -> tuple[int, int]:
        """``(cluster, node_in_cluster)``."""
        return divmod(node, self.cluster_size)

    def join(self, cluster: int, local: int) -> int:
        return cluster * self.cluster_size + local

    def interface(self, cluster: int) -> int:
        """The interface node of ``cluster``."""
        return self.join(cluster, INTERFACE)

    def is_interface(self, node: int) -> bool:
        return node % self.cluster_size == INTERFACE

    def format_node(self, node: int) -> str:
        c, x = self.split(node)
        return f"{self.level2.format_node(c)}.{self.level1.format_node(x)}"

    def parse_node(self, text: str) -> int:
        text = str(text).strip()
        if "." in text:
            c_text, _, x_text = text.partition(".")
            try:
                c = self.level2.parse_node(c_text)
                x = self.level1.parse_node(x_text)
            except CubenocError as exc:
                raise CubenocError(f"bad HIN address {text!r} (cluster.node) for {self.spec}: {exc}") from None
            return self.join(c, x)
        return super().parse_node(text)

    # ---- ports ---------------------------------------------------------------------------------
    @property
    def num_nodes(self) -> int:
        return self.cluster_size * self.num_clusters

    def level1_ports(self, node: int) -> int:
        """P1: the number of level-1 ports of ``node`` (the first port numbers)."""
        return self._p1[node % self.cluster_size]

    def level2_port(self, node: int, l2_port: int, replica: int = 0) -> int:
        """The router port of replica ``replica`` of level-2 port ``l2_port`` at interface ``node``."""
        return self.level1_ports(node) + l2_port * self.replication + replica

    def num_ports(self, node: int) -> int:
        c, x = self.split(node)
        extra = self.replication * self.level2.num_ports(c) if x == INTERFACE else 0
        return self._p1[x] + extra

    def neighbor(self, node: int, port: int):
        c, x = self.split(node)
        p1 = self._p1[x]
        if 0 <= port < p1:
            far = self.level1.neighbor(x, port)
            return None if far is None else (self.join(c, far[0]), far[1])
        if x != INTERFACE or port >= self.num_ports(node) or port < 0:
            return None
        l2_port, replica = divmod(port - p1, self.replication)
        far = self.level2.neighbor(c, l2_port)
        if far is None:
            return None
        c2, q2 = far
        return self.interface(c2), self._p1[INTERFACE] + q2 * self.replication + replica

    def port_name(self, node: int, port: int) -> str:
        c, x = self.split(node)
        if 0 <= port < self._p1[x]:
            return self.level1.port_name(x, port)
        if port == self.local_port(node):
            return "local"
        l2_port, replica = divmod(port - self._p1[x], self.replication)
        name = "l2." + self.level2.port_name(c, l2_port)
        return name + (f".{replica}" if self.replication > 1 else "")

    def is_level2_port(self, node: int, port: int) -> bool:
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
    allowed = LEVEL2_FAMILIES if level == "level2" else LEVEL1_FAMILIES
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


def hierarchical_from_spec(level1: str, level2: str, num_nodes: int | None = None,
                           replication: int = 1) -> Hierarchical:
    """``hierarchical_from_spec("bh:3", "ccc", num_nodes=192)``: BH(3) clusters; the level-2 size from
    ``level2`` (``ccc:3``) or from the total ``num_nodes`` (which must be a multiple of the cluster size)."""
    l1 = network_from_spec(level1, level="level1")
    k = None
    if num_nodes is not None:
        num_nodes = require_int(num_nodes, "nodes", 2, MAX_NODES)
        if num_nodes % l1.num_nodes:
            raise CubenocError(f"nodes must be a multiple of the cluster size {l1.num_nodes}, got {num_nodes}")
        k = num_nodes // l1.num_nodes
    l2 = network_from_spec(level2, k)
    if k is not None and l2.num_nodes != k:
        raise CubenocError(f"{level2} has {l2.num_nodes} clusters but nodes={num_nodes} needs {k}")
    return Hierarchical(l1, l2, replication)
