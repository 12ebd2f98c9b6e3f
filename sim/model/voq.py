"""Prototype (model only, not in the RTL): per-output queues at each input, chosen by lookahead routing.

What docs/router.md's "VC seam" would buy: input ``i`` of router ``v`` keeps one FIFO per output ``o``
(only the turns ``allowed`` lists exist, so the crossbar is as pruned as today: queue (i, o) feeds only
output o). The upstream router computes the packet's output at the next router (lookahead routing:
``routing.route`` applied once more to the updated header) and writes the flit into that queue; the link
carries a per-queue ready vector (``vc_ready``). A head blocked on one output no longer blocks the packets
behind it that go elsewhere (no head-of-line blocking), and routing is off the critical path, so a hop
still takes one cycle.

``interleave=False``: one lock per output (a packet holds the link from head to tail, as today).
``interleave=True``: one lock per (output, downstream queue), i.e. virtual channels = downstream
output queues; packets to different downstream queues share the link flit by flit.
Requests are masked by the downstream queue's ready (the seam's "arbitration only considers requests
whose downstream VC is ready"). Only well-formed, in-range traffic (the benchmarks) is supported.
``cubenoc bench throughput --voq`` reports it next to the V = 1 router.
"""
from __future__ import annotations

import numpy as np

from cubenoc.errors import CubenocError, require_int

from . import kernel
from .network import ModelResult, default_allowed, default_routing
from .state import Fifos, Outputs, Sources
from .stimulus import Stimulus
from .tables import build_tables, inject_words
from .word import ROUTE_SHIFT


class VoqModel:
    """Same interface as :class:`NetworkModel` for the benchmarks (``run(stim, cycles=...)``)."""

    def __init__(self, topology, routing=None, depth: int = 4, interleave: bool = False):
        self.topology = topology
        self.routing = routing if routing is not None else default_routing(topology)
        self.depth = require_int(depth, "depth", 1, 1 << 16)
        self.interleave = bool(interleave)
        self.tables = build_tables(topology, self.routing, default_allowed(topology, self.routing))

    @property
    def num_nodes(self) -> int:
        return self.topology.num_nodes

    def run(self, stim: Stimulus, cycles: int | None = None, max_cycles: int = 10_000_000) -> ModelResult:
        if cycles is None:
            raise CubenocError("the VOQ prototype runs a fixed number of cycles: pass cycles")
        tb = self.tables
        N, P, D = tb.num_nodes, tb.max_ports, self.depth
        src = np.repeat(np.arange(N, dtype=np.int64), np.diff(stim.node_start))
        route = inject_words(self.routing, src, np.where(stim.head == 1, stim.dest, -1))
        if (route[stim.head == 1] < 0).any():
            raise CubenocError("the VOQ prototype takes only in-range destinations")
        F = stim.num_flits
        z = lambda *shape: np.zeros(shape, dtype=np.int64)     # noqa: E731
        # queue (v * P + i) * P + o; rr per output; lock per (output, downstream queue); cur_vq per queue
        fifo = Fifos(z(N * P * P, D), z(N * P * P), z(N * P * P), z(N))
        arb = (z(N * P), np.full(N * P * P, -1, dtype=np.int64), z(N * P * P), z(N))
        acc = np.full(F, -1, dtype=np.int64)
        src = Sources(stim.node_start[:-1].astype(np.int64).copy(), stim.node_start[1:].astype(np.int64).copy(),
                             z(N), stim.head, stim.tail, np.maximum(route, 0) << ROUTE_SHIFT, stim.release, acc)
        counters, ej = z(N, 4), np.full(F, -1, dtype=np.int64)
        out = Outputs(np.ascontiguousarray(stim.eject_ready, dtype=np.uint8), counters, ej, z(F), z(F), z(F),
                             z(F), z(4), z(N * P))
        kernel.voq_cycles(int(cycles), D, P, self.interleave, (tb.nports, tb.link, tb.allowed, tb.route),
                          fifo, arb, src, out)
        empty = np.zeros(0, dtype=np.int64)      # the prototype keeps no trace
        return ModelResult(stim, int(cycles), False, counters, acc, ej, empty, empty, empty, empty, empty)
