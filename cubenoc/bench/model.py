"""``cubenoc bench latency|throughput|model-speed``: the router's figures on the cycle-accurate model
(sim/model/perf.py measures; verified against the Verilog by the cocotb benches). Rows go through
cubenoc/bench/render.py (``--format md|json|csv``); ``--write`` updates the benchmark's section of
docs/performance.md. The saturation sweeps of ``bench adaptive`` and ``vc-throughput`` share
:func:`sweep_rows` / :func:`sweep_columns`."""
from __future__ import annotations

import argparse

from ..errors import CubenocError
from ..estimate import BYTES_PER_FLIT, NODE_CYCLES_PER_S, check_run
from ..html_report import write_report
from ..netargs import add_router_flags, router_config
from ..options import ROUTER_KINDS, add, fixed_lengths
from ..outputs import report_file, working
from ..sim import speed
from ..sim.catalog import NetworkSpec, recorded
from ..sim.model.network import NetworkModel
from ..sim.model.perf import (SATURATED_BELOW, per_network, saturation_sweep, saturation_throughput, throughput_rows,
                              zero_load_latency)
from ..sim.model.tables import MAX_TABLE_ENTRIES
from ..sim.network_plan import plan_of
from ..sim.router_config import RouterConfig
from ..sim.speed import cycles_for, loop_rounds
from .render import Table, add_output_arguments, command, progress, publish, trunc3


def _marks(name: str) -> tuple[str, str]:
    return f"<!-- bench {name}: begin -->", f"<!-- bench {name}: end -->"


# ---- latency, throughput, model-speed (model helper): the cycle-accurate model, sim/model/perf.py ----
def _net_arguments(p: argparse.ArgumentParser) -> None:
    add(p, "n", default=6, help="cube dimension (default 6: the 64-node 6-cube)")
    add(p, "k", default=0, help="skip parameter of the enhanced n-cube")
    add(p, "network", nargs="+", note="instead of Q(n) and Q(n, k) (pdn:set=0,1,3,9, q60, metacube:k=1,m=2)")
    add_router_flags(p, only=("depth",))


def _nets(args) -> tuple[list, list]:
    """(topology, routing) pairs and their catalog specs: --network specs, or Q(n) and Q(n, k)."""
    specs = [NetworkSpec.parse(t) for t in args.network] if args.network else \
        [NetworkSpec.of("hypercube", n=args.n), NetworkSpec.of("enhanced", n=args.n, k=args.k)]
    for sp in specs:
        if sp.queues != "fifo" or sp.pipeline or sp.broadcast:
            raise CubenocError(f"{sp}: give router options with the benchmark's own flags (--queues), not in the spec")
    for sp in specs:                 # the dense route table's size, known from the spec: refused before building
        bits = sp.address_bits()
        if bits is not None and bits > 0 and 1 << (2 * bits) > MAX_TABLE_ENTRIES:   # (n < 1: the builder says)
            raise CubenocError(f"{sp}: 2^{bits} nodes; the benchmark's model keeps a dense route table, up to "
                               f"{MAX_TABLE_ENTRIES:,} entries ({1 << (MAX_TABLE_ENTRIES.bit_length() - 1) // 2:,} "
                               f"nodes; bench model-speed runs the 2^20-node cubes)")
    return [sp.build("model") for sp in specs], specs


def _configs(args, nets, specs) -> list[RouterConfig]:
    """Each network's routers: its spec's router keys and the command's --depth, by the one precedence."""
    return [router_config(args, spec, routing=routing, only=("depth",)) for spec, (_, routing) in zip(specs, nets)]


def _net_command(args) -> str:
    """The command of a Q(n) / Q(n, k) or --network benchmark: --n and --k always shown unless --network."""
    return command(args, keep=() if args.network else ("n", "k"), drop=("n", "k") if args.network else ())


def latency_arguments(p: argparse.ArgumentParser) -> None:
    _net_arguments(p)
    add(p, "length", default="4", help="packet length in flits, for the tail latency")
    add_output_arguments(p, "bench latency")


def latency_rows(nets, packet_len: int = 4, config=None, specs=None) -> list[dict]:
    """One row per (network, hop count): mean head and tail latency, and the network's least-squares fit;
    what ran (``specs[i]``: the catalog spec of ``nets[i]``). ``config``: one RouterConfig, or one per network."""
    out = []
    for i, ((topo, routing), cfg) in enumerate(zip(nets, per_network(config, nets))):
        model = NetworkModel(plan_of(topo, routing, cfg))
        z = zero_load_latency(model, packet_len)
        for h, a, b in zip(z.hops, z.head_latency, z.tail_latency):
            out.append({"network": repr(topo), "nodes": topo.num_nodes, "hops": int(h), "head_latency": float(a),
                        "tail_latency": float(b), "packet_len": packet_len, "per_hop": z.per_hop,
                        "overhead": z.overhead, **recorded(specs[i] if specs else None, model.config)})
    return out


