"""Cycle-accurate model of a whole network of docs/router.md routers (V >= 1 virtual channels).

``NetworkModel(topology, routing, depth=4).run(stimulus)`` plays a :class:`Stimulus` and returns a
:class:`ModelResult`: the ejected-flit trace ``(cycle, node, head, tail, data)`` and per-node counters
(injected, ejected, dropped, malformed). Same FIFO depth, arbitration order and pointer update,
latencies and source-interface rules as the RTL; the step loop is compiled with numba
(:mod:`cubenoc.sim.model.kernel`; a run in progress is a :class:`.simulation.Simulation`). A single
router is the same model on any one-node slice of a network: tests drive it through the network's ports.
"""
from __future__ import annotations

from cubenoc.errors import CubenocError, require_int

from ..routing.base import RoutingFunction
from ..topology.base import Topology
from .adaptive import AdaptiveSimulation
from .broadcast import BroadcastSimulation, fork_tables, with_broadcast_turns
from .pipeline import PipelineSimulation, check_pipeline
from .result import COUNTER_NAMES, ModelResult
from .simulation import Simulation
from .stimulus import Stimulus
from .tables import build_tables
from .voq import VoqSimulation, check_queues, voq_tables
from .word import check_route_width

__all__ = ["NetworkModel", "ModelResult", "Simulation", "COUNTER_NAMES", "default_routing", "default_allowed"]


def default_routing(topology: Topology) -> RoutingFunction:
    """The routing function a family's routers run (e-cube / Algorithm C for the hypercube family)."""
    from ..topology.hypercube import Hypercube
    if isinstance(topology, Hypercube):
        from ..routing.hypercube import EcubeRouting
        return EcubeRouting(topology)
    raise CubenocError(f"no default routing function for {topology!r}: pass one")


def default_allowed(topology: Topology, routing: RoutingFunction, loopback: bool = True):
    """The RTL's pruned-turn sets: ``allowed(v) -> {in_port: {out_ports}}`` (sim/routing/turns.py);
    ``loopback=False``: without the local->local turn."""
    from ..routing.turns import allowed_turns
    per_node = allowed_turns(routing, loopback)

    def allowed(v: int) -> dict[int, set[int]]:
        out: dict[int, set[int]] = {}
        for i, o in per_node[v]:
            out.setdefault(i, set()).add(o)
        return out
    return allowed


class NetworkModel:
    """The model of one network: topology + routing function + FIFO depth (+ router options: ``queues``,
    ``pipeline``, ``loopback``, docs/router.md)."""

    def __init__(self, topology: Topology, routing: RoutingFunction | None = None, depth: int = 4,
                 allowed="default", broadcast=None, queues: str = "fifo", arbitration: str = "round-robin",
                 pipeline: bool = False, loopback: bool = True):
        from ..routing.fairness import check_arbitration
        from ..routing.turns import check_loopback
        self.topology = topology
        self.routing = routing if routing is not None else default_routing(topology)
        self.depth = require_int(depth, "depth", 1, 1 << 16)
        self.arbitration = check_arbitration(arbitration)   # docs/router.md "Arbitration"
        self.broadcast = broadcast
        # docs/router.md "Per-output queues (VOQ)": sim/model/voq.py
        self.queues = check_queues(queues, self.routing, broadcast, self.adaptive)
        # docs/router.md "Pipelined router": sim/model/pipeline.py
        self.pipeline = check_pipeline(pipeline, self.routing, broadcast, self.adaptive, self.queues)
        # docs/router.md "Loopback": False drops a packet to its own node at its source (simulation.py)
        self.loopback = check_loopback(loopback, broadcast, self.adaptive, self.queues)
        if allowed == "default":
            allowed = default_allowed(topology, self.routing, self.loopback)
            if broadcast is not None:     # the crossbar also carries every broadcast turn
                allowed = with_broadcast_turns(allowed, broadcast, self.routing)
        check_route_width(self.routing.layout.width)
        self.tables = build_tables(topology, self.routing, allowed)
        if self.queues == "voq":
            self.tables = voq_tables(self.tables)
        self._inject_cache: dict = {}
        self.fork = fork_tables(self) if broadcast is not None else None

    @property
    def num_nodes(self) -> int:
        return self.topology.num_nodes

    @property
    def adaptive(self) -> bool:
        """The routing function has a run-time selection (docs/router.md, "Adaptive selection")."""
        return getattr(self.routing, "selection", None) is not None

    def start(self, stim: Stimulus, faults=None) -> "Simulation":
        if getattr(self, "pipeline", False):
            if faults is not None:
                raise CubenocError("run-time faults and the pipelined router together are not built (docs/router.md)")
            return PipelineSimulation(self, stim)
        if getattr(self, "queues", "fifo") == "voq":
            if faults is not None:
                raise CubenocError("run-time faults and per-output queues together are not built (docs/router.md)")
            return VoqSimulation(self, stim)
        if getattr(self, "broadcast", None) is not None:   # (tables-only models skip __init__)
            if faults is not None:
                raise CubenocError("run-time faults and broadcast together are not built (docs/router.md)")
            return BroadcastSimulation(self, stim)
        if self.adaptive or faults is not None:    # docs/router.md "Adaptive selection", "Run-time faults"
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
