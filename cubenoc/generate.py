"""Generate a network's Verilog: the top, one file per distinct router module, a JSON/markdown port map.

``cubenoc generate enhanced --n 4 --k 0 -o out/``, ``cubenoc generate hypercube --n 3``, ``... metacube --k 1
--m 2``, ``... pdn --set 0,1,3,9`` (``--delta 3``, ``--product 2,2``), ``... hin --level1 bh:3 --level2 ccc:2``
(docs/families.md). The
microarchitecture is docs/router.md; the port names are in the written ``<top>.md``.
"""
from __future__ import annotations

import argparse
import sys

from .errors import CubenocError, require_int


def check_buildable(topo, routing, queues: str = "fifo", pipeline: bool = False) -> None:
    """Fail early, in one line, when the router core cannot build this routing function (e.g. it needs
    more virtual channels than rtl/router/ accepts): asks the router itself, nothing hard-coded."""
    from .rtl.router import Router
    from .sim.model.voq import check_queues
    from .sim.model.pipeline import check_pipeline
    check_queues(queues, routing, adaptive=getattr(routing, "selection", None) is not None)
    check_pipeline(pipeline, routing, adaptive=getattr(routing, "selection", None) is not None, queues=queues)
    try:
        probe = Router(topo, routing, 0, queues=queues, pipeline=pipeline)
        probe._MustUse__silence = True        # a probe, never elaborated (no UnusedElaboratable warning)
    except CubenocError as exc:
        if routing.num_vcs > 1 and queues == "fifo" and not pipeline:
            raise CubenocError(f"{topo!r} with {routing.name} routing needs {routing.num_vcs} virtual channels "
                               f"for deadlock freedom and the router core refuses it: {exc}") from None
        raise


def add_arguments(p: argparse.ArgumentParser) -> None:
    from .netargs import add_family_flags
    p.add_argument("network", metavar="NETWORK", nargs="?", help="a network spec (pdn:set=0,1,3,9, enhanced:n=4,k=0, "
                   "hin:level1=bh:3,level2=ccc:2, a preset such as q60) or a family name (hypercube, enhanced, "
                   "metacube, pdn, hin) with the flags below; docs/networks.md")
    add_family_flags(p)
    p.add_argument("--faults", action="store_true", help="link_fault/node_fault inputs and discarded "
                   "counters (docs/router.md, run-time faults); always on with a run-time selection")
    p.add_argument("--payload", type=int, default=32, help="payload width W in bits, at least 16 (default 32)")
    p.add_argument("--depth", type=int, default=4, help="input FIFO depth (default 4)")
    p.add_argument("--queues", choices=("fifo", "voq"), default="fifo", help="input queues: one FIFO per input "
                   "(per VC; default) or one per output chosen by lookahead routing (docs/router.md, VOQ)")
    p.add_argument("--pipeline", action="store_true", help="the pipelined router: two registered stages per hop "
                   "(route, then arbitrate + traverse), 2 cycles/hop, for clock speed (docs/router.md)")
    p.add_argument("--no-counters", action="store_true", help="routers without the four 16-bit status counters "
                   "(fewer LUTs; the status outputs read 0; docs/performance.md \"Router options\")")
    p.add_argument("--no-loopback", action="store_true", help="routers without the local->local turn: a packet "
                   "addressed to its own node is dropped at its source and counted in dropped (fewer LUTs; "
                   "docs/router.md \"Loopback\")")
    p.add_argument("--fifo-memory", action="store_true", help="FIFO storage behind the head register as memory "
                   "arrays, which FPGA tools map to distributed RAM (docs/router.md \"Input FIFO\")")
    p.add_argument("--flat", action="store_true", help="expose the local ports as vectors indexed by node")
    p.add_argument("--broadcast", action="store_true", help="routers fork broadcasts (dest 0xFFFF): Algorithm B/D "
                   "(hypercube/enhanced), Sec. 4.2 (metacube), Algorithm 3 (pdn); docs/router.md")
    p.add_argument("--arbitration", default="round-robin", choices=("round-robin", "fair"),
                   help="output arbiters: round-robin (default) or fair (weighted by the sources behind each "
                        "input; unicast routers with a fixed route; docs/router.md \"Arbitration\")")
    p.add_argument("--lint", action="store_true", help="run verilator --lint-only -Wall -Wno-fatal on the result")
    p.add_argument("-o", "--out", default="out", help="output folder (default out/)")
    p.add_argument("--quiet", action="store_true", help="no progress output")


