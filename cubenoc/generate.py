"""Generate a network's Verilog: the top, one file per distinct router module, a JSON/markdown port map.

``cubenoc generate enhanced --n 4 --k 0 -o out/``, ``cubenoc generate hypercube --n 3``, ``... metacube --k 1
--m 2``, ``... pdn --set 0,1,3,9`` (``--delta 3``, ``--product 2,2``), ``... hin --level1 bh:3 --level2 ccc:2``
(docs/families.md). The
microarchitecture is docs/router.md; the port names are in the written ``<top>.md``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tqdm import tqdm

from .errors import CubenocError
from .netargs import add_family_flags, add_router_flags, check_size, router_config, spec_from_args, with_router_flags
from .options import add
from .outputs import clean_stale, say, working, writable_dir, write_file
from .rtl import tools
from .sim.axis_frames import check_payload
from .sim.network_plan import plan_of
from .sim.router_config import target_default
from .tb.axis_testbench import testbench_text


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("network", metavar="NETWORK", nargs="?", help="a network spec (pdn:set=0,1,3,9, enhanced:n=4,k=0, "
                   "hin:level1=bh:3,level2=ccc:2, a preset such as q60) or a family name (hypercube, enhanced, "
                   "metacube, pdn, hin) with the flags below; docs/networks.md")
    add_family_flags(p)
    add_router_flags(p)
    add(p, "target")
    p.add_argument("--testbench", action="store_true",
                   help="also write test_<top>.py, a cocotb test driving the AXI4-Stream top with cocotbext-axi "
                        "against the cycle-accurate model (docs/verification.md); needs --interface axis")
    p.add_argument("--flat", action="store_true", help="expose the local ports as vectors indexed by node")
    p.add_argument("--lint", action="store_true",
                   help="run verilator --lint-only -Wall on the result with its waiver file <top>.vlt (docs/ip.md "
                        "\"Packaging\"): errors exit 1, warnings are listed")
    add(p, "out", default="out")
    add(p, "quiet")


def network_spec(args):
    """The catalog spec of the arguments: NETWORK (spec, preset or family + flags) and the router flags
    --queues/--pipeline/--broadcast, which add to the spec's own options (docs/networks.md)."""
    if not args.network:
        raise CubenocError("give the network: a spec (pdn:set=0,1,3,9), a preset (q4) or a family name with flags "
                           "(hypercube --n 4), or --config FILE.toml")
    spec = spec_from_args(args.network, args)
    return with_router_flags(spec, args)


def run(args) -> int:
    from .rtl.emit import write_network
    spec = network_spec(args)
    topo, routing = spec.build("rtl")
    writable_dir(args.out, "-o/--out")
    check_size(spec, topo, routing, "generate")
    config = router_config(args, spec, target_default(getattr(args, "target", None)), routing)
    plan = plan_of(topo, routing, config)           # every option and its combination checked here
    if getattr(args, "testbench", False) and plan.config.interface != "axis":
        raise CubenocError("--testbench writes a test of the AXI4-Stream top: add --interface axis")
    if plan.config.interface == "axis":
        check_payload(plan.config.payload_width, topo.num_nodes)
        if args.flat:
            raise CubenocError("--flat exposes the routers' flit streams: it does not take --interface axis")
    bar = tqdm(desc="generate", unit="file", file=sys.stderr, disable=getattr(args, "quiet", False) or None,
               leave=False)

    def progress(done, total, what):
        bar.total = total
        bar.n = done
        bar.set_postfix_str(what, refresh=True)
    gen = write_network(plan, args.out, flat=args.flat, progress=progress, spec=spec)
    bar.close()
    say(f"{topo!r}, {routing.name} routing" + (f" + {plan.broadcast.name}" if plan.broadcast is not None else "") +
          f"; router: {plan.config.describe()}" + (f" (target {args.target})" if getattr(args, "target", None) else "") +
          f": top module {gen.top}, {len(set(gen.network.module_names))} router module(s)")
    written = gen.verilog + [gen.describe_json, gen.describe_md] + gen.packaging
    if getattr(args, "testbench", False):
        written.append(write_testbench(gen, spec.with_config(plan.config)))
    for path in written:                           # notes: --quiet writes the files and says nothing
        say(f"  {path}")
    clean_stale(args.out, written, "generate", gen.top)   # a rerun of this top: the last run's other files go
    if args.lint:
        with working(f"verilator --lint-only ({len(gen.verilog)} files)", getattr(args, "quiet", False)):
            res = tools.verilator_lint(gen.verilog, gen.top, gen.waivers)
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(res.by_kind.items()))
        print(f"verilator --lint-only -Wall {gen.waivers.name}: {res.errors} errors, {res.warnings} warnings"
              + (f" ({kinds})" if kinds else ""))
        for line in res.log.splitlines():
            if line.startswith("%Warning"):
                print(f"  {line}")
        if res.errors:
            print(res.log)
            return 1
    return 0


def write_testbench(gen, spec) -> Path:
    """``test_<top>.py`` beside the Verilog: the AXI4-Stream kit (tb/axis_testbench.py)."""
    from .rtl.network_top import axis_digits
    a = gen.network.axis
    path = gen.describe_json.parent / f"test_{gen.top}.py"
    write_file(path, testbench_text(gen.top, str(spec), a.num_nodes, axis_digits(a.num_nodes), a.payload_width // 8,
                                   a.dest_width, a.broadcast, a.fifo_depth), "-o/--out")
    return path
