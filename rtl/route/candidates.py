"""Candidate route units of the adaptive router (docs/router.md, "Adaptive selection").

``CandidateUnit(routing, node)``: combinational route header -> the (at most two) hops of
``routing.selection_candidates(node, header)``: ``port0``/``new0``/``vc0`` (= ``routing.route``),
``has1`` and ``port1``/``new1``/``vc1``. By default a ROM per node indexed by the route word (headers
of at most ``ROM_MAX_BITS`` bits), filled from the Python function, so the RTL and the model read the
same table. :func:`candidate_unit` picks a node-generic unit where the family has one: Algorithm 2 on a
fault-free PDN (a circulant: the candidates depend only on ``d = (dest - node) mod n``), a ROM of the
n - 1 distances from node 0's candidates, with ``node_id`` as an input (one module for every node).
"""
from __future__ import annotations

from amaranth import Module, Mux
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from cubenoc.errors import CubenocError

from ...sim.routing.pdn import AdaptivePDNRouting
from ..gates import mod_sub, node_width
from .base import ROM_MAX_BITS


def candidates_node_generic(routing) -> bool:
    """Whether :func:`candidate_unit` builds one unit for every node (with a ``node_id`` input)."""
    return (isinstance(routing, AdaptivePDNRouting) and not routing.faulty_nodes and not routing.faulty_links)


def candidate_unit(routing, node: int) -> "CandidateUnit":
    if candidates_node_generic(routing):
        return PDNCandidateUnit(routing, node)
    return CandidateUnit(routing, node)


class CandidateUnit(wiring.Component):
    node_generic = False

    def __init__(self, routing, node: int):
        if routing.layout.width > ROM_MAX_BITS:
            raise CubenocError(f"the candidate ROM takes headers of at most {ROM_MAX_BITS} bits, "
                               f"{routing.name} has {routing.layout.width}")
        self.routing, self.node = routing, node
        P = routing.topology.local_port(node) + 1
        V = max(2, routing.num_vcs)          # vc outputs are at least 1 bit (ignored for V = 1)
        lay = routing.layout.amaranth()
        members = {"route": In(lay), "port0": Out(range(P)), "new0": Out(lay), "vc0": Out(range(V)),
                   "has1": Out(1), "port1": Out(range(P)), "new1": Out(lay), "vc1": Out(range(V))}
        if self.node_generic:
            members["node_id"] = In(node_width(routing.topology))
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        routing, layout = self.routing, self.routing.layout
        local = routing.topology.local_port(self.node)
        m.d.comb += [self.port0.eq(local), self.new0.eq(self.route), self.port1.eq(local),
                     self.new1.eq(self.route)]
        with m.Switch(self.route.as_value()):
            for word in range(1 << layout.width):
                try:
                    hops = routing.selection_candidates(self.node, layout.unpack(word))
                    packed = [(h.port, layout.pack(h.header), h.vc) for h in hops]
                except (CubenocError, AssertionError, KeyError, IndexError, ValueError):
                    continue                      # not a header this function produces
                if any(not 0 <= vc < routing.num_vcs for _, _, vc in packed):
                    continue
                with m.Case(word):
                    (p0, n0, c0) = packed[0]
                    m.d.comb += [self.port0.eq(p0), self.new0.as_value().eq(n0), self.vc0.eq(c0)]
                    if len(packed) > 1:
                        (p1, n1, c1) = packed[1]
                        m.d.comb += [self.has1.eq(1), self.port1.eq(p1), self.new1.as_value().eq(n1),
                                     self.vc1.eq(c1)]
        return m


class PDNCandidateUnit(CandidateUnit):
    """Algorithm 2 (fault-free PDN), node-generic: ``d = (dest - node_id) mod n``; ROM d -> the
    candidate ports of ``selection_candidates(0, {dest: d})``; ``hop`` + 1 (saturating), VC = ``hop``."""

    node_generic = True

    def elaborate(self, platform):
        m = Module()
        routing, topo = self.routing, self.routing.topology
        local = topo.local_port(0)
        dest, hop = self.route.dest, self.route.hop
        d = mod_sub(m, dest, self.node_id, topo.n, "d")
        m.d.comb += [self.port0.eq(local), self.port1.eq(local), self.new0.eq(self.route), self.new1.eq(self.route)]
        with m.Switch(d):
            for dd in range(1, topo.n):
                hops = routing.selection_candidates(0, {"dest": dd, "hop": 0})
                with m.Case(dd):
                    m.d.comb += self.port0.eq(hops[0].port)
                    if len(hops) > 1:
                        m.d.comb += [self.has1.eq(1), self.port1.eq(hops[1].port)]
        top = (1 << len(hop)) - 1
        with m.If(d != 0):
            nh = Mux(hop == top, top, hop + 1)
            m.d.comb += [self.new0.hop.eq(nh), self.new1.hop.eq(nh)]
            if routing.hop_vcs:
                m.d.comb += [self.vc0.eq(hop), self.vc1.eq(hop)]
        return m
