"""The pipelined router (docs/router.md "Pipelined router"): the model of ``Router(..., pipeline=True)``.

A hop takes two registered stages. Stage 1 (arbitrate): each input lane's *candidate* -- its FIFO head
while the lane's stage register is empty or crossing, else the stage -- requests its output when that
output's downstream FIFO (at the local output: a 2-entry ejection buffer) will have room after this
cycle's crossing; the round-robin winners are granted (pointer, wormhole lock, ``cur_out`` move now).
Stage 2 (cross): next cycle the granted lane's stage register crosses the crossbar and the link into the
next FIFO (or ``local_out``: the ejection buffer's head, else the crossing flit). An advancing stage
takes its FIFO's head at the edge. A lane buffers ``depth + 1`` flits and sends one per cycle; zero-load
latency 2h + 2.

In the model this is the kernel's PIPE mode (:data:`.kernel.PIPE`: :func:`.pipelined.pipe_node`, its stages and
:func:`.pipelined.pipe_clock_edge`, the stage refill); its state is ``fifo.stage``, ``fifo.trav`` (the output a lane's
stage crosses to this cycle), ``fifo.eject``/``fifo.ecount`` (:meth:`PipelineSimulation.pipe_state`).
Built for one-VC unicast oblivious routing.
"""
from __future__ import annotations

import numpy as np

from . import kernel
from .phases import EJECT_DEPTH
from .simulation import Simulation


class PipelineSimulation(Simulation):
    """A :class:`Simulation` in the kernel's PIPE mode (same arrays; the stage, crossing and ejection
    buffer state in use)."""

    mode = kernel.PIPE

    @staticmethod
    def pipe_state(N: int, lanes: int) -> tuple:
        """Per lane: stage register (-1 empty), the output its registered grant crosses to (-1 none); per
        node: the ejection buffer (EJECT_DEPTH words) and its count."""
        return (np.full(N * lanes, -1, dtype=np.int64), np.full(N * lanes, -1, dtype=np.int64),
                np.zeros((N, EJECT_DEPTH), dtype=np.int64), np.zeros(N, dtype=np.int64))
