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
    _net_arguments(p)
    p.add_argument("--loads", type=float, nargs="+", default=[0.1, 0.5], help="offered loads (default 0.1 0.5)")
    p.add_argument("--cycles", type=int, default=200_000, help="simulated cycles per run (default 200000)")
    p.add_argument("--packet-len", type=int, default=1, help="flits per packet (default 1)")


def speed_run(args) -> int:
    from ..sim.model.perf import speed_table
    text = speed_table(_nets(args), args.loads, args.packet_len, args.cycles, depth=args.depth)
    return _print_and_write(args, "model-speed", _net_command(args, "model-speed"), text)
