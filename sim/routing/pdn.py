"""PDN routing (Parhami and Rakov Sec. 3): Algorithm 1 (oblivious), Algorithm 2 (adaptive, fault-aware),
bipartite host/switch routing and dimension-order routing in multidimensional PDNs.

Algorithm 1 as the chord switch runs it. Every destination ``y`` seen from node ``x`` is the distance
``d = (y - x) mod n``; with the set ``S`` (0 included) ``d = s_i - s_j`` for exactly one ordered pair,
and the shortest path is the forward chord ``+s_i`` then the backward chord ``-s_j`` (one hop when
``s_i`` or ``s_j`` is 0). The router holds a ROM of ``n - 1`` entries indexed by ``d`` (entry 0 unused:
``d = 0`` ejects) giving the output *port* (:func:`oblivious_port_table`); the paper's table of
forward-chord indices (``delta + 1`` values, 0 = no forward move) is :func:`first_chord_table`, from
which the port ROM is derived. The route header is just ``dest``: at the intermediate node
``d' = -s_j`` and the ROM says "backward ``s_j``", so the per-hop rule is stateless. For a 0-free set a
direct chord (``d = +-t``) wins over the two-hop path.

Algorithm 2 (adaptive): where ``d = s_i - s_j`` with both nonzero, forward-first (``+s_i`` then
``-s_j``) and backward-first (``-s_j`` then ``+s_i``) are both offered by :meth:`candidates` (preference
order ``prefer``); the router takes the first whose output is free. Given faulty nodes/links (a static
configuration known to every router), a candidate is kept only if its link and far node are healthy and
it lies on a shortest path of the surviving network; when neither Algorithm-2 hop does, every healthy
neighbour one step closer is offered (port order), so packets detour minimally. Header: ``dest`` and
``hop`` (hops taken); the hop's virtual channel is ``hop``, which makes the channel dependency graph
acyclic (dependencies only go from VC h to VC h+1); ``num_vcs`` = the longest route (2 fault-free).

Deadlock (:mod:`cubenoc.sim.deadlock`): Algorithm 1 only ever turns from a forward chord to a backward
chord, so 1 VC is acyclic; Algorithm 2 on one VC has cycles (forward->backward and backward->forward
turns), hence the hop-indexed VCs. Dimension-order routing on products is acyclic with 1 VC
(Theorem 2).
"""
from __future__ import annotations

from collections import deque

from cubenoc.errors import CubenocError

from ..topology.pdn import (BipartitePDN, PerfectDifferenceNetwork, ProductPDN, difference_table, pds_modulus,
                            set_differences)
from .base import HeaderLayout, Hop, RoutingFunction, check_selection


def _bits(values: int) -> int:
    """Bits to hold ``0 .. values-1`` (at least 1)."""
    return max(1, (values - 1).bit_length())


def first_chord_table(pds) -> list[int | None]:
    """The paper's Algorithm 1 table: entry ``d`` (1..n-1) is the index i of the forward chord ``s_i``
    (0 = ``s_0 = 0``, no forward move) with ``s_i - s_j == d``; entry 0 is None."""
    elems = tuple(sorted(pds))
    table = difference_table(elems)
    return [None] + [table[d][0] for d in range(1, pds_modulus(len(elems) - 1))]


def two_hop_pair(topo: PerfectDifferenceNetwork, d: int) -> tuple[int, int]:
    """``(s_i, s_j)`` (elements, not indices) with ``s_i - s_j == d`` mod n."""
    i, j = set_differences(topo.pds)[d % topo.n]
    return topo.pds[i], topo.pds[j]


def oblivious_port_table(topo: PerfectDifferenceNetwork) -> list[int | None]:
    """The ROM of Algorithm 1: entry ``d`` is the output port for distance ``d`` (entry 0 = eject)."""
    table: list[int | None] = [None]
    for d in range(1, topo.n):
        if d in topo.offset_port:                 # a direct chord (s_i = 0 or s_j = 0, or 0-free +-t)
            table.append(topo.offset_port[d])
        else:
            si, _sj = two_hop_pair(topo, d)
            table.append(topo.offset_port[si % topo.n])
    return table


