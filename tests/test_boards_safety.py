"""Fault-injection buttons of the board demo (boards/safety_demo.py): the button inputs are driven in
amaranth.sim and the levels the panel shows, and those the UART line reports, equal sim/safety.py's
SL(1) for the same faults (Wu, Definition 2)."""
from __future__ import annotations

import numpy as np
import pytest
from amaranth.sim import Simulator

from cubenoc.sim.network_plan import plan_of
from cubenoc.sim.router_config import RouterConfig
from cubenoc.boards.demo import DemoTop
from cubenoc.boards.safety_demo import Debouncer, SafetyPanel
from cubenoc.errors import CubenocError
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.safety import compute
from cubenoc.sim.topology import EnhancedHypercube, Hypercube

from test_boards_traffic import _uart_decode

DEB = 3


def _run(dut, bench):
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


def expected_sl1(n: int, faulty: set[int]) -> list[int]:
    N = 1 << n
    nf = np.zeros(N, bool)
    nf[list(faulty)] = True
    return [int(x) for x in compute(nf, np.zeros((N, n), bool), "SL1").level[0]]


async def press(ctx, dut, button: str, hold: int = DEB + 4, gap: int = DEB + 4):
    ctx.set(getattr(dut, f"btn_{button}"), 1)
    await ctx.tick().repeat(hold)
    ctx.set(getattr(dut, f"btn_{button}"), 0)
    await ctx.tick().repeat(gap)


async def select_node(ctx, dut, current: int, target: int, N: int) -> int:
    for _ in range((target - current) % N):
        await press(ctx, dut, "select")
    return target


def test_debouncer_ignores_glitches_and_pulses_once_per_press():
    deb = Debouncer(4)
    pulses = []

    async def bench(ctx):
        for pattern in ([1, 0, 1, 0, 1, 0, 0, 0, 0, 0], [1] * 12 + [0] * 12, [1] * 30 + [0] * 10):
            for bit in pattern:
                ctx.set(deb.raw, bit)
                await ctx.tick()
                pulses.append(ctx.get(deb.press))

    _run(deb, bench)
    assert sum(pulses) == 2                     # the glitches count for nothing, each long press once


# Fault sequences on Q_3 and Q_4 that move every kind of node through several levels (Definition 2):
# a node next to 2 faulty neighbours, the paper's Fig. style clusters, then clearing a fault again.
SCRIPTS = {
    3: [("toggle", 1), ("toggle", 2), ("toggle", 4), ("toggle", 7), ("toggle", 2), ("clear", None)],
    4: [("toggle", 3), ("toggle", 5), ("toggle", 6), ("toggle", 9), ("toggle", 12), ("toggle", 15),
        ("toggle", 5)],
}


@pytest.mark.parametrize("n", [3, 4])
def test_panel_levels_follow_the_buttons_and_equal_sim_safety(n):
    N = 1 << n
    panel = SafetyPanel(n, debounce_cycles=DEB)
    seen = []

    async def bench(ctx):
        sel, faulty = 0, set()
        await ctx.tick().repeat(n + 2)
        assert [ctx.get(panel.level_of(v)) for v in range(N)] == [n] * N      # fault-free: all safe
        for action, node in SCRIPTS[n]:
            if action == "toggle":
                sel = await select_node(ctx, panel, sel, node, N)
                assert ctx.get(panel.selected) == node
                await press(ctx, panel, "toggle")
                faulty ^= {node}
            else:
                await press(ctx, panel, "clear")
                faulty = set()
            await ctx.tick().repeat(n)               # levels settle within n - 1 cycles
            got = [ctx.get(panel.level_of(v)) for v in range(N)]
            assert ctx.get(panel.faults) == sum(1 << v for v in faulty)
            assert ctx.get(panel.level) == got[sel] and ctx.get(panel.selected_faulty) == (sel in faulty)
            seen.append((sorted(faulty), got, expected_sl1(n, faulty)))

    _run(panel, bench)
    for faulty, got, want in seen:
        assert got == want, (faulty, got, want)
    assert len({tuple(g) for _, g, _ in seen}) >= 4          # the script really changes the levels


def test_uart_line_reports_the_levels_of_the_injected_faults():
    """A Q_2 demo with the panel, a tiny clock: toggle nodes 1 and 2 by the buttons; the next UART line
    carries the selected node, the fault bits and the SL(1) digits, equal to sim/safety.py."""
    topo = Hypercube(2)
    top = DemoTop(plan_of(topo, EcubeRouting(topo), RouterConfig(payload_width=16, fifo_depth=2)), clk_freq=40_000,
                  baud=10_000, rate=32, report_period=0.025, safety=True, debounce_cycles=DEB)
    bits, leds = [], {}

    async def bench(ctx):
        sel = 0
        for node in (1, 2):
            sel = await select_node(ctx, top, sel, node, 4)
            await press(ctx, top, "toggle")
        leds.update(level=ctx.get(top.level), faulty=ctx.get(top.selected_faulty))
        cycle = 4 * 2 * (DEB + 4) * 2
        while cycle < 1000 + 100 * 10 * 4 - 10:          # before the next report (cycle 4999)
            bits.append(ctx.get(top.tx))
            await ctx.tick()
            cycle += 1

    _run(top, bench)
    line = _uart_decode(bits, 4)
    assert line.endswith("\r\n") and " err 0 " in line
    fields = line.split(" sel ", 1)[1].split()
    want = expected_sl1(2, {1, 2})
    assert fields == ["2", "faults", "0110", "sl", "".join(map(str, want))]
    assert want == [1, 0, 0, 1]                                  # Definition 2 by hand: 0, 3 see two faults
    assert leds == {"level": 0, "faulty": 1}                     # node 2 selected: faulty, level 0


@pytest.mark.filterwarnings("ignore:.*created but never used")
def test_safety_needs_a_hypercube():
    topo = EnhancedHypercube(3, 0)
    with pytest.raises(CubenocError, match="--safety needs a hypercube"):
        DemoTop(plan_of(topo, EcubeRouting(topo), RouterConfig(payload_width=16)), clk_freq=12e6, safety=True)


@pytest.mark.slow
def test_icebreaker_safety_demo_bitstream(tmp_path):
    """yosys + nextpnr-ice40 + icepack: the Q_2 demo with the fault panel fits the UP5K and meets 12 MHz;
    the estimate that admitted it does not undershoot what nextpnr placed."""
    from cubenoc.boards.boards import ICE40_FF_CELLS, get_board
    from cubenoc.boards.flow import build_demo
    board = get_board("icebreaker")
    topo = Hypercube(2)
    rep = build_demo(board, plan_of(topo, EcubeRouting(topo), RouterConfig(payload_width=16, fifo_depth=2)),
                     build_dir=tmp_path, safety=True)
    cells = rep.utilisation["ICESTORM_LC"][0]
    assert rep.bitstream.exists() and rep.fmax_mhz >= rep.clock_mhz and cells <= board.lut4
    assert rep.estimate[0] + ICE40_FF_CELLS * rep.estimate[1] >= cells
