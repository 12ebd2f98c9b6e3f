"""Broadcast forks in the model (docs/router.md "Broadcast and multicast") and their deadlock check.

* zero load, from every source: every node but the source ejects one copy, the last at accept +
  steps + 1 (Algorithm B: n; Algorithm D: k + ceil((n-k)/2), Tzeng & Wei Theorem 3; metacube Sec. 4.2:
  (m+1) 2**k + k - 1, Li, Peng & Chu Theorem 3; PDN Algorithm 3: 2 steps);
* the channel dependency graph with fork edges (sim/deadlock.py) is acyclic exactly where the model
  drains loaded broadcast traffic, and the cycles it finds (Algorithm D when floor((n-k)/2) >= 2 and
  k >= 1; metacube in one VC) are real: the model deadlocks there;
* with broadcast enabled, unicast-only traffic runs exactly as in the router without it.
"""
from __future__ import annotations

import numpy as np
import pytest

from cubenoc.sim.router_config import RouterConfig
from cubenoc.errors import CubenocError
from cubenoc.sim.broadcast.base import run_broadcast
from cubenoc.sim.broadcast.fork import BROADCAST_DEST, broadcast_algorithm_for, check_broadcast
from cubenoc.sim.broadcast.metacube import MetacubeBroadcast, broadcast_schedule, theorem3_steps
from cubenoc.sim.deadlock import check_broadcast_deadlock
from cubenoc.sim.model.check import delivery_problems
from cubenoc.sim.model.network import NetworkModel
from cubenoc.sim.model.stimulus import StimulusBuilder, random_traffic
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.routing.metacube import MetacubeRouting
from cubenoc.sim.routing.pdn import DimensionOrderPDNRouting, ObliviousPDNRouting
from cubenoc.sim.topology.hypercube import EnhancedHypercube, Hypercube
from cubenoc.sim.topology.metacube import Metacube
from cubenoc.sim.topology.pdn import PerfectDifferenceNetwork, ProductPDN
from cubenoc.sim.network_plan import plan_of


def network(name):
    kind, *p = name.split("_")
    if kind == "q":
        t = Hypercube(int(p[0]))
        return t, EcubeRouting(t)
    if kind == "e":
        t = EnhancedHypercube(int(p[0]), int(p[1]))
        return t, EcubeRouting(t)
    if kind == "mc":
        t = Metacube(int(p[0]), int(p[1]))
        return t, MetacubeRouting(t, vcs=False)
    if kind == "h2":                                 # H^2 of the PDN on the set p
        t = ProductPDN([tuple(int(x) for x in p)] * 2)
        return t, DimensionOrderPDNRouting(t)
    t = PerfectDifferenceNetwork(tuple(int(x) for x in p))
    return t, ObliviousPDNRouting(t)


ZERO_LOAD = ["q_3", "q_4", "q_5", "e_3_1", "e_4_0", "e_4_1", "e_5_0", "e_5_1", "e_6_2", "mc_1_1", "mc_1_2", "mc_2_1",
             "pdn_0_1_3", "pdn_0_1_3_9", "h2_0_1", "h2_0_1_3"]


def paper_steps(topo) -> int:
    if isinstance(topo, EnhancedHypercube):
        return topo.k + -(-(topo.n - topo.k) // 2)          # Tzeng & Wei Theorem 3
    if isinstance(topo, Hypercube):
        return topo.n                                        # Algorithm B: log2 N
    if isinstance(topo, Metacube):
        return theorem3_steps(topo.k, topo.m)                # Li, Peng & Chu Theorem 3
    if isinstance(topo, ProductPDN):                         # H^2: "a total of four steps" (Sec. 4);
        return 2 * len(topo.dims) if topo.dims[0].delta >= 2 else len(topo.dims)   # {0,1} = K_3: 1 each
    return 2                                                 # Parhami & Rakov Algorithm 3


#: 64-node networks: the narrow-integer model (a kernel compile of their own); the smaller ones run in make test
BIG = {"e_6_2", "mc_2_1"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in BIG else n for n in ZERO_LOAD])
def test_lone_broadcast_from_every_source(name):
    """A 2-flit broadcast from every node, each alone in the network (released ``steps + 8`` cycles
    apart, one run): every other node ejects it once, the last head at accept + the paper's steps + 1."""
    topo, routing = network(name)
    alg = broadcast_algorithm_for(topo)
    model = NetworkModel(plan_of(topo, routing, RouterConfig(broadcast=alg)))
    n = topo.num_nodes
    steps = paper_steps(topo)
    b = StimulusBuilder(n, seed=1)
    for src in range(n):
        b.packet(src, BROADCAST_DEST, 2, release=src * (steps + 8) + src % 3)
    res = model.run(b.build())
    assert res.drained and delivery_problems(res) == []
    assert (res.tr_data == res.stimulus.data[res.tr_flit]).all()
    assert res.counter("ejected").sum() == n * (n - 1) and res.counter("injected").sum() == n
    for k in range(n):
        src, head = int(res.stimulus.pkt_src[k]), res.tr_flit == 2 * k
        assert sorted(res.tr_node[head].tolist()) == [v for v in range(n) if v != src]
        assert res.tr_cycle[head].max() == res.accept_cycle[2 * k] + steps + 1


