"""cocotb (Verilator): the fair arbiter (``--arbitration fair``, docs/router.md "Arbitration") in the
generated Verilog equals the model flit for flit and cycle for cycle (tb/verify.py), with the stream rule
checked on every link and local output. Q_3 (V = 1, weights 1, 2, 4 that do not depend on the destination:
constants) and MC(1,1) (V = 2, weights looked up by the head's new route word: the ROM path, the per-VC
held weight of body flits interleaving across VCs), under the network scenarios (random backpressure,
saturating bursts, head-on contention, bad input) plus an all-to-one hotspot with long packets."""
from __future__ import annotations

import pytest

from cubenoc.sim.router_config import RouterConfig
from cubenoc.sim.model.network import NetworkModel
from cubenoc.sim.model.stimulus import StimulusBuilder, random_ready
from cubenoc.sim.routing.fairness import source_weights
from cubenoc.sim.routing.metacube import MetacubeRouting
from cubenoc.sim.topology.hypercube import Hypercube
from cubenoc.sim.topology.metacube import Metacube
from cubenoc.tb.scenarios import network_scenarios
from cubenoc.tb.verify import verify_network
from cubenoc.sim.network_plan import plan_of


def all_to_one(n: int, hot: int, packets: int, seed: int):
    b = StimulusBuilder(n, seed=seed)
    for src in range(n):
        if src != hot:
            for k in range(packets):
                b.packet(src, hot, 1 + (src + k) % 4, release=0)
    return b.build(random_ready(n, 3000, 0.7, seed))


@pytest.mark.parametrize("name", ["hypercube_n3", "mc11"])
def test_fair_network_matches_model(name):
    topo = Hypercube(3) if name == "hypercube_n3" else Metacube(1, 1)
    routing = None if name == "hypercube_n3" else MetacubeRouting(topo)
    if routing is not None:      # the ROM path is exercised: some weight depends on the route word
        assert any(len(set(w.values())) > 1 for node in source_weights(routing) for w in node.values())
    # random, burst, all_pairs (self included: on the metacube a packet to itself goes round other nodes
    # with route words no walk of the weights saw) and the all-to-one hotspot
    scenarios = network_scenarios(topo.num_nodes, seed=5)[:3] + [("hotspot", all_to_one(topo.num_nodes, 5, 6, 9))]
    verdicts = verify_network(topo, scenarios, routing=routing, config=RouterConfig(arbitration="fair"))
    report = [f"{v.name}: {p}" for v in verdicts for p in v.problems]
    assert not report, f"{topo!r} fair:\n" + "\n".join(report)
    for v in verdicts:
        assert v.model.drained and v.rtl.cycle.size > 0
    # the weights changed the schedule (else this would only repeat the round-robin comparison)
    hot = next(v for v in verdicts if v.name == "hotspot")
    rr = NetworkModel(plan_of(topo, routing, RouterConfig(arbitration="round-robin"))).run(hot.model.stimulus, cycles=hot.model.cycles)
    assert rr.trace_tuples() != hot.model.trace_tuples()
