"""Area of virtual channels: the same router with V = 1 and with the VCs its routing needs.

Each row pair is one topology and one routing function, built once forced onto one VC (every hop on
VC 0: what the deadlock checker rejects) and once with its VCs (docs/router.md, "Virtual channels"), so
the difference is exactly the cost of the VCs: V FIFOs and route units per network input, the per-VC
ready, locks and ``cur_vc`` registers, and a crossbar/arbiter over P·V (input, VC) pairs. YoWASP Yosys
``synth_ice40`` / ``synth_ecp5`` as in ``cubenoc bench area`` (rtl/area.py).

``cubenoc bench vc-area [--write docs/performance.md]`` (rewrites the block between
``<!-- vc-area: begin -->`` and ``<!-- vc-area: end -->``).
"""
from __future__ import annotations

import argparse
from concurrent.futures import ThreadPoolExecutor

from ..rtl.area import count, router_verilog, synthesize
from ..sim.catalog import recorded
from ..sim.router_config import RouterConfig
from ..sim.routing.metacube import MetacubeRouting
from ..sim.routing.pdn import AdaptivePDNRouting
from ..sim.topology.metacube import Metacube
from ..sim.topology.pdn import PerfectDifferenceNetwork
from .render import Table, add_target_arguments, by_target, code, command, publish, target_columns, yosys_families

MARK_BEGIN, MARK_END = "<!-- vc-area: begin -->", "<!-- vc-area: end -->"


def cases():
    mc = Metacube(1, 2)
    pdn = PerfectDifferenceNetwork((0, 1, 3))
    return [(mc, MetacubeRouting(mc, vcs=False)), (mc, MetacubeRouting(mc)),
            (pdn, AdaptivePDNRouting(pdn, hop_vcs=False)), (pdn, AdaptivePDNRouting(pdn))]


def measure(targets=("ice40", "ecp5"), payload_width=32, fifo_depth=4, jobs=2, limit=None) -> list[dict]:
    jobs_in = []
    config = RouterConfig(payload_width=payload_width, fifo_depth=fifo_depth)
    for topo, routing in cases()[:limit]:
        text, ports = router_verilog(topo, routing, config)
        for t in targets:
            jobs_in.append((topo, routing, ports, t, text))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        outs = list(pool.map(lambda j: synthesize(j[4], j[3])[0], jobs_in))
    rows = []
    for (topo, routing, ports, t, _), cells in zip(jobs_in, outs):
        rows.append({"network": repr(topo), "routing": routing.name, "vcs": routing.num_vcs, "ports": ports,
                     "target": t, **count(cells, t), **recorded(None, config)})
    return rows


def table(rows: list[dict], cmd: str = "cubenoc bench vc-area") -> Table:
    cols = target_columns({"network": "router (node 0 of)", "routing": ("routing", code("routing")), "vcs": "V",
                           "ports": "P"}, lutram=True)
    return Table(by_target(rows, ("network", "routing", "vcs", "ports")), cols,
                 after=f"W = 32, FIFO depth 4 per VC; command: `{cmd}`.", marks=(MARK_BEGIN, MARK_END))


def add_arguments(ap: argparse.ArgumentParser) -> None:
    add_target_arguments(ap, "vc-area")


def run(args) -> int:
    return publish(table(measure(yosys_families(args.targets), limit=args.limit), command(args)), args)
