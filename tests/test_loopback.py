# amaranth: UnusedElaboratable=no
"""Routers without loopback (docs/router.md "Loopback"; ``Router(loopback=False)``, ``--no-loopback``): no
local->local turn, and the source interface drops a packet addressed to its own node as it drops one whose
destination is out of range (counted in ``dropped``). The model does the same (sim/model/simulation.py), the
generated Verilog matches it cycle for cycle (cocotb: tests/test_cocotb_network.py), and the router is smaller."""
from __future__ import annotations

import gc

import numpy as np
import pytest

from cubenoc.sim.router_config import RouterConfig
from cubenoc.errors import CubenocError
from cubenoc.sim.catalog import NetworkSpec
from cubenoc.sim.model.check import delivery_problems
from cubenoc.sim.model.network import NetworkModel
from cubenoc.sim.model.stimulus import random_traffic
from cubenoc.sim.network_plan import NetworkPlan
from cubenoc.sim.routing.turns import turns_at
from cubenoc.sim.network_plan import plan_of

DROPPED = 2


def self_packets(stim) -> np.ndarray:
    """Per node, its well-formed packets addressed to itself (random_traffic draws self as a destination)."""
    return np.bincount(stim.pkt_src[stim.pkt_dst == stim.pkt_src], minlength=stim.num_nodes)


CASES = [("hypercube:n=3", False), ("hypercube:n=3", True), ("enhanced:n=3,k=0", False), ("metacube:k=1,m=1", False),
         ("pdn:set=0,1,3", False)]


@pytest.mark.parametrize("spec,pipeline", CASES)
def test_model_drops_packets_to_their_own_node(spec, pipeline):
    """With loopback a packet to its own node ejects there (0 hops); without, its source drops it: the dropped
    counter of each node grows by its self-addressed packets, every other packet is delivered as before (every
    family; the metacube with its two VCs)."""
    topo, routing = NetworkSpec.parse(spec).build("model")
    stim = random_traffic(topo.num_nodes, 12, 3, seed=7, mean_gap=2)
    mine = self_packets(stim)
    assert mine.sum() > 0
    on = NetworkModel(plan_of(topo, routing, RouterConfig(pipeline=pipeline))).run(stim)
    off = NetworkModel(plan_of(topo, routing, RouterConfig(pipeline=pipeline, loopback=False))).run(stim)
    assert delivery_problems(on) == [] and delivery_problems(off) == []
    assert np.array_equal(off.counters[:, DROPPED] - on.counters[:, DROPPED], mine)
    home = stim.pkt_dst == stim.pkt_src
    assert set(on.delivered.tolist()) - set(off.delivered.tolist()) == set(np.nonzero(home)[0].tolist())
    assert np.array_equal(on.counters[:, 1] - off.counters[:, 1], mine)     # ejected packets


@pytest.mark.parametrize("spec", sorted({spec for spec, _ in CASES}))
def test_every_family_builds_a_router_without_loopback(spec):
    """Node 0's router of each family elaborates without the local->local turn (and with it otherwise)."""
    from amaranth.back import rtlil

    from cubenoc.rtl.router import Router
    topo, routing = NetworkSpec.parse(spec).build("rtl")
    for loopback in (True, False):
        r = Router(plan_of(topo, routing, RouterConfig(fifo_depth=2, loopback=loopback)), 0)
        assert r.allowed[r.local][r.local] == loopback
        assert "module" in rtlil.convert(r, name="router")


def test_allowed_turns_without_loopback():
    topo, routing = NetworkSpec.parse("hypercube:n=3").build("rtl")
    turns, P = turns_at(routing, 5), topo.local_port(5) + 1
    on = [[(i, o) in turns for o in range(P)] for i in range(P)]
    off = NetworkPlan(topo, routing, RouterConfig(loopback=False)).allowed_matrix(5)
    local = len(on) - 1
    assert on[local][local] and not off[local][local]
    off[local][local] = True
    assert off == on                                  # nothing else changes


@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")      # the refused routers
def test_loopback_option_errors():
    from cubenoc.rtl.router import Router
    topo, routing = NetworkSpec.parse("hypercube:n=3").build("rtl")
    for kw in ({"queues": "voq"}, {"faults": True}):
        with pytest.raises(CubenocError, match="--no-loopback is built for unicast oblivious routing") as refused:
            Router(plan_of(topo, routing, RouterConfig(loopback=False, **kw)), 0)
        del refused
    with pytest.raises(CubenocError, match="loopback must be True or False"):
        RouterConfig(loopback="no")
    with pytest.raises(CubenocError, match="--no-loopback is built for"):
        NetworkModel(plan_of(topo, None, RouterConfig(loopback=False, queues="voq")))
    gc.collect()                            # the refused routers' warnings here, where they are filtered


def test_cli_no_loopback(tmp_path, capsys):
    """``generate --no-loopback`` writes a network whose description says so; with VOQ a clear error."""
    from cubenoc.cli import main
    assert main(["generate", "hypercube", "--n", "2", "--no-loopback", "-o", str(tmp_path / "q2")]) == 0
    assert "no loopback" in capsys.readouterr().out
    assert "--no-loopback" in (tmp_path / "q2").joinpath(next(p.name for p in (tmp_path / "q2").glob("*.md"))).read_text()
    assert main(["generate", "hypercube", "--n", "2", "--no-loopback", "--queues", "voq", "-o",
                 str(tmp_path / "v")]) != 0
    assert "--no-loopback is built for" in capsys.readouterr().err


def test_synth_report_no_loopback_option():
    import argparse

    from cubenoc.bench.synth_shapes import shapes_for
    from cubenoc.synth_report import add_arguments
    p = argparse.ArgumentParser()
    add_arguments(p)
    for flags, loopback in (([], True), (["--no-loopback"], False)):
        shapes = shapes_for(p.parse_args(["--family", "hypercube", "--n", "3", *flags]))
        assert [s.router.loopback for s in shapes] == [loopback]
        r = shapes[0].router
        assert r.allowed[r.local][r.local] == loopback


def test_router_without_loopback_is_smaller(tmp_path):
    """The local output loses its fifth source: fewer LUT4s on the UP5K (yosys), Q(3) at depth 2."""
    from cubenoc.boards.synth import synth_router
    from cubenoc.rtl.router import Router
    topo, routing = NetworkSpec.parse("hypercube:n=3").build("rtl")
    luts = {loopback: synth_router(Router(plan_of(topo, routing, RouterConfig(fifo_depth=2, counters=False, loopback=loopback)), 0), "up5k",
                                   tmp_path / str(loopback), pnr=False).lut4 for loopback in (True, False)}
    assert luts[False] < luts[True] - 10, luts        # 466 -> 447 when written