def latency_run(args) -> int:
    nets, specs = _nets(args)
    rows = latency_rows(nets, fixed_lengths(args.length)[0], _configs(args, nets, specs), specs)
    fits = [f"- {r['network']}: head latency = {r['per_hop']:.3f} cycles/hop x h + {r['overhead']:.3f} "
            f"(least squares over all {r['nodes'] ** 2} pairs)" for r in rows if r is _first(rows, r)]
    cols = {"network": "network", "hops": "hops h",
            "head_latency": ("head latency (cycles)", lambda r: f"{r['head_latency']:.2f}"),
            "tail_latency": (f"tail latency, {fixed_lengths(args.length)[0]}-flit packet", lambda r: f"{r['tail_latency']:.2f}")}
    return publish(Table(rows, cols, before=f"Command: `{_net_command(args)}`", after="\n".join(fits),
                         marks=_marks("latency")), args, _net_command(args))


def _first(rows, r):
    return next(x for x in rows if x["network"] == r["network"])


def throughput_arguments(p: argparse.ArgumentParser) -> None:
    _net_arguments(p)
    add(p, "length", nargs="+", default=["1", "4"], help="packet lengths in flits")
    add(p, "rate", nargs="+", note="(default 0.1..1.0)")
    add(p, "window", default=10000)
    add(p, "routers", option=ROUTER_KINDS, nargs="+", default=["fifo", "voq"])
    add_output_arguments(p, "bench throughput", json_alias=True)
    add(p, "report", help="also write one self-contained HTML page: each sweep's curves, the network drawn with "
        "its link loads at the highest load below saturation, per-source figures (docs/simulator.md \"The HTML "
        "report\")")


def _packet(r) -> str:
    L = r["packet_len"]
    return f"{L} flit{'s' if L > 1 else ''}"


def load_columns(loads, cell, digits: int = 2) -> dict:
    """One column per offered load: ``cell(point)`` of the row's ``points[i]``."""
    return {f"load_{x:g}": (f"{x:.{digits}f}", lambda r, i=i: cell(r["points"][i])) for i, x in enumerate(loads)}


def throughput_run(args) -> int:
    if args.rate and not all(0 < r <= 1 for r in args.rate):     # (--window: at_least(1))
        raise CubenocError("--rate must be in (0, 1] flits/node/cycle")
    nets, specs = _nets(args)
    report_file(args.report, "--report")
    reports = [] if args.report else None
    with working("bench throughput", args.quiet) as w:
        def said(text):                          # a line per sweep, and the sweep beside the seconds
            progress(text)
            w.status(text.removeprefix("throughput: ").removesuffix(" ..."))
        rows = throughput_rows(nets, fixed_lengths(args.length), args.rate, _configs(args, nets, specs),
                               window=args.window, queues=args.routers, progress=said, specs=specs,
                               reports=reports)
    loads = [p["offered"] for p in rows[0]["points"]]
    cols = ({"network": "network", "router": "router", "packet_len": ("packet", _packet)}
            | load_columns(loads, lambda p: f"{trunc3(p['accepted'])} / {p['latency']:.0f}{_sat(p)}")
            | {"saturation": ("saturation", lambda r: f"**{trunc3(r['saturation'])}**")})
    before = (f"Command: `{_net_command(args)}`\n\nAccepted throughput (flits/node/cycle, truncated to 3 decimals) "
              f"/ mean packet latency (cycles) per offered load; {SAT_NOTE}:")
    status = publish(Table(rows, cols, before=before, marks=_marks("throughput")), args, _net_command(args))
    if args.report:
        _throughput_report(args, reports, rows)
    return status


def _throughput_report(args, reports, rows) -> None:
    """``bench throughput --report FILE.html``: every sweep on one page (sim/report_page.py), written whole."""
    points = [p for _, _, pts in reports for p in pts]
    config = {"sweeps": [{k: r[k] for k in ("network", "router", "packet_len", "spec") if k in r} for r in rows],
              "loads": [p["offered"] for p in rows[0]["points"]], "warmup": 2000, "window": args.window,
              "router": rows[0].get("router_config")}
    write_report(args, points, {name: topo for name, topo, _ in reports}, config=config,
                 title="cubenoc bench throughput", to_stderr=args.format != "md",
                 notes=[f"a point is saturated when it accepts under {SATURATED_BELOW:.0%} of its offered load; "
                        "its latency is then a lower bound"])


