"""Synthesise and place-and-route every distinct router of each family's networks for iCE40 UP5K and ECP5-25F.

``cubenoc synth-report [--family pdn hin] [--size 0,1,3 bh:3/cc:4] [--targets up5k ecp5-25f] [--jobs 2]
[--write]``. A network has one router *shape* per distinct Verilog module (rtl/network_top.py: ports,
allowed turns, VCs; e.g. the interface and the inner nodes of a hierarchical network); every shape is
reported once with the number of nodes that use it. Per shape and target: yosys (``synth_ice40`` /
``synth_ecp5``, optimising for ``--synth speed`` (yosys' default) or ``area``: boards/synth.py
``SYNTH_GOALS``) on the bare router for LUT4/FF/carry/RAM, and nextpnr on the router inside a pin-saving
harness for Fmax (boards/synth.py). This module is the command; the measuring and the tables are
cubenoc/bench/synth_shapes.py.

Results are cached in ``<work-dir>/cache/<key>.json``, the key being a hash of the router's RTLIL, the
target, the harness version, the seed, the synthesis goal and the tool versions: a rerun only synthesises what changed
(``--force`` ignores the cache). ``--write`` replaces the block between ``<!-- synth-report:begin -->``
and ``<!-- synth-report:end -->`` of docs/families.md (bench/render.py replace_section). Networks are
built by the catalog (sim/catalog.py): ``--network SPEC ...``, or ``--family/--size``, a shorthand that
:func:`size_spec` turns into specs; each family's default networks are the specs in ``SYNTH_FAMILIES``
(the sizes the family issues verify).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from .bench.render import RESULTS, render_block, write_results
from .bench.synth_shapes import (BEGIN, END, SYNTH_FAMILIES, collect, markdown_table, section_head, seeds, shapes_for,
                                 table_cells, tool_versions, write_command)
from .errors import CubenocError, ToolError
from .netargs import add_router_flags, one_network
from .options import add, given
from .outputs import say, writable_dir, writable_file
from .provenance import provenance


# ---- CLI ----------------------------------------------------------------------------------------------
def add_arguments(p: argparse.ArgumentParser) -> None:
    from .boards.synth import DEFAULT_TARGETS
    sizes = "; ".join(f"{f}: {what}" for f, (_, what) in SYNTH_FAMILIES.items())
    p.add_argument("networks", nargs="*", metavar="NETWORK", help="networks as catalog specs (pdn:set=0,1,3,9, q4, "
                   "hin:level1=bh:3,level2=ccc:2; docs/networks.md), the same as --network")
    add(p, "family", nargs="+", default=list(SYNTH_FAMILIES), choices=list(SYNTH_FAMILIES), note="(default all)")
    add(p, "size", nargs="+", note=f"(default: each family's usual sizes, `--list` shows them); {sizes}")
    add(p, "network", nargs="+", note="instead of --family/--size; their router options apply")
    add(p, "n", nargs="+", help="hypercube/enhanced sizes (same as --size N)")
    add_router_flags(p, only=("payload", "depth", "queues", "pipeline", "arbitration", "fifo_memory", "counters",
                              "loopback"))
    add(p, "synth", help="what yosys optimises for (default: the goal the target's default router was measured "
        "with: balanced on the UP5K, area on the ECP5, speed for --pipeline): speed (yosys' default), area (ABC with "
        "a relaxed delay target; ECP5: LUT4s without wide-LUT muxes) or balanced (ECP5: LUT4s without wide-LUT "
        "muxes, ABC's delay mapping; iCE40: a 4 ns delay target, area below it); docs/decisions/synthesis-goal.md")
    add(p, "targets", nargs="+", default=list(DEFAULT_TARGETS), note="(gowin: the Tang Nano 9K's GW1NR-9C)")
    add(p, "toolchain")
    p.add_argument("--no-pnr", action="store_true", help="yosys counts only, no nextpnr Fmax")
    add(p, "seed", nargs="+", default=[1], help="nextpnr placement seed(s); with several, Fmax is their median")
    p.add_argument("--pnr-timeout", type=float, default=900, metavar="SECONDS",
                   help="stop a nextpnr run after this long (default 900): that seed has no Fmax, the row says so")
    add(p, "jobs", default=1, note="(tool runs)")
    add(p, "work-dir", default="build/synth-report")
    p.add_argument("--force", action="store_true", help="ignore the cache")
    p.add_argument("--list", action="store_true", help="list the networks and router shapes, run no tool")
    add(p, "write", nargs="?", const="docs/families.md",
        help="publish: write the results beside PAGE (docs/results/synth-report.json) and render its synth-report "
             "block (default PAGE docs/families.md of the project)")
    p.add_argument("--doc", default=None, help=argparse.SUPPRESS)        # the old way to name --write's page
    add(p, "json")
    add(p, "quiet")


def _page(args) -> Path:
    """The page ``--write`` publishes to: the one named (``--doc``, its old spelling), else the project's."""
    page = args.doc or (args.write if args.write != "docs/families.md" else None)
    return Path(page) if page else Path(__file__).resolve().parents[1] / "docs" / "families.md"


def run(args) -> int:
    args.network = one_network(args.networks, args.network) or None
    seeds(args)
    if args.network and given(args, "family"):
        raise CubenocError("give networks (NETWORK or --network) or --family/--size, not both")
    if args.list and args.write:
        raise CubenocError("--list runs no tool, so --write has nothing to publish: give one of them")
    if not args.list:                            # bad input refused before the networks are planned (seconds)
        if args.jobs < 1:
            raise CubenocError(f"--jobs must be at least 1, got {args.jobs}")
        if not args.pnr_timeout > 0:
            raise CubenocError(f"--pnr-timeout must be a positive number of seconds, got {args.pnr_timeout:g}")
        writable_dir(args.work_dir, "--work-dir")
        if args.write:
            writable_file(_page(args), "--write")
    by_target = {t: shapes_for(args, t) for t in args.targets}
    if args.list:
        for t, shapes in by_target.items():
            for s in shapes:
                print(f"{t:<9} {s.network:<28} {s.routing:<18} shape {s.index}: P={s.ports} V={s.router.num_vcs} "
                      f"({s.nodes} nodes, e.g. node {s.node}); router: {s.router.config.describe()}")
        return 0
    tools = tool_versions(args.toolchain)
    t0 = time.monotonic()
    rows, failures = collect(args, by_target, tools)
    rows = [r for r in rows if r is not None]
    ran = sum(1 for r in rows if not r["cached"])
    say(f"{len(rows)} rows, {ran} synthesised, {len(rows) - ran} from the cache ({time.monotonic() - t0:.0f} s; "
        f"logs and cache in {args.work_dir})", file=sys.stderr)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(markdown_table(rows))
    if failures:
        raise ToolError(f"{len(failures)} synthesis run(s) failed (logs under {args.work_dir}): "
                           + "; ".join(failures) + (" -- docs not updated" if args.write else ""))
    if args.write:
        doc = _page(args)
        headings, body = table_cells(rows)
        block = {"block": "synth-report", "page": doc.name, "marks": [BEGIN, END], "command": write_command(args),
                 **provenance(), "tables": [{"name": "rows", "before": section_head(args, rows), "after": "",
                                             "headings": headings, "cells": body, "rows": rows}]}
        write_results(doc.parent / RESULTS / "synth-report.json", block)
        render_block(doc.parent, block)
        say(f"updated {doc} and {doc.parent / RESULTS / 'synth-report.json'}")
    return 0


