"""Build the on-board traffic demo bitstream for a board (and flash it with --program).

``cubenoc build --board icebreaker`` (default network of the board) or any network ``cubenoc generate``
makes: ``--family hypercube --n 3 --payload 16 --depth 4``, ``--family pdn --set 0,1,3``, ``--family metacube
--k 1 --m 1``, ``--family hin --level1 bh:1 --level2 ccc:2``; ``--safety`` adds the fault-injection panel
(hypercube demos). The size estimate refuses a network too large for the board before any tool runs.
Writes ``build/<board>/top.bin`` (iCE40) or ``top.bit`` (ECP5) and prints the utilisation and nextpnr's
Fmax. See docs/boards.md.
"""
from __future__ import annotations

import argparse

from .errors import CubenocError, require_int


def add_arguments(p: argparse.ArgumentParser) -> None:
    from .boards.boards import BOARDS
    from .generate import FAMILIES
    p.add_argument("--board", required=True, help=f"target board: {', '.join(BOARDS)}")
    p.add_argument("--family", choices=sorted(FAMILIES), default=None,
                   help="network family (default: the board's demo network); the options below as in "
                        "`cubenoc generate` (docs/families.md)")
    p.add_argument("--n", type=int, default=None, help="cube dimension")
    p.add_argument("--k", type=int, default=None, help="skip parameter of Q(n, k); metacube: class bits")
    p.add_argument("--m", type=int, default=None, help="metacube: cluster dimension m")
    p.add_argument("--shortest", action="store_true", help="metacube: skip classes with nothing to correct")
    p.add_argument("--set", metavar="S", help="pdn: a perfect difference set, e.g. 0,1,3 (0-free sets allowed)")
    p.add_argument("--delta", type=int, help="pdn: the registry's normal-form set of this order")
    p.add_argument("--zero-free", action="store_true", help="pdn: the 0-free PDN of the set plus 1")
    p.add_argument("--product", metavar="D1,D0", help="pdn: product of registry PDNs (dimension-order routing)")
    p.add_argument("--bipartite", action="store_true", help=argparse.SUPPRESS)     # refused: switches have no traffic
    p.add_argument("--routing", default=None, help="pdn: oblivious|adaptive; hin: ecube|balanced")
    p.add_argument("--prefer", default="forward", choices=("forward", "backward"), help="pdn adaptive preference")
    p.add_argument("--level1", default="bh:3", help="hin: cluster network (default bh:3)")
    p.add_argument("--level2", default="bh:2", help="hin: level-2 network (default bh:2)")
    p.add_argument("--nodes", type=int, default=None, help="hin: total nodes")
    p.add_argument("--replication", type=int, default=1, help="hin: parallel level-2 links")
    p.add_argument("--payload", type=int, default=None, help="payload width W, at least 16 (default 16)")
    p.add_argument("--depth", type=int, default=None, help="input FIFO depth (default: the board's, 2 or 4)")
    p.add_argument("--rate", type=int, default=64,
                   help="injection rate: packets started per 256 idle cycles per node, 0..256 (default 64)")
    p.add_argument("--pipeline", action="store_true", help="the pipelined router (2 cycles/hop, docs/router.md)")
    p.add_argument("--safety", action="store_true",
                   help="hypercube demos: fault-injection buttons and SL(1) safety levels on LEDs and UART")
    p.add_argument("--toolchain", choices=["yowasp", "system"], default="yowasp",
                   help="yowasp: the PyPI tools in this venv (default); system: yosys/nextpnr on PATH")
    p.add_argument("--build-dir", default="build", help="parent folder of build/<board>/ (default build)")
    p.add_argument("--seed", type=int, default=1, help="nextpnr placement seed (default 1)")
    p.add_argument("--program", action="store_true", help="flash the board (openFPGALoader or iceprog)")
    p.add_argument("--estimate-only", action="store_true", help="print the size estimate, run no tool")


#: generate's options with the values `cubenoc generate` would use when absent
_GENERATE_DEFAULTS = dict(n=None, k=None, m=None, shortest=False, set=None, delta=None, zero_free=False,
                          product=None, bipartite=False, routing=None, prefer="forward", level1="bh:3",
                          level2="bh:2", nodes=None, replication=1)


def network_for(board, args):
    """(topology, routing, payload, depth) from the arguments, or the board's demo network."""
    from .generate import FAMILIES, check_buildable
    fam, n, k, payload, depth = board.default_network
    opts = {key: getattr(args, key, default) for key, default in _GENERATE_DEFAULTS.items()}
    if args.family is not None or args.n is not None:
        fam = args.family or fam
        if opts["n"] is None and fam in ("hypercube", "enhanced"):
            opts["n"] = n
    else:
        opts["n"] = n
        if opts["k"] is None:
            opts["k"] = k
    if fam == "hypercube" and opts["k"] is not None:
        raise CubenocError("--k applies to the enhanced hypercube (--family enhanced) and the metacube")
    if fam == "pdn" and opts["bipartite"]:
        raise CubenocError("the board demo does not support the bipartite PDN: its switch nodes have no local "
                           "port, but every demo node sends and checks traffic; use the plain PDN (--set/--delta)")
    topo, routing = FAMILIES[fam](argparse.Namespace(**opts))
    check_buildable(topo, routing, pipeline=getattr(args, "pipeline", False))
    payload = args.payload if args.payload is not None else payload
    depth = getattr(args, "depth", None) if getattr(args, "depth", None) is not None else depth
    return topo, routing, payload, depth


def run(args) -> int:
    from .boards.boards import check_fits, check_safety_board, get_board
    from .rtl.flit import check_payload_width
    board = get_board(args.board)
    topo, routing, payload, depth = network_for(board, args)
    check_payload_width(payload)
    require_int(depth, "fifo depth", 1, 64)
    require_int(args.rate, "injection rate", 0, 256)
    if topo.num_nodes > 256:
        raise CubenocError(f"the traffic demo supports at most 256 nodes (8-bit source ids), got {topo.num_nodes}")
    safety, pipeline = getattr(args, "safety", False), getattr(args, "pipeline", False)
    if safety and pipeline:
        raise CubenocError("--safety and --pipeline together are not built: the safety panel runs adaptive routers")
    if safety:
        check_safety_board(board, topo)
    lut, ff = check_fits(board, topo, routing, payload, depth, safety)
    print(f"{board.name} ({board.device}): {topo!r}{' + safety panel' if safety else ''}, {routing.name} routing"
          f"{f' ({routing.num_vcs} VCs)' if routing.num_vcs > 1 else ''}, W={payload}, FIFO depth {depth}; "
          f"estimate {lut} LUT4, {ff} FF of {board.lut4}")
    if args.estimate_only:
        return 0
    from .boards.flow import build_demo, program
    rep = build_demo(board, topo, routing, payload_width=payload, fifo_depth=depth, rate=args.rate,
                     build_dir=args.build_dir, toolchain=args.toolchain, seed=args.seed, safety=safety,
                     pipeline=pipeline)
    print(rep.text())
    if args.program:
        print("programmed:", program(board, rep.bitstream))
    return 0
