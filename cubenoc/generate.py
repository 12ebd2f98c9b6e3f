"""Generate a network's Verilog: the top, one file per distinct router module, a JSON/markdown port map.

``cubenoc generate enhanced --n 4 --k 0 -o out/``, ``cubenoc generate hypercube --n 3``, ``... metacube --k 1
--m 2``, ``... pdn --set 0,1,3,9`` (``--delta 3``, ``--product 2,2``), ``... hin --level1 bh:3 --level2 ccc:2``
(docs/families.md). The
microarchitecture is docs/router.md; the port names are in the written ``<top>.md``.
"""
from __future__ import annotations

import argparse

from .errors import CubenocError, require_int


def _hypercube(args):
    from .sim.routing.hypercube import EcubeRouting
    from .sim.topology import Hypercube
    if args.k is not None:
        raise CubenocError("--k applies to the enhanced hypercube only (use: generate enhanced --n N --k K)")
    topo = Hypercube(require_int(args.n, "n", 1, 16))
    return topo, EcubeRouting(topo)


def _enhanced(args):
    from .sim.routing.hypercube import EcubeRouting
    from .sim.topology import EnhancedHypercube
    topo = EnhancedHypercube(require_int(args.n, "n", 2, 16), 0 if args.k is None else args.k)
    return topo, EcubeRouting(topo)


def _metacube(args):
    from .sim.routing.metacube import MetacubeRouting
    from .sim.topology.metacube import Metacube
    if args.k is None or args.m is None:
        raise CubenocError("metacube needs --k (class bits, 1..4) and --m (cluster dimension), e.g. --k 1 --m 2")
    topo = Metacube(args.k, args.m)
    require_int(topo.n, "address bits m*2^k+k", 1, 16)
    return topo, MetacubeRouting(topo, shortest=args.shortest)


def _pdn(args):
    """Options as `cubenoc analyze pdn`: --set S or --delta D (registry), --zero-free; --product D1,D0
    builds the product of registry PDNs with dimension-order routing; --bipartite the host/switch form."""
    from .sim.analysis.pdn import _select_set
    from .sim.routing.pdn import (AdaptivePDNRouting, BipartitePDNRouting, DimensionOrderPDNRouting,
                                  ObliviousPDNRouting)
    from .sim.topology.pdn import BipartitePDN, PerfectDifferenceNetwork, ProductPDN
    if args.product:
        try:
            orders = [int(t) for t in args.product.split(",")]
        except ValueError:
            raise CubenocError(f"--product takes comma-separated orders like 2,2, got {args.product!r}") from None
        topo = ProductPDN(orders)
        return topo, DimensionOrderPDNRouting(topo)
    pds = _select_set(args)
    if args.bipartite:
        topo = BipartitePDN(pds)
        return topo, BipartitePDNRouting(topo)
    topo = PerfectDifferenceNetwork(pds)
    if args.routing in (None, "oblivious"):
        return topo, ObliviousPDNRouting(topo)
    if args.routing == "adaptive":
        return topo, AdaptivePDNRouting(topo, prefer=args.prefer)
    if args.routing == "availability":          # Algorithm 2 with the run-time selection (docs/router.md)
        return topo, AdaptivePDNRouting(topo, prefer=args.prefer, selection="availability")
    raise CubenocError(f"pdn --routing must be oblivious, adaptive or availability, got {args.routing!r}")


def _hin(args):
    """Options as `cubenoc analyze hin`: --level1 bh:3, --level2 ccc[:SIZE], --nodes N, --replication R."""
    from .sim.routing.hierarchical import BalancedHierarchicalRouting, HierarchicalRouting
    from .sim.topology.hierarchical import hierarchical_from_spec
    if "," in str(args.level2):
        raise CubenocError(f"generate builds one network: --level2 takes one family (bh, br, cc, ccc, "
                           f"optionally :SIZE), got {args.level2!r}")
    topo = hierarchical_from_spec(args.level1, args.level2, args.nodes, args.replication)
    if args.routing in (None, "ecube"):
        return topo, HierarchicalRouting(topo)
    if args.routing == "balanced":
        return topo, BalancedHierarchicalRouting(topo)
    if args.routing == "least_used":            # Sec. IV-B with the run-time selection (docs/router.md)
        return topo, BalancedHierarchicalRouting(topo, selection="least_used")
    raise CubenocError(f"hin --routing must be ecube, balanced or least_used, got {args.routing!r}")


