"""Per-output queues chosen by lookahead routing (docs/router.md "Per-output queues (VOQ)"): the model of
``Router(..., queues="voq")``.

Input i of router v keeps one FIFO per output o it may turn to (only the turns ``allowed`` lists are
built in the RTL, so the crossbar is as pruned as the single-FIFO router's: queue (i, o) feeds only
output o). The upstream router computes the packet's output at the next router (lookahead routing:
``routing.route`` at the far node on the updated header, :class:`~.lookahead.LookaheadVoqRouting`) and
the flit travels on the link with that queue as its ``vc``; the link carries one ready bit per queue.
The local input's queue is the packet's first output (the source interface's route). An output's round
robin runs over the inputs whose queue for it has a flit and room downstream; a packet holds its output
from head to tail (one lock per output, no interleaving). A head blocked on one output no longer blocks
the packets behind it that go elsewhere (no head-of-line blocking), and a hop still takes one cycle.

In the model this is the kernel's VOQ mode (:data:`.kernel.VOQ`) on the V > 1 state with V = P: FIFO
``(v * P + i) * P + o`` is queue (i, o), ``Hop.vc`` is the next router's output (:func:`voq_tables`).
"""
from __future__ import annotations

import numpy as np


from . import kernel
from .simulation import Simulation
from .word import PORT_BITS, PORT_MASK



def voq_tables(tb):
    """The route tables of ``tb`` (one VC) with ``vc`` = the next router's output per (node, route word),
    V = P: what :class:`~.lookahead.LookaheadVoqRouting` gives, computed from the route table itself."""
    N, P = tb.num_nodes, tb.max_ports
    vc = np.zeros_like(tb.route)
    for v in range(N):
        for word in np.nonzero(tb.route[v] >= 0)[0].tolist():
            e = int(tb.route[v, word])
            d = int(tb.link[v * P + (e & PORT_MASK)])
            if d >= 0:                                   # a network output: the far router's port
                far = int(tb.route[d // P, e >> PORT_BITS])
                vc[v, word] = far & PORT_MASK if far >= 0 else 0
    tb.vc, tb.num_vcs = vc, P
    return tb


class VoqSimulation(Simulation):
    """A :class:`Simulation` in the kernel's VOQ mode (same arrays, V = P)."""

    mode = kernel.VOQ

