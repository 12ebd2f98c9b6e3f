"""The pipelined router in the model (sim/model/pipeline.py, the kernel's PIPE mode; docs/router.md
"Pipelined router"): zero-load latency 2h + 2 cycles (the one-stage router's h + 1 plus one stage per
router on the path), one flit per cycle per lane still, every packet delivered whole and in order under
backpressure, saturating traffic drains on every V = 1 unicast family, and bad combinations get a
one-line error."""
from __future__ import annotations

import json

import numpy as np
import pytest

from cubenoc.sim.catalog import NetworkSpec
from cubenoc.sim.router_config import RouterConfig
from cubenoc.cli import main
from cubenoc.errors import CubenocError
from cubenoc.sim.model.check import delivery_problems
from cubenoc.sim.model.network import NetworkModel
from cubenoc.sim.model.perf import zero_load_latency
from cubenoc.sim.model.stimulus import StimulusBuilder, all_pairs, random_traffic
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.routing.metacube import MetacubeRouting
from cubenoc.sim.topology.hypercube import Hypercube
from cubenoc.sim.topology.metacube import Metacube
from cubenoc.sim.topology.pdn import PerfectDifferenceNetwork
from cubenoc.sim.network_plan import plan_of


#: one network of each family (catalog specs, docs/networks.md)
FAMILIES = [NetworkSpec.parse(s).build("model") for s in ("hypercube:n=4", "enhanced:n=4,k=1", "pdn:set=0,1,3,9",
                                                         "pdn:product=2,2", "hin:level1=bh:2,level2=cc:4")]


@pytest.mark.parametrize("topo,routing", FAMILIES[:3], ids=[repr(t) for t, _ in FAMILIES[:3]])
def test_zero_load_latency_is_2h_plus_2(topo, routing):
    """Every pair alone in the network: a head is ejected 2h + 2 cycles after its source interface took
    it (one-stage router: h + 1), the tail of a 4-flit packet 3 cycles after the head."""
    pipe = zero_load_latency(NetworkModel(plan_of(topo, routing, RouterConfig(pipeline=True))), packet_len=4)
    one = zero_load_latency(NetworkModel(plan_of(topo, routing)), packet_len=4)
    assert (pipe.head_latency == 2 * pipe.hops + 2).all(), (pipe.hops, pipe.head_latency)
    assert (pipe.tail_latency == pipe.head_latency + 3).all()
    assert (one.head_latency == one.hops + 1).all()
    assert pipe.per_hop == pytest.approx(2.0) and pipe.overhead == pytest.approx(2.0)


def test_one_flit_per_cycle_per_lane():
    """A 40-flit packet on an idle Q(3): its flits leave back to back (the stage refills on a pop), the
    tail 39 cycles after the head, as with the one-stage router."""
    b = StimulusBuilder(8, seed=1)
    b.packet(0, 7, 40)
    stim = b.build()
    for pipeline in (False, True):
        res = NetworkModel(plan_of(Hypercube(3), None, RouterConfig(pipeline=pipeline))).run(stim)
        ej = res.eject_cycle[:40]
        assert (np.diff(ej) == 1).all() and ej[0] - res.accept_cycle[0] == (8 if pipeline else 4)


@pytest.mark.parametrize("topo,routing", FAMILIES, ids=[repr(t) for t, _ in FAMILIES])
def test_pipelined_delivers_and_drains(topo, routing):
    """Saturating random traffic with ejection backpressure and bad destinations, then every pair at
    once: the network drains (no deadlock), every good packet arrives whole, in order, at its destination,
    and the source-interface counters equal the one-stage router's (the same unit)."""
    stim = random_traffic(topo.num_nodes, 25, 5, 3, mean_gap=0, p_ready=0.6, ready_cycles=6000, p_bad_dest=0.1)
    res = NetworkModel(plan_of(topo, routing, RouterConfig(pipeline=True))).run(stim)
    ref = NetworkModel(plan_of(topo, routing)).run(stim)
    assert res.drained and not delivery_problems(res)
    assert (res.counters == ref.counters).all() and res.counters[:, 2].sum() > 0
    assert not np.array_equal(res.eject_cycle, ref.eject_cycle)
    pairs = NetworkModel(plan_of(topo, routing, RouterConfig(pipeline=True))).run(all_pairs(topo.num_nodes, length=3, p_ready=0.5,
                                                                     ready_cycles=4000))
    assert pairs.drained and not delivery_problems(pairs)
    assert pairs.counters[:, 1].sum() == topo.num_nodes ** 2