#: family -> args -> (topology, routing function); later families add their entry here
FAMILIES = {
    "hypercube": _hypercube,
    "enhanced": _enhanced,
    "metacube": _metacube,
    "pdn": _pdn,
    "hin": _hin,
}


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
    p.add_argument("family", choices=sorted(FAMILIES), help="network family")
    p.add_argument("--n", type=int, default=4, help="cube dimension (default 4; at most 16: 16-bit destinations)")
    p.add_argument("--k", type=int, default=None, help="skip parameter of Q(n, k), 0..n-2 (default 0)")
    p.add_argument("--m", type=int, default=None, help="metacube: cluster dimension m (with --k = class bits)")
    p.add_argument("--shortest", action="store_true", help="metacube: skip classes with nothing to correct")
    p.add_argument("--set", metavar="S", help="pdn: a perfect difference set, e.g. 0,1,3,9 (0-free sets allowed)")
    p.add_argument("--delta", type=int, help="pdn: the registry's normal-form set of this order")
    p.add_argument("--zero-free", action="store_true", help="pdn: the 0-free PDN of the set plus 1 (Definition 4)")
    p.add_argument("--product", metavar="D1,D0", help="pdn: product of registry PDNs of these orders "
                   "(dimension-order routing), e.g. 2,2 for the 7x7 2-D PDN")
    p.add_argument("--bipartite", action="store_true", help="pdn: the bipartite host/switch form")
    p.add_argument("--routing", default=None, help="pdn: oblivious (Algorithm 1, default), adaptive "
                   "(Algorithm 2, preferred candidate) or availability (Algorithm 2 selected at run time); "
                   "hin: ecube (default), balanced (Sec. IV-B, fixed pick) or least_used (run-time selection)")
    p.add_argument("--faults", action="store_true", help="link_fault/node_fault inputs and discarded "
                   "counters (docs/router.md, run-time faults); always on with a run-time selection")
    p.add_argument("--prefer", default="forward", choices=("forward", "backward"),
                   help="pdn adaptive: the preferred first chord")
    p.add_argument("--level1", default="bh:3", help="hin: cluster network bh:d or cc:n (default bh:3)")
    p.add_argument("--level2", default="bh:2", help="hin: level-2 network bh, br, cc or ccc, optionally :SIZE "
                   "(default bh:2); without a size it follows --nodes")
    p.add_argument("--nodes", type=int, default=None, help="hin: total nodes (sizes level 2 when it has no :SIZE)")
    p.add_argument("--replication", type=int, default=1, help="hin: parallel level-2 links per level-2 edge")
    p.add_argument("--payload", type=int, default=32, help="payload width W in bits, at least 16 (default 32)")
    p.add_argument("--depth", type=int, default=4, help="input FIFO depth (default 4)")
    p.add_argument("--queues", choices=("fifo", "voq"), default="fifo", help="input queues: one FIFO per input "
                   "(per VC; default) or one per output chosen by lookahead routing (docs/router.md, VOQ)")
    p.add_argument("--pipeline", action="store_true", help="the pipelined router: two registered stages per hop "
                   "(route, then arbitrate + traverse), 2 cycles/hop, for clock speed (docs/router.md)")
    p.add_argument("--flat", action="store_true", help="expose the local ports as vectors indexed by node")
    p.add_argument("--broadcast", action="store_true", help="routers fork broadcasts (dest 0xFFFF): Algorithm B/D "
                   "(hypercube/enhanced), Sec. 4.2 (metacube), Algorithm 3 (pdn); docs/router.md")
    p.add_argument("--arbitration", default="round-robin", choices=("round-robin", "fair"),
                   help="output arbiters: round-robin (default) or fair (weighted by the sources behind each "
                        "input; unicast routers with a fixed route; docs/router.md \"Arbitration\")")
    p.add_argument("--lint", action="store_true", help="run verilator --lint-only -Wall -Wno-fatal on the result")
    p.add_argument("-o", "--out", default="out", help="output folder (default out/)")


def run(args) -> int:
    from .rtl.emit import write_network
    from .rtl.flit import check_payload_width
    topo, routing = FAMILIES[args.family](args)
    check_payload_width(args.payload)
    require_int(args.depth, "fifo depth", 1, 64)
    check_buildable(topo, routing, args.queues, args.pipeline)
    extra = {} if args.queues == "fifo" else {"queues": args.queues}
    if getattr(args, "arbitration", "round-robin") != "round-robin":
        extra["arbitration"] = args.arbitration
    if args.pipeline:
        extra["pipeline"] = True
    if getattr(args, "broadcast", False):
        from .sim.broadcast.fork import broadcast_algorithm_for, check_broadcast
        extra["broadcast"] = broadcast_algorithm_for(topo)
        check_broadcast(extra["broadcast"], routing)
    from .sim.model.voq import check_queues
    check_queues(args.queues, routing, extra.get("broadcast"))      # before any router is built
    from .sim.model.pipeline import check_pipeline
    check_pipeline(args.pipeline, routing, extra.get("broadcast"), args.faults, args.queues)
    gen = write_network(topo, routing, args.out, payload_width=args.payload, fifo_depth=args.depth,
                        flat=args.flat, **({"faults": True} if args.faults else {}), **extra)
    print(f"{topo!r}, {routing.name} routing" + (f" + {extra['broadcast'].name}" if "broadcast" in extra else "") +
          (f", {args.queues} queues" if args.queues != "fifo" else "") + (", pipelined" if args.pipeline else "") +
          (f", {extra['arbitration']} arbitration" if "arbitration" in extra else "") +
          f": top module {gen.top}, "
          f"{len(set(gen.network.module_names))} router module(s)")
    for path in gen.verilog + [gen.describe_json, gen.describe_md]:
        print(f"  {path}")
    if args.lint:
        from .rtl.tools import verilator_lint
        res = verilator_lint(gen.verilog, gen.top)
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(res.by_kind.items()))
        print(f"verilator --lint-only -Wall: {res.errors} errors, {res.warnings} warnings ({kinds})")
        if res.errors:
            print(res.log)
            return 1
    return 0
