"""The model with virtual channels (docs/router.md, "Virtual channels (V > 1)"): metacube MC(1, 1) and
MC(1, 2) with the descent-count VCs of sim/routing/metacube.py (2 VCs), the PDN {0, 1, 3} with
Algorithm 2's hop-indexed VCs (2) and the hierarchical BH(2)/CCC(2) (3 VCs, sim/routing/level2.py). With V VCs saturating bursts drain and deliver every packet intact;
the same routing forced onto one VC (``vcs=False`` / ``hop_vcs=False`` / ``use_vcs=False``: every hop on VC 0) wedges
the model, and the deadlock checker finds the cycle it wedges on."""
from __future__ import annotations

import numpy as np
import pytest

from cubenoc.sim.deadlock import check_deadlock
from cubenoc.sim.model.check import delivery_problems
from cubenoc.sim.model.network import NetworkModel
from cubenoc.sim.model.stimulus import StimulusBuilder, random_traffic
from cubenoc.sim.routing.hierarchical import HierarchicalRouting
from cubenoc.sim.routing.metacube import MetacubeRouting
from cubenoc.sim.routing.pdn import AdaptivePDNRouting
from cubenoc.sim.topology.hierarchical import hierarchical_from_spec
from cubenoc.sim.topology.metacube import Metacube
from cubenoc.sim.topology.pdn import PerfectDifferenceNetwork
from cubenoc.sim.network_plan import plan_of

CASES = {
    "mc11": (lambda: Metacube(1, 1), lambda t, vcs: MetacubeRouting(t, vcs=vcs)),
    "mc11_skip": (lambda: Metacube(1, 1), lambda t, vcs: MetacubeRouting(t, shortest=True, vcs=vcs)),
    "mc12": (lambda: Metacube(1, 2), lambda t, vcs: MetacubeRouting(t, vcs=vcs)),
    "pdn7_adaptive": (lambda: PerfectDifferenceNetwork((0, 1, 3)), lambda t, vcs: AdaptivePDNRouting(t, hop_vcs=vcs)),
    "bh2_ccc2": (lambda: hierarchical_from_spec("bh:2", "ccc:2"), lambda t, vcs: HierarchicalRouting(t, use_vcs=vcs)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_vcs_drain_saturation_and_one_vc_wedges(case):
    make_topo, make_routing = CASES[case]
    topo = make_topo()
    with_vcs, one_vc = make_routing(topo, True), make_routing(topo, False)
    assert with_vcs.num_vcs >= 2 and one_vc.num_vcs == 1
    assert check_deadlock(with_vcs).cycle is None
    for seed in range(3):
        # saturating: every node injects back to back, packets of 1..8 flits, ejection always ready
        stim = random_traffic(topo.num_nodes, 40, 8, seed, mean_gap=0)
        good = NetworkModel(plan_of(topo, with_vcs)).run(stim, max_cycles=20_000)
        assert good.drained and not delivery_problems(good)
        assert good.counter("ejected").sum() == stim.num_packets
    wedged = 0
    for seed in range(3):
        stim = random_traffic(topo.num_nodes, 40, 8, seed, mean_gap=0)
        bad = NetworkModel(plan_of(topo, one_vc)).run(stim, max_cycles=20_000)
        wedged += not bad.drained
    if case.startswith("pdn"):
        # Algorithm 2's deterministic first choice (forward first) is Algorithm 1, acyclic on one VC:
        # the adaptive choices make the cycle, and the router takes only route()'s hop
        assert check_deadlock(one_vc).cycle is not None
    else:
        assert check_deadlock(one_vc).cycle is not None
        assert wedged == 3, "the one-VC routing should deadlock at saturation"


def test_vcs_random_backpressure_no_loss():
    topo = Metacube(1, 2)
    routing = MetacubeRouting(topo)
    stim = random_traffic(topo.num_nodes, 30, 6, 7, mean_gap=1, p_ready=0.5, ready_cycles=4000,
                          p_bad_dest=0.05)
    res = NetworkModel(plan_of(topo, routing)).run(stim)
    assert res.drained and not delivery_problems(res)
    assert res.counter("dropped").sum() > 0


@pytest.mark.parametrize("shortest", [False, True])
def test_vc_zero_load_latency_is_h_plus_1(shortest):
    topo = Metacube(1, 2)
    routing = MetacubeRouting(topo, shortest=shortest)
    n = topo.num_nodes
    b = StimulusBuilder(n)
    expect = {}
    for k, (s, d) in enumerate((s, d) for s in range(n) for d in range(n)):
        b.packet(s, d, 2, release=40 * k)        # one packet in the network at a time
        expect[k] = routing.hops(s, d) + 1
    res = NetworkModel(plan_of(topo, routing)).run(b.build())
    lat = res.head_latency()
    assert res.drained and len(lat) == n * n
    assert lat.tolist() == [expect[k] for k in range(n * n)]
    # the tail follows its head one cycle later
    s = res.stimulus
    assert np.all(res.eject_cycle[s.pkt_first + 1] - res.eject_cycle[s.pkt_first] == 1)



def test_lookahead_voq_on_the_vc_router():
    """Lookahead VOQ mode (sim/model/lookahead.py): Hop.vc = the next router's output port, so a VC
    FIFO holds flits for one output; still one cycle per hop, no loss under saturation."""
    from cubenoc.sim.model.lookahead import LookaheadVoqRouting
    from cubenoc.sim.routing.hypercube import EcubeRouting
    from cubenoc.sim.topology.hypercube import EnhancedHypercube
    topo = EnhancedHypercube(4, 0)
    base = EcubeRouting(topo)
    voq = LookaheadVoqRouting(base)
    assert voq.num_vcs == topo.num_ports(0) + 1 and check_deadlock(voq).cycle is None
    for s in range(topo.num_nodes):
        for d in range(topo.num_nodes):
            node, hdr = s, base.inject(s, d)
            while True:
                hop = voq.route(node, hdr)
                if hop.port == topo.local_port(node):
                    break
                far = topo.neighbor(node, hop.port)[0]
                assert hop.vc == base.route(far, hop.header).port
                node, hdr = far, hop.header
    n = topo.num_nodes
    b = StimulusBuilder(n)
    for k, (s, d) in enumerate((s, d) for s in range(n) for d in range(n)):
        b.packet(s, d, 2, release=20 * k)
    res = NetworkModel(plan_of(topo, voq)).run(b.build())
    assert res.head_latency().tolist() == [base.hops(s, d) + 1 for s in range(n) for d in range(n)]
    stim = random_traffic(n, 40, 8, 4, mean_gap=0, p_ready=0.6, ready_cycles=5000)
    res = NetworkModel(plan_of(topo, voq)).run(stim)
    assert res.drained and not delivery_problems(res)