class ObliviousPDNRouting(RoutingFunction):
    """Algorithm 1 on a basic or 0-free PDN. Header ``dest``; output port = ROM[(dest - node) mod n].

    ``hop_vcs`` (default: only when the network has degenerate chords, i.e. unconnected ports) adds a
    1-bit ``hop`` field and puts the second hop on VC 1: with a degenerate chord (``+t_a == -t_b``) a
    backward step can leave on a forward port, the forward->backward ordering breaks and the one-VC
    dependency graph can have a cycle (the canonical 0-free set of order 7 has one).
    """

    name = "pdn_oblivious"

    def __init__(self, topology: PerfectDifferenceNetwork, hop_vcs: bool | None = None):
        if not isinstance(topology, PerfectDifferenceNetwork):
            raise TypeError(f"ObliviousPDNRouting needs a PerfectDifferenceNetwork, got {topology!r}")
        super().__init__(topology)
        self.table = oblivious_port_table(topology)
        self.hop_vcs = (not all(topology.port_connected)) if hop_vcs is None else bool(hop_vcs)
        self.num_vcs = 2 if self.hop_vcs else 1
        fields = [("dest", _bits(topology.n))] + ([("hop", 1)] if self.hop_vcs else [])
        self._layout = HeaderLayout(fields)


    def rom(self) -> list[int]:
        """The n-1 ROM words (distances 1..n-1) the RTL stores."""
        return list(self.table[1:])

    def inject(self, src: int, dst: int) -> dict:
        self.check_pair(src, dst)
        return {"dest": dst, "hop": 0} if self.hop_vcs else {"dest": dst}

    def route(self, node: int, header: dict) -> Hop:
        d = (header["dest"] - node) % self.topology.n
        if d == 0:
            return Hop(self.topology.local_port(node), dict(header))
        if self.hop_vcs:
            return Hop(self.table[d], {"dest": header["dest"], "hop": 1}, header["hop"])
        return Hop(self.table[d], dict(header))


class AdaptivePDNRouting(RoutingFunction):
    """Algorithm 2: forward-first / backward-first by output availability, around faulty links/nodes."""

    name = "pdn_adaptive"

    def __init__(self, topology: PerfectDifferenceNetwork, faulty_nodes=(), faulty_links=(),
                 prefer: str = "forward", hop_vcs: bool = True, selection: str | None = None):
        if not isinstance(topology, PerfectDifferenceNetwork):
            raise TypeError(f"AdaptivePDNRouting needs a PerfectDifferenceNetwork, got {topology!r}")
        #: "availability": the router picks forward-/backward-first by output availability at run time
        self.selection = check_selection(selection)
        if prefer not in ("forward", "backward"):
            raise CubenocError(f"prefer must be 'forward' or 'backward', got {prefer!r}")
        super().__init__(topology)
        self.prefer = prefer
        n = topology.n
        self.faulty_nodes = frozenset(topology.check_node(v) for v in faulty_nodes)
        links = set()
        for link in faulty_links:
            try:
                u, v = link
            except (TypeError, ValueError):
                raise CubenocError(f"a faulty link is a pair of nodes (u, v), got {link!r}") from None
            topology.check_node(u), topology.check_node(v)
            if (v - u) % n not in topology.offset_port:
                raise CubenocError(f"faulty link ({u}, {v}) is not a link of {topology!r}")
            links.add(frozenset((u, v)))
        self.faulty_links = frozenset(links)
        self.dist = self._healthy_distances()
        longest = max((d for row in self.dist for d in row if d is not None), default=0)
        #: ``hop_vcs=False`` puts every hop on VC 0 (only to show the checker's cycle)
        self.hop_vcs = bool(hop_vcs)
        self.num_vcs = max(2, longest) if self.hop_vcs else 1
        self.name = "pdn_adaptive" if not (self.faulty_nodes or self.faulty_links) else "pdn_adaptive_ft"
        if self.selection is not None:
            self.name += "_" + self.selection
        self._layout = HeaderLayout([("dest", _bits(n)), ("hop", _bits(max(2, longest) + 1))])


    def healthy(self, node: int, port: int) -> bool:
        far = self.topology.neighbor(node, port)
        return (far is not None and node not in self.faulty_nodes and far[0] not in self.faulty_nodes
                and frozenset((node, far[0])) not in self.faulty_links)

    def _healthy_distances(self) -> list[list[int | None]]:
        topo = self.topology
        adj = [[topo.neighbor(v, p)[0] for p in range(topo.num_ports(v)) if self.healthy(v, p)]
               for v in topo.nodes()]
        out = []
        for s in topo.nodes():
            dist: list[int | None] = [None] * topo.n
            if s not in self.faulty_nodes:
                dist[s] = 0
                queue = deque([s])
                while queue:
                    u = queue.popleft()
                    for w in adj[u]:
                        if dist[w] is None:
                            dist[w] = dist[u] + 1
                            queue.append(w)
            out.append(dist)
        return out

    def inject(self, src: int, dst: int) -> dict:
        self.check_pair(src, dst)
        for v in (src, dst):
            if v in self.faulty_nodes:
                raise CubenocError(f"node {v} is faulty: no route {src}->{dst}")
        if self.dist[src][dst] is None:
            raise CubenocError(f"node {dst} is unreachable from {src} with these faults")
        return {"dest": dst, "hop": 0}

    def candidates(self, node: int, header: dict) -> list[Hop]:
        topo = self.topology
        dst, hop = header["dest"], header["hop"]
        if node == dst:
            return [Hop(topo.local_port(node), dict(header))]
        left = self.dist[dst][node]
        if left is None:
            raise CubenocError(f"node {dst} is unreachable from {node} with these faults")
        nxt = {"dest": dst, "hop": min(hop + 1, (1 << self._layout.offset("hop")[1]) - 1)}

        def ok(port):
            return (port is not None and self.healthy(node, port)
                    and self.dist[dst][topo.neighbor(node, port)[0]] == left - 1)

        d = (dst - node) % topo.n
        paper: list[int] = []
        if d in topo.offset_port:
            paper = [topo.offset_port[d]]
        else:
            si, sj = two_hop_pair(topo, d)
            fwd, bwd = topo.offset_port.get(si % topo.n), topo.offset_port.get((-sj) % topo.n)
            paper = [fwd, bwd] if self.prefer == "forward" else [bwd, fwd]
        ports = [p for p in paper if ok(p)]
        if not ports:   # detour: every healthy neighbour on a shortest surviving path
            ports = [p for p in range(topo.num_ports(node)) if ok(p)]
        return [Hop(p, dict(nxt), hop if self.hop_vcs else 0) for p in ports]

    def route(self, node: int, header: dict) -> Hop:
        return self.candidates(node, header)[0]


