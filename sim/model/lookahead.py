"""Lookahead "VOQ" mode on the VC router: the virtual channel of a hop is the output port the next
router will take (``routing.route`` applied to the updated header at the far node), so each VC FIFO of
an input holds only flits for one output -- per-output queues (sim/model/voq.py's prototype, with
interleaving) built from the V > 1 router of docs/router.md without a new microarchitecture.

``LookaheadVoqRouting(base)`` wraps a one-VC routing function: same header, injection and ports;
``num_vcs`` = the largest P (ports incl. local), ``Hop.vc`` = the next router's port (0 on ejection).
Heads whose next-hop VC is full wait, others pass: no head-of-line blocking between outputs. Both the
model (``NetworkModel(topo, LookaheadVoqRouting(base))``) and the RTL (``Router`` / ``Network``, the
routing adapter is the ROM fallback) take it.
"""
from __future__ import annotations

from cubenoc.errors import CubenocError

from ..routing.base import Hop, RoutingFunction


class LookaheadVoqRouting(RoutingFunction):
    def __init__(self, base: RoutingFunction):
        if base.num_vcs != 1:
            raise CubenocError(f"lookahead VOQ wraps a one-VC routing function, {base.name} has {base.num_vcs}")
        super().__init__(base.topology)
        self.base = base
        self.name = f"{base.name}_voq"
        topo = base.topology
        self.num_vcs = max(topo.num_ports(v) for v in topo.nodes()) + 1

    @property
    def layout(self):
        return self.base.layout

    def inject(self, src: int, dst: int) -> dict:
        return self.base.inject(src, dst)

    def route(self, node: int, header: dict) -> Hop:
        hop = self.base.route(node, header)
        topo = self.topology
        if hop.port == topo.local_port(node):
            return Hop(hop.port, hop.header, 0)
        far = topo.neighbor(node, hop.port)
        if far is None:
            raise CubenocError(f"{self.base.name}: unconnected port {hop.port} at node {node}")
        return Hop(hop.port, hop.header, self.base.route(far[0], hop.header).port)
