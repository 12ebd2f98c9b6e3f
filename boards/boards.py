"""The supported boards, their status pins and capacities, and the size estimate of a demo design.

=================  =====================  =========  ======  ==============================================
name               amaranth-boards        device     clock   status pins
=================  =====================  =========  ======  ==============================================
icebreaker         ICEBreakerPlatform     iCE40UP5K  12 MHz  green LED heartbeat, red LED error, break-off
                                                             PMOD LED 2 (LD2) traffic; UART on the FTDI
ulx3s-25f/45f/85f  ULX3S_*_Platform       LFE5U-*F   25 MHz  LEDs 0/1/2 heartbeat/traffic/error; UART (FTDI)
colorlight-5a75b   Colorlight_5A75B_R70   LFE5U-25F  25 MHz  UART TX on the board's only LED pin (J19)
=================  =====================  =========  ======  ==============================================

:func:`estimate` predicts a demo's LUT4 and flip-flop use from the per-router figures that
``cubenoc synth-report`` measures (docs/performance.md), before any tool runs; :func:`check_fits`
turns "does not fit" into a :class:`CubenocError`.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from cubenoc.errors import CubenocError

from ..rtl.flit import link_flit_layout


@dataclass(frozen=True)
class Board:
    name: str
    platform: str                       # "module:Class" in amaranth_boards
    family: str                         # ice40 | ecp5
    device: str
    lut4: int                           # LUT4 (iCE40: logic cells) available
    ff: int
    leds: dict = field(default_factory=dict)   # role -> (resource, number)
    extra_resources: str | None = None  # attribute of the platform class to add (break-off PMOD)
    programmers: tuple = ()             # (tool, [args before the bitstream]) in order of preference
    bitstream: str = "bin"              # file extension of the bitstream to flash
    default_network: tuple = ("hypercube", 3, None, 16, 4)   # family, n, k, payload width, FIFO depth
    note: str = ""
    #: ``--safety``: panel button role (select, toggle, clear) -> (resource, number); the LEDs showing the
    #: selected node's level (LSB first) and the one lit when the selected node is faulty
    buttons: dict = field(default_factory=dict)
    level_leds: tuple = ()
    faulty_led: tuple | None = None

    def make_platform(self):
        mod, cls = self.platform.split(":")
        plat = getattr(importlib.import_module(f"amaranth_boards.{mod}"), cls)()
        if self.extra_resources:
            plat.add_resources(getattr(plat, self.extra_resources))
        return plat


def _ulx3s(size: str, lut: int, family: str, n: int, k: int | None = None) -> Board:
    return Board(f"ulx3s-{size.lower()}", f"ulx3s:ULX3S_{size}_Platform", "ecp5", f"LFE5U-{size}", lut, lut,
                 leds={"heartbeat": ("led", 0), "traffic": ("led", 1), "error": ("led", 2)},
                 programmers=(("openFPGALoader", ["-b", "ulx3s", "-f"]),), bitstream="bit",
                 default_network=(family, n, k, 16, 4),
                 buttons={"select": ("button_right", 0), "toggle": ("button_fire", 0), "clear": ("button_fire", 1)},
                 level_leds=(("led", 4), ("led", 5), ("led", 6), ("led", 7)), faulty_led=("led", 3))


BOARDS = {b.name: b for b in [
    Board("icebreaker", "icebreaker:ICEBreakerPlatform", "ice40", "iCE40UP5K", 5280, 5280,
          leds={"heartbeat": ("led_g", 0), "error": ("led_r", 0), "traffic": ("led", 2)},
          extra_resources="break_off_pmod",
          programmers=(("iceprog", []), ("openFPGALoader", ["-b", "icebreaker", "-f"])), bitstream="bin",
          default_network=("hypercube", 2, None, 16, 2),
          buttons={"select": ("button", 1), "toggle": ("button", 2), "clear": ("button", 3)},
          level_leds=(("led", 3), ("led", 4), ("led", 5)), faulty_led=("led", 6),
          note="iCE40 UP5K: 5,280 logic cells, 12 MHz; the 4-node Q(2, 0) or Q(3) demos need 6,200+ cells"),
    _ulx3s("25F", 24288, "hypercube", 4),
    _ulx3s("45F", 43848, "enhanced", 4, 0),
    _ulx3s("85F", 83640, "hypercube", 5),
    Board("colorlight-5a75b", "colorlight_5a75b_r7_0:Colorlight_5A75B_R70Platform", "ecp5", "LFE5U-25F",
          24288, 24288, leds={}, programmers=(("openFPGALoader", ["-c", "ft232", "-f"]),), bitstream="bit",
          default_network=("hypercube", 4, None, 16, 4),
          note="the only LED shares its pin with UART TX (J19): the report is on the UART, the LED flickers "
               "with it; programming needs a JTAG cable on J27"),
]}


def check_safety_board(board: Board, topology) -> None:
    """``--safety`` needs buttons and enough level LEDs on the board (and a hypercube: boards/demo.py)."""
    from .demo import safety_dimension
    n = safety_dimension(topology)
    if not board.buttons:
        raise CubenocError(f"--safety is not supported on {board.name}: it has no buttons and LEDs for the fault "
                           f"panel; boards with it: {', '.join(b.name for b in BOARDS.values() if b.buttons)}")
    if len(board.level_leds) < n.bit_length():
        raise CubenocError(f"--safety on {board.name}: levels 0..{n} need {n.bit_length()} LEDs, the board "
                           f"has {len(board.level_leds)} free")


def get_board(name: str) -> Board:
    if name not in BOARDS:
        raise CubenocError(f"unsupported board {name!r}; supported boards: {', '.join(BOARDS)}")
    return BOARDS[name]


# ---- size estimate -------------------------------------------------------------------------------
#: Per-router LUT4 = a * inputs + b * inputs * Wf + c * crossbar_inputs * Wf (Wf = link flit bits,
#: crossbar_inputs = allowed (input, output) turns), least-squares fit to `cubenoc synth-report`
#: (Q(3..5) routers, W = 32) and to Q(2)/Q(3) routers at W = 16, iCE40 (residuals under 5 %).
#: ECP5 keeps the FIFOs in distributed RAM (TRELLIS_DPR16X4) and needs no flip-flops for them; counted
#: in nextpnr's TRELLIS_COMB sites (LUT4 + carry + RAM + feed-throughs) a router takes about what the
#: iCE40 model says (ULX3S-25F Q(4) demo: 15,590 sites, estimate 17,928).
ROUTER_MODEL = {"ice40": (74.0, 1.89, 0.94, 1.0), "ecp5": (74.0, 1.89, 0.94, 1.0)}
#: LUT4 and FF of one traffic generator + checker pair and of the demo's shared logic (UART, reporter,
#: divider, totals), from yosys synth_ice40 of each block (W = 16)
TRAFFIC_PER_NODE = {"ice40": (200, 120), "ecp5": (200, 120)}
DEMO_FIXED = {"ice40": (520, 620), "ecp5": (520, 620)}
#: iCE40 logic cells ~ LUT4 + 0.78 FF (fitted to the iCEBreaker builds: FIFO flip-flops rarely pack
#: with their LUT); placement needs some slack
ICE40_FF_CELLS = 0.78
USABLE = 0.95


def router_estimate(topology, routing, node: int, payload_width: int, fifo_depth: int, family: str) -> tuple[int, int]:
    """(LUT4, FF) of one router, from the fitted model (iCE40 FF: FIFO storage + pointers + state)."""
    from ..sim.routing.turns import allowed_matrix
    allowed = allowed_matrix(routing, node)
    wf = link_flit_layout(routing, payload_width).size
    used_in = sum(1 for row in allowed if any(row))
    xbar_inputs = sum(1 for row in allowed for ok in row if ok)
    a, b, c, scale = ROUTER_MODEL[family]
    lut = scale * (used_in * (a + b * wf) + c * xbar_inputs * wf * max(1.0, fifo_depth / 4) ** 0.5)
    V = routing.num_vcs
    lut *= vc_factor(V)
    storage = V * fifo_depth * wf if family == "ice40" else 0
    ff = used_in * (storage + V * (2 * max(1, fifo_depth.bit_length()) + 8)) + 64
    return int(lut), int(ff)


def vc_factor(vcs: int) -> float:
    """LUT4 of a V-VC router over the one-VC router with the same ports and turns: 1.95 for V = 2, 3.1 for
    V = 3 (`cubenoc synth-report`: MC(1,2) 1.8-1.9x, BH/BR interface 2.1x, MC(2,1) 3.15x; rounded up)."""
    return 1 + 0.95 * (vcs - 1) + 0.1 * (vcs - 1) * (vcs - 2)


#: the --safety panel (boards/safety_demo.py): per node an SL(1) unit (docs/safety_hw.md "Cost":
#: 30-60 LUT4), its two UART digits and snapshot registers; fixed: three debouncers, select/fault
#: registers. yosys synth_ice40 of the panel alone: 104 LUT4 + 42 carry, 67 FF (n = 2); 475 + 124, 125 (n = 4);
#: the iCEBreaker Q(2) demo with the panel: +199 LUT4, +82 FF, +230 logic cells over the plain demo
SAFETY_PER_NODE = (36, 9)
SAFETY_FIXED = (60, 50)


def estimate(topology, routing, payload_width: int, fifo_depth: int, family: str,
             safety: bool = False) -> tuple[int, int]:
    """(LUT4, FF) of the whole demo: routers + a generator/checker per node + shared logic (+ the
    --safety panel). Routers of one shape (rtl/router/ ``Router.shape_key``) are estimated once."""
    from ..sim.routing.turns import allowed_matrix
    lut = ff = 0
    seen: dict = {}
    for v in topology.nodes():
        key = (topology.num_ports(v), tuple(map(tuple, allowed_matrix(routing, v))))
        if key not in seen:
            seen[key] = router_estimate(topology, routing, v, payload_width, fifo_depth, family)
        rl, rf = seen[key]
        lut, ff = lut + rl, ff + rf
    n = topology.num_nodes
    tl, tf = TRAFFIC_PER_NODE[family]
    dl, df = DEMO_FIXED[family]
    lut, ff = lut + n * tl + dl, ff + n * tf + df
    if safety:
        lut += n * SAFETY_PER_NODE[0] + SAFETY_FIXED[0]
        ff += n * SAFETY_PER_NODE[1] + SAFETY_FIXED[1]
    return lut, ff


def check_fits(board: Board, topology, routing, payload_width: int, fifo_depth: int,
               safety: bool = False) -> tuple[int, int]:
    """Raise :class:`CubenocError` when the demo cannot fit ``board``'s device; else the estimate."""
    lut, ff = estimate(topology, routing, payload_width, fifo_depth, board.family, safety)
    # iCE40: a logic cell holds one LUT4 and one FF; ECP5 counts them apart
    need = max(lut, ff) if board.family == "ecp5" else int(lut + ICE40_FF_CELLS * ff)
    cap = int(board.lut4 * USABLE)
    hint = (", --payload 16" if payload_width > 16 else "") + \
        (", --depth 2" if board.family == "ice40" and fifo_depth > 2 else "")
    if need > cap:
        raise CubenocError(
            f"{topology!r}{' + safety panel' if safety else ''} with W={payload_width}, FIFO depth {fifo_depth}"
            f"{f', {routing.num_vcs} VCs' if routing.num_vcs > 1 else ''} needs about {lut} LUT4 and {ff} FF "
            f"(estimate from the synthesis report), more than the {board.device} on {board.name} offers "
            f"({board.lut4}); try a smaller network{hint}")
    return lut, ff
