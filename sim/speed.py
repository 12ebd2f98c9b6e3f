"""Model speed: ``measure`` for ``cubenoc bench sim-speed`` (cubenoc/bench/sim_speed.py; docs/performance.md
"Model speed"): simulated network-cycles per second of wall time, Bernoulli uniform traffic of
1-flit packets, 4-flit input FIFOs (the simulator benchmark), stimulus generation, table building and
compilation excluded; ``scaling_point`` for ``cubenoc bench model-speed`` (below).
"""
from __future__ import annotations

import json
import subprocess
import sys
import time

import numpy as np

from cubenoc.errors import CubenocError

from .catalog import recorded
from .model.stimulus import bernoulli_traffic
from .model.stream import walk_routes
from .model.tables import inject_array
from .router_config import RouterConfig
from .simulator import _model, model_for
from .traffic import generate, make_pattern


def measure(spec: str, rate: float, cycles: int, repeat: int = 3, depth: int = 4) -> dict:
    """The loop of ``spec``'s model at ``rate``: network-cycles per second of wall and of CPU time, the best
    of ``repeat`` seeds, and the seconds the model (its route tables) took to build."""
    t0 = time.perf_counter()
    model, label = model_for(spec, RouterConfig(fifo_depth=depth))
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
            "cpu_cycles_per_s": best_cpu, "node_cycles_per_s": best_cpu * n, "build_s": build,
            **recorded(spec, model.config)}


# ---- `cubenoc bench model-speed`: whole run and loop only, 64 to 2^20 nodes ----------------------
#: a small intermediate process: a child's peak RSS counts the memory of the process it was forked from
#: (Linux keeps ru_maxrss across fork and exec), so the measured run is forked from this one, not from us
_WRAP = """import json, os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.executable, [sys.executable, "-m", "cubenoc", *sys.argv[1:]])
_, status, ru = os.wait4(pid, 0)
sys.stderr.write("\\n" + json.dumps([os.waitstatus_to_exitcode(status), ru.ru_utime + ru.ru_stime, ru.ru_maxrss]))
"""


def _child(argv: list[str]) -> dict:
    """Run ``python -m cubenoc ARGV``: its wall and CPU seconds, peak RSS (bytes) and stdout."""
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _WRAP, *argv], capture_output=True)
    wall = time.perf_counter() - t
    err = proc.stderr.decode().rstrip().splitlines()
    try:
        code, cpu, rss = json.loads(err[-1])
    except (IndexError, ValueError):
        code, cpu, rss = proc.returncode or 1, 0.0, 0
    if code != 0:
        raise CubenocError(f"`cubenoc {' '.join(argv)}` failed: {' '.join(err[-2:])[-300:]}")
    return {"wall": wall, "cpu": cpu, "rss": rss * 1024, "out": proc.stdout}


def scaling_point(spec: str, rate: float, cycles: int, seed: int = 1, depth: int = 4) -> dict:
    """One row of the scaling table: a whole ``cubenoc simulate`` run in a child process (start-up, model
    build, streamed traffic and the loop: wall, CPU, peak RSS), a one-cycle run of the same (the time to
    the first simulated cycle), and the loop alone in this process on an up-front stimulus (wall, CPU)."""
    cli = ["simulate", "--compare", str(spec), "--rate", f"{rate:g}", "--warmup", "0", "--drain", "0", "--json",
           "--quiet", "--seed", str(seed), "--depth", str(depth)]
    whole = _child(cli + ["--measure", str(cycles)])
    accepted = json.loads(whole["out"])[0]["accepted"]
    first = _child(cli + ["--measure", "1"])
    row = loop_point(spec, rate, cycles, seed, depth)
    row.update({"accepted": accepted, "whole_wall_s": whole["wall"], "whole_cpu_s": whole["cpu"],
                "peak_rss_bytes": whole["rss"], "first_cycle_wall_s": first["wall"]})
    return row


