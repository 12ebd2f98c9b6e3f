"""Model-vs-Verilog verification of the safety-level broadcast through the routers
(:class:`~cubenoc.rtl.safety.broadcast_net.SafetyBroadcastNetwork`, docs/safety_hw.md).

``build_safety_broadcast(n, model)`` writes the one-file Verilog into ``build/<name>/src`` and builds it
with Verilator (the Verilog does not depend on the fault set: one build serves every set).
``verify_safety_broadcast(n, model, cases)`` runs, per ``(fault set, [(name, stimulus), ...])``, the
model ``NetworkModel(Q_n, e-cube, broadcast=SafetyBroadcast(faults, model))`` (levels from
``sim/safety.py``) and the Verilog with the fault inputs held from cycle 0 (the level units settle
within n - 1 cycles; the stimulus releases its first packet later), all scenarios in one simulator
process, and compares the ejection traces with the scoreboard.
"""
from __future__ import annotations

import numpy as np

from cubenoc.rtl.tools import use_builtin_yosys, use_verilator
from cubenoc.sim.broadcast.fork import BROADCAST_DEST
from cubenoc.sim.broadcast.safety import SafetyBroadcast, check_broadcast
from cubenoc.sim.model.check import delivery_problems
from cubenoc.sim.model.faults import FaultSchedule
from cubenoc.sim.model.network import NetworkModel
from cubenoc.sim.router_config import RouterConfig
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.topology.hypercube import Hypercube
from cubenoc.tb.runner import (BUILD_ARGS, Design, TOP_PORTS, _locked, build_root, cheap_cxx, run_scenarios,
                               waves_requested)
from cubenoc.tb.scoreboard import compare
from cubenoc.tb.verify import Verdict

from ...sim.network_plan import plan_of


def build_safety_broadcast(n: int, model: str = "SL1", payload_width: int = 32, depth: int = 4,
                           waves: bool | None = None) -> Design:
    from cocotb_tools.runner import get_runner

    from cubenoc.rtl.safety.broadcast_net import safety_broadcast_verilog

    waves = waves_requested() if waves is None else waves
    use_verilator()
    use_builtin_yosys()
    text, top = safety_broadcast_verilog(n, model, payload_width=payload_width, fifo_depth=depth)
    name = f"{top}_w{payload_width}_d{depth}" + ("_waves" if waves else "")
    d = build_root() / name
    with _locked(build_root() / f".{name}.lock"), cheap_cxx():
        src = d / "src"
        src.mkdir(parents=True, exist_ok=True)
        v = src / f"{top}.v"
        if not v.exists() or v.read_text() != text:
            v.write_text(text)
        vlt = src / "public_ports.vlt"
        ports = TOP_PORTS + ("link_fault", "node_fault")
        cfg = "`verilator_config\n" + "".join(f'public_flat_rw -module "{top}" -var "{p}"\n' for p in ports)
        if not vlt.exists() or vlt.read_text() != cfg:
            vlt.write_text(cfg)
        args = BUILD_ARGS + [str(vlt)] + (["--trace", "--trace-structs"] if waves else [])
        get_runner("verilator").build(sources=[str(v)], hdl_toplevel=top, build_dir=str(d / "sim"),
                                      build_args=args, waves=waves, log_file=str(d / "build.log"))
    topo = Hypercube(n)
    # candidate_stage=True: the bench drives link_fault/node_fault from each scenario's FaultSchedule
    return Design(topo, EcubeRouting(topo), payload_width, depth, top, d, waves, candidate_stage=True)


def fault_schedule(faults, topology) -> FaultSchedule:
    """The fault set as the top's inputs from cycle 0 on (link (u, d) marked at its lower end u)."""
    links: dict[int, set[int]] = {}
    for u, d in faults.links:
        links.setdefault(u, set()).add(d)
    return FaultSchedule(topology.num_nodes).at(0, links, sorted(faults.nodes))


