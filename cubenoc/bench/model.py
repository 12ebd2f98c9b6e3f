"""``cubenoc bench latency|throughput|model-speed``: the router's figures on the cycle-accurate model
(sim/model/perf.py measures; verified against the Verilog by the cocotb benches). ``--write`` updates the
benchmark's section of docs/performance.md."""
from __future__ import annotations

import argparse

from ..errors import CubenocError


# ---- latency, throughput, model-speed (model helper): the cycle-accurate model, sim/model/perf.py ----
def _net_arguments(p: argparse.ArgumentParser, write_default: str | None = None) -> None:
    p.add_argument("--n", type=int, default=6, help="cube dimension (default 6: the 64-node 6-cube)")
    p.add_argument("--k", type=int, default=0, help="skip parameter of the enhanced n-cube (default 0)")
    p.add_argument("--network", nargs="+", metavar="SPEC", default=None,
                   help="networks as catalog specs instead of Q(n) and Q(n, k) (pdn:set=0,1,3,9, q60, "
                        "metacube:k=1,m=2; docs/networks.md)")
    p.add_argument("--depth", type=int, default=4, help="input FIFO depth (default 4)")
    p.add_argument("--write", metavar="PAGE.md", help="also replace this benchmark's marked section in the "
                   "page (docs/performance.md)")


def _nets(args) -> list:
    """(topology, routing) pairs: --network specs, or Q(n) and Q(n, k)."""
    from ..sim.catalog import NetworkSpec
    from ..sim.model.perf import networks
    if not args.network:
        return networks(args.n, args.k)
    specs = [NetworkSpec.parse(t) for t in args.network]
    for sp in specs:
        if sp.queues != "fifo" or sp.pipeline or sp.broadcast:
            raise CubenocError(f"{sp}: give router options with the benchmark's own flags (--queues), not in the spec")
    return [sp.build("model") for sp in specs]


def _net_command(args, name: str) -> str:
    return (f"cubenoc bench {name} " + (f"--network {' '.join(args.network)}" if args.network
                                       else f"--n {args.n} --k {args.k}"))


def write_section(path, name: str, text: str) -> None:
    """Replace the block between ``<!-- bench NAME: begin -->`` and ``<!-- bench NAME: end -->``
    (appended at the end of the page when it is not there yet)."""
    from .render import replace_section
    replace_section(path, f"<!-- bench {name}: begin -->", f"<!-- bench {name}: end -->", text)


def _print_and_write(args, name: str, command: str, text: str) -> int:
    body = f"Command: `{command}`\n\n{text}"
    print(body)
    if args.write:
        write_section(args.write, name, body)
        print(f"section '{name}' written to {args.write}")
    return 0


def latency_arguments(p: argparse.ArgumentParser) -> None:
    _net_arguments(p)
    p.add_argument("--packet-len", type=int, default=4, help="flits per packet for the tail latency (default 4)")


def latency_run(args) -> int:
    from ..sim.model.perf import latency_table
    text = latency_table(_nets(args), args.packet_len, args.depth)
    return _print_and_write(args, "latency", _net_command(args, "latency"), text)


def throughput_arguments(p: argparse.ArgumentParser) -> None:
    _net_arguments(p)
    p.add_argument("--packet-len", type=int, nargs="+", default=[1, 4], help="packet lengths (default 1 4)")
    p.add_argument("--loads", type=float, nargs="+", help="offered loads, flits/node/cycle (default 0.1..1.0)")
    p.add_argument("--window", type=int, default=10000, help="measurement window in cycles (default 10000)")
    p.add_argument("--queues", nargs="+", default=["fifo", "voq"], choices=["fifo", "voq", "pipe"],
                   help="router options: one FIFO per input (fifo), per-output queues (voq), the pipelined "
                        "router (pipe, 2 cycles/hop); default fifo voq")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")