def network_spec(args):
    """The catalog spec of the arguments: NETWORK (spec, preset or family + flags) and the router flags
    --queues/--pipeline/--broadcast, which add to the spec's own options (docs/networks.md)."""
    from .netargs import spec_from_args, with_router_flags
    if not args.network:
        raise CubenocError("give the network: a spec (pdn:set=0,1,3,9), a preset (q4) or a family name with flags "
                           "(hypercube --n 4), or --config FILE.toml")
    spec = spec_from_args(args.network, args)
    return with_router_flags(spec, args)


def run(args) -> int:
    from .rtl.emit import write_network
    from .rtl.flit import check_payload_width
    spec = network_spec(args)
    args.queues, args.pipeline, args.broadcast = spec.queues, spec.pipeline, spec.broadcast
    topo, routing = spec.build("rtl")
    check_payload_width(args.payload)
    require_int(args.depth, "fifo depth", 1, 64)
    from .outputs import writable_dir
    writable_dir(args.out, "-o/--out")
    check_buildable(topo, routing, args.queues, args.pipeline)
    extra = {} if args.queues == "fifo" else {"queues": args.queues}
    if getattr(args, "arbitration", "round-robin") != "round-robin":
        extra["arbitration"] = args.arbitration
    if args.pipeline:
        extra["pipeline"] = True
    if getattr(args, "no_counters", False):
        extra["counters"] = False
    if getattr(args, "fifo_memory", False):
        extra["fifo_memory"] = True
    if getattr(args, "no_loopback", False):
        extra["loopback"] = False
    if getattr(args, "broadcast", False):
        from .sim.broadcast.fork import broadcast_algorithm_for, check_broadcast
        extra["broadcast"] = broadcast_algorithm_for(topo)
        check_broadcast(extra["broadcast"], routing)
    from .sim.model.voq import check_queues
    check_queues(args.queues, routing, extra.get("broadcast"))      # before any router is built
    from .sim.model.pipeline import check_pipeline
    check_pipeline(args.pipeline, routing, extra.get("broadcast"), args.faults, args.queues)
    from .sim.routing.turns import check_loopback
    adaptive = args.faults or getattr(routing, "selection", None) is not None
    check_loopback(extra.get("loopback", True), extra.get("broadcast"), adaptive, args.queues)
    from tqdm import tqdm
    bar = tqdm(desc="generate", unit="file", file=sys.stderr, disable=getattr(args, "quiet", False) or None,
               leave=False)

    def progress(done, total, what):
        bar.total = total
        bar.n = done
        bar.set_postfix_str(what, refresh=True)
    gen = write_network(topo, routing, args.out, payload_width=args.payload, fifo_depth=args.depth,
                        flat=args.flat, progress=progress, **({"faults": True} if args.faults else {}), **extra)
    bar.close()
    print(f"{topo!r}, {routing.name} routing" + (f" + {extra['broadcast'].name}" if "broadcast" in extra else "") +
          (f", {args.queues} queues" if args.queues != "fifo" else "") + (", pipelined" if args.pipeline else "") +
          (f", {extra['arbitration']} arbitration" if "arbitration" in extra else "") +
          (", no status counters" if "counters" in extra else "") + (", FIFOs in memory" if "fifo_memory" in extra else "") +
          (", no loopback" if "loopback" in extra else "") +
          f": top module {gen.top}, "
          f"{len(set(gen.network.module_names))} router module(s)")
    for path in gen.verilog + [gen.describe_json, gen.describe_md]:
        print(f"  {path}")
    if args.lint:
        from .rtl.tools import verilator_lint
        from .outputs import working
        with working(f"verilator --lint-only ({len(gen.verilog)} files)", getattr(args, "quiet", False)):
            res = verilator_lint(gen.verilog, gen.top)
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(res.by_kind.items()))
        print(f"verilator --lint-only -Wall: {res.errors} errors, {res.warnings} warnings ({kinds})")
        if res.errors:
            print(res.log)
            return 1
    return 0
