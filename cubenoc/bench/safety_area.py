"""``cubenoc bench safety-area``: iCE40 cells of the safety-level unit (rtl/safety/unit.py) and of the
safety-level broadcast fork (rtl/safety/fork.py) for n = 4..6 (docs/performance.md, "Safety-level
unit" and "Safety-level broadcast fork unit")."""
from __future__ import annotations

import argparse

from ..rtl.safety import unit as S
from ..rtl.safety import fork as B
from .render import publish


def level_table(ns=(4, 5, 6), configs=(("SL1",), ("DSL1",), ("SL2",), ("DSL2",), S.MODELS)) -> str:
    """Markdown table of iCE40 LUT4/FF per unit (what docs/performance.md records)."""
    lines = ["| models | n | SB_LUT4 | SB_DFF* | SB_CARRY | sideband wires per link direction |", "|---|---|---|---|---|---|"]
    for cfg in configs:
        for n in ns:
            a = S.unit_area(n, cfg)
            lines.append(f"| {'+'.join(cfg)} | {n} | {a['lut4']} | {a['ff']} | {a['carry']} | {S.sideband_bits(n, cfg)} |")
    return "\n".join(lines)


LEVEL_MARKS = "<!-- safety-area:begin -->", "<!-- safety-area:end -->"


def fork_table(ns=(4, 5, 6), models=B.MODELS) -> str:
    """Markdown table of iCE40 cells per fork unit (what docs/performance.md records)."""
    lines = ["| model | n | SB_LUT4 | SB_DFF* | SB_CARRY | tag bits | extra sideband wires per link direction |",
             "|---|---|---|---|---|---|---|"]
    for model in models:
        for n in ns:
            a = B.fork_area(n, model)
            lines.append(f"| {model} | {n} | {a['lut4']} | {a['ff']} | {a['carry']} | "
                         f"{B.tag_layout(n).width} | {B.extra_sideband_bits(model)} |")
    return "\n".join(lines)


FORK_MARKS = "<!-- safety-fork-area:begin -->", "<!-- safety-fork-area:end -->"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--unit", choices=("level", "fork", "both"), default="both",
                   help="the safety-level unit, the broadcast fork unit, or both (default)")
    p.add_argument("--n", type=int, nargs="+", default=[4, 5, 6], help="cube dimensions (default 4 5 6)")
    p.add_argument("--write", metavar="PAGE.md", help="also replace the marked blocks of this page")


def run(args) -> int:
    from ..errors import require_int
    ns = tuple(require_int(n, "n", 2, S.MAX_N) for n in args.n)
    if args.unit in ("level", "both"):
        publish(level_table(ns), args.write, *LEVEL_MARKS)
    if args.unit in ("fork", "both"):
        publish(fork_table(ns), args.write, *FORK_MARKS)
    return 0
