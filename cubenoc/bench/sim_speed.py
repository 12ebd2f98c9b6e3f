"""``cubenoc bench sim-speed`` (was ``cubenoc simulate --bench-speed``; docs/performance.md "Model speed",
block ``simulate-speed``): simulated network-cycles per second of wall time and of CPU time,
Bernoulli uniform traffic of 1-flit packets, 4-flit input FIFOs, best of 3 seeds; stimulus generation,
table building and compilation excluded (the measurement is sim/speed.py ``measure``).
BookSim2 reference: 4,000-8,000 network-cycles/s on the 64-node 6-cube at 0.1.
"""
from __future__ import annotations

import argparse
import os
import platform

import numpy as np

from ..errors import CubenocError
from ..estimate import NODE_CYCLES_PER_S, check_run
from ..options import add
from ..sim import speed
from ..sim.catalog import NetworkSpec, SIM_SPEED_NETWORKS
from .render import Table, add_output_arguments, progress, publish

MARKS = "<!-- simulate-speed:begin -->", "<!-- simulate-speed:end -->"
BOOKSIM_Q6 = (4000, 8000)

#: (spec, offered loads, simulated cycles per repeat) of each network of the catalog's SIM_SPEED_NETWORKS
CASES = tuple((spec, (0.1, 0.5), cycles) for spec, cycles in zip(SIM_SPEED_NETWORKS, (200_000, 200_000, 20_000,
                                                                                      1_000, 1_000), strict=True))


def speed_rows(cases=CASES, repeat: int = 3, quiet: bool = False) -> tuple[list[dict], list[str]]:
    """One row per (network, load) of ``cases`` (sim/speed.py ``measure``) and a note per network not run."""
    rows, notes = [], []
    for spec, loads, cycles in cases:
        for r in loads:
            if not quiet:
                progress(f"sim-speed: {spec} load {r:.2f}, {cycles:,} cycles x {repeat} ...")
            try:
                m = speed.measure(spec, r, cycles, repeat)
            except CubenocError as exc:
                notes.append(f"- `{spec}`: not run: {exc}")
                break
            if m["nodes"] == 64 and r == 0.1:       # BookSim2's range, per CPU second
                m["vs_booksim"] = [m["cpu_cycles_per_s"] / BOOKSIM_Q6[1], m["cpu_cycles_per_s"] / BOOKSIM_Q6[0]]
            rows.append(m)
            if not quiet:
                progress(f"  {m['network']} load {r:.2f}: {m['cycles_per_s']:,.0f} cycles/s wall, "
                         f"{m['cpu_cycles_per_s']:,.0f} per CPU s")
    return rows, notes


def columns(repeat: int = 3) -> dict:
    return {"network": "network", "nodes": "nodes", "rate": ("offered load", lambda r: f"{r['rate']:.2f}"),
            "cycles": ("simulated cycles", lambda r: f"{r['cycles']:,}"),
            "cycles_per_s": (f"network-cycles/s, wall (best of {repeat})", lambda r: f"{r['cycles_per_s']:,.0f}"),
            "cpu_cycles_per_s": ("per CPU second", lambda r: f"{r['cpu_cycles_per_s']:,.0f}"),
            "node_cycles_per_s": ("node-cycles per CPU second", lambda r: f"{r['node_cycles_per_s']:,.0f}"),
            "vs_booksim": ("vs BookSim2 6-cube @ 0.1 (CPU)",
                           lambda r: f"{r['vs_booksim'][0]:.0f}-{r['vs_booksim'][1]:.0f}x" if "vs_booksim" in r else ""),
            "build_s": ("table build (s)", lambda r: f"{r['build_s']:.2f}")}


def machine_note() -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, load average "
            f"{load:.1f} at the end, Python {platform.python_version()}, numpy {np.__version__}; the kernel "
            f"is single-threaded. Stimulus generation, table building and compilation are excluded.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add(p, "network", nargs="+", note="to measure instead of the benchmark's networks")
    add(p, "rate", nargs="+", note="(default 0.1 0.5)")
    add(p, "cycles", note="per repeat (default per network: 200,000 at 64 nodes .. 1,000 at 16,384)")
    add(p, "repeat", default=3, help="seeds per point, the best counts")
    add(p, "quiet")
    add_output_arguments(p, "simulate-speed", json_alias=True)


def run(args) -> int:
    if args.rate and not all(0 < r <= 1 for r in args.rate):     # (--cycles, --repeat: at_least(1))
        raise CubenocError("--rate must be in (0, 1] flits/node/cycle")
    cases = CASES
    if args.network:                            # a spec the user typed: a typo is an error, not an empty table
        for s in args.network:
            NetworkSpec.parse(s).build("model")
    if args.network or args.rate or args.cycles:
        cases = tuple((spec, tuple(args.rate or loads), args.cycles or cycles)
                      for spec, loads, cycles in (CASES if not args.network else
                                                  [(s, (0.1, 0.5), 1_000) for s in args.network]))
    work = sum(NetworkSpec.parse(spec).build("model")[0].num_nodes * cycles * len(loads)
               for spec, loads, cycles in cases) * args.repeat
    check_run(f"bench sim-speed: {len(cases)} network(s) x {args.repeat} repeat(s)", work / NODE_CYCLES_PER_S, 0,
              "--cycles or --repeat")
    rows, notes = speed_rows(cases, args.repeat, args.quiet)
    after = "\n".join([machine_note(), *notes])
    return publish(Table(rows, columns(args.repeat), after=after, marks=MARKS), args)
