"""Model speed for ``cubenoc simulate --bench-speed`` (docs/performance.md, section "simulate-speed").

Simulated network-cycles per second of wall time, Bernoulli uniform traffic of 1-flit packets, 4-flit
input FIFOs (the issue 6 benchmark), stimulus generation, table building and compilation excluded.
BookSim2 reference (issue 6): 4,000-8,000 network-cycles/s on the 64-node 6-cube at 0.1.
"""
from __future__ import annotations

import time

import numpy as np

from cubenoc.errors import CubenocError

BEGIN, END = "<!-- simulate-speed:begin -->", "<!-- simulate-speed:end -->"
BOOKSIM_Q6 = (4000, 8000)

#: (spec, offered loads, simulated cycles per repeat)
CASES = (
    ("hypercube:n=6", (0.1, 0.5), 200_000),
    ("enhanced:n=6,k=0", (0.1, 0.5), 200_000),
    ("hypercube:n=10", (0.1, 0.5), 20_000),
    ("hypercube:n=14", (0.1, 0.5), 1_000),
    ("metacube:k=2,m=3", (0.1, 0.5), 1_000),
)


def measure(spec: str, rate: float, cycles: int, repeat: int = 3, depth: int = 4) -> dict:
    from .model.stimulus import bernoulli_traffic
    from .simulator import model_for
    t0 = time.perf_counter()
    model, label = model_for(spec, depth)
    build = time.perf_counter() - t0
    n = model.num_nodes
    best = best_cpu = 0.0
    for seed in range(repeat):
        stim = bernoulli_traffic(n, rate, 1, cycles, seed + 1)
        model.start(stim).advance(50)                    # compiled and warm
        sim = model.start(stim)
        t, c = time.perf_counter(), time.process_time()
        sim.advance(cycles)
        best = max(best, cycles / (time.perf_counter() - t))
        best_cpu = max(best_cpu, cycles / max(time.process_time() - c, 1e-9))
    return {"network": label, "nodes": n, "rate": rate, "cycles": cycles, "cycles_per_s": best,
            "cpu_cycles_per_s": best_cpu, "node_cycles_per_s": best_cpu * n, "build_s": build}


def speed_report(progress: bool = True, cases=CASES, repeat: int = 3) -> str:
    import platform
    import os
    rows = ["| network | nodes | offered load | simulated cycles | network-cycles/s, wall (best of %d) | "
            "per CPU second | node-cycles per CPU second | vs BookSim2 6-cube @ 0.1 (CPU) | table build (s) |" % repeat,
            "|---|---|---|---|---|---|---|---|---|"]
    notes = []
    for spec, loads, cycles in cases:
        for r in loads:
            try:
                m = measure(spec, r, cycles, repeat)
            except CubenocError as exc:
                notes.append(f"- `{spec}`: not run: {exc}")
                break
            ratio = ""
            if m["nodes"] == 64 and r == 0.1:
                ratio = f"{m['cpu_cycles_per_s'] / BOOKSIM_Q6[1]:.0f}-{m['cpu_cycles_per_s'] / BOOKSIM_Q6[0]:.0f}x"
            rows.append(f"| {m['network']} | {m['nodes']} | {r:.2f} | {cycles:,} | {m['cycles_per_s']:,.0f} | "
                        f"{m['cpu_cycles_per_s']:,.0f} | {m['node_cycles_per_s']:,.0f} | {ratio} | {m['build_s']:.2f} |")
            if progress:
                import sys
                print(rows[-1], file=sys.stderr, flush=True)
    rows.append("")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    rows.append(f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, load average "
                f"{load:.1f} at the end, Python {platform.python_version()}, numpy {np.__version__}; the kernel "
                f"is single-threaded. Stimulus generation, table building and compilation are excluded.")
    rows.extend(notes)
    return "\n".join(rows)
