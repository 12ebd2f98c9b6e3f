"""The model of the adaptive / fault-aware router (docs/router.md, "Adaptive selection" and "Run-time
faults"): :func:`.kernel.run_cycles` in ``ADAPTIVE`` mode, i.e. the unicast router with two route
candidates per head (:func:`.kernel.select`), per-output use counters, fault inputs and discarding of
unroutable packets.

Used by :class:`~cubenoc.sim.model.network.NetworkModel` when the routing function has a ``selection``
or a run is given a :class:`~cubenoc.sim.model.faults.FaultSchedule`. Extra state (``Simulation.ad``):
the second candidate per (node, route word) (``route2``/``vc2``, -1 when there is none), ``disc`` per
FIFO (inside a discarded packet), ``use`` per output (16-bit wrapping count of head flits sent),
``fault`` per output channel and ``nfault`` per node (applied from the schedule at the start of each
cycle), and a fifth counter column ``discarded``.
"""
from __future__ import annotations

import numpy as np

from cubenoc.errors import CubenocError

from . import kernel
from .phases import DISCARDED
from .result import ModelResult
from .simulation import Simulation
from .tables import candidate_tables

SELECTION_CODE = {None: 0, "availability": 0, "least_used": 1}

__all__ = ["AdaptiveSimulation", "candidate_tables", "SELECTION_CODE"]


class AdaptiveSimulation(Simulation):
    """A :class:`Simulation` on the adaptive router (same arrays plus the fault and selection state)."""

    mode = kernel.ADAPTIVE
    num_counters = 5

    def __init__(self, model, stim, faults=None):
        super().__init__(model, stim)
        tb = model.tables
        N, P = tb.num_nodes, tb.max_ports
        r1, v1, r2, v2 = candidate_tables(model)
        ident = (np.arange(N, dtype=np.int64), np.zeros(N, dtype=np.int64))   # one row per node, no XOR
        self.tab = self.tab._replace(route=r1, vc=v1, row=ident[0], xor=ident[1])
        if faults is not None:
            if faults.num_nodes != N:
                raise CubenocError(f"fault schedule is for {faults.num_nodes} nodes, the network has {N}")
            schedule = faults.effective(model.topology, P)
        else:
            schedule = (self.ad.f_cyc, self.ad.f_out, self.ad.f_node)
        f_cyc, f_out, f_node = schedule
        self.ad = self.ad._replace(selection=SELECTION_CODE[getattr(model.routing, "selection", None)], route2=r2,
                                   vc2=v2, f_cyc=f_cyc, f_out=f_out, f_node=f_node)

    @property
    def use(self) -> np.ndarray:
        """The per-output use counters (``v * P + o``)."""
        return self.ad.use

    def result(self) -> ModelResult:
        res = super().result()
        res.discarded = self.counters[:, DISCARDED].copy()
        return res
