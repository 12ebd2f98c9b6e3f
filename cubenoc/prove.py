"""Prove the routers of a network with SymbiYosys from pip (docs/formal.md).

``cubenoc prove --family hypercube --n 2``: for every router shape of the network, the output arbiters
are proved fair by k-induction, the router's stream rules, conservation, wormhole exclusivity and status
counters are model checked to a stated depth (BMC) for every input sequence a legal upstream can send,
and the route units are checked against the routing function by exhaustive simulation. Each property is
listed as proved (induction), bounded (depth) or exhaustive; a failure names the property and writes a
counterexample VCD. Exit 0: all hold; 1: a property failed; 2: bad input or an unsupported network.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from types import SimpleNamespace

from .errors import require_int

#: family -> the network proved by default, a catalog spec (the smallest of the family that has every router
#: shape); ``--size`` is synth-report's shorthand for a spec (``synth_report.size_spec``)
PROVE_NETWORKS = {"hypercube": "hypercube:n=2", "enhanced": "enhanced:n=3,k=0", "pdn": "pdn:set=0,1,3",
                  "metacube": "metacube:k=1,m=1"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("networks", nargs="*", metavar="NETWORK", help="networks as catalog specs (hypercube:n=2, "
                   "pdn:set=0,1,3; docs/networks.md), the same as --network")
    p.add_argument("--family", nargs="+", default=["hypercube"], choices=list(PROVE_NETWORKS),
                   help="router families (default hypercube); hin routers are not supported")
    p.add_argument("--size", nargs="+", default=None,
                   help="sizes as synth-report takes them, e.g. 2 | 4,0 | 0,1,3,9 | 1,2 (default: "
                   + ", ".join(PROVE_NETWORKS.values()) + ")")
    p.add_argument("--network", nargs="+", metavar="SPEC", default=None,
                   help="networks as catalog specs instead of --family/--size (hypercube:n=2, pdn:set=0,1,3; "
                        "docs/networks.md)")
    p.add_argument("--n", type=int, nargs="+", default=None, help="hypercube/enhanced sizes (same as --size N)")
    p.add_argument("--depth", type=int, default=10, help="BMC depth in cycles (default 10)")
    p.add_argument("--fifo-depth", type=int, default=2, help="input FIFO depth of the proved routers (default 2)")
    p.add_argument("--work-dir", default="build/prove", help="solver runs and counterexample VCDs (default build/prove)")
    p.add_argument("--broadcast", action="store_true",
                   help="prove the broadcast routers (the family's broadcast algorithm; forks leave by their fork sets)")
    p.add_argument("--json", action="store_true", help="print the outcomes as JSON")


def run(args) -> int:
    from .sim.router_config import RouterConfig
    from .synth_report import networks, router_shapes
    from .netargs import one_network
    from .outputs import writable_dir
    args.network = one_network(args.networks, args.network) or None
    depth = require_int(args.depth, "--depth", 2, 40)
    fifo_depth = require_int(args.fifo_depth, "--fifo-depth", 1, 8)
    writable_dir(args.work_dir, "--work-dir")
    if args.network is None and args.size is None and args.n is None:      # each family's default network
        from .sim.catalog import NetworkSpec
        specs = [NetworkSpec.parse(PROVE_NETWORKS[f]) for f in args.family]
        nets = [(sp.family, sp.short_label(t), t, r) for sp in specs for t, r in [sp.build("rtl")]]
    else:                                        # --network specs, or --family/--size through the catalog
        nets = networks(SimpleNamespace(family=args.family, size=args.size, n=args.n, network=args.network,
                                        command="prove"))
    from .rtl.formal.plan import prove_network, supported
    plans = []
    for fam, label, topo, routing in nets:            # refuse what is not supported before any solver runs
        alg = None
        if args.broadcast:
            from .sim.broadcast.fork import broadcast_algorithm_for, check_broadcast
            alg = broadcast_algorithm_for(topo)
            check_broadcast(alg, routing)
            label += f" {alg.name}"
        shapes = [(s.node, s.nodes, s.router) for s in
                  router_shapes(fam, label, topo, routing, RouterConfig(fifo_depth=fifo_depth, broadcast=alg or False))]
        for _node, _count, router in shapes:
            supported(label, routing, router)
        plans.append((label, topo, routing, shapes, alg))

    def show(o) -> None:
        if args.json:
            return
        where = "" if o.shape == "all" else f"{o.shape}: "
        line = f"{o.network}  {where}{o.property:<40} {o.status.upper():<10} {o.detail}"
        if o.seconds:
            line += f"  {o.seconds:.1f} s"
        tqdm.write(line)                     # above the spinner of the check that runs next
        if o.failed:
            tqdm.write(f"    broken: {', '.join(o.failed)}" + (f"; counterexample: {o.trace}" if o.trace else ""))

    from tqdm import tqdm

    from .outputs import working
    t0 = time.monotonic()
    outcomes = []
    for label, topo, routing, shapes, alg in plans:
        with working(f"prove {label} ({len(shapes)} router shape(s); a check can take a minute or two)", args.json):
            outcomes += prove_network(label, topo, routing, shapes, args.work_dir, depth=depth,
                                      fifo_depth=fifo_depth, broadcast=alg, report=show)
    failed = [o for o in outcomes if o.status == "failed"]
    if args.json:
        print(json.dumps({"outcomes": [o.as_dict() for o in outcomes], "failed": len(failed),
                          "seconds": round(time.monotonic() - t0, 1)}, indent=2))
    else:
        print(f"{len(outcomes) - len(failed)} of {len(outcomes)} checks hold"
              + (f"; {len(failed)} FAILED" if failed else "") + f" ({time.monotonic() - t0:.0f} s; solver runs "
              f"in {args.work_dir})")
    if failed:
        print(f"cubenoc prove: {len(failed)} propert{'y' if len(failed) == 1 else 'ies'} failed", file=sys.stderr)
    return 1 if failed else 0
