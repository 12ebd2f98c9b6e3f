"""Synthesis (yosys) and place-and-route (nextpnr) of one router, for ``cubenoc synth-report``.

Area: the bare router (node 0 of the network) through ``synth_ice40`` / ``synth_ecp5``, counted with
``stat -json``: LUT4 (iCE40 ``SB_LUT4``, ECP5 ``LUT4``), flip-flops, carry cells (``SB_CARRY``;
``CCU2C``, each two LUT4s of a slice that are not counted as LUT4), block RAMs, distributed RAMs, DSP blocks.

Fmax: a router has hundreds of port bits, more than any package has pins, so nextpnr places the router
inside a harness: every router input is a flip-flop of a shift chain fed from one pin, every router
output is registered and folded by a pipelined XOR tree (one LUT4 level per register stage) into one
pin. Every path into and out of the router thus starts or ends at a flip-flop, as it does in a
network (a link's far end is the neighbour's input FIFO). The harness paths are one LUT deep, so they
do not set the Fmax. nextpnr runs with ``--freq`` above what the part can do and
``--timing-allow-fail``; the achieved frequency is what it reports. Placement options per family:
``PNR_PLACE`` (also in board builds).
"""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from amaranth import Cat, Module, Signal, Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from cubenoc.errors import CubenocError, ToolError
from cubenoc.interrupt import TOOL
from cubenoc.options import TARGET_ALIASES, fpga_target  # noqa: F401  (re-exported)
from cubenoc.rtl.area import count

from .toolchain import find_tool

#: target -> (nextpnr tool, nextpnr device options, requested MHz)
TARGETS = {
    "up5k": ("nextpnr-ice40", ["--up5k", "--package", "sg48", "--pcf-allow-unconstrained"], 100),
    "ecp5-25f": ("nextpnr-ecp5", ["--25k", "--package", "CABGA256", "--speed", "6", "--lpf-allow-unconstrained"], 250),
    # the Tang Nano 9K's GW1NR-9C (nextpnr-himbaechel's Gowin architecture, boards/toolchain.py)
    "gowin": ("nextpnr-himbaechel", ["--device", "GW1NR-LV9QN88PC6/I5", "--vopt", "family=GW1N-9C"], 250),
}
TARGET_FAMILY = {"up5k": "ice40", "ecp5-25f": "ecp5", "gowin": "gowin"}
#: TARGET_ALIASES, fpga_target: the names every command takes for these parts (cubenoc/options.py)


#: pins of the harness's ports where nextpnr refuses unconstrained IO (Gowin: the Tang Nano 9K's clock pin,
#: two button pins and an LED pin), written to ``harness.cst``
HARNESS_PINS = {"gowin": {"clk": "52", "rst": "4", "sin": "3", "sout": "10"}}
#: what ``cubenoc synth-report`` runs without ``--targets`` (the parts of docs/performance.md's table)
DEFAULT_TARGETS = ("up5k", "ecp5-25f")
#: nextpnr placement options per family, in synth-report and in board builds. iCE40: clock enables stay on
#: the fabric (``--no-promote-ce``): nextpnr otherwise gives the widest ones a global buffer, and a FIFO head
#: register's load enable (one grant -> pop -> enable path of the one-cycle router) then ran 5.7 ns to the
#: buffer at the die's edge and 2.3 ns through it (docs/decisions/one-cycle-router-clock.md)
PNR_PLACE = {"ice40": ["--no-promote-ce"], "ecp5": [], "gowin": []}

#: what yosys optimises for: goal -> family -> (script before ``synth_<family>``, its options); the same
#: lines in synth-report and in board builds (Amaranth's ``script_after_read`` / ``synth_opts`` overrides).
#: "speed" is yosys' own default: ABC maps for the shortest logic depth, duplicating logic for it, and on the
#: ECP5 builds 5-7-input LUTs from LUT4 pairs and slice muxes (PFUMX, L6MUX21). "area": on both families
#: ABC9 gets a delay target (``abc9.D``, ps) that every path of a router meets, so it maps for area, and the
#: ECP5 gets LUT4s alone (``-nowidelut``). "balanced": on the iCE40 a 4 ns target, about the depth-mapped
#: length of a one-cycle router without counters (ABC keeps the longer paths as short as it can and maps the
#: rest for area); on the ECP5 LUT4s alone with ABC9's own delay mapping (the "area" of before 2026-11-25:
#: the target costs the ECP5 router clock). Figures: docs/decisions/synthesis-goal.md. Gowin
#: (``synth_gowin``) maps with ABC9 into wide LUTs as the ECP5 does and takes the ECP5's lines.
_WIDE_LUT_GOALS = {"speed": ("", ""), "balanced": ("", "-nowidelut"), "area": ("scratchpad -set abc9.D 8000", "-nowidelut")}
SYNTH_GOALS = {
    goal: {"ice40": ice40, **{family: _WIDE_LUT_GOALS[goal] for family in ("ecp5", "gowin")}}
    for goal, ice40 in (("speed", ("", "")), ("balanced", ("scratchpad -set abc9.D 4000", "")),
                        ("area", ("scratchpad -set abc9.D 8000", "")))
}


