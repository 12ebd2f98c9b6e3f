"""The model of the adaptive / fault-aware router (docs/router.md, "Adaptive selection and run-time
faults"): availability selection (Parhami and Rakov Algorithm 2) takes the free candidate, least-used selection
(Dandamudi and Eager Sec. IV-B) alternates between equally used links, faults discard unroutable packets whole and
never wedge the network, a faulty node refuses injection, routers without a selection are unchanged,
and the deadlock checker clears the candidate set with its VCs."""
from __future__ import annotations

import numpy as np
import pytest

from cubenoc.errors import CubenocError
from cubenoc.sim.deadlock import check_deadlock
from cubenoc.sim.model.adaptive import AdaptiveSimulation
from cubenoc.sim.model.check import delivery_problems
from cubenoc.sim.model.faults import FaultSchedule, random_fault_schedule
from cubenoc.sim.model.network import NetworkModel, Simulation
from cubenoc.sim.model.stimulus import StimulusBuilder, random_traffic
from cubenoc.sim.routing.hierarchical import BalancedHierarchicalRouting
from cubenoc.sim.routing.pdn import AdaptivePDNRouting, two_hop_pair
from cubenoc.sim.topology.hierarchical import hierarchical_from_spec
from cubenoc.sim.topology.pdn import PerfectDifferenceNetwork
from cubenoc.tb.verify_adaptive import accounting_problems
from cubenoc.sim.network_plan import plan_of


def test_selection_is_opt_in_and_checked():
    t = PerfectDifferenceNetwork((0, 1, 3))
    stim = random_traffic(7, 2, 2, 0)
    assert type(NetworkModel(plan_of(t, AdaptivePDNRouting(t))).start(stim)) is Simulation
    assert isinstance(NetworkModel(plan_of(t, AdaptivePDNRouting(t, selection="availability"))).start(stim), AdaptiveSimulation)
    with pytest.raises(CubenocError, match="selection must be"):
        AdaptivePDNRouting(t, selection="random")


def _channels(t, routing, src, dst):
    """The (node, port) channels the preferred route takes."""
    nodes = routing.path(src, dst)
    return [(u, next(p for p in range(t.num_ports(u)) if t.neighbor(u, p)[0] == w)) for u, w in zip(nodes, nodes[1:])]


def _pdn_blocked_forward(selection):
    """A 20-flit packet that stalls (its destination does not eject) holds node 0's forward chord
    +s_i; then node 0 sends a 1-flit packet to d = s_i - s_j (forward-first is the preferred order)."""
    t = PerfectDifferenceNetwork((0, 1, 3))
    pref = AdaptivePDNRouting(t)
    for d in (d for d in range(1, 7) if d not in t.offset_port):
        si, sj = two_hop_pair(t, d)
        fwd, back = t.offset_port[si % 7], t.offset_port[-sj % 7]
        alt = [(0, back), ((0 - sj) % 7, t.offset_port[si % 7])]
        for z in range(1, 7):
            for dst in range(7):
                if dst in (0, d, z):
                    continue
                ch = _channels(t, pref, z, dst)
                if (0, fwd) in ch and not set(ch) & set(alt):
                    b = StimulusBuilder(7, seed=1)
                    b.packet(z, dst, 20, release=0)
                    k = b.packet(0, d, 1, release=8)
                    ready = np.ones((60, 7), dtype=np.uint8)
                    ready[:, dst] = 0
                    res = NetworkModel(plan_of(t, AdaptivePDNRouting(t, selection=selection))).run(b.build(ready))
                    assert res.drained and not delivery_problems(res)
                    return int(res.head_latency(np.array([k]))[0])
    raise AssertionError("no blocking scenario found")


