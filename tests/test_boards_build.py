"""Board builds: errors before any tool runs, the toolchain lookup, the synthesis report, bitstreams."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cubenoc.sim.router_config import RouterConfig
from cubenoc.boards.boards import check_fits, estimate, get_board
from cubenoc.boards.toolchain import TOOLS, find_tool, toolchain_env
from cubenoc.cli import main
from cubenoc.errors import CubenocError
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.topology import EnhancedHypercube, Hypercube
from cubenoc.sim.network_plan import plan_of


def _cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_unsupported_board_is_one_clear_line(capsys):
    code, out, err = _cli(capsys, "build", "--board", "de0-nano")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "de0-nano" in err and "--list-boards" in err


def test_network_too_large_for_the_device_fails_before_any_tool(capsys, monkeypatch):
    import cubenoc.boards.flow as flow
    monkeypatch.setattr(flow, "build_demo", lambda *a, **k: pytest.fail("a tool ran"))
    code, out, err = _cli(capsys, "build", "--board", "icebreaker", "--family", "hypercube", "--n", "4")
    assert code == 2 and err.count("\n") == 1
    assert "Hypercube(n=4)" in err and "iCE40UP5K" in err and "estimate" in err
    code, _, err = _cli(capsys, "build", "--board", "ulx3s-25f", "--family", "hypercube", "--n", "6",
                        "--payload", "32")
    assert code == 2 and "LFE5U-25F" in err


def test_estimate_grows_with_the_network():
    small, big = Hypercube(2), EnhancedHypercube(4, 0)
    def plan(topo, w):
        return plan_of(topo, EcubeRouting(topo), RouterConfig(payload_width=w, fifo_depth=4))
    l1, f1 = estimate(plan(small, 16), "ice40")
    l2, f2 = estimate(plan(big, 16), "ice40")
    l3, f3 = estimate(plan(big, 32), "ice40")
    assert l1 < l2 < l3 and f1 < f2 < f3
    assert check_fits(get_board("ulx3s-85f"), plan(big, 32))
    with pytest.raises(CubenocError, match="more than the iCE40UP5K"):
        check_fits(get_board("icebreaker"), plan(big, 16))


def test_yowasp_tools_are_found_by_absolute_path():
    """Every family's tools are PyPI packages of the [fpga] extra in this venv (yowasp-*, apycula's gowin_pack)."""
    from cubenoc.boards.toolchain import toolchain_installed, venv_bin
    for family in ("ice40", "ecp5", "gowin"):
        env = toolchain_env(family, "yowasp", base={})
        for var in {**TOOLS["all"], **TOOLS[family]}:
            path = Path(env[var])
            assert path.is_absolute() and path.exists() and path.parent == venv_bin()
        assert env["AMARANTH_USE_YOSYS"] == "builtin" and toolchain_installed(family)
    assert Path(toolchain_env("gowin", base={})["GOWIN_PACK"]).name == "gowin_pack"
    with pytest.raises(CubenocError, match="FPGA family must be one of"):
        toolchain_env("virtex")


def test_system_toolchain_missing_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(CubenocError, match="--toolchain system"):
        find_tool("nextpnr-ice40", "system")
    with pytest.raises(CubenocError, match="toolchain must be one of"):
        find_tool("yosys", "vivado")


def test_synth_report_section_replaces_only_its_own_markers(tmp_path):
    from cubenoc.bench.synth_shapes import BEGIN, END, write_section
    doc = tmp_path / "performance.md"
    doc.write_text("# Performance\n\n## Area\nkeep me\n")
    write_section(doc, "## Synthesis report\nfirst")
    write_section(doc, "## Synthesis report\nsecond")
    text = doc.read_text()
    assert "keep me" in text and "second" in text and "first" not in text
    assert text.count(BEGIN) == 1 and text.count(END) == 1
    doc.write_text(text + "\n## Latency\nalso kept\n")
    write_section(doc, "third")
    assert "also kept" in doc.read_text() and "keep me" in doc.read_text()


def test_synth_router_counts_cells(tmp_path):
    """yosys synth_ice40 on the 3-port router of Q(2): the FIFO storage is flip-flops (3 x 4 x flit)."""
    from cubenoc.boards.synth import synth_router
    from cubenoc.rtl.flit import link_flit_layout
    from cubenoc.rtl.router import Router
    topo = Hypercube(2)
    routing = EcubeRouting(topo)
    res = synth_router(Router(plan_of(topo, routing, RouterConfig(payload_width=16)), 0), "up5k", tmp_path, pnr=False)
    flit = link_flit_layout(routing, 16).size
    assert res.lut4 > 0 and res.fmax_mhz is None
    assert 3 * 4 * flit <= res.ff <= 3 * 4 * flit + 200


def test_synth_goals_are_one_table_for_reports_and_builds():
    """``--synth`` of synth-report and build offers the goals of boards/synth.py; each goal is a yosys script
    per family; an unknown goal is a clear error."""
    import argparse

    from cubenoc import build, synth_report
    from cubenoc.boards.synth import SYNTH_GOALS, TARGET_FAMILY, synth_script
    for mod in (synth_report, build):
        p = argparse.ArgumentParser()
        mod.add_arguments(p)
        (action,) = [a for a in p._actions if a.dest == "synth"]
        assert set(action.choices) == set(SYNTH_GOALS)
        # boards: area (docs/boards.md); synth-report: the goal each target's default router was measured with
        assert action.default == ("area" if mod is build else None)
    from cubenoc.sim.router_config import TARGETS
    for t in TARGETS.values():
        assert {t.synth, t.synth_pipelined} <= set(SYNTH_GOALS)
    from cubenoc.boards.boards import FAMILIES
    for goal in SYNTH_GOALS:
        assert set(TARGET_FAMILY.values()) <= set(SYNTH_GOALS[goal]) == set(FAMILIES)
    assert synth_script("ecp5", "speed", "router") == "synth_ecp5 -top router"
    assert synth_script("ecp5", "balanced", "top") == "synth_ecp5 -nowidelut -top top"
    for family in ("ecp5", "ice40"):        # area: a delay target every router path meets (docs/performance.md)
        assert synth_script(family, "area", "router").startswith("scratchpad -set abc9.D ")
    assert "-nowidelut" in synth_script("ecp5", "area", "top")
    with pytest.raises(CubenocError, match="synthesis goal must be one of speed, balanced, area"):
        synth_script("ice40", "small", "router")


def test_area_goal_uses_fewer_luts_and_no_wide_lut_muxes(tmp_path):
    """yosys on Q(3)'s router (W = 16): with the area goal each family maps it in fewer LUT4s than with
    yosys' default, and the ECP5 netlist has none of the slice muxes (PFUMX, L6MUX21) that build its wide LUTs."""
    from cubenoc.boards.synth import synth_router
    from cubenoc.rtl.router import Router
    topo = Hypercube(3)
    routing = EcubeRouting(topo)
    for target in ("up5k", "ecp5-25f"):
        speed, area = (synth_router(Router(plan_of(topo, routing, RouterConfig(payload_width=16)), 0), target, tmp_path / f"{target}-{goal}",
                                    pnr=False, goal=goal) for goal in ("speed", "area"))
        assert area.lut4 < speed.lut4 and area.ff == speed.ff
        wide = ("PFUMX", "L6MUX21")
        assert not any(area.cells.get(c) for c in wide)
        if target == "ecp5-25f":
            assert any(speed.cells.get(c) for c in wide)