# ---- the saturation sweeps of `bench adaptive` and `bench vc-throughput` ----
def sweep_rows(topo, label: str, routing, packet_lens, loads, config: RouterConfig, window: int = 10000) -> list[dict]:
    """One saturation sweep of ``routing`` on ``topo`` per packet length (sim/model/perf.py)."""
    model = NetworkModel(plan_of(topo, routing, config))
    out = []
    for L in packet_lens:
        pts = saturation_sweep(model, L, loads, window=window)
        out.append({"network": repr(topo), "routing": label, "vcs": routing.num_vcs, "packet_len": L,
                    "points": [{"offered": p.offered, "accepted": p.accepted, "latency": p.latency,
                                "saturated": p.saturated} for p in pts],
                    "saturation": saturation_throughput(pts), **recorded(None, model.config)})
    return out


#: what the mark of a point past saturation means (sim/model/perf.py ``LoadPoint.saturated``)
SAT_NOTE = "sat.: past saturation, the network accepts under 95 % of the offered load and its latency grows with the run"


def _sat(point: dict) -> str:
    return " sat." if point.get("saturated") else ""


def sweep_columns(loads, routing_heading: str = "routing") -> dict:
    """``| network | routing | V | packet | accepted / latency per load | saturation |`` (latency ``-``: nothing
    created in the window was delivered; ``sat.``: past saturation, :data:`SAT_NOTE`)."""
    def cell(p):
        return f"{p['accepted']:.3f} / " + ("-" if p["latency"] == float("inf") else f"{p['latency']:.0f}") + _sat(p)
    return ({"network": "network", "routing": routing_heading, "vcs": "V", "packet_len": ("packet", _packet)}
            | load_columns(loads, cell, digits=1)
            | {"saturation": ("saturation", lambda r: f"**{r['saturation']:.3f}**")})


# ---- model-speed ----
def speed_arguments(p: argparse.ArgumentParser) -> None:
    add(p, "network", nargs="+", note="instead of --family/--n")
    add(p, "family", nargs="+", default=["hypercube"], choices=("hypercube", "enhanced"), help="Q_n and/or Q(n, k)")
    add(p, "n", nargs="+", default=[6, 10, 14],
        help="cube dimensions (default 6 10 14: 64 to 16,384 nodes; up to 20: 2^20 nodes, ~3 GB)")
    add(p, "k", default=0, help="skip parameter of the enhanced n-cube")
    add_router_flags(p, only=("depth",))
    add(p, "rate", nargs="+", default=[0.1])
    p.add_argument("--node-cycles", type=float, default=2e7,
                   help="simulated node-cycles per run: cycles = this / nodes, 20..200,000 (default 2e7)")
    add(p, "cycles", note="at every size (overrides --node-cycles)")
    p.add_argument("--loop-only", action="store_true", help="only the compiled loop in this process (no "
                   "child runs): ns per node-cycle per hop, best and median of --repeat rounds, and the median "
                   "ratio to the smallest network of each family (the paired A/B figure)")
    add(p, "repeat", default=1, help="--loop-only: rounds, each running every network once in turn (all networks' "
        "state is held at once: ~2.5 GB per 2^20-node network)")
    add_output_arguments(p, "bench model-speed", json_alias=True)


