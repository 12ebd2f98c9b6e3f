"""``cubenoc bench safety-area``: iCE40 cells of the safety-level unit (rtl/safety/unit.py) and of the
safety-level broadcast fork (rtl/safety/fork.py) for n = 4..6 (docs/safety_hw.md "Cost" and
"Safety-level broadcast: the fork unit")."""
from __future__ import annotations

import argparse

from ..errors import require_int
from ..options import add
from ..rtl.safety import fork as B, unit as S, unit_files
from .render import Table, add_output_arguments, publish

LEVEL_MARKS = "<!-- safety-area:begin -->", "<!-- safety-area:end -->"
FORK_MARKS = "<!-- safety-fork-area:begin -->", "<!-- safety-fork-area:end -->"

LEVEL_COLUMNS = {"models": "models", "n": "n", "lut4": "SB_LUT4", "ff": "SB_DFF*", "carry": "SB_CARRY",
                 "sideband": "sideband wires per link direction"}
FORK_COLUMNS = {"model": "model", "n": "n", "lut4": "SB_LUT4", "ff": "SB_DFF*", "carry": "SB_CARRY",
                "tag_bits": "tag bits", "extra_sideband": "extra sideband wires per link direction"}


def level_table(ns=(4, 5, 6), configs=(("SL1",), ("DSL1",), ("SL2",), ("DSL2",), S.MODELS)) -> Table:
    """iCE40 LUT4/FF per safety-level unit (what docs/safety_hw.md records)."""
    rows = [{"models": "+".join(cfg), "n": n, **{k: a[k] for k in ("lut4", "ff", "carry")},
             "sideband": S.sideband_bits(n, cfg)}
            for cfg in configs for n in ns for a in [unit_files.unit_area(n, cfg)]]
    return Table(rows, LEVEL_COLUMNS, marks=LEVEL_MARKS, name="level")


def fork_table(ns=(4, 5, 6), models=B.MODELS) -> Table:
    """iCE40 cells per fork unit (what docs/safety_hw.md records)."""
    rows = [{"model": model, "n": n, **{k: a[k] for k in ("lut4", "ff", "carry")}, "tag_bits": B.tag_layout(n).width,
             "extra_sideband": B.extra_sideband_bits(model)}
            for model in models for n in ns for a in [B.fork_area(n, model)]]
    return Table(rows, FORK_COLUMNS, marks=FORK_MARKS, name="fork")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--unit", choices=("level", "fork", "both"), default="both",
                   help="the safety-level unit, the broadcast fork unit, or both (default)")
    add(p, "n", nargs="+", default=[4, 5, 6], help="cube dimensions")
    add_output_arguments(p, "safety-area / safety-fork-area")


def run(args) -> int:
    ns = tuple(require_int(n, "n", 2, S.MAX_N) for n in args.n)
    tables = ([level_table(ns)] if args.unit in ("level", "both") else []) + (
        [fork_table(ns)] if args.unit in ("fork", "both") else [])
    return publish(tables, args)