def goal_lines(family: str, goal: str) -> tuple[str, str]:
    """``(script before synth_<family>, its options)`` of ``goal`` (``SYNTH_GOALS``); a clear error for another goal."""
    if goal not in SYNTH_GOALS:
        raise CubenocError(f"synthesis goal must be one of {', '.join(SYNTH_GOALS)}, got {goal!r}")
    return SYNTH_GOALS[goal][family]


def synth_script(family: str, goal: str, top: str) -> str:
    """The yosys commands that synthesise ``top`` for ``family`` with ``goal``."""
    before, opts = goal_lines(family, goal)
    return (f"{before}; " if before else "") + " ".join(filter(None, (f"synth_{family}", opts, f"-top {top}")))

#: yosys cell types -> report column: rtl/area.py CELL_CLASSES and count(), the one cell counting


class RouterHarness(wiring.Component):
    """Shift-chain inputs, registered XOR-folded outputs: a router with two data pins."""

    def __init__(self, router):
        self.router = router
        super().__init__({"sin": In(1), "sout": Out(1)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.router = r = self.router
        ins, outs = [], []
        for path, member, value in r.signature.flatten(r):
            (ins if member.flow == In else outs).append(Value.cast(value))
        width_in = sum(len(v) for v in ins)
        chain = Signal(width_in)
        m.d.sync += chain.eq(Cat(self.sin, chain[:-1]))
        m.d.comb += Cat(*ins).eq(chain)
        level = Signal(sum(len(v) for v in outs))
        m.d.sync += level.eq(Cat(*outs))
        while len(level) > 1:                    # XOR 4 bits per LUT, one register per level
            nxt = Signal((len(level) + 3) // 4)
            m.d.sync += [nxt[i].eq(level[4 * i:4 * i + 4].xor()) for i in range(len(nxt))]
            level = nxt
        m.d.comb += self.sout.eq(level[0])
        return m


@dataclass
class SynthResult:
    target: str
    lut4: int
    ff: int
    carry: int
    bram: int
    lutram: int
    fmax_mhz: float | None
    seconds: float
    cells: dict = field(default_factory=dict)
    note: str = ""          # e.g. "does not fit": nextpnr could not place the router on the device
    dsp: int = 0            # DSP blocks (the UP5K's SB_MAC16: ``Router(counters="dsp")``)

    def as_dict(self) -> dict:
        return asdict(self)


class TargetPlatform:
    """What a unit reads of the Amaranth platform when elaborated for ``target`` (its ``family``: e.g. the
    crossbar's LUT4 primitives on the iCE40, rtl/gates.py ``lut_primitive``), as a board build would see it."""

    def __init__(self, target: str):
        self.family = TARGET_FAMILY[target]


def _rtlil(design, name: str, target: str | None = None) -> str:
    from amaranth.back import rtlil
    os.environ["AMARANTH_USE_YOSYS"] = "builtin"
    return rtlil.convert(design, name=name, platform=TargetPlatform(target) if target else None)


class ToolTimeout(ToolError):
    """A tool did not finish in the time it was given (it was stopped)."""


def _run(cmd: list, cwd: Path, log: Path, timeout: float | None = None) -> None:
    with open(log, "w") as fh:
        try:
            proc = subprocess.run(cmd, cwd=cwd, stdout=fh, stderr=subprocess.STDOUT, timeout=timeout, **TOOL)
        except subprocess.TimeoutExpired:
            raise ToolTimeout(f"{Path(cmd[0]).name} did not finish in {timeout:g} s (stopped); log {log}") from None
    if proc.returncode != 0:
        tail = log.read_text()[-2000:]
        raise ToolError(f"{Path(cmd[0]).name} failed (exit {proc.returncode}); log {log}:\n{tail}")


def count_cells(stat_json: dict, family: str, top: str) -> tuple[dict, dict]:
    """``(column counts, raw cell counts)`` from yosys ``stat -json``."""
    mods = stat_json.get("modules", {})
    cells = (mods.get(f"\\{top}") or mods.get(top) or stat_json.get("design") or {}).get("num_cells_by_type", {})
    return count(cells, family), dict(cells)


#: how a result's note starts when nextpnr was stopped (``pnr_timeout``): synth-report does not cache it
STOPPED = "nextpnr did not finish"

#: what nextpnr says when the router and its harness do not fit the device
NO_FIT = ("no BELs remaining", "Unable to place", "Unable to find legal placement")


def synth_router(router, target: str, workdir: Path, *, toolchain: str = "yowasp", pnr: bool = True,
                 seed: int = 1, router_il: str | None = None, goal: str = "speed",
                 pnr_timeout: float | None = None) -> SynthResult:
    """Area of ``router`` on ``target`` (``up5k`` or ``ecp5-25f``) and, with ``pnr``, its Fmax; yosys
    optimising for ``goal`` (``SYNTH_GOALS``). ``router_il``: the router's RTLIL if the caller has already
    converted it (``_rtlil(router, "router", target)``). ``pnr_timeout`` (s): nextpnr is stopped after it,
    the result has no Fmax and says so in ``note`` (nextpnr can take far longer on one seed than on the
    next)."""
    if target not in TARGETS:
        raise CubenocError(f"target must be one of {', '.join(TARGETS)}, got {target!r}")
    pnr_tool, pnr_opts, freq = TARGETS[target]
    family = TARGET_FAMILY[target]
    synth_script(family, goal, "router")                       # a bad goal fails before any tool runs
    workdir.mkdir(parents=True, exist_ok=True)
    yosys = str(find_tool("yosys", toolchain))
    t0 = time.monotonic()
    (workdir / "router.il").write_text(router_il or _rtlil(router, "router", target))
    _run([yosys, "-q", "-p", f"read_rtlil router.il; {synth_script(family, goal, 'router')}; tee -q -o router_stat.json stat -json"],
         workdir, workdir / "router_yosys.log")
    counts, cells = count_cells(json.loads((workdir / "router_stat.json").read_text()), family, "router")
    fmax, note = None, ""
    if pnr:
        (workdir / "harness.il").write_text(_rtlil(RouterHarness(router), "harness", target))
        _run([yosys, "-q", "-p", f"read_rtlil harness.il; {synth_script(family, goal, 'harness')} -json harness.json"],
             workdir, workdir / "harness_yosys.log")
        pins = HARNESS_PINS.get(target, {})
        if pins:
            (workdir / "harness.cst").write_text("".join(f'IO_LOC "{port}" {pin};\n' for port, pin in pins.items()))
            pnr_opts = [*pnr_opts, "--vopt", "cst=harness.cst"]
        try:
            _run([str(find_tool(pnr_tool, toolchain)), *pnr_opts, *PNR_PLACE[family], "--json", "harness.json", "--freq", str(freq),
                  "--timing-allow-fail", "--seed", str(seed), "--report", "report.json", "-q",
                  "--log", "nextpnr.log"], workdir, workdir / "nextpnr.out", timeout=pnr_timeout)
        except ToolTimeout:
            note = f"{STOPPED} in {pnr_timeout:g} s at seed {seed} (stopped)"
        except RuntimeError:
            log = (workdir / "nextpnr.out").read_text()
            if not any(text in log for text in NO_FIT):
                raise
            note = f"does not fit the {target} (router + harness)"
        else:
            fmax = fmax_from_report(json.loads((workdir / "report.json").read_text()))
    return SynthResult(target, counts["lut4"], counts["ff"], counts["carry"], counts["bram"], counts["lutram"],
                       fmax, time.monotonic() - t0, cells, note, counts["dsp"])


def fmax_from_report(report: dict) -> float | None:
    """The slowest clock domain's achieved frequency in a nextpnr ``--report`` JSON."""
    values = [v.get("achieved") for v in report.get("fmax", {}).values() if v.get("achieved")]
    return min(values) if values else None


def utilisation_from_report(report: dict) -> dict:
    return {k: (v.get("used"), v.get("available")) for k, v in report.get("utilization", {}).items()
            if v.get("used")}


def scratch_dir(prefix: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=prefix))