def test_least_used_alternates_between_equal_links():
    topo = hierarchical_from_spec("bh:3", "bh:1")          # 2 clusters of BH(3); node 3 = x 011
    b = StimulusBuilder(topo.num_nodes, seed=2)
    for j in range(4):
        b.packet(3, 8, 1, release=10 * j)                  # towards the interface: clear bit 1 or bit 0
    stim = b.build()
    uses = {}
    for sel in ("least_used", None):
        routing = BalancedHierarchicalRouting(topo, selection=sel)
        assert [h.port for h in routing.candidates(3, routing.inject(3, 8))] == [1, 0]
        model = NetworkModel(plan_of(topo, routing))
        if sel is None:
            res = model.run(stim)
            assert res.drained
            continue
        sim = model.start(stim)
        sim.advance(200, stop_when_drained=True)
        P = model.tables.max_ports
        uses = sim.use[3 * P:3 * P + 2].tolist()
        assert sim.drained and not delivery_problems(sim.result())
    assert uses == [2, 2]                                   # ports 1, 0 alternate (ties: the first)


@pytest.mark.parametrize("pds", [(0, 1, 3), (0, 1, 3, 9)])
def test_faults_discard_whole_packets_and_never_wedge(pds):
    t = PerfectDifferenceNetwork(pds)
    routing = AdaptivePDNRouting(t, selection="availability")
    model = NetworkModel(plan_of(t, routing))
    stim = random_traffic(t.n, 80, 6, 7, mean_gap=0, p_ready=0.7, ready_cycles=20_000)
    faults = random_fault_schedule(t, 1500, 5, 11, p_link=0.15, p_node=0.1)
    res = model.run(stim, faults=faults)
    assert res.drained
    assert not accounting_problems(res)
    assert res.discarded.sum() > 0
    assert res.counters[:, 1].sum() + res.discarded.sum() == res.counters[:, 0].sum() == stim.num_packets


def test_faulty_node_refuses_injection_and_nothing_uses_its_links():
    t = PerfectDifferenceNetwork((0, 1, 3))
    routing = AdaptivePDNRouting(t, selection="availability")
    stim = random_traffic(7, 30, 3, 3, mean_gap=1)
    faults = FaultSchedule(7).at(0, [], [2]).at(400, [], [])
    res = NetworkModel(plan_of(t, routing)).run(stim, faults=faults)
    assert res.drained
    src2 = stim.flits_of(2)
    assert res.accept_cycle[src2.start:src2.stop].min() >= 400       # nothing accepted while faulty
    during = (res.tr_cycle < 400)
    assert not (res.tr_node[during] == 2).any()                      # nothing reaches node 2 while faulty
    dst2 = stim.pkt_dst[stim.packet[res.tr_flit]] == 2
    assert (res.tr_cycle[dst2] >= 400).all()
    assert not accounting_problems(res)


def test_link_fault_is_bidirectional_and_node_fault_covers_neighbours():
    t = PerfectDifferenceNetwork((0, 1, 3))
    P = t.num_ports(0) + 1
    s = FaultSchedule(7).at(5, {0: [0]}, [4])
    cyc, out, nf = s.effective(t, P)
    far, q = t.neighbor(0, 0)
    assert cyc.tolist() == [5] and out[0, 0 * P + 0] == 1 and out[0, far * P + q] == 1
    for p in range(t.num_ports(4)):
        u, uq = t.neighbor(4, p)
        assert out[0, 4 * P + p] == 1 and out[0, u * P + uq] == 1
    assert nf[0].tolist() == [0, 0, 0, 0, 1, 0, 0]
    with pytest.raises(CubenocError, match="increasing cycle order"):
        s.at(5, [])


@pytest.mark.parametrize("pds", [(0, 1, 3), (0, 1, 3, 9)])
def test_deadlock_checker_on_the_adaptive_candidates(pds):
    t = PerfectDifferenceNetwork(pds)
    with_vcs = AdaptivePDNRouting(t, selection="availability")
    assert with_vcs.num_vcs == 2 and check_deadlock(with_vcs).cycle is None
    assert check_deadlock(AdaptivePDNRouting(t, hop_vcs=False)).cycle is not None


def test_least_used_hierarchical_deadlock_free_on_one_vc():
    routing = BalancedHierarchicalRouting(hierarchical_from_spec("bh:3", "bh:3"), selection="least_used")
    assert routing.num_vcs == 1 and check_deadlock(routing).cycle is None
