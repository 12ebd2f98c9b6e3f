"""cocotb (Verilator) on whole generated networks: the Verilog's ejected trace equals the model's,
flit for flit and cycle for cycle, in every scenario of tb/scenarios.py (random traffic with random
lengths and backpressure, saturating bursts, every pair once, head-on contention, dropped and malformed
input). ``CUBENOC_WAVES=1`` writes a VCD; a failure names the packet, node and first diverging cycle."""
from __future__ import annotations

import numpy as np
import pytest

from cubenoc.sim.topology.hypercube import EnhancedHypercube, Hypercube
from cubenoc.tb.scenarios import network_scenarios
from cubenoc.tb.verify import verify_network

NETWORKS = {
    "hypercube_n3": Hypercube(3),
    "enhanced_n4_k0": EnhancedHypercube(4, 0),
    "enhanced_n5_k1": EnhancedHypercube(5, 1),
}


@pytest.mark.parametrize("name", list(NETWORKS))
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
