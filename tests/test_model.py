"""The cycle-accurate model against docs/router.md: latencies, arbitration, wormhole, drop rules."""
from __future__ import annotations

import numpy as np
import pytest

from cubenoc.sim.router_config import RouterConfig
from cubenoc.errors import CubenocError
from cubenoc.sim.model.check import delivery_problems
from cubenoc.sim.model.network import NetworkModel
from cubenoc.sim.model.stimulus import (StimulusBuilder, all_pairs, bernoulli_traffic, random_ready,
                                        random_traffic)
from cubenoc.sim.routing.hierarchical import HierarchicalRouting
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.routing.metacube import MetacubeRouting
from cubenoc.sim.routing.pdn import AdaptivePDNRouting, ObliviousPDNRouting
from cubenoc.sim.topology.hypercube import EnhancedHypercube, Hypercube
from cubenoc.sim.topology.hierarchical import CubeConnectedCycles, Hierarchical
from cubenoc.sim.topology.metacube import Metacube
from cubenoc.sim.topology.pdn import PerfectDifferenceNetwork
from cubenoc.sim.network_plan import plan_of

NETS = [Hypercube(3), EnhancedHypercube(4, 0), EnhancedHypercube(5, 1)]


@pytest.mark.parametrize("topo", NETS, ids=repr)
def test_zero_load_latency_is_hops_plus_one(topo):
    """Each packet alone in the network: head latency h + 1, body flits one cycle apart."""
    routing = EcubeRouting(topo)
    n = topo.num_nodes
    b = StimulusBuilder(n, seed=1)
    gap = 4 * (topo.diameter() + 4)
    expect = []
    for j, (s, d) in enumerate((s, d) for s in range(n) for d in range(n)):
        b.packet(s, d, 3, release=j * gap)
        expect.append(routing.hops(s, d) + 1)
    res = NetworkModel(plan_of(topo)).run(b.build())
    assert res.drained and not delivery_problems(res)
    assert res.head_latency().tolist() == expect
    first = res.stimulus.pkt_first
    assert (res.eject_cycle[first + 2] - res.eject_cycle[first] == 2).all()
    assert (res.accept_cycle[first] == np.arange(n * n) * gap).all()


def _contend(b, sources, dest, length, release):
    for s in sources:
        b.packet(s, dest, length, release)


def test_round_robin_order_and_pointer_update():
    """Q3, node 0's local output: inputs are ports 0, 1, 2 (from nodes 1, 2, 4). A lone packet from
    port 1 leaves rr = 2; then three packets arrive together and win in the order 2, 0, 1."""
    b = StimulusBuilder(8, seed=2)
    b.packet(2, 0, 2, release=0)
    _contend(b, [1, 2, 4], 0, 3, release=20)
    res = NetworkModel(plan_of(Hypercube(3))).run(b.build())
    s = res.stimulus
    heads = res.tr_flit[(res.tr_node == 0) & (res.tr_head == 1)]
    assert s.pkt_src[s.packet[heads]].tolist() == [2, 4, 1, 2]
    # a packet holds the output from head to tail: the three contenders leave back to back
    cyc = res.tr_cycle[res.tr_node == 0]
    assert cyc[2:].tolist() == list(range(22, 31))


def test_wormhole_no_interleave_and_no_loss_under_backpressure():
    topo = EnhancedHypercube(5, 1)
    stim = random_traffic(32, 40, 6, seed=5, mean_gap=3, p_ready=0.4, ready_cycles=4000)
    res = NetworkModel(plan_of(topo)).run(stim)
    assert res.drained
    assert delivery_problems(res) == []
    assert res.delivered.size == stim.num_packets
    c = res.counters.sum(axis=0)
    assert c.tolist() == [stim.num_packets, stim.num_packets, 0, 0]
    # the ready pattern is obeyed: no ejection in a cycle whose ready is 0
    t, v = res.tr_cycle, res.tr_node
    inside = t < stim.eject_ready.shape[0]
    assert stim.eject_ready[t[inside], v[inside]].all()


