"""``cubenoc bench area``: yosys ``synth_ice40`` / ``synth_ecp5`` of node 0's router of Q_n and Q(n, k)
(rtl/area.py measures; this module prints the table docs/performance.md records)."""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from ..errors import CubenocError, require_int
from ..rtl.area import AreaResult, measure
from .render import replace_section

MARK_BEGIN, MARK_END = "<!-- bench area: begin -->", "<!-- bench area: end -->"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--family", default="both", choices=["hypercube", "enhanced", "both"],
                   help="which router family to synthesise (default both)")
    p.add_argument("--n", type=int, nargs="+", default=[3, 4, 5, 6], help="cube dimensions (default 3 4 5 6)")
    p.add_argument("--k", type=int, default=0, help="skip parameter of the enhanced hypercube (default 0)")
    p.add_argument("--payload", type=int, default=32, help="payload width W (default 32)")
    p.add_argument("--depth", type=int, default=4, help="input FIFO depth (default 4)")
    p.add_argument("--targets", nargs="+", default=["ice40", "ecp5"], choices=["ice40", "ecp5"],
                   help="yosys synthesis targets (default ice40 ecp5)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument("--write", metavar="PAGE.md", help="also replace the marked area table in this page "
                   "(docs/performance.md)")


def table(results: list[AreaResult], payload_width: int, fifo_depth: int) -> str:
    by = {}
    for r in results:
        by.setdefault((r.network, r.n, r.ports), {})[r.target] = r
    head = ["router (node 0 of)", "ports P"]
    targets = list(dict.fromkeys(r.target for r in results))
    for t in targets:
        if t == "ice40":
            head += ["iCE40 SB_LUT4", "LUT4/port", "SB_DFF*"]
        else:
            head += ["ECP5 LUT4", "LUT4/port", "TRELLIS_FF", "DPR16X4"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (net, _n, ports), rs in by.items():
        row = [net, str(ports)]
        for t in targets:
            r = rs.get(t)
            if r is None:
                row += ["-"] * (3 if t == "ice40" else 4)
            elif t == "ice40":
                row += [str(r.lut4), f"{r.lut4_per_port:.0f}", str(r.ff)]
            else:
                row += [str(r.lut4), f"{r.lut4_per_port:.0f}", str(r.ff), str(r.lutram)]
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    lines.append(f"Payload W = {payload_width} bits, input FIFO depth {fifo_depth}; command: `cubenoc bench area"
                 + ("" if (payload_width, fifo_depth) == (32, 4) else f" --payload {payload_width} --depth {fifo_depth}")
                 + "`.")
    return "\n".join(lines)


def write_section(path: Path, text: str) -> None:
    """Replace the marked area table in ``path`` (docs/performance.md) with ``text``."""
    replace_section(path, MARK_BEGIN, MARK_END, text)


def run(args) -> int:
    ns = [require_int(n, "n", 2 if args.family != "hypercube" else 1, 10) for n in args.n]
    families = ["hypercube", "enhanced"] if args.family == "both" else [args.family]
    results: list[AreaResult] = []
    for n in ns:
        for fam in families:
            if fam == "enhanced" and not 0 <= args.k <= n - 2:
                raise CubenocError(f"k must be in 0..n-2 for an n-cube (n={n}), got {args.k}")
            results += measure(fam, n, args.k, args.targets, args.payload, args.depth)
            if not args.json:
                for r in results[-len(args.targets):]:
                    print(f"  {r.network}: {r.target} {r.lut4} LUT4 ({r.lut4_per_port:.0f}/port), {r.ff} FF"
                          + (f", {r.lutram} DPR16X4" if r.lutram else "") + f"  [{r.seconds:.0f} s]",
                          file=sys.stderr)
    if args.json:
        print(json.dumps([asdict(r) | {"lut4_per_port": r.lut4_per_port} for r in results], indent=2))
        return 0
    text = table(results, args.payload, args.depth)
    print(text)
    if args.write:
        write_section(Path(args.write), text)
        print(f"written to {args.write}", file=sys.stderr)
    return 0
