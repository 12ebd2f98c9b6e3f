"""cocotb (Verilator) on the pipelined router (docs/router.md "Pipelined router", ``pipeline=True``): the
Verilog's ejected trace equals the model's (sim/model/pipeline.py), flit for flit and cycle for cycle,
under random traffic with random ejection backpressure at ``local_out``, saturating bursts, every pair,
head-on contention, bad input (dropped / malformed counters) and a saturating run in which every packet
is delivered; the bench checks the stream rule (a valid offer holds until taken) on every link and
``local_out``.

* the 3-cube Q(3) with e-cube routing (P = 4), in ``make test``;
* the PDN {0, 1, 3} with Algorithm 1 (P = 7, a node-generic route unit), ``slow`` (a bigger compile)."""
from __future__ import annotations

import numpy as np
import pytest

from cubenoc.sim.router_config import RouterConfig
from cubenoc.sim.model.network import NetworkModel
from network_checks import check_network_option
from cubenoc.sim.network_plan import plan_of


NETWORKS = {"q3": "hypercube:n=3", "pdn7_013": "pdn:set=0,1,3"}
SLOW = {"pdn7_013"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in NETWORKS])
def test_pipelined_network_matches_model(name):
    topo, routing, sat = check_network_option(NETWORKS[name], RouterConfig(pipeline=True), seed=5)
    sat_stim = sat.model.stimulus
    # the compared router is not the one-stage one: every flit of the saturating run is later or as late
    one = NetworkModel(plan_of(topo, routing)).run(sat_stim, cycles=int(sat.model.cycles))
    assert not np.array_equal(one.eject_cycle, sat.model.eject_cycle)