@pytest.mark.parametrize("depth", [1, 2, 4])
def test_fifo_depth_and_ready_rule(depth):
    """Destination never ready: a 1-hop packet fills the source's local FIFO and the neighbour's input
    FIFO, then stalls; exactly 2*depth flits are accepted (ready = count < D, registered)."""
    b = StimulusBuilder(8, seed=3)
    b.packet(0, 1, 20, release=0)
    ready = np.ones((200, 8), dtype=np.uint8)
    ready[:, 1] = 0
    res = NetworkModel(plan_of(Hypercube(3), None, RouterConfig(fifo_depth=depth))).run(b.build(ready), cycles=100)
    assert (res.accept_cycle >= 0).sum() == 2 * depth
    assert res.tr_flit.size == 0
    # then ready again: everything drains
    ready[150:, 1] = 1
    res = NetworkModel(plan_of(Hypercube(3), None, RouterConfig(fifo_depth=depth))).run(b.build(ready))
    assert res.drained and res.delivered.size == 1 and res.eject_cycle.min() == 150


def test_out_of_range_destination_dropped_without_wedging():
    """Every 16-bit destination >= N is out of range for a hypercube: dropped whole and counted."""
    b = StimulusBuilder(8, seed=4)
    b.packet(3, 8, 5, release=0)          # just out of range, 5 flits, all discarded
    b.packet(3, 0xFFFF, 1, release=0)
    b.packet(3, 6, 2, release=0)          # then a good packet from the same source
    b.packet(5, 0x1234, 3, release=2)
    res = NetworkModel(plan_of(Hypercube(3))).run(b.build())
    assert res.drained
    assert res.counter("dropped").tolist() == [0, 0, 0, 2, 0, 1, 0, 0]
    assert res.counter("injected").sum() == 1 and res.counter("malformed").sum() == 0
    assert [(c, n) for c, n, *_ in res.trace_tuples()] == [(6 + 3, 6), (7 + 3, 6)]  # 3 -> 6 is 2 hops
    # the dropped flits are accepted back to back (ready = 1), one per cycle
    assert res.accept_cycle[:8].tolist() == list(range(8))


def test_malformed_framing():
    b = StimulusBuilder(8, data_width=32)
    b.raw(0, [(0, 0, 11), (0, 1, 12)])                       # body and tail outside a packet
    b.raw(0, [(1, 0, 1), (1, 0, 0x50002), (0, 1, 13)])         # head inside a packet: joins it
    b.raw(0, [(1, 0, 9), (1, 0, 2), (0, 1, 14)])               # dropped packet with a head inside
    b.raw(0, [(1, 1, 4)])                                      # a good one-flit packet
    res = NetworkModel(plan_of(Hypercube(3))).run(b.build())
    assert res.drained
    assert res.counters[0].tolist() == [2, 0, 1, 4]
    assert res.trace_tuples() == [(4, 1, 1, 0, 1), (5, 1, 0, 0, 0x50002), (6, 1, 0, 1, 13),
                                  (10, 4, 1, 1, 4)]


SELF_NETS = [(EcubeRouting, EnhancedHypercube(4, 0)), (MetacubeRouting, Metacube(1, 2)),
             pytest.param(MetacubeRouting, Metacube(2, 1), marks=pytest.mark.slow),   # 64 nodes: a compile of its own (ObliviousPDNRouting, PerfectDifferenceNetwork("0,1,3")),
             (AdaptivePDNRouting, PerfectDifferenceNetwork("0,1,3")),
             (HierarchicalRouting, Hierarchical(Hypercube(2), CubeConnectedCycles(2)))]


@pytest.mark.parametrize("make,topo", SELF_NETS, ids=lambda x: getattr(x, "__name__", repr(x)))
def test_self_addressed_packet_ejects_at_its_own_router(make, topo):
    """A packet to its own node: 0 hops in every family (the metacube's full class-path
    variant used to tour the class cycle: 2 hops on MC(1,2), 4 on MC(2,1)); head latency 1."""
    node = topo.num_nodes - 1
    b = StimulusBuilder(topo.num_nodes, seed=6)
    b.packet(node, node, 2, release=3)
    routing = make(topo)
    res = NetworkModel(plan_of(topo, routing)).run(b.build())
    assert res.head_latency().tolist() == [1]
    assert res.trace_tuples()[0][:4] == (4, node, 1, 0)
    assert routing.hops(node, node) == 0


