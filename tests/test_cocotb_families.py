# amaranth: UnusedElaboratable=no
"""cocotb (Verilator) on the other families' generated networks: PDN (Algorithm 1 on basic and 0-free
sets, degenerate chords on the hop VC, dimension order on the 7x7 2-D PDN), hierarchical BH/BH, BH/CC,
BH/BR (V = 2), BH/CCC (V = 3), three-level BH/BH/BH and BH/BR/BH (V = 4) and metacube MC(1,2), MC(2,1) (V = 2; MC(1,1) is tests/test_cocotb_vc.py).
The Verilog's ejected trace must equal the model's, flit for flit and cycle for cycle (tb/verify.py),
under saturating random traffic with random ejection backpressure; every packet is delivered (no
deadlock at saturation). `cubenoc generate` must build what the router core accepts and refuse the
rest in one line (the router core decides, at run time)."""
from __future__ import annotations

import pytest

from cubenoc.sim.model.stimulus import random_traffic
from cubenoc.sim.routing.hierarchical import HierarchicalRouting
from cubenoc.sim.routing.metacube import MetacubeRouting
from cubenoc.sim.routing.pdn import DimensionOrderPDNRouting, ObliviousPDNRouting
from cubenoc.sim.topology.hierarchical import hierarchical_from_spec
from cubenoc.sim.topology.metacube import Metacube
from cubenoc.sim.topology.pdn import PerfectDifferenceNetwork, ProductPDN, registry_set
from cubenoc.tb.scenarios import network_scenarios
from cubenoc.tb.verify import verify_network
from cubenoc.sim.network_plan import plan_of


def _pdn(spec):
    t = PerfectDifferenceNetwork(spec)
    return t, ObliviousPDNRouting(t)


def _dor(orders):
    t = ProductPDN(orders)
    return t, DimensionOrderPDNRouting(t)


def _hin(*levels, lanes=1):
    t = hierarchical_from_spec(*levels, replication=lanes)
    return t, HierarchicalRouting(t)


def _mc(k, m):
    t = Metacube(k, m)
    return t, MetacubeRouting(t)


#: name -> (builder, full scenario set?) ; the full set adds all_pairs, head_on and bad_input
NETWORKS = {
    "pdn7_013": (lambda: _pdn("0,1,3"), True),
    "pdn13_0139": (lambda: _pdn("0,1,3,9"), False),
    "pdn7_degenerate_346": (lambda: _pdn("3,4,6"), False),          # 0-free, +3 == -4: two unconnected ports, V = 2
    "hin_bh2_cc4": (lambda: _hin("bh:2", "cc:4"), True),
    "hin_bh3_bh2": (lambda: _hin("bh:3", "bh:2"), False),           # BH/BH, D = 5, d = 3
    "hin_bh2_br4": (lambda: _hin("bh:2", "br:4"), False),           # V = 2 (ring dateline)
    "hin_bh1_ccc2": (lambda: _hin("bh:1", "ccc:2"), False),         # V = 3 (CCC sweep)
    "hin_bh1_ccc2_8lanes": (lambda: _hin("bh:1", "ccc:2", lanes=8), False),   # 26 ports x 3 VCs: two request words (slow)
    "hin_bh2_bh1_bh2": (lambda: _hin("bh:2", "bh:1", "bh:2"), True),    # three levels, 32 nodes: interface routers of levels 2 and 3
    "hin_bh1_br3_bh1": (lambda: _hin("bh:1", "br:3", "bh:1"), False),   # 12 nodes, V = 4: BR below the top, up hops on VCs 2-3
    "mc12": (lambda: _mc(1, 2), False),                             # 32 nodes, V = 2
    # slow: bigger compiles
    "pdn7_zero_free_124": (lambda: _pdn("1,2,4"), True),
    "pdn21": (lambda: _pdn(registry_set(4)), False),
    "pdn31": (lambda: _pdn(registry_set(5)), False),
    "pdn7x7_dor": (lambda: _dor([2, 2]), False),
    "hin_bh2_ccc2": (lambda: _hin("bh:2", "ccc:2"), False),         # 32 nodes, V = 3: BH/BH D=5's size
    "hin_bh3_ccc2": (lambda: _hin("bh:3", "ccc:2"), False),         # 64 nodes, V = 3
    "hin_bh3_br4": (lambda: _hin("bh:3", "br:4"), False),           # 32 nodes, V = 2
    "mc21": (lambda: _mc(2, 1), False),                             # 64 nodes, V = 2
    "hin_bh2_bh2_bh2": (lambda: _hin("bh:2", "bh:2", "bh:2"), False),   # three levels, 64 nodes: the page's example
}
SLOW = {"hin_bh1_ccc2_8lanes", "pdn7_zero_free_124", "pdn21", "pdn31", "pdn7x7_dor", "hin_bh2_ccc2", "hin_bh3_ccc2", "hin_bh3_br4", "mc21", "hin_bh2_bh2_bh2",
        "hin_bh3_bh2", "mc12", "pdn7_degenerate_346"}   # (BH levels: the three-level BH(2)/BH(1)/BH(2); metacube VCs:
#                                                           MC(1,1) in tests/test_cocotb_vc.py; the degenerate PDN's model)


def saturating(num_nodes: int, seed: int, packets: int = 10):
    """Back-to-back random packets (1..6 flits, self included) with the ejection ready 55 % of cycles."""
    return [("saturate", random_traffic(num_nodes, packets, 6, seed, mean_gap=0, p_ready=0.55,
                                        ready_cycles=4000))]


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in NETWORKS])
def test_family_network_matches_model(name):
    build, full = NETWORKS[name]
    topo, routing = build()
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


def test_degenerate_pdn_model_drains_at_saturation():
    """{3,4,6} mod 7 (+3 == -4, +4 == -3: two unconnected ports) with the hop VC: saturating traffic
    with backpressure is delivered completely, nothing lost, duplicated or interleaved (model)."""
    from cubenoc.sim.model.check import delivery_problems
    from cubenoc.sim.model.network import NetworkModel
    topo, routing = _pdn("3,4,6")
    assert routing.num_vcs == 2 and sum(topo.port_connected) == 4
    stim = saturating(topo.num_nodes, seed=7, packets=60)[0][1]
    res = NetworkModel(plan_of(topo, routing)).run(stim)
    assert res.drained and not delivery_problems(res)
    assert res.counters[:, 1].sum() == stim.num_packets


def test_pdn_router_is_one_module():
    """Algorithm 1 is node-generic: one chord-switch module serves all 13 nodes."""
    from cubenoc.rtl.network_top import Network
    topo, routing = _pdn("0,1,3,9")
    net = Network(plan_of(topo, routing))
    assert len(set(net.module_names)) == 1


@pytest.mark.parametrize("argv,needs", [
    (["metacube", "--k", "1", "--m", "2"], 2),
    (["pdn", "--set", "3,4,6"], 2),                       # degenerate chords: +3 == -4 mod 7
    (["pdn", "--set", "0,1,3", "--routing", "adaptive"], 2),
    (["hin", "--level1", "bh:3", "--level2", "ccc:2"], 3),
    (["hin", "--level1", "bh:3", "--level2", "br:4"], 2),
])
def test_generate_builds_vc_families_and_refuses_one_vc_options(argv, needs, tmp_path, capsys):
    """The VC families get routers with the VCs their routing needs for deadlock freedom; an option built
    for one VC only (the pipelined router) is refused by ``generate`` in one line naming the VCs."""
    from cubenoc.generate import add_arguments, network_spec
    from cubenoc.cli import main
    import argparse
    from cubenoc.rtl.network_top import Network
    p = argparse.ArgumentParser()
    add_arguments(p)
    topo, routing = network_spec(p.parse_args(argv + ["-o", str(tmp_path)])).build()
    assert routing.num_vcs == needs
    net = Network(plan_of(topo, routing))
    assert {r.num_vcs for r in net.routers} == {needs}
    assert all(r.flit_layout["vc"].width == (needs - 1).bit_length() for r in net.routers)   # the VC seam
    assert main(["generate", *argv, "--pipeline", "-o", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and f"has {needs} VCs" in err
