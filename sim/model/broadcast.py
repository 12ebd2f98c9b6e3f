"""The model's broadcast path (docs/router.md "Broadcast and multicast"): :func:`.kernel.run_cycles` in
``BCAST`` mode (fork requests, the broadcast selector, presentation and join; V = 1 only). Chosen by
``NetworkModel(..., broadcast=alg)``; without broadcast heads it runs exactly as the unicast router."""
from __future__ import annotations

import numpy as np

from cubenoc.errors import CubenocError

from ..broadcast.fork import BROADCAST_DEST, build_fork_tables, check_broadcast
from . import kernel
from .simulation import Simulation
from .state import Broadcast
from .word import BCAST_SHIFT


def fork_tables(model):
    """The fork unit's tables for the model (cached on it)."""
    if getattr(model, "fork", None) is None:
        model.fork = build_fork_tables(model.broadcast, model.tables.max_ports)
    return model.fork


class BroadcastSimulation(Simulation):
    mode = kernel.BCAST

    def __init__(self, model, stim):
        check_broadcast(model.broadcast, model.routing)
        super().__init__(model, stim)
        N, P = model.tables.num_nodes, model.tables.max_ports
        bc = (stim.head == 1) & (stim.dest == BROADCAST_DEST)
        long_bc = bc[stim.pkt_first] & (stim.pkt_len > model.depth) if stim.num_packets else np.zeros(0, bool)
        if long_bc.any() and not self.ni_cfg[0]:     # the AXI4-Stream interface drops them (kernel.ni_phase)
            k = int(np.nonzero(long_bc)[0][0])
            raise CubenocError(f"broadcast packets may have at most D = {model.depth} flits (the fork reserves "
                               f"one empty FIFO per branch): {stim.describe_packet(k)}")
        self.s_fields = np.where(bc, 1 << BCAST_SHIFT, self.s_fields)   # bcast = 1, route = 0
        fk = fork_tables(model)
        z = np.zeros(N * P, dtype=np.int64)
        # fork mask, tags, origin row; per input held, done, bmode; per router the selector's pointer and
        # the outputs that held a stalled unicast offer last cycle (a bit mask) (docs/router.md "Streams hold ...")
        self.bc = Broadcast(fk.mask, fk.tag, int(fk.origin_row), z, z.copy(), z.copy(),
                                   np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64))

    def trace_size(self) -> int:
        """One trace entry per ejection: a broadcast packet's flits eject at up to N - 1 nodes."""
        s = self.stim
        bc = (s.head == 1) & (s.dest == BROADCAST_DEST)
        in_bc = np.zeros(s.num_packets, dtype=bool)
        in_bc[s.packet[bc]] = True
        return s.num_flits + (int(in_bc[s.packet].sum()) * max(s.num_nodes - 2, 0) if s.num_flits else 0)

