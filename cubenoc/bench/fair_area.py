"""Area of the fair arbiter (docs/performance.md "Fairness"): node 0's router of Q(4, 0), PDN {0,1,3,9}
and MC(1,2) with ``arbitration="round-robin"`` and ``"fair"``, YoWASP Yosys ``synth_ice40`` and
``synth_ecp5`` (rtl/area.py). ``cubenoc bench fair-area [--format md|json|csv]``."""
from __future__ import annotations

import argparse

from ..options import add
from ..rtl.area import count, synthesize
from ..rtl.tools import use_builtin_yosys
from ..sim.catalog import FAIR_AREA_NETWORKS as NETWORKS, NetworkSpec, recorded
from ..sim.network_plan import plan_of
from ..sim.router_config import RouterConfig
from .render import Table, add_format_argument, publish


def rows(networks=NETWORKS, payload_width: int = 32, fifo_depth: int = 4):
    from amaranth.back import verilog
    from ..rtl.router import Router
    use_builtin_yosys()
    out = []
    for spec in networks:
        topo, routing = NetworkSpec.parse(spec).build()
        label = NetworkSpec.parse(spec).label(topo)
        for arb in ("round-robin", "fair"):
            r = Router(plan_of(topo, routing, RouterConfig(payload_width=payload_width, fifo_depth=fifo_depth,
                                                      arbitration=arb)), 0)
            text = verilog.convert(r, name="router")
            row = {"network": label, "arbitration": arb, "ports": r.num_ports, **recorded(spec, r.config)}
            for target in ("ice40", "ecp5"):
                c = count(synthesize(text, target)[0], target)
                row[f"{target}_lut4"], row[f"{target}_ff"] = c["lut4"], c["ff"]
            out.append(row)
    return out


COLUMNS = {"network": "router (node 0)", "arbitration": "arbitration", "ice40_lut4": "iCE40 LUT4",
           "ice40_ff": "iCE40 FF", "ecp5_lut4": "ECP5 LUT4", "ecp5_ff": "ECP5 FF"}


def add_arguments(ap: argparse.ArgumentParser) -> None:
    add(ap, "network", nargs="+", default=list(NETWORKS))
    add_format_argument(ap)


def run(args) -> int:
    return publish(Table(rows(args.network), COLUMNS), args)
