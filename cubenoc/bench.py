"""Benchmarks: area (yosys), zero-load latency, saturation throughput, model speed.

``cubenoc bench area|latency|throughput|model-speed``. Each benchmark is one entry of ``BENCHES``:
name -> (help, add_arguments(parser), run(args) -> int). Results go to docs/performance.md (the commands
print the markdown table they measured; ``--write`` updates that section of the page where supported).
"""
from __future__ import annotations

import argparse


# ---- area (rtl helper): yosys synth_ice40 / synth_ecp5 per router ----------------------------------
def _area_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--family", default="both", choices=["hypercube", "enhanced", "both"],
                   help="which router family to synthesise (default both)")
    p.add_argument("--n", type=int, nargs="+", default=[3, 4, 5, 6], help="cube dimensions (default 3 4 5 6)")
    p.add_argument("--k", type=int, default=0, help="skip parameter of the enhanced hypercube (default 0)")
    p.add_argument("--payload", type=int, default=32, help="payload width W (default 32)")
    p.add_argument("--depth", type=int, default=4, help="input FIFO depth (default 4)")
    p.add_argument("--targets", nargs="+", default=["ice40", "ecp5"], choices=["ice40", "ecp5"])
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument("--write", metavar="PAGE.md", help="also replace the marked area table in this page "
                   "(docs/performance.md)")


def _area_run(args) -> int:
    from .rtl.area import run_area_bench
    return run_area_bench(args)


# ---- latency, throughput, model-speed (model helper): the cycle-accurate model, sim/model/perf.py ----
def _net_arguments(p: argparse.ArgumentParser, write_default: str | None = None) -> None:
    p.add_argument("--n", type=int, default=6, help="cube dimension (default 6: the 64-node 6-cube)")
    p.add_argument("--k", type=int, default=0, help="skip parameter of the enhanced n-cube (default 0)")
    p.add_argument("--depth", type=int, default=4, help="input FIFO depth (default 4)")
    p.add_argument("--write", metavar="PAGE.md", help="also replace this benchmark's marked section in the "
                   "page (docs/performance.md)")


def _print_and_write(args, name: str, command: str, text: str) -> int:
    from .sim.model.perf import write_section
    body = f"Command: `{command}`\n\n{text}"
    print(body)
    if args.write:
        write_section(args.write, name, body)
        print(f"section '{name}' written to {args.write}")
    return 0


def _latency_arguments(p: argparse.ArgumentParser) -> None:
    _net_arguments(p)
    p.add_argument("--packet-len", type=int, default=4, help="flits per packet for the tail latency (default 4)")


def _latency_run(args) -> int:
    from .sim.model.perf import latency_table, networks
    text = latency_table(networks(args.n, args.k), args.packet_len, args.depth)
    return _print_and_write(args, "latency", f"cubenoc bench latency --n {args.n} --k {args.k}", text)


def _throughput_arguments(p: argparse.ArgumentParser) -> None:
    _net_arguments(p)
    p.add_argument("--packet-len", type=int, nargs="+", default=[1, 4], help="packet lengths (default 1 4)")
    p.add_argument("--loads", type=float, nargs="+", help="offered loads, flits/node/cycle (default 0.1..1.0)")
    p.add_argument("--window", type=int, default=10000, help="measurement window in cycles (default 10000)")
    p.add_argument("--queues", nargs="+", default=["fifo", "voq"], choices=["fifo", "voq", "pipe"],
                   help="router options: one FIFO per input (fifo), per-output queues (voq), the pipelined "
                        "router (pipe, 2 cycles/hop); default fifo voq")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")


def _throughput_run(args) -> int:
    import json

    from .errors import CubenocError
    from .sim.model.perf import networks, throughput_rows, throughput_table
    if args.window < 1 or (args.loads and not all(0 < r <= 1 for r in args.loads)):
        raise CubenocError("--window must be >= 1 and --loads in (0, 1] flits/node/cycle")
    rows = throughput_rows(networks(args.n, args.k), args.packet_len, args.loads, args.depth,
                           window=args.window, queues=args.queues)
    cmd = f"cubenoc bench throughput --n {args.n} --k {args.k}"
    if args.depth != 4:
        cmd += f" --depth {args.depth}"
    if args.queues != ["fifo", "voq"]:
        cmd += " --queues " + " ".join(args.queues)
    if args.loads:
        cmd += " --loads " + " ".join(f"{r:g}" for r in args.loads)
    if args.packet_len != [1, 4]:
        cmd += " --packet-len " + " ".join(map(str, args.packet_len))
    if args.window != 10000:
        cmd += f" --window {args.window}"
    if not args.json:
        return _print_and_write(args, "throughput", cmd, throughput_table(rows))
    print(json.dumps(rows, indent=1))
    if args.write:                  # the markdown section too (the JSON went to stdout)
        from .sim.model.perf import write_section
        write_section(args.write, "throughput", f"Command: `{cmd}`\n\n{throughput_table(rows)}")
    return 0


