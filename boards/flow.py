"""Build a board's demo bitstream (and flash it): what ``cubenoc build`` runs.

``build_demo(board, plan, ...)`` (``plan``: the network and its routers): checks the estimate
(:func:`~cubenoc.boards.boards.check_fits`), points Amaranth at the toolchain
(:func:`~cubenoc.boards.toolchain.use_toolchain`), prepares the platform's build plan (``do_build=False``:
the ULX3S and Colorlight platforms would otherwise insist on openFPGALoader being installed even without
programming) and runs it in ``build/<board>/``. nextpnr
writes ``top.report.json`` (``--report``): Fmax per clock and the device utilisation. ``goal``: what yosys
optimises for, boards/synth.py ``SYNTH_GOALS`` (the platform's ``script_after_read``/``synth_opts``).
"""
from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from amaranth import ClockDomain, DomainRenamer, Elaboratable, Module, ResetSignal, Signal
from amaranth.lib import io

from cubenoc.errors import CubenocError, ToolError

from .boards import Board, check_fits, check_safety_board
from .demo import DemoTop
from .synth import fmax_from_report, utilisation_from_report
from .toolchain import Programmer, find_programmer, programmer_problem, use_toolchain


class BoardDemo(Elaboratable):
    """:class:`~cubenoc.boards.demo.DemoTop` wired to a board's LEDs and UART."""

    def __init__(self, board: Board, plan, *, rate: int, safety: bool = False):
        self.board, self.plan = board, plan
        self.kw = dict(rate=rate, safety=safety)

    def make_demo(self, platform) -> DemoTop:
        return DemoTop(self.plan, clk_freq=self.board.demo_clock_hz, **self.kw)

    def elaborate(self, platform):
        m = Module()
        demo = self.make_demo(platform)
        divider = int(self.board.clock_divider)
        if divider > 1:     # a board clock above the demo's Fmax: the demo runs in a divided clock domain (its
            # constraint: nextpnr's --freq, the one for clocks without their own, boards/flow.py build_demo)
            m.domains.demo = cd = ClockDomain("demo", local=True)
            count = Signal(range(divider // 2))
            with m.If(count == divider // 2 - 1):
                m.d.sync += [count.eq(0), cd.clk.eq(~cd.clk)]
            with m.Else():
                m.d.sync += count.eq(count + 1)
            m.d.comb += cd.rst.eq(ResetSignal("sync", allow_reset_less=True))
            m.submodules.demo = DomainRenamer("demo")(demo)
        else:
            m.submodules.demo = demo
        pins = Pins(m, platform)
        for role, pin in self.board.leds.items():        # boards/boards.py: which LED shows what
            m.d.comb += pins.output(*pin).eq(getattr(demo, role))
        if self.board.uart:
            m.d.comb += pins.output("uart", 0, "tx").eq(demo.tx)
        if demo.panel is not None:       # --safety: buttons -> fault panel, LEDs <- selected node's level
            for role, (res, num) in self.board.buttons.items():
                m.d.comb += getattr(demo, f"btn_{role}").eq(pins.input(res, num))
            for bit, (res, num) in enumerate(self.board.level_leds):
                if bit < len(demo.level):
                    m.d.comb += pins.output(res, num).eq(demo.level[bit])
            if self.board.faulty_led:
                m.d.comb += pins.output(*self.board.faulty_led).eq(demo.selected_faulty)
        return m


class Pins:
    """A board's pins through ``lib.io`` buffers: a resource is requested once (``dir="-"``), every one of
    its outputs gets a buffer (an RGB LED's unused colours stay driven, off); ``output(resource, number)``
    or ``output(resource, number, "r")`` (one subsignal) is the buffer's ``o``, ``input`` its ``i``."""

    def __init__(self, m: Module, platform):
        self.m, self.platform, self.buffers = m, platform, {}

    def _buffers(self, res, num, direction):
        if (res, num) not in self.buffers:
            port = self.platform.request(res, num, dir="-")
            subs = vars(port) if not isinstance(port, io.PortLike) else {None: port}
            bufs = {}
            for name, p in subs.items():
                bufs[name] = io.Buffer(direction if name is None else
                                       ("o" if p.direction is io.Direction.Output else "i"), p)
                self.m.submodules[f"pin_{res}_{num}" + (f"_{name}" if name else "")] = bufs[name]
            self.buffers[res, num] = bufs
        return self.buffers[res, num]

    def output(self, res, num, sub=None):
        return self._buffers(res, num, "o")[sub].o

    def input(self, res, num, sub=None):
        return self._buffers(res, num, "i")[sub].i


@dataclass
class BuildReport:
    board: str
    build_dir: Path
    bitstream: Path
    fmax_mhz: float | None
    clock_mhz: float
    utilisation: dict = field(default_factory=dict)
    estimate: tuple = (0, 0)
    seconds: float = 0.0

    def text(self, estimate: bool = True) -> str:
        """The report; ``estimate=False`` leaves out the estimate (``cubenoc build`` said it before the build)."""
        lines = [f"bitstream: {self.bitstream}  ({self.seconds:.0f} s)"]
        for k, (used, avail) in sorted(self.utilisation.items()):
            share = f"({100.0 * used / avail:4.1f} %)" if avail else "(no site: Gowin's TBUF, an IOB's output)"
            lines.append(f"  {k:<16} {used:>6} / {avail:<6} {share}")
        fm = f"{self.fmax_mhz:.1f} MHz" if self.fmax_mhz else "unknown"
        lines.append(f"Fmax (nextpnr): {fm}; demo clock {self.clock_mhz:g} MHz"
                     + ("" if not self.fmax_mhz or self.fmax_mhz >= self.clock_mhz else "  ** TIMING NOT MET **"))
        if estimate:
            lines.append(f"estimate before the build: {self.estimate[0]} LUT4, {self.estimate[1]} FF")
        return "\n".join(lines)


def build_demo(board: Board, plan, *, rate: int = 64, build_dir: str | Path = "build", toolchain: str = "yowasp",
               seed: int = 1, safety: bool = False, goal: str = "area") -> BuildReport:
    """The demo of ``plan``'s network and routers on ``board``."""
    from .synth import PNR_PLACE, goal_lines
    before, opts = goal_lines(board.family, goal)            # a bad goal fails before any tool runs
    if safety:
        check_safety_board(board, plan.topology)
    est = check_fits(board, plan, safety)
    use_toolchain(board.family, toolchain)
    t0 = time.monotonic()
    platform = board.make_platform()
    out = Path(build_dir) / board.name
    name = output_name(safety)                   # the safety build does not overwrite the plain one's files
    top = BoardDemo(board, plan, rate=rate, safety=safety)
    pnr_opts = " ".join(["--report", f"{name}.report.json", "--seed", str(seed), *PNR_PLACE[board.family],
                         "--freq", f"{board.demo_clock_hz / 1e6:g}"])
    plan = platform.build(top, name=name, do_build=False, nextpnr_opts=pnr_opts,
                          **({"script_after_read": before} if before else {}), **({"synth_opts": opts} if opts else {}))
    try:
        plan.execute_local(str(out))
    except subprocess.CalledProcessError as exc:
        raise ToolError(f"the {board.name} build failed (exit {exc.returncode}); logs in {out}/{name}.rpt and "
                           f"{out}/{name}.tim") from None
    report = json.loads((out / f"{name}.report.json").read_text())
    return BuildReport(board.name, out, out / f"{name}.{board.bitstream}", fmax_from_report(report),
                       board.demo_clock_hz / 1e6, utilisation_from_report(report), est,
                       time.monotonic() - t0)


def programmers(board: Board) -> dict[str, list]:
    """The programmers that can flash ``board``, in order of preference, each with its arguments before the
    bitstream: openFPGALoader with the board's arguments (written to its flash: ``-f``), iceprog where
    amaranth-boards programs the board with it."""
    progs = {}
    if board.programmer:
        progs["openFPGALoader"] = [*board.programmer, "-f"]
    if board.program_tool == "iceprog":
        progs["iceprog"] = []
    return progs


def output_name(safety: bool = False) -> str:
    """The name of a build's files in ``build/<board>/``: ``top`` (``top.bin``), ``top_safety`` for the
    fault-injection demo, so the two builds of one board keep their own bitstreams."""
    return "top_safety" if safety else "top"


def check_programmer(board: Board, safety: bool = False) -> Programmer:
    """The programmer ``--program`` will run, or a :class:`CubenocError` that says what is missing (called
    before the build starts)."""
    progs = programmers(board)
    bitstream = f"build/{board.name}/{output_name(safety)}.{board.bitstream}"
    if not progs:
        raise CubenocError(f"cannot program {board.name}: openFPGALoader has no board name for it here and "
                           f"amaranth-boards programs it with {board.program_tool or 'no tool'}; build without "
                           f"--program and flash {bitstream} with that")
    prog = find_programmer(tuple(progs))
    problem = programmer_problem(prog, tuple(progs))
    if problem:
        raise CubenocError(f"cannot program {board.name}: {problem} (or build without --program and flash {bitstream})")
    return prog


def program(board: Board, bitstream: Path, prog: Programmer | None = None) -> str:
    """Flash ``bitstream`` with ``prog`` (default: :func:`check_programmer`); the command line it ran."""
    prog = prog or check_programmer(board)
    cmd = [str(prog.path), *programmers(board)[prog.name], str(bitstream)]
    proc = subprocess.run(cmd)
    if proc.returncode != 0:
        raise ToolError(f"{' '.join(cmd)} failed with exit status {proc.returncode}")
    return " ".join(cmd)