def test_pipeline_refuses_what_it_does_not_build():
    q = Hypercube(3)
    mc = Metacube(1, 1)
    with pytest.raises(CubenocError, match="one-VC routing function"):
        NetworkModel(plan_of(mc, MetacubeRouting(mc), RouterConfig(pipeline=True)))
    with pytest.raises(CubenocError, match="per-output queues"):
        NetworkModel(plan_of(q, None, RouterConfig(pipeline=True, queues="voq")))
    p = PerfectDifferenceNetwork((0, 1, 3))
    from cubenoc.sim.routing.pdn import AdaptivePDNRouting
    with pytest.raises(CubenocError, match="adaptive selection"):
        NetworkModel(plan_of(p, AdaptivePDNRouting(p, hop_vcs=False, selection="availability"), RouterConfig(pipeline=True)))
    with pytest.raises(CubenocError, match="pipeline must be True or False"):
        NetworkModel(plan_of(q, None, RouterConfig(pipeline="yes")))
    from cubenoc.rtl.router import Router
    with pytest.raises(CubenocError, match="run-time faults"):
        Router(plan_of(q, EcubeRouting(q), RouterConfig(faults=True, pipeline=True)), 0)
    with pytest.raises(CubenocError, match="broadcast"):
        from cubenoc.sim.broadcast.fork import broadcast_algorithm_for
        Router(plan_of(q, EcubeRouting(q), RouterConfig(broadcast=broadcast_algorithm_for(q), pipeline=True)), 0)
    from cubenoc.sim.model.faults import FaultSchedule  # noqa: F401  (faults are refused at start)
    with pytest.raises(CubenocError, match="run-time faults and the pipelined router"):
        NetworkModel(plan_of(q, None, RouterConfig(pipeline=True))).start(random_traffic(8, 1, 1, 0), faults=object())


def test_cli_pipeline_flag(tmp_path, capsys):
    """--pipeline on generate (the description says so, a stage register per lane in the Verilog),
    simulate (the model's PIPE mode: zero-load latency 2h + 2), synth-report (--list); a combination
    that is not built: one line, exit 2."""
    assert main(["generate", "hypercube", "--n", "2", "--pipeline", "-o", str(tmp_path)]) == 0
    assert json.loads((tmp_path / "cubenoc_hypercube_n2.json").read_text())["pipeline"] is True
    assert "stage_want_0" in (tmp_path / "cubenoc_hypercube_n2_router.v").read_text()
    capsys.readouterr()
    assert main(["simulate", "hypercube", "--n", "4", "--pipeline", "--rate", "0.02", "--json", "--quiet"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["network"].endswith("pipelined")
    # mean hops h of uniform traffic (self included): latency ~ 2h + 2 at a low load
    assert 2 * row["hops_mean"] + 2 <= row["latency_mean"] < 2 * row["hops_mean"] + 2.5
    assert main(["synth-report", "--family", "hypercube", "--n", "3", "--pipeline", "--list"]) == 0
    capsys.readouterr()
    for bad in (["generate", "metacube", "--k", "1", "--m", "1", "--pipeline", "-o", str(tmp_path)],
                ["generate", "hypercube", "--n", "2", "--broadcast", "--pipeline", "-o", str(tmp_path)],
                ["generate", "hypercube", "--n", "2", "--queues", "voq", "--pipeline", "-o", str(tmp_path)],
                ["simulate", "pdn", "--set", "0,1,3", "--routing", "availability", "--pipeline", "--rate", "0.1"]):
        assert main(bad) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "pipelined router" in err, err
