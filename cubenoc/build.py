"""Build the on-board traffic demo bitstream for a board (and flash it with --program).

``cubenoc build --board icebreaker`` (default network of the board) or ``--family hypercube --n 3
--payload 16 --depth 4``; writes ``build/<board>/top.bin`` (iCE40) or ``top.bit`` (ECP5) and prints the
utilisation and nextpnr's Fmax. See docs/boards.md.
"""
from __future__ import annotations

import argparse

from .errors import CubenocError, require_int

#: families the board demo builds (the size estimate is fitted to their routers); metacube, PDN and
#: hierarchical networks join when their routers are in the synthesis report and the estimate
BUILD_FAMILIES = ("hypercube", "enhanced")


def add_arguments(p: argparse.ArgumentParser) -> None:
    from .boards.boards import BOARDS
    from .generate import FAMILIES
    p.add_argument("--board", required=True, help=f"target board: {', '.join(BOARDS)}")
    p.add_argument("--family", choices=[f for f in BUILD_FAMILIES if f in FAMILIES], default=None,
                   help="network family (default: the board's demo network)")
    p.add_argument("--n", type=int, default=None, help="cube dimension")
    p.add_argument("--k", type=int, default=None, help="skip parameter of Q(n, k)")
    p.add_argument("--payload", type=int, default=None, help="payload width W, at least 16 (default 16)")
    p.add_argument("--depth", type=int, default=None, help="input FIFO depth (default: the board's, 2 or 4)")
    p.add_argument("--rate", type=int, default=64,
                   help="injection rate: packets started per 256 idle cycles per node, 0..256 (default 64)")
    p.add_argument("--toolchain", choices=["yowasp", "system"], default="yowasp",
                   help="yowasp: the PyPI tools in this venv (default); system: yosys/nextpnr on PATH")
    p.add_argument("--build-dir", default="build", help="parent folder of build/<board>/ (default build)")
    p.add_argument("--seed", type=int, default=1, help="nextpnr placement seed (default 1)")
    p.add_argument("--program", action="store_true", help="flash the board (openFPGALoader or iceprog)")
    p.add_argument("--estimate-only", action="store_true", help="print the size estimate, run no tool")


def network_for(board, args):
    """(topology, routing, payload, depth) from the arguments, or the board's demo network."""
    from .generate import FAMILIES
    fam, n, k, payload, depth = board.default_network
    if args.family is not None or args.n is not None:
        fam = args.family or fam
        n = args.n if args.n is not None else n
        k = args.k
    elif args.k is not None:
        k = args.k
    ns = argparse.Namespace(n=n, k=k)
    topo, routing = FAMILIES[fam](ns)
    payload = args.payload if args.payload is not None else payload
    depth = getattr(args, "depth", None) if getattr(args, "depth", None) is not None else depth
    return topo, routing, payload, depth


def run(args) -> int:
    from .boards.boards import check_fits, get_board
    from .rtl.flit import check_payload_width
    board = get_board(args.board)
    topo, routing, payload, depth = network_for(board, args)
    check_payload_width(payload)
    require_int(depth, "fifo depth", 1, 64)
    require_int(args.rate, "injection rate", 0, 256)
    if topo.num_nodes > 256:
        raise CubenocError(f"the traffic demo supports at most 256 nodes (8-bit source ids), got {topo.num_nodes}")
    lut, ff = check_fits(board, topo, routing, payload, depth)
    print(f"{board.name} ({board.device}): {topo!r}, W={payload}, FIFO depth {depth}; "
          f"estimate {lut} LUT4, {ff} FF of {board.lut4}")
    if args.estimate_only:
        return 0
    from .boards.flow import build_demo, program
    rep = build_demo(board, topo, routing, payload_width=payload, fifo_depth=depth, rate=args.rate,
                     build_dir=args.build_dir, toolchain=args.toolchain, seed=args.seed)
    print(rep.text())
    if args.program:
        print("programmed:", program(board, rep.bitstream))
    return 0
