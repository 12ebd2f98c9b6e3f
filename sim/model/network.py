"""Cycle-accurate model of a whole network of docs/router.md routers (V >= 1 virtual channels).

``NetworkModel(topology, routing, depth=4).run(stimulus)`` plays a :class:`Stimulus` and returns a
:class:`ModelResult`: the ejected-flit trace ``(cycle, node, head, tail, data)`` and per-node counters
(injected, ejected, dropped, malformed). Same FIFO depth, arbitration order and pointer update,
latencies and source-interface rules as the RTL; the step loop is compiled with numba
(:mod:`cubenoc.sim.model.kernel`). A single router is the same model on any one-node slice of a
network: tests drive it through the network's ports.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from cubenoc.errors import CubenocError, require_int

from ..routing.base import RoutingFunction
from ..topology.base import Topology
from . import kernel
from .stimulus import Stimulus
from .tables import build_tables, inject_words

COUNTER_NAMES = ("injected", "ejected", "dropped", "malformed")


def default_routing(topology: Topology) -> RoutingFunction:
    """The routing function a family's routers run (e-cube / Algorithm C for the hypercube family)."""
    from ..topology.hypercube import Hypercube
    if isinstance(topology, Hypercube):
        from ..routing.hypercube import EcubeRouting
        return EcubeRouting(topology)
    raise CubenocError(f"no default routing function for {topology!r}: pass one")


def default_allowed(topology: Topology, routing: RoutingFunction):
    """The RTL's pruned-turn sets: ``allowed(v) -> {in_port: {out_ports}}`` (sim/routing/turns.py)."""
    from ..routing.turns import allowed_turns
    per_node = allowed_turns(routing)

    def allowed(v: int) -> dict[int, set[int]]:
        out: dict[int, set[int]] = {}
        for i, o in per_node[v]:
            out.setdefault(i, set()).add(o)
        return out
    return allowed


@dataclass
class ModelResult:
    stimulus: Stimulus
    cycles: int                 # cycles simulated (cycle numbers 0 .. cycles-1)
    drained: bool               # every flit accepted or discarded and the network empty
    counters: np.ndarray        # int64 [N, 4]: injected, ejected, dropped, malformed
    accept_cycle: np.ndarray    # int64 [F]: cycle of the flit's injection handshake, -1 if never
    eject_cycle: np.ndarray     # int64 [F]: cycle of its ejection handshake, -1 if never
    tr_cycle: np.ndarray        # the trace, in (cycle, node) order
    tr_node: np.ndarray
    tr_flit: np.ndarray         # index into the stimulus arrays
    tr_head: np.ndarray
    tr_tail: np.ndarray
    broadcast: bool = False     # the network forks dest-0xFFFF packets (docs/router.md "Broadcast")

    @property
    def tr_data(self) -> np.ndarray:
        return self.stimulus.data[self.tr_flit]

    def counter(self, name: str) -> np.ndarray:
        return self.counters[:, COUNTER_NAMES.index(name)]

    def trace_tuples(self) -> list[tuple[int, int, int, int, int]]:
        """``[(cycle, node, head, tail, data), ...]``: what the verification contract compares."""
        return list(zip(self.tr_cycle.tolist(), self.tr_node.tolist(), self.tr_head.tolist(),
                        self.tr_tail.tolist(), self.tr_data.tolist()))

    # ---- per-packet figures (packets that were accepted, not dropped) ----
    @cached_property
    def delivered(self) -> np.ndarray:
        """Indices of packets whose every flit was ejected."""
        s = self.stimulus
        last = s.pkt_first + s.pkt_len - 1
        ok = s.pkt_len > 0
        ok[ok] &= self.eject_cycle[last[ok]] >= 0
        return np.nonzero(ok)[0]

    def head_latency(self, packets=None) -> np.ndarray:
        """Injection handshake of the head to ejection handshake of the head (h + 1 at zero load)."""
        f = self.stimulus.pkt_first[self.delivered if packets is None else packets]
        return self.eject_cycle[f] - self.accept_cycle[f]

    def packet_latency(self, packets=None) -> np.ndarray:
        """Release (creation) of the packet to ejection of its tail, source queueing included."""
        s = self.stimulus
        k = self.delivered if packets is None else packets
        return self.eject_cycle[s.pkt_first[k] + s.pkt_len[k] - 1] - s.pkt_release[k]


class NetworkModel:
    """The model of one network: topology + routing function + FIFO depth."""

    def __init__(self, topology: Topology, routing: RoutingFunction | None = None, depth: int = 4,
                 allowed="default", broadcast=None):
        self.topology = topology
        self.routing = routing if routing is not None else default_routing(topology)
        self.depth = require_int(depth, "depth", 1, 1 << 16)
        self.broadcast = broadcast
        if allowed == "default":
            allowed = default_allowed(topology, self.routing)
            if broadcast is not None:     # the crossbar also carries every broadcast turn
                from .broadcast import with_broadcast_turns
                allowed = with_broadcast_turns(allowed, broadcast, self.routing)
        if self.routing.layout.width > 30:
            raise CubenocError(f"the model packs route headers of at most 30 bits, got {self.routing.layout.width}")
        self.tables = build_tables(topology, self.routing, allowed)
        self._inject_cache: dict = {}
        if broadcast is not None:
            from ..broadcast.fork import build_fork_tables
            self.fork = build_fork_tables(broadcast, self.tables.max_ports)

    @property
    def num_nodes(self) -> int:
        return self.topology.num_nodes

    @property
    def adaptive(self) -> bool:
        """The routing function has a run-time selection (docs/router.md, "Adaptive selection")."""
        return getattr(self.routing, "selection", None) is not None

    def start(self, stim: Stimulus, faults=None) -> "Simulation":
        if getattr(self, "broadcast", None) is not None:   # (tables-only models skip __init__)
            if faults is not None:
                raise CubenocError("run-time faults and broadcast together are not built (docs/router.md)")
            from .broadcast import BroadcastSimulation
            return BroadcastSimulation(self, stim)
        if self.adaptive or faults is not None:    # docs/router.md "Adaptive selection", "Run-time faults"
            from .adaptive import AdaptiveSimulation
            return AdaptiveSimulation(self, stim, faults)
        return Simulation(self, stim)

    def run(self, stim: Stimulus, cycles: int | None = None, max_cycles: int = 10_000_000,
            faults=None) -> ModelResult:
        """Run exactly ``cycles`` cycles, or (``cycles=None``) until the stimulus is played out and the
        network is empty, at most ``max_cycles``. ``faults``: a :class:`~.faults.FaultSchedule`."""
        sim = self.start(stim, faults)
        if cycles is not None:
            sim.advance(require_int(cycles, "cycles", 0), stop_when_drained=False)
        else:
            sim.advance(max_cycles, stop_when_drained=True)
        return sim.result()


