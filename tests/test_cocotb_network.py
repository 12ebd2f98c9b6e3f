"""cocotb (Verilator) on whole generated networks: the Verilog's ejected trace equals the model's,
flit for flit and cycle for cycle, in every scenario of tb/scenarios.py (random traffic with random
lengths and backpressure, saturating bursts, every pair once, head-on contention, dropped and malformed
input). ``CUBENOC_WAVES=1`` writes a VCD; a failure names the packet, node and first diverging cycle."""
from __future__ import annotations

import numpy as np
import pytest

from cubenoc.sim.router_config import RouterConfig
from cubenoc.sim.topology.hypercube import EnhancedHypercube, Hypercube
from cubenoc.tb.scenarios import network_scenarios
from cubenoc.tb.verify import verify_network
from cubenoc.sim.network_plan import plan_of

NETWORKS = {
    "hypercube_n3": Hypercube(3),
    "enhanced_n4_k0": EnhancedHypercube(4, 0),
    "enhanced_n5_k1": EnhancedHypercube(5, 1),
}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n == "enhanced_n5_k1" else n
                                  for n in NETWORKS])          # (k >= 1 in make test: the Q(3,1) broadcast bench)
def test_network_matches_model(name):
    topo = NETWORKS[name]
    verdicts = verify_network(topo, network_scenarios(topo.num_nodes, seed=len(name)))
    report = [f"{v.name}: {p}" for v in verdicts for p in v.problems]
    assert not report, f"{topo!r}:\n" + "\n".join(report)
    by = {v.name: v for v in verdicts}
    # the scenarios did what they are for (so an empty comparison is not a vacuous pass)
    for v in verdicts:
        assert v.model.drained and v.rtl.cycle.size > 0
    bad = by["bad_input"]
    assert bad.rtl.counters[:, 2].sum() > 0 and bad.rtl.counters[:, 3].sum() > 0   # dropped, malformed
    assert bad.model.delivered.size > 0 and bad.rtl.cycle.max() > 20              # traffic after the drops
    burst = by["burst"]
    stim = burst.model.stimulus
    assert burst.rtl.counters[:, 1].sum() == stim.num_packets                       # every packet ejected
    ready = stim.eject_ready
    assert (ready == 0).any()
    head_on = by["head_on"].model
    at0 = head_on.tr_node == 0
    assert np.all(np.diff(head_on.tr_cycle[at0]) >= 1)


@pytest.mark.parametrize("depth,memory", [(2, True), (4, True), (4, "block")])
def test_network_with_fifos_in_memory_matches_model(depth, memory):
    """The FIFO storage as Amaranth Memory (``fifo_memory=True``: what ECP5 board builds and ``synth-report
    --fifo-memory`` synthesise to distributed RAM; the route and data bits in a ring read at a counter,
    rtl/router/fifo.py ``late``; ``"block"``: the ring read at the clock edge, as iCE40 block RAM): the same
    cycle-exact trace as the model in every scenario."""
    topo = Hypercube(3)
    verdicts = verify_network(topo, network_scenarios(topo.num_nodes, seed=depth), config=RouterConfig(fifo_depth=depth, fifo_memory=memory))
    report = [f"{v.name}: {p}" for v in verdicts for p in v.problems]
    assert not report, "\n".join(report)
    assert all(v.rtl.cycle.size > 0 for v in verdicts)


def test_network_without_counters_with_fifos_in_memory_matches_model():
    """``cubenoc generate --no-counters --fifo-memory``'s network (rtl/network_top.py ``counters=False``,
    ``fifo_memory=True``): the same cycle-exact trace as the model in every scenario, and every status
    output reads 0 (the scoreboard compares them with zeros, not with the model's counts)."""
    topo = Hypercube(3)
    verdicts = verify_network(topo, network_scenarios(topo.num_nodes, seed=5), config=RouterConfig(fifo_memory=True, counters=False))
    report = [f"{v.name}: {p}" for v in verdicts for p in v.problems]
    assert not report, "\n".join(report)
    assert all(v.rtl.cycle.size > 0 for v in verdicts)
    assert not any(v.rtl.counters.any() for v in verdicts)
    assert any(v.model.counters.any() for v in verdicts)       # the model did count: zeros are not vacuous


@pytest.mark.parametrize("spec,options", [("hypercube:n=3", {}), ("hypercube:n=3", {"pipeline": True}),
                                          ("hypercube:n=3", {"arbitration": "fair"}), ("metacube:k=1,m=1", {})],
                         ids=["one_cycle", "pipelined", "fair", "mc11"])
def test_network_without_loopback_matches_model(spec, options):
    """cocotb: the generated Q(3) without loopback (one cycle per hop, pipelined, with the fair arbiter) and
    MC(1, 1) (V = 2) eject the model's trace, cycle for cycle, in every scenario; the self-addressed packets
    are dropped at their source in each."""
    from cubenoc.sim.catalog import NetworkSpec
    topo, routing = NetworkSpec.parse(spec).build("rtl")
    verdicts = verify_network(topo, network_scenarios(topo.num_nodes, seed=3), routing=routing,
                              config=RouterConfig(loopback=False, **options))
    report = [f"{v.name}: {p}" for v in verdicts for p in v.problems]
    assert not report, "\n".join(report)
    by = {v.name: v for v in verdicts}
    stim = by["random"].model.stimulus
    mine = np.bincount(stim.pkt_src[stim.pkt_dst == stim.pkt_src], minlength=topo.num_nodes)
    assert mine.sum() > 0 and (by["random"].rtl.counters[:, 2] >= mine).all()
    assert by["random"].rtl.counters[:, 2].sum() == mine.sum()     # no bad destinations in "random"
    at_home = by["all_pairs"].rtl
    assert at_home.counters[:, 2].tolist() == [1] * topo.num_nodes   # all_pairs sends one to itself


def test_scoreboard_catches_a_wrong_model_on_real_verilog():
    """The same Verilog run compared with a model of the wrong FIFO depth: the scoreboard must object
    and name the cycle, node and packet of the first divergence."""
    from cubenoc.sim.model.network import NetworkModel
    from cubenoc.tb.runner import build_network, run_scenarios
    from cubenoc.sim.model.stimulus import random_traffic
    from cubenoc.tb.scoreboard import compare

    topo = Hypercube(3)
    stim = random_traffic(8, 10, 6, seed=11, mean_gap=0, p_ready=0.6, ready_cycles=1000)
    cycles = NetworkModel(plan_of(topo)).run(stim).cycles + 8
    rtl = run_scenarios(build_network(plan_of(topo)), [("burst", stim, cycles)])["burst"]
    assert compare(NetworkModel(plan_of(topo)).run(stim, cycles=cycles), rtl) == []
    out = compare(NetworkModel(plan_of(topo, None, RouterConfig(fifo_depth=2))).run(stim, cycles=cycles), rtl)
    assert out and out[0].startswith("first divergence at cycle ")
    assert " seq " in out[0] and "packet " in out[0]
