"""Area of the fair arbiter (docs/performance.md "Fairness"): node 0's router of Q(4, 0), PDN {0,1,3,9}
and MC(1,2) with ``arbitration="round-robin"`` and ``"fair"``, YoWASP Yosys ``synth_ice40`` and
``synth_ecp5`` (rtl/area.py). ``python -m cubenoc.rtl.fair_area`` prints the markdown table."""
from __future__ import annotations

from .area import count, synthesize
from .tools import use_builtin_yosys

NETWORKS = ("enhanced:n=4,k=0", "pdn:set=0,1,3,9", "metacube:k=1,m=2")


def rows(networks=NETWORKS, payload_width: int = 32, fifo_depth: int = 4):
    from amaranth.back import verilog
    from ..sim.simulator import build_network
    from .router import Router
    use_builtin_yosys()
    out = []
    for spec in networks:
        topo, routing, label = build_network(spec)
        for arb in ("round-robin", "fair"):
            r = Router(topo, routing, 0, payload_width=payload_width, fifo_depth=fifo_depth, arbitration=arb)
            text = verilog.convert(r, name="router")
            row = {"network": label, "arbitration": arb, "ports": r.num_ports}
            for target in ("ice40", "ecp5"):
                c = count(synthesize(text, target)[0], target)
                row[f"{target}_lut4"], row[f"{target}_ff"] = c["lut4"], c["ff"]
            out.append(row)
    return out


def table(rs) -> str:
    lines = ["| router (node 0) | arbitration | iCE40 LUT4 | iCE40 FF | ECP5 LUT4 | ECP5 FF |",
             "|---|---|---|---|---|---|"]
    for r in rs:
        lines.append(f"| {r['network']} | {r['arbitration']} | {r['ice40_lut4']} | {r['ice40_ff']} | "
                     f"{r['ecp5_lut4']} | {r['ecp5_ff']} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table(rows()))
