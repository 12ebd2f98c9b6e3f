"""The scoreboard itself: a Verilog trace that differs from the model's is caught and explained."""
from __future__ import annotations

import numpy as np

from cubenoc.sim.model.network import NetworkModel
from cubenoc.sim.model.stimulus import random_traffic
from cubenoc.sim.topology.hypercube import Hypercube
from cubenoc.tb.runner import RtlTrace
from cubenoc.tb.scoreboard import compare
from cubenoc.sim.network_plan import plan_of


def _run():
    stim = random_traffic(8, 10, 3, seed=3, mean_gap=2, p_ready=0.7, ready_cycles=500)
    res = NetworkModel(plan_of(Hypercube(3))).run(stim)
    accepted = np.diff(stim.node_start)
    rtl = RtlTrace(res.tr_cycle.copy(), res.tr_node.copy(), res.tr_head.copy(), res.tr_tail.copy(),
                   res.tr_data.copy(), res.counters & 0xFFFF, accepted, res.cycles)
    return res, rtl


def test_identical_traces_pass():
    res, rtl = _run()
    assert compare(res, rtl) == []


def test_corrupted_flit_names_packet_node_and_cycle():
    res, rtl = _run()
    j = 17
    rtl.data[j] ^= np.uint64(1 << 20)
    out = compare(res, rtl)
    f = int(res.tr_flit[j])
    k = int(res.stimulus.packet[f])
    assert out[0].startswith(f"first divergence at cycle {int(res.tr_cycle[j])}, node {int(res.tr_node[j])}")
    assert f"packet {int(res.stimulus.pkt_src[k])}->{int(res.stimulus.pkt_dst[k])} seq " in out[0]
    assert "never injected (corrupted)" in out[0]


def test_late_and_missing_flits_and_counters():
    res, rtl = _run()
    rtl.cycle[5:] += 1                           # the Verilog is one cycle late from entry 5 on
    out = compare(res, rtl)
    assert f"cycle {int(res.tr_cycle[5])}" in out[0] and "the Verilog ejects nothing there" in out[0]
    res, rtl = _run()
    keep = np.arange(rtl.cycle.size) != 9        # a lost flit
    lost = RtlTrace(rtl.cycle[keep], rtl.node[keep], rtl.head[keep], rtl.tail[keep], rtl.data[keep],
                    rtl.counters.copy(), rtl.accepted, rtl.cycles)
    lost.counters[2, 2] += 1
    out = compare(res, lost)
    assert "the Verilog ejects nothing there" in out[0] or "the Verilog ejects (" in out[0]
    assert any("node 2: counter dropped is 1 in the Verilog, 0 in the model" in line for line in out)
