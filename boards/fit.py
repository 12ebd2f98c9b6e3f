"""Will a demo network fit a board (boards/boards.py)? :func:`estimate` predicts a demo's LUT4 and flip-flop use
from the per-router figures that ``cubenoc synth-report`` measures (docs/performance.md) before any tool runs;
:func:`check_fits` turns "does not fit" into a :class:`CubenocError`.
"""
from __future__ import annotations

from cubenoc.errors import CubenocError

from ..rtl.flit import link_flit_layout
from ..sim.router_config import TARGETS, target_default


# ---- size estimate -------------------------------------------------------------------------------
#: Per-router LUT4 = a * inputs + b * inputs * Wf + c * crossbar_inputs * Wf (Wf = link flit bits,
#: crossbar_inputs = allowed (input, output) turns), least-squares fit to `cubenoc synth-report`
#: (Q(3..5) routers, W = 32) and to Q(2)/Q(3) routers at W = 16, iCE40 (residuals under 5 %).
#: ECP5 keeps the FIFOs in distributed RAM (TRELLIS_DPR16X4) and needs no flip-flops for them; counted
#: in nextpnr's TRELLIS_COMB sites (LUT4 + carry + RAM + feed-throughs) a router takes about what the
#: iCE40 model says (ULX3S-25F Q(4) demo: 15,590 sites, estimate 17,928).
#: Gowin takes the same model (a LUT4 fabric; its Q(1) demo: 1,944 LUT4 cells, estimate 1,466, as on the ECP5).
ROUTER_MODEL = (74.0, 1.89, 0.94, 1.0)
#: LUT4 and FF of one traffic generator + checker pair and of the demo's shared logic (UART, reporter,
#: divider, totals), from yosys synth_ice40 of each block (W = 16)
TRAFFIC_PER_NODE = (200, 120)
DEMO_FIXED = (520, 620)
#: iCE40 logic cells ~ LUT4 + 0.78 FF (fitted to the iCEBreaker builds: FIFO flip-flops rarely pack
#: with their LUT); placement needs some slack
ICE40_FF_CELLS = 0.78
USABLE = 0.95


def router_estimate(plan, node: int, family: str) -> tuple[int, int]:
    """(LUT4, FF) of node ``node``'s router of ``plan``, from the fitted model (iCE40 FF: FIFO storage +
    pointers + state)."""
    routing, payload_width, fifo_depth = plan.routing, plan.config.payload_width, plan.config.fifo_depth
    allowed = plan.allowed_matrix(node)
    wf = link_flit_layout(routing, payload_width).size
    used_in = sum(1 for row in allowed if any(row))
    xbar_inputs = sum(1 for row in allowed for ok in row if ok)
    a, b, c, scale = ROUTER_MODEL
    lut = scale * (used_in * (a + b * wf) + c * xbar_inputs * wf * max(1.0, fifo_depth / 4) ** 0.5)
    V = routing.num_vcs
    lut *= vc_factor(V)
    storage = V * fifo_depth * wf if fifo_in_flip_flops(family) else 0
    ff = used_in * (storage + V * (2 * max(1, fifo_depth.bit_length()) + 8)) + 64
    return int(lut), int(ff)


def fifo_in_flip_flops(family: str) -> bool:
    """Whether the demo's routers on ``family`` keep their FIFO entries in flip-flops (its target default,
    sim/router_config.py ``TARGETS``; the iCE40 has no asynchronous-read RAM)."""
    return family == "ice40" or not target_default(family if family in TARGETS else None).fifo_memory


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


def estimate(plan, family: str, safety: bool = False) -> tuple[int, int]:
    """(LUT4, FF) of the whole demo of ``plan``'s network and routers: routers + a generator/checker per
    node + shared logic (+ the --safety panel). Routers of one shape (rtl/router/ ``Router.shape_key``) are
    estimated once."""
    topology = plan.topology
    lut = ff = 0
    seen: dict = {}
    for v in topology.nodes():
        key = (topology.num_ports(v), tuple(map(tuple, plan.allowed_matrix(v))))
        if key not in seen:
            seen[key] = router_estimate(plan, v, family)
        rl, rf = seen[key]
        lut, ff = lut + rl, ff + rf
    n = topology.num_nodes
    tl, tf = TRAFFIC_PER_NODE
    dl, df = DEMO_FIXED
    lut, ff = lut + n * tl + dl, ff + n * tf + df
    if safety:
        lut += n * SAFETY_PER_NODE[0] + SAFETY_FIXED[0]
        ff += n * SAFETY_PER_NODE[1] + SAFETY_FIXED[1]
    return lut, ff


def fill(board, lut: int, ff: int) -> float:
    """The fraction of ``board``'s device a design of ``lut`` LUT4 and ``ff`` flip-flops takes: on the iCE40 a
    logic cell holds one LUT4 and one FF (LUT4 + 0.78 FF cells); the other families count them apart."""
    if board.family == "ice40":
        return (lut + ICE40_FF_CELLS * ff) / board.lut4
    return max(lut / board.lut4, ff / board.ff)


def check_fits(board, plan, safety: bool = False) -> tuple[int, int]:
    """Raise :class:`CubenocError` when the demo of ``plan`` cannot fit ``board``'s device; else the
    estimate."""
    topology, routing = plan.topology, plan.routing
    payload_width, fifo_depth = plan.config.payload_width, plan.config.fifo_depth
    lut, ff = estimate(plan, board.family, safety)
    need, cap = fill(board, lut, ff), USABLE
    what = f"{board.lut4}" if board.family == "ice40" else \
        f"{board.lut4} LUT4" + (f", {board.ff} FF" if board.ff != board.lut4 else "")
    hint = (", --payload 16" if payload_width > 16 else "") + \
        (", --depth 2" if board.family == "ice40" and fifo_depth > 2 else "")
    if need > cap:
        raise CubenocError(
            f"{topology!r}{' + safety panel' if safety else ''} with W={payload_width}, FIFO depth {fifo_depth}"
            f"{f', {routing.num_vcs} VCs' if routing.num_vcs > 1 else ''} needs about {lut} LUT4 and {ff} FF "
            f"(estimate from the synthesis report), more than the {board.device} on {board.name} offers "
            f"({what}); try a smaller network{hint}")
    return lut, ff


def network_label(network: tuple) -> str:
    fam, n, k, payload, depth = network
    nodes = 2 ** n
    return f"{'Q(%d)' % n if fam == 'hypercube' else 'Q(%d, %d)' % (n, k)} = {nodes} nodes, W = {payload}, depth {depth}"
