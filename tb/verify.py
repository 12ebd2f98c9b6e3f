"""Model-vs-Verilog verification of one network: what the cocotb tests and ``make demo`` call.

``verify_network(topology, scenarios)`` runs the model on each scenario until it drains (cycle C),
runs the Verilog for C + ``margin`` cycles (so a late or extra flit is seen), re-runs the model for
exactly as many cycles, and compares with the scoreboard.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..sim.model.check import delivery_problems
from ..sim.model.network import ModelResult, NetworkModel
from ..sim.router_config import RouterConfig
from .runner import RtlTrace, build_network, run_scenarios
from .scoreboard import compare
from ..sim.network_plan import plan_of


@dataclass
class Verdict:
    name: str
    model: ModelResult
    rtl: RtlTrace
    problems: list[str]
    design_dir: Path | None = None      # the Verilog (src/) and the Verilator build (sim/)

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_network(topology, scenarios, routing=None, config: RouterConfig | None = None, margin: int = 16,
                  max_cycles: int = 200_000, build_dir=None) -> list[Verdict]:
    model = NetworkModel(plan_of(topology, routing, config))
    runs = []
    for name, stim in scenarios:
        first = model.run(stim, max_cycles=max_cycles)
        runs.append((name, stim, first.cycles + margin, first.drained))
    design = build_network(model.plan, build_dir=build_dir)
    traces = run_scenarios(design, [(name, stim, cycles) for name, stim, cycles, _ in runs])
    out = []
    for name, stim, cycles, drained in runs:
        res = model.run(stim, cycles=cycles)
        problems = [] if drained else [f"the model did not drain within {max_cycles} cycles"]
        problems += [f"model: {p}" for p in delivery_problems(res)]
        problems += compare(res, traces[name], check_counters=model.config.counters is not False)
        out.append(Verdict(name, res, traces[name], problems, design.dir))
    return out
