"""Model-vs-Verilog verification of adaptive / fault-aware networks (docs/router.md, "Adaptive
selection and run-time faults"): :func:`verify_network` with a fault schedule per scenario and the
``discarded`` counters compared too.

``verify_adaptive(topology, routing, [(name, stim, faults_or_None), ...])`` runs the model until it
drains (cycle C), the Verilog for C + ``margin`` cycles with the same fault schedule driven on the top's
``link_fault``/``node_fault`` at run time, the model again for exactly as many cycles, and compares:
the ejected traces, the counters and ``discarded``; plus the delivery promise that every injected packet
was ejected whole or discarded.
"""
from __future__ import annotations

import numpy as np

from ..sim.model.network import NetworkModel
from ..sim.router_config import RouterConfig
from .runner import build_network, run_scenarios
from .scoreboard import compare
from .verify import Verdict
from ..sim.network_plan import plan_of


def accounting_problems(res) -> list[str]:
    """Every accepted packet is ejected (all its flits) or counted as discarded; nothing else."""
    s = res.stimulus
    injected = int(res.counters[:, 0].sum())
    ejected = int(res.counters[:, 1].sum())
    discarded = int(res.discarded.sum())
    out = []
    if res.drained and injected != ejected + discarded:
        out.append(f"injected {injected} packets, ejected {ejected} + discarded {discarded}")
    # no packet arrives partly: a packet's flits are all ejected or none
    if res.drained:
        got = np.zeros(s.num_packets, dtype=np.int64)
        np.add.at(got, s.packet[res.tr_flit], 1)
        cut = np.nonzero((got > 0) & (got != s.pkt_len))[0]
        out += [f"partly delivered: {s.describe_packet(int(k))}" for k in cut[:5]]
        wrong = np.nonzero(res.tr_node != s.pkt_dst[s.packet[res.tr_flit]])[0]
        out += [f"misdelivered: {s.describe_flit(int(res.tr_flit[j]))}" for j in wrong[:5]]
    return out


def verify_adaptive(topology, routing, scenarios, config: RouterConfig | None = None,
                    margin: int = 16, max_cycles: int = 200_000) -> list[Verdict]:
    """``config``: the routers' options (run-time faults always on: the fault inputs are driven)."""
    config = (config or RouterConfig()).replace(faults=True)
    model = NetworkModel(plan_of(topology, routing, config))
    runs = []
    for name, stim, faults in scenarios:
        first = model.run(stim, max_cycles=max_cycles, faults=faults)
        runs.append((name, stim, faults, first.cycles + margin, first.drained))
    design = build_network(model.plan)
    traces = run_scenarios(design, [(name, stim, cycles, faults) for name, stim, faults, cycles, _ in runs])
    out = []
    for name, stim, faults, cycles, drained in runs:
        res = model.run(stim, cycles=cycles, faults=faults)
        rtl = traces[name]
        problems = [] if drained else [f"the model did not drain within {max_cycles} cycles"]
        problems += [f"model: {p}" for p in accounting_problems(res)]
        problems += compare(res, rtl)
        bad = np.nonzero((res.discarded & 0xFFFF) != rtl.discarded)[0]
        problems += [f"node {int(v)}: discarded {int(rtl.discarded[v])} in the Verilog, "
                     f"{int(res.discarded[v])} in the model" for v in bad[:8]]
        out.append(Verdict(name, res, rtl, problems))
    return out