def test_metacube_rule_is_the_schedule():
    """MetacubeBroadcast's tree holds the same transfers as the Sec. 4.2 schedule (dedupe), per step
    when every node waits for its phase; here: the same receivers and Theorem 3's depth."""
    for k, m in ((1, 1), (1, 2), (2, 1)):
        topo = Metacube(k, m)
        alg = MetacubeBroadcast(topo)
        for src in (0, topo.num_nodes - 1):
            tr = run_broadcast(alg, src)
            sched = broadcast_schedule(topo, src)
            assert tr.exactly_once and sched.receipts(topo.num_nodes) == [1] * topo.num_nodes
            assert tr.steps == sched.num_steps == theorem3_steps(k, m)
            assert tr.messages == sched.messages == topo.num_nodes - 1
            assert {(u, p) for _s, u, p, _v in tr.edges} == {(u, p) for st in sched.steps for u, p, _v in st}


LOADED = {  # name: the fork dependency graph is acyclic (and the model drains under load)
    "q_3": True, "q_4": True, "e_3_1": True, "e_4_0": True, "e_4_1": True, "e_5_0": True, "pdn_0_1_3": True,
    "pdn_0_1_3_9": True, "e_5_1": False, "mc_1_1": False, "h2_0_1": True,
}


@pytest.mark.parametrize("name", list(LOADED))
def test_deadlock_check_agrees_with_the_model(name):
    topo, routing = network(name)
    alg = broadcast_algorithm_for(topo)
    report = check_broadcast_deadlock(routing, alg, pairs=[] if isinstance(topo, Metacube) else None)
    assert report.deadlock_free == LOADED[name], report.describe(topo)
    model = NetworkModel(plan_of(topo, routing, RouterConfig(broadcast=alg)))
    drained = []
    for seed in range(4):
        stim = random_traffic(topo.num_nodes, 10, 4, seed, mean_gap=seed, p_ready=0.7, ready_cycles=3000,
                              p_broadcast=1.0 if isinstance(topo, Metacube) else 0.4)
        res = model.run(stim, max_cycles=20_000)
        drained.append(res.drained)
        if res.drained:
            assert delivery_problems(res) == []
    if LOADED[name]:
        assert all(drained)
    else:
        assert not all(drained)          # the cycle the checker reports is a real deadlock


def test_algorithm_d_cycle_is_the_skip_walk():
    """Q(5, 1): the skip copy walks dimension 4 to the complement, which sends back over dimension 4
    (c' = 2): the two directions of one link wait for each other."""
    t = EnhancedHypercube(5, 1)
    rep = check_broadcast_deadlock(EcubeRouting(t), broadcast_algorithm_for(t))
    assert len(rep.cycle) == 2 and {c[1] for c in rep.cycle} == {4}


def test_unicast_traffic_is_unchanged_by_broadcast_support():
    for topo in (Hypercube(4), EnhancedHypercube(5, 1)):
        for seed in range(2):
            stim = random_traffic(topo.num_nodes, 15, 5, seed, mean_gap=seed, p_ready=0.5, ready_cycles=3000)
            a = NetworkModel(plan_of(topo)).run(stim)
            b = NetworkModel(plan_of(topo, None, RouterConfig(broadcast=broadcast_algorithm_for(topo)))).run(stim)
            assert a.cycles == b.cycles and a.trace_tuples() == b.trace_tuples()
            assert np.array_equal(a.counters, b.counters)


def test_bad_parameters():
    mc = Metacube(1, 2)
    with pytest.raises(CubenocError, match="one-VC routing"):
        check_broadcast(MetacubeBroadcast(mc), MetacubeRouting(mc))
    with pytest.raises(CubenocError, match="topology object"):
        check_broadcast(broadcast_algorithm_for(Hypercube(3)), EcubeRouting(Hypercube(3)))
    t = Hypercube(3)
    model = NetworkModel(plan_of(t, None, RouterConfig(broadcast=broadcast_algorithm_for(t))))
    b = StimulusBuilder(8)
    b.packet(0, BROADCAST_DEST, 5)
    with pytest.raises(CubenocError, match="at most D = 4 flits"):
        model.run(b.build())