def verify_safety_broadcast(n: int, model: str, cases, depth: int = 4, payload_width: int = 32,
                            margin: int = 16, max_cycles: int = 100_000):
    """``cases``: ``[(faults, [(name, stimulus), ...]), ...]``. Returns ``[(faults, alg, [Verdict])]``."""
    design = build_safety_broadcast(n, model, payload_width=payload_width, depth=depth)
    runs, jobs = [], []
    for c, (faults, scenarios) in enumerate(cases):
        alg = SafetyBroadcast(faults, model)
        nm = NetworkModel(plan_of(alg.topology, EcubeRouting(alg.topology), RouterConfig(fifo_depth=depth, broadcast=alg)),
                          allowed=None)
        sched = fault_schedule(faults, alg.topology)
        mine = []
        for name, stim in scenarios:
            first = nm.run(stim, max_cycles=max_cycles)
            cycles = first.cycles + margin
            mine.append((name, stim, cycles, first.drained))
            jobs.append((f"f{c}_{name}", stim, cycles, sched))
        runs.append((faults, alg, nm, mine))
    traces = run_scenarios(design, jobs)
    out = []
    for c, (faults, alg, nm, mine) in enumerate(runs):
        verdicts = []
        for name, stim, cycles, drained in mine:
            res = nm.run(stim, cycles=cycles)
            tr = traces[f"f{c}_{name}"]
            problems = [] if drained else [f"the model did not drain within {max_cycles} cycles"]
            # "lost" counts every node but the source; with faults :func:`copy_problems` is exact
            problems += [f"model: {p}" for p in delivery_problems(res) if not p.startswith("lost: ")]
            problems += copy_problems(res, alg)
            problems += compare(res, tr)
            verdicts.append(Verdict(name, res, tr, problems))
        out.append((faults, alg, verdicts))
    return out


def copy_problems(res, alg: SafetyBroadcast, limit: int = 10) -> list[str]:
    """Per broadcast packet of a zero-load trace (each broadcast alone in the network): every non-faulty
    node but the source ejects exactly one copy (each flit once), faulty nodes none, and the head copy
    at node v ejects at ``accept + step(v) + 1``, where ``step(v)`` = dist(root, v) (+1 after a
    hand-over) is the step :func:`~cubenoc.sim.broadcast.safety.check_broadcast` finds for the
    algorithm on its own (which must say ok). An unsafe source without a safe neighbour: no copies."""
    s = res.stimulus
    out: list[str] = []
    N = s.num_nodes
    for k in np.nonzero(s.pkt_dst == BROADCAST_DEST)[0].tolist():
        src, first, length = int(s.pkt_src[k]), int(s.pkt_first[k]), int(s.pkt_len[k])
        if not alg.safe(src) and alg.handoff_neighbour(src) is None:
            # no safe neighbour: the fork unit sends nothing (Python's start raises), nothing ejects
            got = sorted(set(res.tr_node[(res.tr_flit >= first) & (res.tr_flit < first + length)].tolist()))
            if got:
                out.append(f"{s.describe_packet(k)}: source {src} has no safe neighbour, yet ejected at {got}")
            continue
        ok, trace, why = check_broadcast(alg, src)
        if not ok:
            out.append(f"the algorithm itself fails from {src}: {why}")
            continue
        want = [v for v in range(N) if v != src and not alg.nf[v]]
        accept = int(res.accept_cycle[first])
        for f in range(first, first + length):
            got = sorted(res.tr_node[res.tr_flit == f].tolist())
            if got != want:
                out.append(f"{s.describe_packet(k)} flit {f - first}: ejected at {got}, want {want}")
        heads = res.tr_flit == first
        for c, v in zip(res.tr_cycle[heads].tolist(), res.tr_node[heads].tolist()):
            if c != accept + int(trace.step_kept[v]) + 1:
                out.append(f"{s.describe_packet(k)}: head copy at node {v} in cycle {c}, want accept {accept} "
                           f"+ step {int(trace.step_kept[v])} + 1")
        if len(out) >= limit:
            break
    return out[:limit]