def test_build_passes_the_synthesis_goal_to_the_board_flow(tmp_path, monkeypatch):
    """``build_demo(goal="area")`` puts the goal's yosys options into the platform's script (checked in the
    build plan, no tool runs): ``-nowidelut`` on an ECP5 board, the ABC delay target on an iCE40 one."""
    from amaranth.build.run import BuildPlan

    from cubenoc.boards.flow import build_demo
    scripts = {}

    class Stop(Exception):
        pass

    def capture(plan, root):
        scripts.update({name: text for name, text in plan.files.items() if name.endswith((".ys", ".sh"))})
        raise Stop
    monkeypatch.setattr(BuildPlan, "execute_local", capture)
    topo = Hypercube(2)
    for name, goal, text in (("ulx3s-25f", "area", "synth_ecp5 -nowidelut"), ("ulx3s-25f", "speed", "synth_ecp5  -top top"),
                             ("icebreaker", "area", "scratchpad -set abc9.D")):
        scripts.clear()
        with pytest.raises(Stop):
            build_demo(get_board(name), plan_of(topo, EcubeRouting(topo), RouterConfig(payload_width=16, fifo_depth=2)),
                       build_dir=tmp_path, goal=goal)
        assert text in scripts["top.ys"]
        nextpnr = next(line for line in scripts["build_top.sh"].splitlines() if "--seed" in line)
        # boards/synth.py PNR_PLACE: the iCE40's clock enables stay on the fabric, as in synth-report
        assert ("--no-promote-ce" in nextpnr) == (name == "icebreaker")
    with pytest.raises(CubenocError, match="synthesis goal"):
        build_demo(get_board("icebreaker"), plan_of(topo, EcubeRouting(topo), RouterConfig(payload_width=16)),
                   build_dir=tmp_path, goal="fast")


