"""Saturation throughput of networks whose routing needs virtual channels, on the model (verified
against the V > 1 Verilog by tests/test_cocotb_vc.py): each routing function with its VCs and forced
onto one VC (every hop on VC 0, what the deadlock checker rejects). Same method as ``cubenoc bench
throughput`` (sim/model/perf.py): Bernoulli uniform traffic, 2,000 warm-up cycles, accepted
throughput over a 10,000-cycle window, latency = creation to tail ejection.

``cubenoc bench vc-throughput [--voq] [--format md|json|csv]`` prints the table (docs/performance.md, VC section).
"""
from __future__ import annotations

import argparse

from ..options import add, fixed_lengths
from ..sim.model.lookahead import LookaheadVoqRouting
from ..sim.router_config import RouterConfig
from ..sim.routing.hierarchical import HierarchicalRouting
from ..sim.routing.hypercube import EcubeRouting
from ..sim.routing.metacube import MetacubeRouting
from ..sim.routing.pdn import AdaptivePDNRouting
from ..sim.topology.hierarchical import hierarchical_from_spec
from ..sim.topology.hypercube import Hypercube
from ..sim.topology.metacube import Metacube
from ..sim.topology.pdn import PerfectDifferenceNetwork
from .model import SAT_NOTE, sweep_columns, sweep_rows
from .render import Table, add_output_arguments, code, command, publish


def cases():
    mc12, mc21 = Metacube(1, 2), Metacube(2, 1)
    pdn = PerfectDifferenceNetwork((0, 1, 3, 9))
    hin = hierarchical_from_spec("bh:3", "ccc:2")
    return [(mc12, MetacubeRouting(mc12), MetacubeRouting(mc12, vcs=False)),
            (mc21, MetacubeRouting(mc21), MetacubeRouting(mc21, vcs=False)),
            (pdn, AdaptivePDNRouting(pdn), AdaptivePDNRouting(pdn, hop_vcs=False)),
            (hin, HierarchicalRouting(hin), HierarchicalRouting(hin, use_vcs=False))]


#: the page block of :func:`table` (docs/performance.md)
MARKS = "<!-- vc-throughput: begin -->", "<!-- vc-throughput: end -->"


def table(loads=(0.2, 0.4, 0.6, 0.8, 1.0), packet_lens=(1, 4), depth: int = 4, window: int = 10000,
          limit=None, cmd: str = "cubenoc bench vc-throughput") -> Table:
    rows = [r for topo, with_vcs, one_vc in cases()[:limit] for routing in (with_vcs, one_vc)
            for r in sweep_rows(topo, routing.name, routing, packet_lens, loads, RouterConfig(fifo_depth=depth), window)]
    return Table(rows, sweep_columns(loads) | {"routing": ("routing", code("routing"))},
                 before="Accepted throughput (flits/node/cycle) / mean packet latency (cycles) per offered load "
                        "(`-` : nothing created in the window was delivered: deadlocked):",
                 after=f"FIFO depth {depth} per VC; {SAT_NOTE}; command: `{cmd}`.", marks=MARKS)


def voq_table(loads=(0.6, 0.7, 0.8, 0.9, 1.0), packet_lens=(1, 4), depth: int = 4, window: int = 10000,
              cmd: str = "cubenoc bench vc-throughput --voq") -> Table:
    """Q_6 with e-cube: V = 1 against the lookahead VOQ mode of the VC router (sim/model/lookahead.py)."""
    topo = Hypercube(6)
    rows = [r for label, routing in (("V = 1", EcubeRouting(topo)), ("lookahead VOQ", LookaheadVoqRouting(EcubeRouting(topo))))
            for r in sweep_rows(topo, label, routing, packet_lens, loads, RouterConfig(fifo_depth=depth), window)]
    return Table(rows, sweep_columns(loads, "router"), after=f"FIFO depth {depth} per VC; command: `{cmd}`.")


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--voq", action="store_true", help="the lookahead VOQ mode on Q_6 instead")
    add(ap, "rate", nargs="+", note="(default 0.2..1.0; 0.6..1.0 with --voq)")
    add(ap, "length", nargs="+", default=["1", "4"])
    add(ap, "window", default=10000)
    add(ap, "limit")
    add_output_arguments(ap, "vc-throughput")


def run(args) -> int:
    kw = {"packet_lens": fixed_lengths(args.length), "window": args.window, "cmd": command(args)} | (
        {"loads": args.rate} if args.rate else {})
    return publish(voq_table(**kw) if args.voq else table(limit=args.limit, **kw), args)
