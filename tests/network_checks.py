"""Shared checks of the cocotb network tests: a router option's network against the model on the standard
scenarios plus a saturating run (tb/scenarios.py)."""
from __future__ import annotations

from cubenoc.sim.catalog import NetworkSpec
from cubenoc.tb.scenarios import network_scenarios, saturation_scenario
from cubenoc.tb.verify import verify_network


def check_network_option(spec: str, config, seed: int):
    """Verilog == model on every scenario; every run drains and ejects; the saturating run delivers every
    packet; bad input is dropped and counted. Returns (topology, routing, the saturation verdict)."""
    topo, routing = NetworkSpec.parse(spec).build()
    scenarios = network_scenarios(topo.num_nodes, seed=seed) + [saturation_scenario(topo.num_nodes)]
    verdicts = verify_network(topo, scenarios, routing=routing, config=config)
    report = [f"{v.name}: {p}" for v in verdicts for p in v.problems]
    assert not report, "\n".join(report)
    by = {v.name: v for v in verdicts}
    for v in verdicts:
        assert v.model.drained and v.rtl.cycle.size > 0
    sat = by["saturation"]
    assert sat.rtl.counters[:, 1].sum() == sat.model.stimulus.num_packets          # every packet ejected
    bad = by["bad_input"]
    assert bad.rtl.counters[:, 2].sum() > 0 and bad.rtl.counters[:, 3].sum() > 0   # dropped, malformed
    return topo, routing, sat
