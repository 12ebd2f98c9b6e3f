"""cocotb (Verilator) on networks whose routing needs virtual channels (docs/router.md, "Virtual
channels (V > 1)"): the V = 2 Verilog's ejected trace equals the model's, flit for flit and cycle for
cycle, under random traffic with random ejection backpressure, saturating bursts, every pair, head-on
contention and bad input; plus a long saturating run in which every packet is delivered (the same
routing on one VC deadlocks in the model: tests/test_model_vc.py).

* metacube MC(1, 1), the class path's descent-count VCs (P = 3, V = 2; the one-VC version wedges);
* the PDN {0, 1, 3} with Algorithm 2's hop-indexed VCs (P = 5, V = 2)."""
from __future__ import annotations

import pytest

from cubenoc.sim.model.stimulus import random_traffic
from cubenoc.sim.routing.metacube import MetacubeRouting
from cubenoc.sim.routing.pdn import AdaptivePDNRouting
from cubenoc.sim.topology.metacube import Metacube
from cubenoc.sim.topology.pdn import PerfectDifferenceNetwork
from cubenoc.tb.scenarios import network_scenarios
from cubenoc.tb.verify import verify_network


def _mc11():
    t = Metacube(1, 1)
    return t, MetacubeRouting(t)


def _pdn7():
    t = PerfectDifferenceNetwork((0, 1, 3))
    return t, AdaptivePDNRouting(t)


NETWORKS = {"metacube_mc11": _mc11, "pdn7_adaptive": _pdn7}


@pytest.mark.parametrize("name", list(NETWORKS))
def test_vc_network_matches_model(name):
    topo, routing = NETWORKS[name]()
    assert routing.num_vcs == 2
    scenarios = network_scenarios(topo.num_nodes, seed=5 + len(name))
    # long run at saturation: back to back, 1..8-flit packets, ejection ready 70 %
    scenarios.append(("saturation", random_traffic(topo.num_nodes, 150, 8, 99, mean_gap=0, p_ready=0.7,
                                                   ready_cycles=20_000)))
    verdicts = verify_network(topo, scenarios, routing=routing)
    report = [f"{v.name}: {p}" for v in verdicts for p in v.problems]
    assert not report, "\n".join(report)
    for v in verdicts:
        assert v.model.drained and v.rtl.cycle.size > 0
    by = {v.name: v for v in verdicts}
    sat = by["saturation"]
    assert sat.rtl.counters[:, 1].sum() == sat.model.stimulus.num_packets     # every packet ejected
    bad = by["bad_input"]
    assert bad.rtl.counters[:, 2].sum() > 0 and bad.rtl.counters[:, 3].sum() > 0   # dropped, malformed
