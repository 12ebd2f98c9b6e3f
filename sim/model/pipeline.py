"""The pipelined router (docs/router.md "Pipelined router"): the model of ``Router(..., pipeline=True)``.

A hop takes two registered stages instead of one. Stage 1 (route): each input lane's FIFO head goes,
with the output its route unit computes and its new route, into the lane's *stage register* whenever
that register is empty or is being sent this cycle. Stage 2 (arbitrate + traverse): the output units
arbitrate over the stage registers (requests, wormhole locks, round robin and the held offer exactly as
the one-stage router's) and the winner crosses the crossbar and the link into the next FIFO. A lane thus
buffers ``depth + 1`` flits, a hop costs one more cycle, and a lane still sends a flit every cycle.

In the model this is the kernel's PIPE mode (:data:`.kernel.PIPE`): the unicast router reading
``fifo.stage`` instead of the FIFO head; the clock edge empties a sent stage and refills every empty
stage from its FIFO (:func:`.kernel.clock_edge`). Built for one-VC unicast oblivious routing.
"""
from __future__ import annotations

import numpy as np

from cubenoc.errors import CubenocError

from . import kernel
from .simulation import Simulation


def check_pipeline(pipeline, routing=None, broadcast=None, adaptive: bool = False, queues: str = "fifo") -> bool:
    """``pipeline`` as a bool; the combinations not built: one-line CubenocError."""
    if not isinstance(pipeline, bool):
        raise CubenocError(f"pipeline must be True or False, got {pipeline!r}")
    if pipeline:
        if broadcast is not None or adaptive or queues != "fifo":
            raise CubenocError("the pipelined router (--pipeline) is built for unicast oblivious routing with one "
                               "FIFO per input only, not with broadcast, run-time faults, adaptive selection or "
                               "per-output queues")
        if routing is not None and routing.num_vcs != 1:
            raise CubenocError(f"the pipelined router (--pipeline) takes a one-VC routing function, "
                               f"{routing.name} has {routing.num_vcs} VCs")
    return pipeline


class PipelineSimulation(Simulation):
    """A :class:`Simulation` in the kernel's PIPE mode (same arrays; ``fifo.stage`` in use)."""

    mode = kernel.PIPE

    @staticmethod
    def pipe_state(N: int, lanes: int) -> tuple:
        """Per lane: stage register (-1 empty), the output its registered grant crosses to (-1 none); per
        node: the ejection buffer (kernel.EJECT_DEPTH words) and its count."""
        return (np.full(N * lanes, -1, dtype=np.int64), np.full(N * lanes, -1, dtype=np.int64),
                np.zeros((N, kernel.EJECT_DEPTH), dtype=np.int64), np.zeros(N, dtype=np.int64))
