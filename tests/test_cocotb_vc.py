"""cocotb (Verilator) on networks whose routing needs virtual channels (docs/router.md, "Virtual
channels (V > 1)"): the V = 2 Verilog's ejected trace equals the model's, flit for flit and cycle for
cycle, under random traffic with random ejection backpressure, saturating bursts, every pair, head-on
contention and bad input; plus a long saturating run in which every packet is delivered (the same
routing on one VC deadlocks in the model: tests/test_model_vc.py)."""
from __future__ import annotations

from cubenoc.sim.model.stimulus import random_traffic
from cubenoc.sim.routing.metacube import MetacubeRouting
from cubenoc.sim.topology.metacube import Metacube
from cubenoc.tb.scenarios import network_scenarios
from cubenoc.tb.verify import verify_network


def test_metacube_mc11_two_vcs_matches_model():
    topo = Metacube(1, 1)
    routing = MetacubeRouting(topo)
    assert routing.num_vcs == 2
    scenarios = network_scenarios(topo.num_nodes, seed=5)
    # long run at saturation: back to back, 1..8-flit packets, ejection ready 70 %
    scenarios.append(("saturation", random_traffic(topo.num_nodes, 150, 8, 99, mean_gap=0, p_ready=0.7,
                                                   ready_cycles=20_000)))
    verdicts = verify_network(topo, scenarios, routing=routing)
    report = [f"{v.name}: {p}" for v in verdicts for p in v.problems]
    assert not report, "\n".join(report)
    for v in verdicts:
        assert v.model.drained and v.rtl.cycle.size > 0
    sat = {v.name: v for v in verdicts}["saturation"]
    stim = sat.model.stimulus
    assert sat.rtl.counters[:, 1].sum() == stim.num_packets     # every packet ejected, no deadlock
