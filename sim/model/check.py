"""Delivery checks on a model trace: nothing lost, duplicated, misdelivered, reordered or interleaved.

The cocotb scoreboard compares the Verilog's trace with the model's flit for flit; these checks make
sure the model's own trace keeps the wormhole promises (used by the model's unit tests and the bench).
"""
from __future__ import annotations

import numpy as np

from ..broadcast.fork import BROADCAST_DEST
from .result import ModelResult


def well_formed_packets(stim) -> np.ndarray:
    """Packets whose flits are exactly head ... tail (the ones the network must deliver whole)."""
    ok = np.zeros(stim.num_packets, dtype=bool)
    for k in range(stim.num_packets):
        a, n = int(stim.pkt_first[k]), int(stim.pkt_len[k])
        if n == 0:
            continue
        h, t = stim.head[a:a + n], stim.tail[a:a + n]
        ok[k] = h[0] == 1 and t[-1] == 1 and not h[1:].any() and not t[:-1].any()
    return ok


def delivery_problems(res: ModelResult, limit: int = 10) -> list[str]:
    """Every broken promise in the trace (at most ``limit``), as readable lines; ``[]`` when clean."""
    if res.broadcast:
        return broadcast_delivery_problems(res, limit)
    s = res.stimulus
    out: list[str] = []
    flits = res.tr_flit
    uniq, counts = np.unique(flits, return_counts=True)
    for f in uniq[counts > 1][:limit]:
        out.append(f"duplicated: {s.describe_flit(int(f))}")
    pk = s.packet[flits]
    wrong = np.nonzero(res.tr_node != s.pkt_dst[pk])[0]
    for j in wrong[:limit]:
        out.append(f"misdelivered at node {int(res.tr_node[j])} cycle {int(res.tr_cycle[j])}: "
                   f"{s.describe_flit(int(flits[j]))}")
    whole_packets_per_node(res, out, limit)
    if res.drained:
        good = well_formed_packets(s) & (s.pkt_dst < s.num_nodes)
        if not res.loopback:                     # dropped at the source (docs/router.md "Loopback")
            good &= s.pkt_dst != s.pkt_src
        lost = np.nonzero(good & ~np.isin(np.arange(s.num_packets), res.delivered))[0]
        for k in lost[:limit]:
            out.append(f"lost: {s.describe_packet(int(k))}")
    return out[:limit]


def whole_packets_per_node(res: ModelResult, out: list[str], limit: int = 10) -> None:
    """Append to ``out``: per node, the ejected flits must form whole packets, in flit order, one packet
    at a time (shared by unicast and broadcast traces)."""
    s, flits = res.stimulus, res.tr_flit
    for v in range(s.num_nodes):
        seq = flits[res.tr_node == v]
        j = 0
        while j < seq.shape[0] and len(out) < limit:
            k = int(s.packet[seq[j]])
            a, n = int(s.pkt_first[k]), int(s.pkt_len[k])
            if int(seq[j]) != a:
                out.append(f"node {v}: packet does not start with its first flit: {s.describe_flit(int(seq[j]))}")
                break
            got = seq[j:j + n]
            if got.shape[0] < n and not res.drained:
                break   # still in flight at the end of a fixed-length run
            if not np.array_equal(got, np.arange(a, a + n)):
                out.append(f"node {v}: {s.describe_packet(k)} interleaved, reordered or cut: "
                           f"flits {[int(x) - a for x in got]}")
                break
            j += n


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
