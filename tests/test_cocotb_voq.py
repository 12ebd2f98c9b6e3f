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

from cubenoc.sim.router_config import RouterConfig
from cubenoc.sim.model.network import NetworkModel
from network_checks import check_network_option
from cubenoc.sim.network_plan import plan_of


NETWORKS = {"enhanced_q30": "enhanced:n=3,k=0", "pdn7_013": "pdn:set=0,1,3"}
SLOW = {"pdn7_013"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in NETWORKS])
def test_voq_network_matches_model(name):
    topo, routing, sat = check_network_option(NETWORKS[name], RouterConfig(queues="voq"), seed=3)
    sat_stim = sat.model.stimulus
    # the compared router is not the single-FIFO one: on the saturating run its timing differs
    fifo = NetworkModel(plan_of(topo, routing)).run(sat_stim, cycles=int(sat.model.cycles))
    assert not np.array_equal(fifo.eject_cycle, sat.model.eject_cycle)
