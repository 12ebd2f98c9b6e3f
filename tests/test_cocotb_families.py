"""cocotb (Verilator) on the other families' generated networks: PDN (Algorithm 1 on basic and 0-free
sets, dimension order on the 7x7 2-D PDN) and hierarchical BH/BH, BH/CC. The Verilog's ejected trace
must equal the model's, flit for flit and cycle for cycle (tb/verify.py), under saturating random
traffic with random ejection backpressure; every packet is delivered (no deadlock at saturation).
The families that need virtual channels (metacube, BH/BR, BH/CCC, PDNs with degenerate chords,
Algorithm 2) must be refused by `cubenoc generate` with one clear line until the router has VCs."""
from __future__ import annotations

import pytest

from cubenoc.errors import CubenocError
from cubenoc.sim.model.stimulus import random_traffic
from cubenoc.sim.routing.hierarchical import HierarchicalRouting
from cubenoc.sim.routing.pdn import DimensionOrderPDNRouting, ObliviousPDNRouting
from cubenoc.sim.topology.hierarchical import hierarchical_from_spec
from cubenoc.sim.topology.pdn import PerfectDifferenceNetwork, ProductPDN, registry_set
from cubenoc.tb.scenarios import network_scenarios
from cubenoc.tb.verify import verify_network


def _pdn(spec):
    t = PerfectDifferenceNetwork(spec)
    return t, ObliviousPDNRouting(t)


def _dor(orders):
    t = ProductPDN(orders)
    return t, DimensionOrderPDNRouting(t)


def _hin(l1, l2):
    t = hierarchical_from_spec(l1, l2)
    return t, HierarchicalRouting(t)


#: name -> (builder, full scenario set?) ; the full set adds all_pairs, head_on and bad_input
NETWORKS = {
    "pdn7_013": (lambda: _pdn("0,1,3"), True),
    "pdn7_zero_free_124": (lambda: _pdn("1,2,4"), True),
    "pdn13_0139": (lambda: _pdn("0,1,3,9"), True),
    "pdn21": (lambda: _pdn(registry_set(4)), False),
    "pdn31": (lambda: _pdn(registry_set(5)), False),
    "pdn7x7_dor": (lambda: _dor([2, 2]), False),
    "hin_bh3_bh2": (lambda: _hin("bh:3", "bh:2"), True),
    "hin_bh2_cc4": (lambda: _hin("bh:2", "cc:4"), True),
}
SLOW = {"pdn31", "pdn7x7_dor"}


def saturating(num_nodes: int, seed: int, packets: int = 10):
    """Back-to-back random packets (1..6 flits, self included) with the ejection ready 55 % of cycles."""
    return [("saturate", random_traffic(num_nodes, packets, 6, seed, mean_gap=0, p_ready=0.55,
                                        ready_cycles=4000))]


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in NETWORKS])
def test_family_network_matches_model(name):
    build, full = NETWORKS[name]
    topo, routing = build()
    assert routing.num_vcs == 1
    scenarios = saturating(topo.num_nodes, seed=len(name))
    if full:
        scenarios += [s for s in network_scenarios(topo.num_nodes, seed=3 * len(name)) if s[0] != "random"]
    verdicts = verify_network(topo, scenarios, routing=routing)
    report = [f"{v.name}: {p}" for v in verdicts for p in v.problems]
    assert not report, f"{topo!r}:\n" + "\n".join(report)
    sat = verdicts[0]
    stim = sat.model.stimulus
    assert sat.model.drained
    assert sat.rtl.counters[:, 1].sum() == stim.num_packets          # every packet ejected: no deadlock
    assert (stim.eject_ready == 0).any()                               # there was backpressure
    # saturation: on average more than one flit in flight per node at some point (the network was full)
    assert sat.rtl.cycle.size >= 3 * topo.num_nodes


def test_pdn_router_is_one_module():
    """Algorithm 1 is node-generic: one chord-switch module serves all 13 nodes."""
    from cubenoc.rtl.network import Network
    topo, routing = _pdn("0,1,3,9")
    net = Network(topo, routing)
    for r in net.routers:
        r._MustUse__silence = True
    assert len(set(net.module_names)) == 1


@pytest.mark.parametrize("argv,needs", [
    (["metacube", "--k", "1", "--m", "2"], 2),
    (["pdn", "--set", "3,4,6"], 2),                       # degenerate chords: +3 == -4 mod 7
    (["pdn", "--set", "0,1,3", "--routing", "adaptive"], 2),
    (["hin", "--level1", "bh:3", "--level2", "ccc:2"], 3),
    (["hin", "--level1", "bh:3", "--level2", "br:4"], 2),
])
def test_generate_refuses_vc_families_clearly(argv, needs, tmp_path):
    from cubenoc.generate import FAMILIES, add_arguments, check_buildable
    import argparse
    from cubenoc.rtl.router import Router
    p = argparse.ArgumentParser()
    add_arguments(p)
    args = p.parse_args(argv + ["-o", str(tmp_path)])
    topo, routing = FAMILIES[args.family](args)
    assert routing.num_vcs == needs
    try:                                    # the router core decides, not a list in generate.py
        Router(topo, routing, 0)._MustUse__silence = True
    except CubenocError:
        with pytest.raises(CubenocError, match=f"needs {needs} virtual channels") as exc:
            check_buildable(topo, routing)
        assert "\n" not in str(exc.value)
    else:                                   # the VC router has landed: generate must just work
        check_buildable(topo, routing)