def _check_build(rep, board, estimate_bound=True):
    assert rep.bitstream.exists() and rep.bitstream.stat().st_size > 50_000
    assert rep.fmax_mhz is not None and rep.fmax_mhz >= rep.clock_mhz        # timing met at the board clock
    used = {k: u for k, (u, _) in rep.utilisation.items()}
    cells = used.get("ICESTORM_LC") or used.get("TRELLIS_COMB") or used.get("LUT4")     # LUT4: Gowin
    assert cells and cells <= board.lut4
    # the estimate does not undershoot what the tools used (it is what refuses designs that do not fit); it is
    # fitted to the Q(2)..Q(5) demos: on the 2-node demo of the smallest-network tests the fixed logic dominates
    # (ULX3S-25F Q(1): 1,991 TRELLIS_COMB, estimate 1,466)
    if not estimate_bound:
        return
    estimate_cells = rep.estimate[0] + (0.78 * rep.estimate[1] if board.family == "ice40" else 0)
    assert estimate_cells >= 0.9 * cells


def test_icebreaker_demo_bitstream_end_to_end(tmp_path):
    """yosys + nextpnr-ice40 + icepack from PyPI: the iCEBreaker demo, default network."""
    from cubenoc.boards.flow import build_demo
    from cubenoc.build import network_for
    import argparse
    board = get_board("icebreaker")
    plan = network_for(board, argparse.Namespace(family=None, n=None, k=None, payload=None, depth=None))
    rep = build_demo(board, plan, build_dir=tmp_path)
    _check_build(rep, board)
    assert rep.bitstream.suffix == ".bin" and rep.bitstream.stat().st_size == 104090   # a UP5K image
    report = json.loads((tmp_path / "icebreaker" / "top.report.json").read_text())
    assert report["utilization"]["ICESTORM_LC"]["available"] == 5280


def _smallest(name, tmp_path):
    """``name``'s demo on the smallest network, Q(1) (2 nodes), through the whole flow."""
    from cubenoc.boards.boards import demo_depth
    from cubenoc.boards.flow import build_demo
    board = get_board(name)
    topo = Hypercube(1)
    rep = build_demo(board, plan_of(topo, EcubeRouting(topo), RouterConfig(payload_width=16,
                                                                           fifo_depth=demo_depth(board.family))),
                     build_dir=tmp_path)
    _check_build(rep, board, estimate_bound=False)
    assert rep.bitstream.suffix == "." + board.bitstream
    assert "Fmax (nextpnr)" in rep.text()       # what cubenoc build prints
    return rep


def test_ecp5_bitstream_smallest_network(tmp_path):
    """synth_ecp5, nextpnr-ecp5 and ecppack from PyPI on the ULX3S-25F (the platform's plan runs without
    openFPGALoader)."""
    _smallest("ulx3s-25f", tmp_path)


def test_gowin_bitstream_smallest_network(tmp_path):
    """synth_gowin, nextpnr-himbaechel-gowin and apycula's gowin_pack from PyPI on the Tang Nano 9K: a .fs
    bitstream, Fmax and utilisation from nextpnr's report."""
    rep = _smallest("tang-nano-9k", tmp_path)
    assert rep.utilisation["LUT4"][1] == 8640
    assert set(rep.bitstream.read_bytes()[:4000]) <= set(b"01\n")     # a .fs file: lines of 0 and 1


def _every_board():
    from cubenoc.boards.boards import all_boards
    return list(all_boards())


@pytest.mark.slow
@pytest.mark.parametrize("name", _every_board())
def test_every_board_builds_its_default_demo(tmp_path, name):
    """Each listed board's default demo through its whole flow: a bitstream, nextpnr's report, timing met at
    the board clock (tens of CPU minutes in all)."""
    import argparse

    from cubenoc.boards.flow import build_demo
    from cubenoc.build import network_for
    board = get_board(name)
    plan = network_for(board, argparse.Namespace(family=None, n=None, k=None, payload=None, depth=None))
    _check_build(build_demo(board, plan, build_dir=tmp_path), board)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ulx3s-25f", "colorlight-5a75b"])
