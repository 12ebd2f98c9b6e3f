"""cocotb (Verilator) on the adaptive / fault-aware router (docs/router.md, "Adaptive selection and
run-time faults"): the Verilog's ejected trace, counters and ``discarded`` counters equal the model's,
cycle for cycle, under random and saturating traffic with ejection backpressure, while link and node
faults appear and clear at run time (driven on the top's ``link_fault``/``node_fault``); every packet is
delivered whole or counted as discarded.

* PDN {0, 1, 3}, Algorithm 2 with availability selection (hop-indexed VCs, V = 2) -- fast;
* BH(2)/BH(1) with the Sec. IV-B least-used selection (V = 1) -- fast;
* PDN {0, 1, 3, 9}, Algorithm 2, a long saturating run with faults -- slow.
"""
from __future__ import annotations

import pytest

from cubenoc.sim.model.faults import FaultSchedule, random_fault_schedule
from cubenoc.sim.model.stimulus import random_traffic
from cubenoc.sim.routing.hierarchical import BalancedHierarchicalRouting
from cubenoc.sim.routing.pdn import AdaptivePDNRouting
from cubenoc.sim.topology.hierarchical import hierarchical_from_spec
from cubenoc.sim.topology.pdn import PerfectDifferenceNetwork
from cubenoc.tb.scenarios import network_scenarios
from cubenoc.tb.verify_adaptive import verify_adaptive


def _scenarios(topo, seed: int, packets: int = 60):
    n = topo.num_nodes
    sat = random_traffic(n, packets, 6, seed, mean_gap=0, p_ready=0.7, ready_cycles=20_000)
    out = [(name, stim, None) for name, stim in network_scenarios(n, seed=seed)]
    out.append(("saturation", sat, None))
    out.append(("link_faults", sat, random_fault_schedule(topo, 600, 4, seed + 1, p_link=0.2)))
    out.append(("node_faults", sat, random_fault_schedule(topo, 600, 3, seed + 2, p_link=0.05, p_node=0.15)))
    # a fault that appears in the middle of packets and clears again
    out.append(("flap", random_traffic(n, 40, 8, seed + 3, mean_gap=1, p_ready=0.8, ready_cycles=20_000),
                FaultSchedule(n).at(37, {0: range(topo.num_ports(0))}).at(90, {}).at(91, {1: [0]}, [n - 1])
                .at(300, {})))
    return out


def _check(verdicts):
    report = [f"{v.name}: {p}" for v in verdicts for p in v.problems]
    assert not report, "\n".join(report)
    by = {v.name: v for v in verdicts}
    for v in verdicts:
        assert v.model.drained and v.rtl.cycle.size > 0
    assert by["saturation"].rtl.counters[:, 1].sum() == by["saturation"].model.stimulus.num_packets
    assert by["saturation"].rtl.discarded.sum() == 0
    for name in ("link_faults", "node_faults", "flap"):
        v = by[name]
        assert v.rtl.discarded.sum() > 0, name                       # faults did bite
        assert v.rtl.counters[:, 1].sum() + v.rtl.discarded.sum() == v.rtl.counters[:, 0].sum()


def test_pdn7_availability_with_runtime_faults():
    topo = PerfectDifferenceNetwork((0, 1, 3))
    routing = AdaptivePDNRouting(topo, selection="availability")
    assert routing.num_vcs == 2
    _check(verify_adaptive(topo, routing, _scenarios(topo, 3)))


def test_hin_least_used_with_runtime_faults():
    topo = hierarchical_from_spec("bh:2", "bh:1")
    routing = BalancedHierarchicalRouting(topo, selection="least_used")
    assert routing.num_vcs == 1
    _check(verify_adaptive(topo, routing, _scenarios(topo, 5)))


@pytest.mark.slow
def test_pdn13_availability_long_saturation_with_faults():
    topo = PerfectDifferenceNetwork((0, 1, 3, 9))
    routing = AdaptivePDNRouting(topo, selection="availability")
    sat = random_traffic(13, 250, 8, 21, mean_gap=0, p_ready=0.7, ready_cycles=50_000)
    scen = _scenarios(topo, 9, packets=120) + [
        ("long", sat, None),
        ("long_faults", sat, random_fault_schedule(topo, 4000, 8, 22, p_link=0.15, p_node=0.05))]
    _check(verify_adaptive(topo, routing, scen))