SPEED_COLUMNS = {
    "network": "network", "nodes": ("nodes", lambda r: f"{r['nodes']:,}"), "rate": ("load", lambda r: f"{r['rate']:g}"),
    "cycles": ("cycles", lambda r: f"{r['cycles']:,}"),
    "whole_wall_s": ("whole run: wall s / CPU s", lambda r: f"{r['whole_wall_s']:.2f} / {r['whole_cpu_s']:.2f}"),
    "whole_cycles_per_cpu_s": ("whole run, cycles per CPU s", lambda r: f"{r['cycles'] / r['whole_cpu_s']:,.0f}"),
    "loop_cycles_per_s": ("loop only: cycles/s wall / per CPU s",
                          lambda r: f"{r['loop_cycles_per_s']:,.0f} / {r['loop_cpu_cycles_per_s']:,.0f}"),
    "ns_per_node_cycle_hop": ("ns per node-cycle per hop (loop, CPU)", lambda r: f"{r['ns_per_node_cycle_hop']:.2f}"),
    "ns_median": ("median (rounds)", lambda r: f"{r['ns_median']:.2f}"),
    "vs_smallest": ("vs the family's smallest (median of paired rounds)", lambda r: f"{r['vs_smallest']:.2f}x"),
    "hops": ("mean hops", lambda r: f"{r['hops']:.2f}"),
    "first_cycle_wall_s": ("time to first cycle (s, wall)", lambda r: f"{r['first_cycle_wall_s']:.2f}"),
    "peak_rss_bytes": ("peak RSS (MB)", lambda r: f"{r['peak_rss_bytes'] / 1e6:,.0f}"),
}
LOOP_COLUMNS = ("network", "nodes", "rate", "cycles", "loop_cycles_per_s", "ns_per_node_cycle_hop", "ns_median",
                "vs_smallest", "hops")   # --loop-only
ROUNDS = ("ns_median", "vs_smallest")                   # --loop-only's alone (the table has one loop run)


def speed_run(args) -> int:
    """Whole run (a child ``cubenoc simulate``: start-up included; wall, CPU, peak RSS, time to the first
    cycle) and the loop alone (wall, CPU) per network (sim/speed.py ``scaling_point``)."""
    if not all(0 < r <= 1 for r in args.rate):                    # (--cycles, --repeat: at_least(1))
        raise CubenocError("--rate must be in (0, 1] flits/node/cycle")
    if args.loop_only and args.write:
        raise CubenocError("--loop-only rows are not the model-speed table: give --write without --loop-only")
    specs = args.network or [f"hypercube:n={n}" if fam == "hypercube" else f"enhanced:n={n},k={args.k}"
                             for fam in args.family for n in args.n]
    parsed = [NetworkSpec.parse(s) for s in specs]
    nodes = [p.build("model")[0].num_nodes for p in parsed]   # bad specs fail first
    if not args.node_cycles > 0:
        raise CubenocError(f"--node-cycles must be positive, got {args.node_cycles:g}")
    points = [(spec, r, args.cycles or cycles_for(N, args.node_cycles), (p.family, r))
              for spec, p, N in zip(specs, parsed, nodes) for r in args.rate]
    if args.cycles is None:                     # cycles_for keeps a run within 20..200,000 cycles: say so
        for spec, N in zip(specs, nodes):
            if cycles_for(N, args.node_cycles) != args.node_cycles // N:
                progress(f"model-speed: warning: --node-cycles {args.node_cycles:g} on {N:,} nodes is "
                         f"{args.node_cycles / N:,.0f} cycles; running {cycles_for(N, args.node_cycles):,} "
                         f"(a run is kept within 20..200,000 cycles; --cycles sets them exactly)")
    rounds = args.repeat if args.loop_only else 2       # the whole run and the loop once, or --repeat rounds
    node_cycles = sum(N * c for (_, _, c, _), N in zip(points, [N for N in nodes for _ in args.rate]))
    check_run(f"bench model-speed: {len(points)} point(s)", rounds * node_cycles / NODE_CYCLES_PER_S,
              max(N * c * r for (_, r, c, _), N in zip(points, [N for N in nodes for _ in args.rate])) * BYTES_PER_FLIT,
              "--cycles/--node-cycles" + (" or --repeat" if args.loop_only else ""))
    if args.loop_only:
        depth = {spec: router_config(args, p, only=("depth",)).fifo_depth for spec, p in zip(specs, parsed)}
        rows = loop_rounds(points, args.repeat, depth=depth, each=lambda s: progress(f"model-speed: {s} ..."))
    else:
        rows = []
        for spec, r, cycles, _ in points:
            progress(f"model-speed: {spec} load {r:g}, {cycles:,} cycles ...")
            depth = router_config(args, parsed[specs.index(spec)], only=("depth",)).fifo_depth
            rows.append(speed.scaling_point(spec, r, cycles, depth=depth))
    keep = ("loads",) + (("cycles",) if args.cycles else ("node_cycles",)) + (() if args.network else ("family", "n"))
    cmd = command(args, keep=keep, drop=("node_cycles",) if args.cycles else ())
    columns = {k: v for k, v in SPEED_COLUMNS.items() if (k in LOOP_COLUMNS if args.loop_only else k not in ROUNDS)}
    return publish(Table(rows, columns, before=f"Command: `{cmd}`", marks=_marks("model-speed")), args, cmd)
