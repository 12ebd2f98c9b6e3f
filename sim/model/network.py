"""Cycle-accurate model of a whole network of docs/router.md routers (V >= 1 virtual channels).

``NetworkModel(plan).run(stimulus)`` (``plan``: the network's
:class:`~cubenoc.sim.network_plan.NetworkPlan`) plays a :class:`Stimulus` and returns a
:class:`ModelResult`: the ejected-flit trace ``(cycle, node, head, tail, data)`` and per-node counters
(injected, ejected, dropped, malformed). Same FIFO depth, arbitration order and pointer update,
latencies and source-interface rules as the RTL; the step loop is compiled with numba
(:mod:`cubenoc.sim.model.kernel`; a run in progress is a :class:`.simulation.Simulation`). A single
router is the same model on any one-node slice of a network: tests drive it through the network's ports.
"""
from __future__ import annotations

from cubenoc.errors import CubenocError, require_int

from ..network_plan import NetworkPlan, default_routing  # noqa: F401 (default_routing: re-exported)
from ..routing.base import is_adaptive
from .adaptive import AdaptiveSimulation
from .broadcast import BroadcastSimulation, fork_tables
from .pipeline import PipelineSimulation
from .result import COUNTER_NAMES, ModelResult
from .simulation import Simulation
from .stimulus import Stimulus
from .tables import NetworkTables, build_tables
from .voq import VoqSimulation, voq_tables
from .word import check_route_width

__all__ = ["NetworkModel", "ModelResult", "Simulation", "COUNTER_NAMES", "default_routing", "allowed_of"]


def allowed_of(plan: NetworkPlan):
    """The RTL's pruned-turn sets of a plan: ``allowed(v) -> {in_port: {out_ports}}`` (its turns)."""
    def allowed(v: int) -> dict[int, set[int]]:
        out: dict[int, set[int]] = {}
        for i, o in plan.turns(v):
            out.setdefault(i, set()).add(o)
        return out
    return allowed


class NetworkModel:
    """The model of one network, from its :class:`~cubenoc.sim.network_plan.NetworkPlan`: topology,
    routing function and :class:`~cubenoc.sim.router_config.RouterConfig` (the FIFO depth and the options
    that change the cycle behaviour: queues, pipeline, arbitration, loopback, broadcast; docs/router.md).
    ``allowed``: the pruned-turn sets (default: the RTL's, the plan's turns; None: every turn).
    ``tables``/``inject_cache``: arrays built from the addresses or one row per orbit instead of
    :func:`build_tables` (sim/model/ecube.py, sim/symmetric_tables.py), and their injection words."""

    def __init__(self, plan: NetworkPlan, *, allowed="default", tables: NetworkTables | None = None,
                 inject_cache=None):
        self.plan = plan
        self.topology, self.routing = plan.topology, plan.routing
        self.config, self.broadcast = plan.config, plan.broadcast
        if self.broadcast is not None:
            check_route_width(self.routing.layout.width, "broadcast model's route header")
        check_route_width(self.routing.layout.width)
        if tables is None:        # the RTL's crossbar: unicast turns (loopback as configured) + broadcast turns
            tables = build_tables(self.topology, self.routing, allowed_of(plan) if allowed == "default" else allowed)
        self.tables = tables
        if self.queues == "voq":            # docs/router.md "Per-output queues (VOQ)": sim/model/voq.py
            self.tables = voq_tables(self.tables)
        self._inject_cache = {} if inject_cache is None else inject_cache
        self.fork = fork_tables(self) if self.broadcast is not None else None

    # the options the kernels read (docs/router.md): the config's
    depth = property(lambda self: self.config.fifo_depth)
    arbitration = property(lambda self: self.config.arbitration)
    queues = property(lambda self: self.config.queues)
    pipeline = property(lambda self: self.config.pipeline)
    loopback = property(lambda self: self.config.loopback)

    @property
    def num_nodes(self) -> int:
        return self.topology.num_nodes

    @property
    def adaptive(self) -> bool:
        """The routing function has a run-time selection (:func:`~..routing.base.is_adaptive`)."""
        return is_adaptive(self.routing)

    def start(self, stim: Stimulus, faults=None) -> "Simulation":
        if self.pipeline:
            if faults is not None:
                raise CubenocError("run-time faults and the pipelined router together are not built (docs/router.md)")
            return PipelineSimulation(self, stim)
        if self.queues == "voq":
            if faults is not None:
                raise CubenocError("run-time faults and per-output queues together are not built (docs/router.md)")
            return VoqSimulation(self, stim)
        if self.broadcast is not None:
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