def test_ecp5_demo_bitstreams(tmp_path, name):
    """The ECP5 flow end to end (synth_ecp5, nextpnr-ecp5, ecppack; the ULX3S/Colorlight plans run
    without openFPGALoader) on a 4-node Q(2) demo, a few minutes each; the boards' default 16-node
    demos take ~4 CPU minutes each and are recorded in docs/performance.md."""
    from cubenoc.boards.flow import build_demo
    board = get_board(name)
    topo = Hypercube(2)
    rep = build_demo(board, plan_of(topo, EcubeRouting(topo), RouterConfig(payload_width=16, fifo_depth=4)),
                     build_dir=tmp_path)
    _check_build(rep, board)
    assert rep.bitstream.suffix == ".bit"


def test_fixed_route_bits_take_logic_out_of_the_router(tmp_path):
    """yosys on Q(3)'s router (W = 16, UP5K): with the fixed route bits (docs/router.md) the route bits no
    output reads leave the FIFOs and the constant ones the crossbar, so fewer LUT4s and flip-flops than the
    same router with none fixed."""
    from cubenoc.boards.synth import synth_router
    from cubenoc.rtl.router import Router
    topo = Hypercube(3)
    routing = EcubeRouting(topo)
    plain = Router(plan_of(topo, routing, RouterConfig(payload_width=16)), 0)
    plain.fixed_bits = {}
    fixed, none = (synth_router(r, "up5k", tmp_path / name, pnr=False)
                   for name, r in (("fixed", Router(plan_of(topo, routing, RouterConfig(payload_width=16)), 0)), ("none", plain)))
    assert fixed.lut4 < none.lut4 and fixed.ff < none.ff


def test_balanced_goal_sits_between_speed_and_area_on_the_ice40(tmp_path):
    """yosys on Q(3)'s router without counters (W = 16, UP5K): ABC9 with the 4 ns target maps it in fewer
    LUT4s than with none (speed duplicates logic for the shortest paths) and in no fewer than with the
    8 ns target (area); the netlist's flip-flops are the same."""
    from cubenoc.boards.synth import synth_router
    from cubenoc.rtl.router import Router
    topo = Hypercube(3)
    routing = EcubeRouting(topo)
    speed, balanced, area = (synth_router(Router(plan_of(topo, routing, RouterConfig(payload_width=16, counters=False)), 0), "up5k",
                                          tmp_path / goal, pnr=False, goal=goal) for goal in ("speed", "balanced", "area"))
    assert area.lut4 <= balanced.lut4 < speed.lut4
    assert area.ff == balanced.ff == speed.ff


def test_nextpnr_that_runs_past_its_limit_is_stopped_with_a_note(tmp_path):
    """A real nextpnr run on Q(2)'s router given 0.05 s: stopped, no Fmax, the note says so; yosys' counts
    are kept."""
    from cubenoc.boards.synth import synth_router
    from cubenoc.rtl.router import Router
    topo = Hypercube(2)
    res = synth_router(Router(plan_of(topo, EcubeRouting(topo), RouterConfig(payload_width=16)), 0), "up5k", tmp_path, pnr_timeout=0.05)
    assert res.fmax_mhz is None and res.lut4 > 0
    assert res.note == "nextpnr did not finish in 0.05 s at seed 1 (stopped)"


def test_gowin_target_synthesises_its_default_router(tmp_path, capsys):
    """``synth-report --targets gowin --no-pnr``: synth_gowin on Q(2)'s router built as the gowin default
    (sim/router_config.py): the FIFO entries in shadow SRAM (RAM16SDP*), LUT1-4 counted as LUT4s."""
    code = main(["synth-report", "--family", "hypercube", "--n", "2", "--targets", "gowin", "--no-pnr",
                 "--work-dir", str(tmp_path), "--json", "--no-progress"])
    rows = json.loads(capsys.readouterr().out)
    assert code == 0 and len(rows) == 1
    row = rows[0]
    assert row["target"] == "gowin" and row["synth"] == "area" and row["fifo_memory"] and not row["loopback"]
    assert row["lut4"] > 100 and row["lutram"] > 0 and row["ff"] < 200


def test_gowin_board_demo_routers_start_from_the_gowin_default():
    import argparse

    from cubenoc.build import network_for
    config = network_for(get_board("tang-nano-9k"), argparse.Namespace(family=None, n=None, k=None, payload=None,
                                                                       depth=None)).config
    assert config.fifo_memory is True and config.counters is False and config.loopback is True