class Simulation:
    """A model run in progress: all state in arrays, advanced by the compiled step loop."""

    def __init__(self, model: NetworkModel, stim: Stimulus):
        tb = model.tables
        if stim.num_nodes != tb.num_nodes:
            raise CubenocError(f"stimulus is for {stim.num_nodes} nodes, the network has {tb.num_nodes}")
        self.model, self.stim = model, stim
        N, P, D = tb.num_nodes, tb.max_ports, model.depth
        V = self.num_vcs = int(getattr(tb, "num_vcs", 1))
        # Hop.vc per route word (a 1x1 dummy for V = 1: the kernel never reads it then)
        self.route_vc = tb.vc if V > 1 else np.zeros((1, 1), dtype=np.int64)
        self.route_row, self.route_xor = tb.row_and_xor()
        F = stim.num_flits
        if F >= 1 << 31:
            raise CubenocError(f"at most 2**31 flits per stimulus, got {F}")
        src = np.repeat(np.arange(N, dtype=np.int64), np.diff(stim.node_start))
        dst = np.where(stim.head == 1, stim.dest, -1)
        self.s_route = inject_words(model.routing, src, dst, model._inject_cache)
        # one FIFO per (node, input port, VC): index (v * P + i) * V + c
        self.buf = np.zeros((N * P * V, D), dtype=np.int64)
        self.fhead = np.zeros(N * P * V, dtype=np.int64)
        self.fcnt = np.zeros(N * P * V, dtype=np.int64)
        self.nocc = np.zeros(N, dtype=np.int64)     # flits buffered per node (idle routers are skipped)
        self.rr = np.zeros(N * P, dtype=np.int64)   # per output, over the pairs j = i * V + c
        self.lock = np.full(N * P * V, -1, dtype=np.int64)   # per (output, VC): owning pair or -1
        self.cur_out = np.zeros(N * P * V, dtype=np.int64)
        self.cur_vc = np.zeros(N * P * V, dtype=np.int64)
        self.src_ptr = stim.node_start[:-1].astype(np.int64).copy()
        self.src_end = stim.node_start[1:].astype(np.int64).copy()
        self.src_state = np.zeros(N, dtype=np.int64)
        self.counters = np.zeros((N, 4), dtype=np.int64)
        self.accept_cycle = np.full(F, -1, dtype=np.int64)
        self.eject_cycle = np.full(F, -1, dtype=np.int64)
        self.tr_cycle = np.zeros(F, dtype=np.int64)
        self.tr_node = np.zeros(F, dtype=np.int64)
        self.tr_flit = np.zeros(F, dtype=np.int64)
        self.tr_ht = np.zeros(F, dtype=np.int64)
        self.scal = np.array([0, 0, F], dtype=np.int64)
        self.link_flits = np.zeros(N * P, dtype=np.int64)   # flits sent per network output (v * P + o)
        self.eject_ready = np.ascontiguousarray(stim.eject_ready, dtype=np.uint8)
        self.cycle = 0

    @property
    def drained(self) -> bool:
        return bool(self.scal[0] == 0 and self.scal[2] == 0)

    @property
    def in_flight(self) -> int:
        return int(self.scal[0])

    def advance(self, cycles: int, stop_when_drained: bool = False) -> int:
        """Simulate up to ``cycles`` more cycles; return the current cycle."""
        tb, s = self.model.tables, self.stim
        self.cycle = int(kernel.step_cycles(
            self.cycle, self.cycle + int(cycles), stop_when_drained, self.model.depth, tb.max_ports,
            self.num_vcs, tb.nports, tb.link, tb.route, self.route_vc, self.route_row, self.route_xor, tb.allowed,
            self.buf, self.fhead, self.fcnt, self.nocc, self.rr, self.lock, self.cur_out, self.cur_vc,
            self.src_ptr, self.src_end, self.src_state,
            s.head, s.tail, self.s_route, s.release,
            self.eject_ready, self.counters, self.accept_cycle, self.eject_cycle,
            self.tr_cycle, self.tr_node, self.tr_flit, self.tr_ht, self.scal, self.link_flits))
        return self.cycle

    def result(self) -> ModelResult:
        n = int(self.scal[1])
        ht = self.tr_ht[:n]
        return ModelResult(self.stim, self.cycle, self.drained, self.counters.copy(),
                           self.accept_cycle.copy(), self.eject_cycle.copy(),
                           self.tr_cycle[:n].copy(), self.tr_node[:n].copy(), self.tr_flit[:n].copy(),
                           ht & 1, (ht >> 1) & 1)
