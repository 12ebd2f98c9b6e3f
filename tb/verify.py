"""Model-vs-Verilog verification of one network: what the cocotb tests and ``make demo`` call.

``verify_network(topology, scenarios)`` runs the model on each scenario until it drains (cycle C),
runs the Verilog for C + ``margin`` cycles (so a late or extra flit is seen), re-runs the model for
exactly as many cycles, and compares with the scoreboard.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..sim.model.check import delivery_problems
from ..sim.model.network import ModelResult, NetworkModel
from .runner import RtlTrace, build_network, run_scenarios
from .scoreboard import compare


@dataclass
class Verdict:
    name: str
    model: ModelResult
    rtl: RtlTrace
    problems: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_network(topology, scenarios, routing=None, depth: int = 4, payload_width: int = 32,
                  margin: int = 16, max_cycles: int = 200_000, broadcast=None, queues: str = "fifo",
                  arbitration: str = "round-robin", pipeline: bool = False, fifo_memory: bool | str = False,
                  counters: bool = True, loopback: bool = True) -> list[Verdict]:
    model = NetworkModel(topology, routing, depth=depth, broadcast=broadcast, queues=queues,
                         arbitration=arbitration, pipeline=pipeline, loopback=loopback)
    runs = []
    for name, stim in scenarios:
        first = model.run(stim, max_cycles=max_cycles)
        runs.append((name, stim, first.cycles + margin, first.drained))
    extra = {} if broadcast is None else {"broadcast": broadcast}
    if queues != "fifo":
        extra["queues"] = queues
    if arbitration != "round-robin":
        extra["arbitration"] = arbitration
    if pipeline:
        extra["pipeline"] = True
    if fifo_memory:
        extra["fifo_memory"] = fifo_memory
    if not counters:
        extra["counters"] = False
    if not loopback:
        extra["loopback"] = False
    design = build_network(topology, model.routing, payload_width=payload_width, depth=depth, **extra)
    traces = run_scenarios(design, [(name, stim, cycles) for name, stim, cycles, _ in runs])
    out = []
    for name, stim, cycles, drained in runs:
        res = model.run(stim, cycles=cycles)
        problems = [] if drained else [f"the model did not drain within {max_cycles} cycles"]
        problems += [f"model: {p}" for p in delivery_problems(res)]
        problems += compare(res, traces[name], counters=counters)
        out.append(Verdict(name, res, traces[name], problems))
    return out
