"""cocotb (Verilator) on the per-output-queue router (docs/router.md "Per-output queues (VOQ)",
``queues="voq"``): the Verilog's ejected trace equals the model's, flit for flit and cycle for cycle,
under random traffic with random ejection backpressure, saturating bursts, every pair, head-on
contention, bad input (dropped / malformed counters) and a saturating run in which every packet is
delivered.

* the enhanced 3-cube Q(3, 0) (P = 5: one FIFO per allowed turn, lookahead route on the link's ``vc``,
  one ready bit per downstream queue), in ``make test``;
* the PDN {0, 1, 3} with Algorithm 1 (P = 7, a node-generic route unit given the neighbours' addresses
  as constants by the lookahead units), ``slow`` (a bigger compile)."""
from __future__ import annotations

import numpy as np
import pytest

from cubenoc.sim.catalog import NetworkSpec
from cubenoc.sim.router_config import RouterConfig
from cubenoc.sim.model.network import NetworkModel
from cubenoc.tb.scenarios import network_scenarios, saturation_scenario
from cubenoc.tb.verify import verify_network


NETWORKS = {"enhanced_q30": "enhanced:n=3,k=0", "pdn7_013": "pdn:set=0,1,3"}
SLOW = {"pdn7_013"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in NETWORKS])
def test_voq_network_matches_model(name):
    topo, routing = NetworkSpec.parse(NETWORKS[name]).build()
    scenarios = network_scenarios(topo.num_nodes, seed=3)
    scenarios.append(saturation_scenario(topo.num_nodes))
    sat_stim = scenarios[-1][1]
    verdicts = verify_network(topo, scenarios, routing=routing, config=RouterConfig(queues="voq"))
    report = [f"{v.name}: {p}" for v in verdicts for p in v.problems]
    assert not report, "\n".join(report)
    by = {v.name: v for v in verdicts}
    for v in verdicts:
        assert v.model.drained and v.rtl.cycle.size > 0
    sat = by["saturation"]
    assert sat.rtl.counters[:, 1].sum() == sat_stim.num_packets          # every packet ejected
    bad = by["bad_input"]
    assert bad.rtl.counters[:, 2].sum() > 0 and bad.rtl.counters[:, 3].sum() > 0   # dropped, malformed
    # the compared router is not the single-FIFO one: on the saturating run its timing differs
    fifo = NetworkModel(topo, routing).run(sat_stim, cycles=int(sat.model.cycles))
    assert not np.array_equal(fifo.eject_cycle, sat.model.eject_cycle)
