"""Saturation throughput of networks whose routing needs virtual channels, on the model (verified
against the V > 1 Verilog by tests/test_cocotb_vc.py): each routing function with its VCs and forced
onto one VC (every hop on VC 0, what the deadlock checker rejects). Same method as ``cubenoc bench
throughput`` (sim/model/perf.py): Bernoulli uniform traffic, 2,000 warm-up cycles, accepted
throughput over a 10,000-cycle window, latency = creation to tail ejection.

``python -m cubenoc.sim.model.vc_bench`` prints the markdown table (docs/performance.md, VC section).
"""
from __future__ import annotations

import argparse
import sys

from .network import NetworkModel
from .perf import saturation_sweep, saturation_throughput, sweep_rows


def cases():
    from ..routing.hierarchical import HierarchicalRouting
    from ..routing.metacube import MetacubeRouting
    from ..routing.pdn import AdaptivePDNRouting
    from ..topology.hierarchical import hierarchical_from_spec
    from ..topology.metacube import Metacube
    from ..topology.pdn import PerfectDifferenceNetwork
    mc12, mc21 = Metacube(1, 2), Metacube(2, 1)
    pdn = PerfectDifferenceNetwork((0, 1, 3, 9))
    hin = hierarchical_from_spec("bh:3", "ccc:2")
    return [(mc12, MetacubeRouting(mc12), MetacubeRouting(mc12, vcs=False)),
            (mc21, MetacubeRouting(mc21), MetacubeRouting(mc21, vcs=False)),
            (pdn, AdaptivePDNRouting(pdn), AdaptivePDNRouting(pdn, hop_vcs=False)),
            (hin, HierarchicalRouting(hin), HierarchicalRouting(hin, use_vcs=False))]


def table(loads=(0.2, 0.4, 0.6, 0.8, 1.0), packet_lens=(1, 4), depth: int = 4) -> str:
    head = "| network | routing | V | packet | " + " | ".join(f"{r:.1f}" for r in loads) + " | saturation |"
    rows = ["Accepted throughput (flits/node/cycle) / mean packet latency (cycles) per offered load "
            "(`-` : nothing created in the window was delivered: deadlocked):", "",
            head, "|---|---|---|---|" + "---|" * (len(loads) + 1)]
    for topo, with_vcs, one_vc in cases():
        for routing in (with_vcs, one_vc):
            model = NetworkModel(topo, routing, depth=depth)
            for L in packet_lens:
                pts = saturation_sweep(model, L, loads)
                cells = [f"{p.accepted:.3f} / {p.latency:.0f}" if p.latency != float("inf") else f"{p.accepted:.3f} / -"
                         for p in pts]
                rows.append(f"| {topo!r} | `{routing.name}` | {routing.num_vcs} | {L} flit{'s' if L > 1 else ''} | "
                            + " | ".join(cells) + f" | **{saturation_throughput(pts):.3f}** |")
    rows += ["", f"FIFO depth {depth} per VC; command: `python -m cubenoc.sim.model.vc_bench`."]
    return "\n".join(rows)


def voq_table(loads=(0.6, 0.7, 0.8, 0.9, 1.0), packet_lens=(1, 4), depth: int = 4) -> str:
    """Q_6 with e-cube: V = 1 against the lookahead VOQ mode of the VC router (sim/model/lookahead.py)."""
    from ..routing.hypercube import EcubeRouting
    from ..topology.hypercube import Hypercube
    from .lookahead import LookaheadVoqRouting
    topo = Hypercube(6)
    head = "| network | router | V | packet | " + " | ".join(f"{r:.1f}" for r in loads) + " | saturation |"
    rows = [head, "|---|---|---|---|" + "---|" * (len(loads) + 1)]
    for label, routing in (("V = 1", EcubeRouting(topo)), ("lookahead VOQ", LookaheadVoqRouting(EcubeRouting(topo)))):
        rows += sweep_rows(topo, label, routing, packet_lens, loads, depth)
    rows += ["", f"FIFO depth {depth} per VC; command: `python -m cubenoc.sim.model.vc_bench --voq`."]
    return "\n".join(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--voq", action="store_true", help="the lookahead VOQ mode on Q_6 instead")
    args = ap.parse_args(argv)
    print(voq_table() if args.voq else table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