class LoopRun:
    """The compiled cycle loop of ``spec`` on an up-front stimulus in this process, built and compiled,
    ready to :meth:`run` (:func:`loop_point`, :func:`loop_rounds`)."""

    def __init__(self, spec: str, rate: float, cycles: int, seed: int = 1, depth: int = 4):
        self.model, self.label = model_for(spec, RouterConfig(fifo_depth=depth))
        self.spec, self.rate, self.cycles = spec, rate, cycles
        N = self.model.num_nodes
        rng = np.random.default_rng(seed)
        src, dst = rng.integers(0, N, 100_000), rng.integers(0, N - 1, 100_000)
        dst = dst + (dst >= src)                              # uniform over the other nodes
        self.hops = float(walk_routes(self.model, inject_array(self.model, src, dst), src)[0].mean())
        pattern = make_pattern("uniform", self.model.topology)
        self.stim = generate(N, pattern, rate, "1", cycles, seed)
        self.model.start(generate(N, pattern, rate, "1", 2, seed)).advance(2)   # compiled

    def run(self) -> tuple[float, float]:
        """One run of the loop: (wall s, CPU s)."""
        sim = self.model.start(self.stim)
        t, c = time.perf_counter(), time.process_time()
        sim.advance(self.cycles)
        return time.perf_counter() - t, max(time.process_time() - c, 1e-9)

    def row(self, wall: float, cpu: float) -> dict:
        """The figures of a run: cycles per second and ns per node-cycle per hop (loop CPU time / (nodes x
        cycles x mean e-cube hops over uniform pairs))."""
        N, cycles = self.model.num_nodes, self.cycles
        return {"network": self.label, "nodes": N, "rate": self.rate, "cycles": cycles, "hops": self.hops,
                "loop_wall_s": wall, "loop_cpu_s": cpu, "loop_cycles_per_s": cycles / wall,
                "loop_cpu_cycles_per_s": cycles / cpu, "ns_per_node_cycle_hop": cpu * 1e9 / (N * cycles * self.hops),
                **recorded(self.spec, self.model.config)}


def loop_point(spec: str, rate: float, cycles: int, seed: int = 1, depth: int = 4, repeat: int = 1) -> dict:
    """The loop of ``spec`` alone, the best of ``repeat`` runs (:func:`loop_rounds` with one point)."""
    return loop_rounds([(spec, rate, cycles, spec)], repeat, seed, depth)[0]


def loop_rounds(points: list[tuple], rounds: int, seed: int = 1, depth: int | dict = 4, each=None) -> list[dict]:
    """The loops of ``points`` (``(spec, rate, cycles, group)``) run in turn, one run of each per round,
    ``rounds`` rounds: a slow spell of the machine (other tenants' memory traffic) falls on every network
    of a round alike. Per point the best run's figures, the median ns per node-cycle per hop over the
    rounds, and ``vs_smallest``: the median over the rounds of its ns / that of the point with the fewest
    nodes in its ``group`` in the same round (the ratio the model-speed target bounds at 1.5x). ``each(label)`` reports
    progress. ``depth``: the FIFO depth, or one per spec. All the points' state is held at once."""
    runs = [LoopRun(spec, rate, cycles, seed, depth[spec] if isinstance(depth, dict) else depth)
            for spec, rate, cycles, _ in points]
    times = [[] for _ in runs]
    for k in range(rounds):
        for lr, ts in zip(runs, times):
            if each:
                each(f"{lr.label} load {lr.rate:g}, round {k + 1} of {rounds}")
            ts.append(lr.run())
    ns = [[lr.row(*t)["ns_per_node_cycle_hop"] for t in ts] for lr, ts in zip(runs, times)]
    rows = [lr.row(*min(ts, key=lambda r: r[1])) for lr, ts in zip(runs, times)]
    for i, row in enumerate(rows):
        ref = min((j for j, p in enumerate(points) if p[3] == points[i][3]), key=lambda j: rows[j]["nodes"])
        row["ns_median"] = float(np.median(ns[i]))
        row["vs_smallest"] = float(np.median([a / b for a, b in zip(ns[i], ns[ref])]))
    del runs
    _model.cache_clear()                                      # (2^20 nodes: gigabytes of state)
    return rows


def cycles_for(nodes: int, node_cycles: float) -> int:
    """Cycles per run: about ``node_cycles`` node-cycles, at least 20, at most 200,000."""
    return int(max(20, min(200_000, node_cycles // nodes)))


def scaling_table(rows: list[dict]) -> str:
    out = ["| network | nodes | load | cycles | whole run: wall s / CPU s | whole run, cycles per CPU s | "
           "loop only: cycles/s wall / per CPU s | ns per node-cycle per hop (loop, CPU) | mean hops | "
           "time to first cycle (s, wall) | peak RSS (MB) |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['network']} | {r['nodes']:,} | {r['rate']:g} | {r['cycles']:,} | "
                   f"{r['whole_wall_s']:.2f} / {r['whole_cpu_s']:.2f} | {r['cycles'] / r['whole_cpu_s']:,.0f} | "
                   f"{r['loop_cycles_per_s']:,.0f} / {r['loop_cpu_cycles_per_s']:,.0f} | "
                   f"{r['ns_per_node_cycle_hop']:.2f} | {r['hops']:.2f} | {r['first_cycle_wall_s']:.2f} | "
                   f"{r['peak_rss_bytes'] / 1e6:,.0f} |")
    return "\n".join(out)
