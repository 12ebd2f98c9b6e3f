"""Area of multicast: the same router with and without broadcast forks (docs/router.md "Broadcast and
multicast"), YoWASP Yosys ``synth_ice40`` / ``synth_ecp5`` as in ``cubenoc bench area`` (rtl/area.py).

The difference is the cost of the fork: one fork ROM per input, the ``held``/``done``/``bmode``
registers, the broadcast selector, the ``bcast`` bit and (where the tag is wider) the wider ``route``
in every FIFO word, and the extra crossbar turns the broadcast takes.

``cubenoc bench broadcast-area [--write docs/performance.md]`` (rewrites the block between
``<!-- bcast-area: begin -->`` and ``<!-- bcast-area: end -->``).
"""
from __future__ import annotations

import argparse
from concurrent.futures import ThreadPoolExecutor

from ..rtl.area import count, synthesize
from ..rtl.tools import use_builtin_yosys
from ..sim.broadcast.fork import broadcast_algorithm_for
from ..sim.catalog import recorded
from ..sim.network_plan import plan_of
from ..sim.router_config import RouterConfig
from ..sim.routing.hypercube import EcubeRouting
from ..sim.routing.pdn import ObliviousPDNRouting
from ..sim.topology.hypercube import EnhancedHypercube, Hypercube
from ..sim.topology.pdn import PerfectDifferenceNetwork
from .render import Table, add_target_arguments, by_target, code, command, publish, target_columns, yosys_families

MARK_BEGIN, MARK_END = "<!-- bcast-area: begin -->", "<!-- bcast-area: end -->"


def cases():
    out = []
    for topo in (Hypercube(4), EnhancedHypercube(4, 1), EnhancedHypercube(5, 1)):
        out.append((topo, EcubeRouting(topo), broadcast_algorithm_for(topo)))
    pdn = PerfectDifferenceNetwork((0, 1, 3))
    out.append((pdn, ObliviousPDNRouting(pdn), broadcast_algorithm_for(pdn)))
    return out


def router_text(topo, routing, alg, payload_width=32, fifo_depth=4) -> tuple[str, int, object]:
    from amaranth.back import verilog
    from ..rtl.router import Router
    use_builtin_yosys()
    r = Router(plan_of(topo, routing, RouterConfig(payload_width=payload_width, fifo_depth=fifo_depth,
                                              broadcast=False if alg is None else alg)), 0)
    return verilog.convert(r, name="router"), r.num_ports, r.config


def measure(targets=("ice40", "ecp5"), jobs=2, limit=None) -> list[dict]:
    jobs_in = []
    for topo, routing, alg in cases()[:limit]:
        for a in (None, alg):
            text, ports, config = router_text(topo, routing, a)
            for t in targets:
                jobs_in.append((topo, routing, a, ports, t, text, config))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        outs = list(pool.map(lambda j: synthesize(j[5], j[4])[0], jobs_in))
    return [{"network": repr(topo), "routing": routing.name, "broadcast": a.name if a else "-", "ports": ports,
             "target": t, **count(cells, t), **recorded(None, config)}
            for (topo, routing, a, ports, t, _, config), cells in zip(jobs_in, outs)]


def table(rows: list[dict], cmd: str = "cubenoc bench broadcast-area") -> Table:
    cols = target_columns({"network": "router (node 0 of)", "routing": ("routing", code("routing")),
                           "broadcast": ("broadcast", code("broadcast")), "ports": "P"})
    return Table(by_target(rows, ("network", "routing", "broadcast", "ports")), cols,
                 after=f"W = 32, FIFO depth 4; command: `{cmd}`.", marks=(MARK_BEGIN, MARK_END))


def add_arguments(ap: argparse.ArgumentParser) -> None:
    add_target_arguments(ap, "bcast-area")


def run(args) -> int:
    return publish(table(measure(yosys_families(args.targets), limit=args.limit), command(args)), args)
