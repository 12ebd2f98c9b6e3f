"""Synthesise and place-and-route one router per family and size for iCE40 UP5K and ECP5-25F.

``cubenoc synth-report [--family hypercube enhanced] [--n 3 4] [--targets up5k ecp5-25f] [--write]``
runs yosys (``synth_ice40``/``synth_ecp5``) on the router of node 0 for LUT4/FF/carry/RAM counts and
nextpnr on that router inside a pin-saving harness for Fmax (boards/synth.py). ``--write`` replaces the
section between ``<!-- synth-report:begin -->`` and ``<!-- synth-report:end -->`` of
docs/performance.md (and only that section). Families register in ``SYNTH_FAMILIES``.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path


BEGIN, END = "<!-- synth-report:begin -->", "<!-- synth-report:end -->"
#: issue 7 targets for a 5-port router with a 32-bit payload
TARGET_LUT_PER_PORT = 100
TARGET_MHZ = {"up5k": 40.0, "ecp5-25f": 100.0}


def _hypercube(n: int):
    from .sim.routing.hypercube import EcubeRouting
    from .sim.topology import Hypercube
    t = Hypercube(n)
    return t, EcubeRouting(t)


def _enhanced(n: int):
    from .sim.routing.hypercube import EcubeRouting
    from .sim.topology import EnhancedHypercube
    t = EnhancedHypercube(n, 0)
    return t, EcubeRouting(t)


#: family -> (builder(size) -> (topology, routing), default sizes, label of the size parameter).
#: New router families (metacube, PDN, hierarchical) add an entry here.
SYNTH_FAMILIES = {
    "hypercube": (_hypercube, (3, 4, 5, 6), "n"),
    "enhanced": (_enhanced, (3, 4, 5, 6), "n (k = 0)"),
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    from .boards.synth import TARGETS
    p.add_argument("--family", nargs="+", default=list(SYNTH_FAMILIES), choices=sorted(SYNTH_FAMILIES),
                   help="router families (default all)")
    p.add_argument("--n", type=int, nargs="+", default=None, help="sizes (default each family's list)")
    p.add_argument("--payload", type=int, default=32, help="payload width W (default 32)")
    p.add_argument("--depth", type=int, default=4, help="input FIFO depth (default 4)")
    p.add_argument("--targets", nargs="+", default=list(TARGETS), choices=list(TARGETS))
    p.add_argument("--toolchain", choices=["yowasp", "system"], default="yowasp")
    p.add_argument("--no-pnr", action="store_true", help="yosys counts only, no nextpnr Fmax")
    p.add_argument("--work-dir", default="build/synth-report", help="tool logs (default build/synth-report)")
    p.add_argument("--write", action="store_true", help="update the synth-report section of docs/performance.md")
    p.add_argument("--doc", default=None, help="page to update (default docs/performance.md of the project)")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")


def run(args) -> int:
    from .boards.synth import synth_router
    from .rtl.flit import check_payload_width
    from .rtl.router import Router
    check_payload_width(args.payload)
    rows = []
    for fam in args.family:
        build, sizes, _ = SYNTH_FAMILIES[fam]
        for n in (args.n or sizes):
            topo, routing = build(n)
            router = Router(topo, routing, 0, payload_width=args.payload, fifo_depth=args.depth)
            for target in args.targets:
                work = Path(args.work_dir) / f"{topo.name}_w{args.payload}_d{args.depth}" / target
                res = synth_router(router, target, work, toolchain=args.toolchain, pnr=not args.no_pnr)
                row = {"family": fam, "network": repr(topo), "ports": router.num_ports, "payload": args.payload,
                       "depth": args.depth, **res.as_dict()}
                row.pop("cells")
                rows.append(row)
                print(_row_text(row), flush=True)
    table = markdown_table(rows)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print()
        print(table)
    if args.write:
        doc = Path(args.doc) if args.doc else Path(__file__).resolve().parents[1] / "docs" / "performance.md"
        write_section(doc, section_text(table, args))
        print(f"updated {doc}")
    return 0


def _row_text(r: dict) -> str:
    fm = f"{r['fmax_mhz']:.1f} MHz" if r["fmax_mhz"] else "-"
    return (f"{r['network']:<28} P={r['ports']} {r['target']:<9} LUT4 {r['lut4']:>5} "
            f"({r['lut4'] / r['ports']:.0f}/port) FF {r['ff']:>5} carry {r['carry']:>4} BRAM {r['bram']} "
            f"LUTRAM {r['lutram']:>3} Fmax {fm}  ({r['seconds']:.0f} s)")


def markdown_table(rows: list[dict]) -> str:
    out = ["| router (node 0) | ports P | target | LUT4 | LUT4/port | FF | carry | BRAM | LUTRAM | Fmax (MHz) |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        fm = f"{r['fmax_mhz']:.1f}" if r["fmax_mhz"] else "-"
        goal = TARGET_MHZ.get(r["target"])
        if r["fmax_mhz"] and goal:
            fm += " ✓" if r["fmax_mhz"] >= goal else " ✗"
        lpp = r["lut4"] / r["ports"]
        out.append(f"| {r['network']} | {r['ports']} | {r['target']} | {r['lut4']} | {lpp:.0f}"
                   f"{' ✓' if lpp <= TARGET_LUT_PER_PORT else ' ✗'} | {r['ff']} | {r['carry']} | {r['bram']} | "
                   f"{r['lutram']} | {fm} |")
    return "\n".join(out)


def section_text(table: str, args) -> str:
    cmd = "cubenoc synth-report --write"
    if args.n:
        cmd += " --n " + " ".join(map(str, args.n))
    return (f"## Synthesis report (yosys + nextpnr, one router)\n\n"
            f"Command: `{cmd}` (W = {args.payload}, FIFO depth {args.depth}, YoWASP yosys/nextpnr, seed 1). "
            f"LUT4 / FF / carry / RAM from yosys `stat` of the bare router; Fmax from nextpnr with the router in a "
            f"shift-chain harness (boards/synth.py). Issue 7 targets for a 5-port router with a 32-bit payload: "
            f"at most {TARGET_LUT_PER_PORT} LUT4 per port, at least {TARGET_MHZ['up5k']:.0f} MHz on the UP5K, "
            f"{TARGET_MHZ['ecp5-25f']:.0f} MHz on the ECP5-25F (✓ met, ✗ missed).\n\n{table}\n")


def write_section(doc: Path, body: str) -> None:
    """Replace (or append) the text between the synth-report markers; the rest of the page is kept."""
    from .docs_section import replace_section
    replace_section(doc, BEGIN, END, body.rstrip())