class BipartitePDNRouting(RoutingFunction):
    """Host ``x`` -> switch ``x + s_i`` -> host ``y`` (``s_i - s_j = y - x``): host port i from the
    paper's first-chord table, switch port j from ``(switch - dest) mod n``; only hosts are endpoints."""

    name = "pdn_bipartite"
    num_vcs = 1

    def __init__(self, topology: BipartitePDN):
        if not isinstance(topology, BipartitePDN):
            raise TypeError(f"BipartitePDNRouting needs a BipartitePDN, got {topology!r}")
        super().__init__(topology)
        self.host_table = first_chord_table(topology.pds)
        self.switch_index = {s: t for t, s in enumerate(topology.pds)}
        self._layout = HeaderLayout([("dest", _bits(topology.n))])


    def check_pair(self, src: int, dst: int) -> None:
        super().check_pair(src, dst)
        if not (self.topology.is_host(src) and self.topology.is_host(dst)):
            raise CubenocError(f"bipartite PDN routes between hosts 0..{self.topology.n - 1}, got {src}->{dst}")

    def inject(self, src: int, dst: int) -> dict:
        self.check_pair(src, dst)
        return {"dest": dst}

    def route(self, node: int, header: dict) -> Hop:
        topo, dst = self.topology, header["dest"]
        if node == dst:
            return Hop(topo.local_port(node), dict(header))
        if topo.is_host(node):
            return Hop(self.host_table[(dst - node) % topo.n], dict(header))
        return Hop(self.switch_index[(node - topo.n - dst) % topo.n], dict(header))

    def pairs(self):
        hosts = range(self.topology.n)
        return [(s, d) for s in hosts for d in hosts if s != d]


class DimensionOrderPDNRouting(RoutingFunction):
    """Generalized dimension-order routing on ``H_{q-1} x ... x H_0`` (Sec. 3, Theorem 2): correct
    dimension 0 first, then 1, ...; within a dimension, that factor's Algorithm 1 ROM. Header ``dest``."""

    name = "pdn_dor"
    num_vcs = 1

    def __init__(self, topology: ProductPDN):
        if not isinstance(topology, ProductPDN):
            raise TypeError(f"DimensionOrderPDNRouting needs a ProductPDN, got {topology!r}")
        super().__init__(topology)
        self.tables = [oblivious_port_table(h) for h in topology.dims]
        self._layout = HeaderLayout([("dest", _bits(topology.num_nodes))])


    def inject(self, src: int, dst: int) -> dict:
        self.check_pair(src, dst)
        return {"dest": dst}

    def route(self, node: int, header: dict) -> Hop:
        topo = self.topology
        x, y = topo.coords(node), topo.coords(header["dest"])
        for i in range(topo.q):
            if x[i] != y[i]:
                d = (y[i] - x[i]) % topo.radix[i]
                return Hop(topo.port_base[i] + self.tables[i][d], dict(header))
        return Hop(topo.local_port(node), dict(header))
