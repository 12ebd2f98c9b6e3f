"""`cubenoc build` for the metacube, PDN and hierarchical families: network options, the size estimate
(with virtual channels) before any tool runs, unsupported combinations, and the demo traffic of those
networks under simulation with zero errors."""
from __future__ import annotations

import argparse

import pytest
from amaranth.sim import Simulator

from cubenoc.sim.router_config import RouterConfig
from cubenoc.boards.boards import ICE40_FF_CELLS, estimate, router_estimate
from cubenoc.boards.demo import TrafficSystem
from cubenoc.build import network_for
from cubenoc.boards.boards import get_board
from cubenoc.cli import main
from cubenoc.sim.network_plan import plan_of


def _cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def no_tools(monkeypatch):
    import cubenoc.boards.flow as flow
    monkeypatch.setattr(flow, "build_demo", lambda *a, **k: pytest.fail("a tool ran"))


FAMILY_ARGS = {
    "pdn": ["--family", "pdn", "--set", "0,1,3"],
    "zero-free pdn": ["--family", "pdn", "--set", "1,2,4"],
    "metacube": ["--family", "metacube", "--k", "1", "--m", "1"],
    "hin": ["--family", "hin", "--level1", "bh:1", "--level2", "ccc:2"],
}


@pytest.mark.parametrize("name", list(FAMILY_ARGS))
def test_family_networks_estimate_on_the_ecp5_and_are_refused_on_the_up5k(capsys, no_tools, name):
    code, out, err = _cli(capsys, "build", "--board", "ulx3s-85f", *FAMILY_ARGS[name], "--estimate-only")
    assert code == 0 and "LFE5U-85F" in out and "estimate" in out
    code, out, err = _cli(capsys, "build", "--board", "icebreaker", *FAMILY_ARGS[name])
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "more than the iCE40UP5K" in err and "estimate from the synthesis report" in err


@pytest.mark.parametrize("argv, message", [
    (["--board", "ulx3s-25f", "--family", "pdn", "--set", "0,1,3", "--bipartite"], "bipartite PDN"),
    (["--board", "colorlight-5a75b", "--safety"], "--safety is not supported on colorlight-5a75b"),
    (["--board", "ulx3s-25f", "--family", "metacube", "--k", "1", "--m", "1", "--safety"],
     "--safety needs a hypercube"),
    (["--board", "ulx3s-25f", "--family", "hypercube", "--k", "1"], "hypercube does not take --k (it applies to enhanced and metacube)"),
    (["--board", "ulx3s-25f", "--family", "pdn", "--delta", "5"], "more than the LFE5U-25F"),
])
def test_unsupported_combinations_say_so(capsys, no_tools, argv, message):
    code, out, err = _cli(capsys, "build", *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err


def test_safety_panel_is_in_the_estimate(capsys, no_tools):
    code, out, _ = _cli(capsys, "build", "--board", "ulx3s-25f", "--safety", "--estimate-only")
    assert code == 0 and "+ safety panel" in out
    plan = network_for(get_board("ulx3s-25f"), argparse.Namespace(family=None, n=None, k=None, payload=None,
                                                                  depth=None))
    plain, with_panel = estimate(plan, "ecp5"), estimate(plan, "ecp5", True)
    assert with_panel[0] - plain[0] >= 16 * 30          # at least an SL(1) unit per node (safety-area table)


def test_estimate_does_not_undershoot_yosys_on_a_vc_router(tmp_path):
    """yosys synth_ice40 on the MC(1,1) router (V = 2, W = 16): the estimate is within -10 % .. +60 %."""
    from cubenoc.boards.synth import synth_router
    from cubenoc.rtl.router import Router
    net = network_for(get_board("ulx3s-85f"), argparse.Namespace(family="metacube", n=None, k=1, m=1, payload=16,
                                                                 depth=4))
    plan = plan_of(net.topology, net.routing, RouterConfig(payload_width=16, fifo_depth=4))
    res = synth_router(Router(plan, 0), "up5k", tmp_path, pnr=False)
    lut, ff = router_estimate(plan, 0, "ice40")
    cells, est_cells = res.lut4 + ICE40_FF_CELLS * res.ff, lut + ICE40_FF_CELLS * ff
    assert 0.9 * cells <= est_cells <= 1.6 * cells, (res.lut4, res.ff, lut, ff)


def _traffic(topo, routing, cycles, drain):
    dut = TrafficSystem(plan_of(topo, routing, RouterConfig(payload_width=16, fifo_depth=4)), rate=96)
    res = {}

    async def bench(ctx):
        await ctx.tick().repeat(cycles)
        ctx.set(dut.enable, 0)
        await ctx.tick().repeat(drain)
        for name in ("sent", "received", "errors", "lat_count", "error_kinds"):
            res[name] = ctx.get(getattr(dut, name))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return res


def _family_network(argv):
    p = argparse.ArgumentParser()
    from cubenoc.build import add_arguments
    add_arguments(p)
    args = p.parse_args(["--board", "ulx3s-85f", *argv])
    plan = network_for(get_board("ulx3s-85f"), args)
    return plan.topology, plan.routing


@pytest.mark.parametrize("name", ["pdn", pytest.param("metacube", marks=pytest.mark.slow),
                                  pytest.param("hin", marks=pytest.mark.slow)])
def test_family_demo_traffic_has_zero_errors(name):
    """The demo's generators and checkers on a family network (PDN: 7 nodes, not a power of two):
    1,500 cycles of traffic, 400 of draining; every packet arrives, checked, with zero errors."""
    topo, routing = _family_network(FAMILY_ARGS[name])
    res = _traffic(topo, routing, 1500, 400)
    assert res["errors"] == 0 and res["error_kinds"] == 0
    assert res["sent"] > topo.num_nodes * 1500 // 40
    assert res["received"] == res["sent"] == res["lat_count"]
