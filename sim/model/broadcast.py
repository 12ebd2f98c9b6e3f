"""The model's broadcast path (docs/router.md "Broadcast and multicast"): a Simulation whose step loop
is :func:`cubenoc.sim.model.kernel_bcast.step_cycles_bcast`. Chosen by ``NetworkModel(...,
broadcast=alg)``; the unicast Simulation is untouched."""
from __future__ import annotations

import numpy as np

from ..broadcast.fork import BROADCAST_DEST, broadcast_turns, check_broadcast
from .kernel_bcast import step_cycles_bcast
from .network import ModelResult, Simulation

#: a broadcast head's route word in the model (bit 29 of the route = bit 31 of the flit word)
BCAST_ROUTE = 1 << 29


def with_broadcast_turns(allowed, alg, routing):
    """The unicast pruned-turn function with every broadcast turn added (``None`` stays all turns)."""
    check_broadcast(alg, routing)
    if routing.layout.width > 29:
        from cubenoc.errors import CubenocError
        raise CubenocError(f"the broadcast model packs route headers of at most 29 bits, got {routing.layout.width}")
    if allowed is None:
        return None
    extra = broadcast_turns(alg)

    def allowed_b(v: int) -> dict[int, set[int]]:
        out = {i: set(o) for i, o in allowed(v).items()}
        for i, o in extra[v]:
            out.setdefault(i, set()).add(o)
        return out
    return allowed_b


class BroadcastSimulation(Simulation):
    def __init__(self, model, stim):
        check_broadcast(model.broadcast, model.routing)
        super().__init__(model, stim)
        N, P = model.tables.num_nodes, model.tables.max_ports
        bc = (stim.head == 1) & (stim.dest == BROADCAST_DEST)
        long_bc = bc[stim.pkt_first] & (stim.pkt_len > model.depth) if stim.num_packets else np.zeros(0, bool)
        if long_bc.any():
            from cubenoc.errors import CubenocError
            k = int(np.nonzero(long_bc)[0][0])
            raise CubenocError(f"broadcast packets may have at most D = {model.depth} flits (the fork reserves "
                               f"one empty FIFO per branch): {stim.describe_packet(k)}")
        self.s_route = np.where(bc, BCAST_ROUTE, self.s_route)
        # one trace entry per ejection: a broadcast packet's flits eject at up to N - 1 nodes
        in_bc = np.zeros(stim.num_packets, dtype=bool)
        in_bc[stim.packet[bc]] = True
        extra = int(in_bc[stim.packet].sum()) * max(N - 2, 0) if stim.num_flits else 0
        F = stim.num_flits + extra
        self.tr_cycle = np.zeros(F, dtype=np.int64)
        self.tr_node = np.zeros(F, dtype=np.int64)
        self.tr_flit = np.zeros(F, dtype=np.int64)
        self.tr_ht = np.zeros(F, dtype=np.int64)
        self.held = np.zeros(N * P, dtype=np.int64)
        self.done = np.zeros(N * P, dtype=np.int64)
        self.bmode = np.zeros(N * P, dtype=np.int64)
        self.brr = np.zeros(N, dtype=np.int64)     # per router: the broadcast selector's pointer

    def advance(self, cycles: int, stop_when_drained: bool = False) -> int:
        tb, s, fk = self.model.tables, self.stim, self.model.fork
        self.cycle = int(step_cycles_bcast(
            self.cycle, self.cycle + int(cycles), stop_when_drained, self.model.depth, tb.max_ports,
            tb.nports, tb.link, tb.route, tb.allowed, fk.mask, fk.tag, fk.origin_row,
            self.buf, self.fhead, self.fcnt, self.nocc, self.rr, self.lock, self.cur_out,
            self.held, self.done, self.bmode, self.brr,
            self.src_ptr, self.src_end, self.src_state,
            s.head, s.tail, self.s_route, s.release,
            self.eject_ready, self.counters, self.accept_cycle, self.eject_cycle,
            self.tr_cycle, self.tr_node, self.tr_flit, self.tr_ht, self.scal))
        return self.cycle

    def result(self) -> ModelResult:
        res = super().result()
        res.broadcast = True
        return res


def broadcast_delivery_problems(res: ModelResult, limit: int = 10) -> list[str]:
    """:func:`cubenoc.sim.model.check.delivery_problems` when packets may be broadcasts: a unicast
    packet ejects once at its destination, a broadcast once at every node but its source; per node,
    whole packets, in flit order, never interleaved."""
    s = res.stimulus
    out: list[str] = []
    flits, nodes = res.tr_flit, res.tr_node
    key = flits * s.num_nodes + nodes
    uniq, counts = np.unique(key, return_counts=True)
    for kv in uniq[counts > 1][:limit]:
        out.append(f"duplicated at node {int(kv % s.num_nodes)}: {s.describe_flit(int(kv // s.num_nodes))}")
    pk = s.packet[flits]
    is_bc = s.pkt_dst[pk] == BROADCAST_DEST
    wrong = np.nonzero(np.where(is_bc, nodes == s.pkt_src[pk], nodes != s.pkt_dst[pk]))[0]
    for j in wrong[:limit]:
        out.append(f"misdelivered at node {int(nodes[j])} cycle {int(res.tr_cycle[j])}: "
                   f"{s.describe_flit(int(flits[j]))}")
    from .check import well_formed_packets, whole_packets_per_node
    whole_packets_per_node(res, out, limit)
    if res.drained:
        good = well_formed_packets(s)
        last = s.pkt_first + s.pkt_len - 1
        tails = np.zeros(s.num_packets, dtype=np.int64)
        tail_hits = s.packet[flits][flits == last[s.packet[flits]]]
        np.add.at(tails, tail_hits, 1)
        for k in range(s.num_packets):
            if not good[k] or len(out) >= limit:
                continue
            want = s.num_nodes - 1 if s.pkt_dst[k] == BROADCAST_DEST else int(s.pkt_dst[k] < s.num_nodes)
            if tails[k] != want:
                out.append(f"lost: {s.describe_packet(k)} ejected at {int(tails[k])} nodes, expected {want}")
    return out[:limit]
