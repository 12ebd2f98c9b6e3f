"""Candidate route units of the adaptive router (docs/router.md, "Adaptive selection").

``CandidateUnit(routing, node)``: combinational route header -> the (at most two) hops of
``routing.selection_candidates(node, header)``: ``port0``/``new0``/``vc0`` (= ``routing.route``),
``has1`` and ``port1``/``new1``/``vc1``. A ROM per node indexed by the route word (headers of at most
``ROM_MAX_BITS`` bits), filled from the Python function, so the RTL and the model read the same table.
"""
from __future__ import annotations

from amaranth import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from cubenoc.errors import CubenocError

from .route_compute import ROM_MAX_BITS


class CandidateUnit(wiring.Component):
    def __init__(self, routing, node: int):
        if routing.layout.width > ROM_MAX_BITS:
            raise CubenocError(f"the candidate ROM takes headers of at most {ROM_MAX_BITS} bits, "
                               f"{routing.name} has {routing.layout.width}")
        self.routing, self.node = routing, node
        P = routing.topology.local_port(node) + 1
        V = max(2, routing.num_vcs)          # vc outputs are at least 1 bit (ignored for V = 1)
        lay = routing.layout.amaranth()
        super().__init__({"route": In(lay), "port0": Out(range(P)), "new0": Out(lay), "vc0": Out(range(V)),
                          "has1": Out(1), "port1": Out(range(P)), "new1": Out(lay), "vc1": Out(range(V))})

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