def throughput_run(args) -> int:
    import json

    from ..sim.model.perf import throughput_rows, throughput_table
    if args.window < 1 or (args.loads and not all(0 < r <= 1 for r in args.loads)):
        raise CubenocError("--window must be >= 1 and --loads in (0, 1] flits/node/cycle")
    rows = throughput_rows(_nets(args), args.packet_len, args.loads, args.depth,
                           window=args.window, queues=args.queues)
    cmd = _net_command(args, "throughput")
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
        write_section(args.write, "throughput", f"Command: `{cmd}`\n\n{throughput_table(rows)}")
    return 0


def speed_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--network", nargs="+", metavar="SPEC", default=None,
                   help="networks as catalog specs (docs/networks.md) instead of --family/--n")
    p.add_argument("--n", type=int, nargs="+", default=[6, 10, 14],
                   help="cube dimensions (default 6 10 14: 64 to 16,384 nodes; up to 20: 2^20 nodes, ~3 GB)")
    p.add_argument("--family", nargs="+", default=["hypercube"], choices=["hypercube", "enhanced"],
                   help="Q_n and/or Q(n, k) (default hypercube)")
    p.add_argument("--k", type=int, default=0, help="skip parameter of the enhanced n-cube (default 0)")
    p.add_argument("--depth", type=int, default=4, help="input FIFO depth (default 4)")
    p.add_argument("--loads", type=float, nargs="+", default=[0.1], help="offered loads (default 0.1)")
    p.add_argument("--node-cycles", type=float, default=2e7,
                   help="simulated node-cycles per run: cycles = this / nodes, 20..200,000 (default 2e7)")
    p.add_argument("--cycles", type=int, help="simulated cycles per run at every size (overrides --node-cycles)")
    p.add_argument("--loop-only", action="store_true", help="only the compiled loop in this process (no "
                   "child runs): ns per node-cycle per hop, best of --repeat (the A/B figure of issue 17)")
    p.add_argument("--repeat", type=int, default=1, help="--loop-only: runs per network, the best counts (default 1)")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    p.add_argument("--write", metavar="PAGE.md", help="also replace this benchmark's marked section in the "
                   "page (docs/performance.md)")


def speed_run(args) -> int:
    """Whole run (a child ``cubenoc simulate``: start-up included; wall, CPU, peak RSS, time to the first
    cycle) and the loop alone (wall, CPU) per network (sim/speed.py ``scaling_point``, issue 17)."""
    import json
    import sys

    from ..sim.catalog import NetworkSpec
    from ..sim.speed import cycles_for, loop_point, loop_table, scaling_point, scaling_table
    if not all(0 < r <= 1 for r in args.loads) or (args.cycles is not None and args.cycles < 1) or args.repeat < 1:
        raise CubenocError("--loads must be in (0, 1] flits/node/cycle, --cycles >= 1 and --repeat >= 1")
    if args.loop_only and args.write:
        raise CubenocError("--loop-only rows are not the model-speed table: give --write without --loop-only")
    specs = args.network or [f"hypercube:n={n}" if fam == "hypercube" else f"enhanced:n={n},k={args.k}"
                             for fam in args.family for n in args.n]
    nodes = [NetworkSpec.parse(s).build("model")[0].num_nodes for s in specs]   # bad specs fail first
    rows = []
    for spec, N in zip(specs, nodes):
        for r in args.loads:
            cycles = args.cycles or cycles_for(N, args.node_cycles)
            print(f"model-speed: {spec} load {r:g}, {cycles:,} cycles ...", file=sys.stderr, flush=True)
            rows.append(loop_point(spec, r, cycles, depth=args.depth, repeat=args.repeat) if args.loop_only
                        else scaling_point(spec, r, cycles, depth=args.depth))
    cmd = ("cubenoc bench model-speed " + (f"--network {' '.join(args.network)}" if args.network else
                                           f"--family {' '.join(args.family)} --n {' '.join(map(str, args.n))}")
           + f" --loads {' '.join(f'{r:g}' for r in args.loads)}"
           + (f" --cycles {args.cycles}" if args.cycles else f" --node-cycles {args.node_cycles:g}"))
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    if args.loop_only:
        print(f"Command: `{cmd} --loop-only --repeat {args.repeat}`\n\n{loop_table(rows)}")
        return 0
    return _print_and_write(args, "model-speed", cmd, scaling_table(rows))