def _speed_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=int, nargs="+", default=[6, 10, 14],
                   help="cube dimensions (default 6 10 14: 64 to 16,384 nodes; up to 20: 2^20 nodes, ~5 GB)")
    p.add_argument("--family", nargs="+", default=["hypercube"], choices=["hypercube", "enhanced"],
                   help="Q_n and/or Q(n, k) (default hypercube)")
    p.add_argument("--k", type=int, default=0, help="skip parameter of the enhanced n-cube (default 0)")
    p.add_argument("--loads", type=float, nargs="+", default=[0.1], help="offered loads (default 0.1)")
    p.add_argument("--node-cycles", type=float, default=2e7,
                   help="simulated node-cycles per run: cycles = this / nodes, 20..200,000 (default 2e7)")
    p.add_argument("--cycles", type=int, help="simulated cycles per run at every size (overrides --node-cycles)")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    p.add_argument("--write", metavar="PAGE.md", help="also replace this benchmark's marked section in the "
                   "page (docs/performance.md)")


def _speed_run(args) -> int:
    """Whole run (child ``cubenoc simulate``: start-up included) and loop only, CPU and wall, per size
    (sim/speed.py ``scaling_point``); progress on stderr."""
    import json
    import sys

    from .errors import CubenocError
    from .sim.speed import cycles_for, scaling_point, scaling_table
    if not all(1 <= n <= 20 for n in args.n) or not all(0 < r <= 1 for r in args.loads):
        raise CubenocError("--n must be in 1..20 and --loads in (0, 1] flits/node/cycle")
    rows = []
    for fam in args.family:
        for n in args.n:
            for r in args.loads:
                cycles = args.cycles or cycles_for(1 << n, args.node_cycles)
                print(f"model-speed: {fam} n={n} load {r:g}, {cycles:,} cycles ...", file=sys.stderr, flush=True)
                rows.append(scaling_point(fam, n, args.k, r, cycles))
    cmd = (f"cubenoc bench model-speed --family {' '.join(args.family)} --n {' '.join(map(str, args.n))} "
           f"--loads {' '.join(f'{r:g}' for r in args.loads)}" +
           (f" --cycles {args.cycles}" if args.cycles else f" --node-cycles {args.node_cycles:g}"))
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    return _print_and_write(args, "model-speed", cmd, scaling_table(rows))


#: name -> (help, add_arguments, run); the model helper adds latency, throughput, model-speed here
BENCHES = {
    "area": ("router area from yosys synth_ice40/synth_ecp5 for n=3..6", _area_arguments, _area_run),
    "latency": ("zero-load latency (cycles per hop, end to end) from the model", _latency_arguments, _latency_run),
    "throughput": ("saturation throughput under uniform random traffic from the model", _throughput_arguments,
                   _throughput_run),
    "model-speed": ("the model's speed and memory, whole run and loop only, 64 to 2^20 nodes", _speed_arguments,
                    _speed_run),
}


def _families_arguments(p: argparse.ArgumentParser) -> None:
    from .family_bench import add_arguments as families_arguments
    families_arguments(p)


def _families_run(args) -> int:
    from .family_bench import run as families_run
    return families_run(args)


BENCHES["families"] = ("PDN, hierarchical, metacube: latency, saturation throughput, router LUT4/FF",
                       _families_arguments, _families_run)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="bench", required=True, parser_class=type(parser))
    for name, (help_text, add_args, run_fn) in BENCHES.items():
        p = sub.add_parser(name, help=help_text)
        add_args(p)
        p.set_defaults(bench_run=run_fn)


def run(args) -> int:
    return int(args.bench_run(args) or 0)
