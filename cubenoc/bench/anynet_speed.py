"""``cubenoc bench anynet-speed`` (docs/anynet.md "Speed", block ``anynet-speed``): a family network and the
same network read from its BookSim anynet file, side by side on the model (network-cycles per CPU second,
Bernoulli uniform traffic of 1-flit packets, best of ``--repeat`` seeds, the two measured in turn so that
the machine's load falls on both alike), and the seconds a large anynet file takes to be parsed, checked
(connected, ports) and planned (shortest routes, up*/down* VCs, the network plan).
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import networkx as nx

from ..errors import CubenocError
from ..options import add
from ..sim.anynet_file import anynet_text
from ..sim.catalog import NetworkSpec
from ..sim.network_plan import plan_of
from ..sim.speed import measure
from ..sim.topology.anynet import AnyNetwork
from .render import Table, add_output_arguments, progress, publish
from .sim_speed import machine_note

MARKS = "<!-- anynet-speed:begin -->", "<!-- anynet-speed:end -->"
#: the family networks compared with their anynet files, and the large file planned
NETWORKS = ("hypercube:n=6",)
LARGE = "hypercube:n=12"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add(p, "network", nargs="+", note=f"family networks to compare with their anynet files (default {' '.join(NETWORKS)})")
    add(p, "rate", nargs="+", note="(default 0.1 0.5)")
    add(p, "cycles", default=100_000, help="simulated cycles per repeat")
    add(p, "repeat", default=3, help="seeds per point, the best counts")
    add(p, "size", help=f"the network whose anynet file is timed from parse to plan (default {LARGE}, 4,096 nodes)")
    add(p, "quiet")
    add_output_arguments(p, "anynet-speed", json_alias=True)


def write_anynet_of(spec: str, folder: Path) -> Path:
    """The anynet file of catalog network ``spec``, written into ``folder``."""
    topo, _ = NetworkSpec.parse(spec).build("model")
    path = folder / f"{topo.name}.anynet"
    path.write_text(anynet_text(topo))
    return path


def random_regular_anynet(nodes: int, degree: int, folder: Path, seed: int = 1) -> Path:
    """The anynet file of a random ``degree``-regular graph (networkx): a network no family describes, whose
    lowest-port routes have cycles (the up*/down* tables are planned)."""

    g = nx.random_regular_graph(degree, nodes, seed=seed)
    path = folder / f"random_regular_{degree}_{nodes}.anynet"
    path.write_text(anynet_text(AnyNetwork([sorted(g[v]) for v in range(nodes)])))
    return path


def plan_seconds(path: Path) -> dict:
    """Seconds to parse, check and plan the anynet file ``path``."""
    t0, c0 = time.perf_counter(), time.process_time()
    topo, routing = NetworkSpec.parse(f"anynet:file={path}").build("model")
    plan_of(topo, routing)
    return {"nodes": topo.num_nodes, "vcs": routing.num_vcs, "routing": routing.name,
            "plan_s": time.perf_counter() - t0, "plan_cpu_s": time.process_time() - c0}


def run(args) -> int:
    rates = tuple(args.rate or (0.1, 0.5))
    if not all(0 < r <= 1 for r in rates):
        raise CubenocError("--rate must be in (0, 1] flits/node/cycle")
    nets = args.network or list(NETWORKS)
    for s in nets + [args.size or LARGE]:
        NetworkSpec.parse(s).build("model")                # a typo: one line before any work
    rows = []
    with tempfile.TemporaryDirectory(prefix="anynet-speed") as tmp:
        for spec in nets:
            path = write_anynet_of(spec, Path(tmp))
            any_spec = f"anynet:file={path}"
            for r in rates:
                best = {}
                for seed in range(args.repeat):            # in turn: the load of the moment falls on both
                    for which, s in (("family", spec), ("anynet", any_spec)):
                        m = measure(s, r, args.cycles, repeat=1)
                        if which not in best or m["cpu_cycles_per_s"] > best[which]["cpu_cycles_per_s"]:
                            best[which] = m
                fam, mine = best["family"], best["anynet"]
                row = {"network": spec, "nodes": fam["nodes"], "rate": r, "cycles": args.cycles,
                       "family_cpu_cycles_per_s": fam["cpu_cycles_per_s"],
                       "anynet_cpu_cycles_per_s": mine["cpu_cycles_per_s"],
                       "ratio": mine["cpu_cycles_per_s"] / fam["cpu_cycles_per_s"],
                       "spec": fam["spec"], "router_config": fam["router_config"]}
                rows.append(row)
                if not args.quiet:
                    progress(f"anynet-speed: {spec} at {r}: family {fam['cpu_cycles_per_s']:,.0f}, anynet file "
                             f"{mine['cpu_cycles_per_s']:,.0f} cycles per CPU s ({row['ratio']:.2f})")
        large = args.size or LARGE
        path = write_anynet_of(large, Path(tmp))
        p = plan_seconds(path)
        q = plan_seconds(random_regular_anynet(p["nodes"], 6, Path(tmp)))
        if not args.quiet:
            progress(f"anynet-speed: the anynet file of {large} ({p['nodes']:,} nodes) parsed, checked and planned in "
                     f"{p['plan_s']:.2f} s, a random 6-regular graph of as many in {q['plan_s']:.2f} s")
    cols = {"network": "network", "nodes": "nodes", "rate": ("offered load", lambda r: f"{r['rate']:.2f}"),
            "family_cpu_cycles_per_s": ("family: cycles per CPU s", lambda r: f"{r['family_cpu_cycles_per_s']:,.0f}"),
            "anynet_cpu_cycles_per_s": ("its anynet file", lambda r: f"{r['anynet_cpu_cycles_per_s']:,.0f}"),
            "ratio": ("anynet / family", lambda r: f"{r['ratio']:.2f}")}
    after = "\n".join([f"Parsed, checked and planned: the anynet file of `{large}` ({p['nodes']:,} nodes, "
                       f"`{p['routing']}`, {p['vcs']} VC) in {p['plan_s']:.2f} s wall ({p['plan_cpu_s']:.2f} s CPU); a "
                       f"random 6-regular graph of {q['nodes']:,} nodes (networkx, seed 1; `{q['routing']}`, "
                       f"{q['vcs']} VCs) in {q['plan_s']:.2f} s wall ({q['plan_cpu_s']:.2f} s CPU).", "", machine_note()])
    return publish(Table(rows, cols, before=f"Best of {args.repeat} seeds, {args.cycles:,} cycles each, 1-flit "
                         "packets, uniform traffic, FIFO depth 4.", after=after, marks=MARKS), args)