@pytest.mark.parametrize("topo", NETS, ids=repr)
def test_saturating_bursts_drain_deadlock_free(topo):
    n = topo.num_nodes
    stim = random_traffic(n, 60, 8, seed=7, mean_gap=0, p_ready=0.7, ready_cycles=3000)
    res = NetworkModel(plan_of(topo, None, RouterConfig(fifo_depth=2))).run(stim, max_cycles=200_000)
    assert res.drained, f"{res.stimulus.num_packets} packets not drained in {res.cycles} cycles"
    assert delivery_problems(res) == []


def test_all_pairs_delivered_once():
    topo = EnhancedHypercube(4, 0)
    stim = all_pairs(16, length=3, seed=8, p_ready=0.5, ready_cycles=2000)
    res = NetworkModel(plan_of(topo)).run(stim)
    assert res.drained and delivery_problems(res) == []
    got = sorted(zip(stim.pkt_src[stim.packet[res.tr_flit[res.tr_head == 1]]].tolist(),
                     res.tr_node[res.tr_head == 1].tolist()))
    assert got == [(s, d) for s in range(16) for d in range(16)]


def test_chunked_advance_equals_one_run():
    topo = Hypercube(4)
    stim = random_traffic(16, 30, 4, seed=9, mean_gap=2, p_ready=0.6, ready_cycles=1000)
    model = NetworkModel(plan_of(topo))
    whole = model.run(stim)
    sim = model.start(stim)
    while not sim.drained:
        sim.advance(37, stop_when_drained=True)
    assert sim.result().trace_tuples() == whole.trace_tuples()


def test_bernoulli_offered_load():
    stim = bernoulli_traffic(64, 0.3, 4, 20_000, seed=1)
    offered = stim.num_flits / (64 * 20_000)
    assert abs(offered - 0.3) < 0.01
    assert (stim.pkt_dst != stim.pkt_src).all() and stim.pkt_dst.max() < 64


def test_bad_parameters():
    with pytest.raises(CubenocError, match="depth"):
        NetworkModel(plan_of(Hypercube(3), None, RouterConfig(fifo_depth=0)))
    with pytest.raises(CubenocError, match="eject_ready"):
        StimulusBuilder(8).build(np.ones((3, 5)))
    with pytest.raises(CubenocError, match="rate"):
        bernoulli_traffic(8, 1.5, 1, 10, 0)
    with pytest.raises(CubenocError, match="stimulus is for 8 nodes"):
        NetworkModel(plan_of(Hypercube(4))).run(StimulusBuilder(8).build())
    assert random_ready(4, 10, 1.0, 0).all()


def test_delivery_check_catches_reordered_and_duplicated_flits():
    """The shared per-node whole-packet check (sim/model/check.py) fails on a corrupted trace."""
    import dataclasses
    from cubenoc.sim.model.check import delivery_problems
    from cubenoc.sim.model.stimulus import random_traffic
    from cubenoc.sim.topology.hypercube import Hypercube
    topo = Hypercube(3)
    stim = random_traffic(topo.num_nodes, 6, 4, seed=2, mean_gap=1.0, p_ready=1.0, ready_cycles=500)
    res = NetworkModel(plan_of(topo)).run(stim)
    assert res.drained and delivery_problems(res) == []
    multi = next(j for j in range(res.tr_flit.size - 1)
                 if res.tr_flit[j + 1] == res.tr_flit[j] + 1 and res.tr_node[j + 1] == res.tr_node[j])
    swapped = res.tr_flit.copy()
    swapped[[multi, multi + 1]] = swapped[[multi + 1, multi]]
    for broadcast in (False, True):          # the unicast and the broadcast-aware paths
        bad = dataclasses.replace(res, tr_flit=swapped, router=RouterConfig(broadcast=broadcast))
        assert any("does not start" in p or "reordered" in p for p in delivery_problems(bad))
    dup = dataclasses.replace(res, tr_flit=np.concatenate([res.tr_flit, res.tr_flit[:1]]),
                              tr_node=np.concatenate([res.tr_node, res.tr_node[:1]]))
    assert any(p.startswith("duplicated") for p in delivery_problems(dup))
