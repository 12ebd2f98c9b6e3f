"""The user's cocotb kit for a network with the AXI4-Stream interface (docs/verification.md "The AXI4-Stream
kit"): ``cubenoc generate NETWORK --interface axis --testbench`` writes ``test_<top>.py`` beside the Verilog
(tb/axis_testbench.py), a cocotb test that drives every ``s<vv>_axis`` with cocotbext-axi's
``AxiStreamSource``, receives every ``m<vv>_axis`` with ``AxiStreamSink`` and checks the run against the
cycle-accurate model with what this module gives it.

* :class:`Recorder` samples the ports every cycle (after the logic settles): the cycle each beat was first
  offered, every ``m<vv>_axis`` handshake and ``tready``.
* :func:`check_against_model` replays what was offered on the model (sim/axis_frames.py: a header flit
  before each frame, released with its first beat; the sinks' ``tready`` as the ejection pattern) and
  compares every delivered beat: node, cycle, ``tdata``, ``tlast``, ``tid``; per-frame latency.
* :func:`run_kit` builds the Verilog with cocotb's runner (Verilator with the project's fast flags, or
  Icarus) and runs the test file.
"""
from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from cubenoc.errors import CubenocError

from ..rtl.tools import use_verilator
from ..sim.axis_frames import frames_stimulus, header_source
from ..sim.catalog import NetworkSpec
from ..sim.model.network import NetworkModel
from ..sim.network_plan import plan_of
from .runner import BUILD_ARGS, cheap_cxx

SIMULATORS = ("verilator", "icarus")


class Recorder:
    """Every cycle from :meth:`start` on: the beats each source offered (first cycle, tdata, tlast, tdest),
    the beats each sink took (cycle, node, tdata, tlast, tid) and the sinks' tready."""

    def __init__(self, dut, num_nodes: int, digits: int):
        def port(side, v, f):
            return getattr(dut, f"{side}{v:0{digits}d}_axis_{f}")
        self.clk, self.n = dut.clk, num_nodes
        self.s = [[port("s", v, f) for f in ("tvalid", "tready", "tdata", "tlast", "tdest")] for v in range(num_nodes)]
        self.m = [[port("m", v, f) for f in ("tvalid", "tready", "tdata", "tlast", "tid")] for v in range(num_nodes)]
        # the tready each interface sees, where a wrapper drives it (tb/axis_partners.py): bit v
        self.ready_eff = getattr(dut, "ready_eff", None) if hasattr(dut, "ready_eff") else None
        self.cycles = 0
        self.offered: list[list[tuple]] = [[] for _ in range(num_nodes)]
        self.taken: list[tuple] = []
        self.ready: list[int] = []
        self._task = None

    def start(self) -> None:
        import cocotb
        self._task = cocotb.start_soon(self._run())

    def stop(self) -> None:
        self._task.cancel()

    async def _run(self):
        from cocotb.triggers import ReadOnly, RisingEdge
        held = [False] * self.n                    # a beat offered and not taken: the same beat next cycle
        while True:
            await ReadOnly()
            t, row = self.cycles, 0
            for v, (valid, ready, data, last, dest) in enumerate(self.s):
                if int(valid.value):
                    if not held[v]:
                        self.offered[v].append((t, int(data.value), int(last.value), int(dest.value)))
                    held[v] = not int(ready.value)
                else:
                    held[v] = False
            eff = None if self.ready_eff is None else int(self.ready_eff.value)
            for v, (valid, ready, data, last, tid) in enumerate(self.m):
                if (int(ready.value) if eff is None else (eff >> v) & 1):
                    row |= 1 << v
                    if int(valid.value):
                        self.taken.append((t, v, int(data.value), int(last.value), int(tid.value)))
            self.ready.append(row)
            await RisingEdge(self.clk)
            self.cycles += 1


@dataclass
class KitReport:
    frames: int
    beats: int
    cycles: int
    latency: np.ndarray                 # per unicast frame: first beat offered -> last beat delivered, cycles
    status: np.ndarray                  # the model's status counters [N, 4]: injected, ejected, dropped, malformed
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        lat = f"latency mean {self.latency.mean():.2f}, max {int(self.latency.max())} cycles" if self.latency.size else ""
        verdict = "the Verilog delivered what the model delivers, beat by beat and cycle by cycle" if not self.problems \
            else f"{len(self.problems)} differences from the model"
        return f"{self.frames} frames, {self.beats} beats in {self.cycles} cycles; {lat}; {verdict}"


def check_against_model(rec: Recorder, spec_text: str, limit: int = 8) -> KitReport:
    """Replay the recorded offers and tready on the cycle-accurate model and compare every delivered beat."""
    spec = NetworkSpec.parse(spec_text)
    topo, routing = spec.build("rtl")
    config = spec.router_config()
    n, bc = topo.num_nodes, config.has_broadcast
    frames, problems = [], []
    for src in range(n):
        cur = []
        for t, data, last, dest in rec.offered[src]:
            cur.append((t, data, dest))
            if last:
                frames.append((src, cur[0][2], [(c, d) for c, d, _ in cur]))
                cur = []
        if cur:
            problems.append(f"node {src}: a frame was still being sent when the recording stopped")
    ready = np.array([[(row >> v) & 1 for v in range(n)] for row in rec.ready], dtype=np.uint8).reshape(-1, n)
    stim = frames_stimulus(n, config.payload_width, frames, ready, bc)
    res = NetworkModel(plan_of(topo, routing, config)).run(stim, cycles=rec.cycles)
    want = []                                  # the beats the users take (the model's trace: no headers)
    for c, v, f in zip(res.tr_cycle.tolist(), res.tr_node.tolist(), res.tr_flit.tolist()):
        header = int(stim.pkt_first[stim.packet[f]])          # its frame's header: the source in tid
        want.append((c, v, int(stim.data[f]), int(stim.tail[f]), header_source(int(stim.data[header]), n)))
    got = sorted(rec.taken)
    names = ("cycle", "node", "tdata", "tlast", "tid")
    for i, (w, g) in enumerate(zip(want, got)):
        if w != g:
            problems.append(f"beat {i}: the model delivers " + ", ".join(f"{k} {x:#x}" if k == "tdata" else f"{k} {x}"
                                                                        for k, x in zip(names, w)) +
                            "; the Verilog " + ", ".join(f"{k} {x:#x}" if k == "tdata" else f"{k} {x}"
                                                        for k, x in zip(names, g)))
            if len(problems) >= limit:
                break
    if len(want) != len(got):
        problems.append(f"the model delivers {len(want)} beats, the Verilog {len(got)}")
    lat = []
    if not bc:
        for k in range(stim.num_packets):
            last = int(stim.pkt_first[k] + stim.pkt_len[k] - 1)
            if res.eject_cycle[last] >= 0:
                lat.append(int(res.eject_cycle[last]) - int(stim.release[stim.pkt_first[k]]))
    return KitReport(len(frames), sum(len(b) for _, _, b in frames), rec.cycles,
                     np.array(lat, dtype=np.int64), res.counters, problems)


def run_kit(test_file, top: str, sim: str | None = None, waves: bool | None = None, *,
            test_module: str | None = None, design: str | None = None) -> Path | None:
    """Build the Verilog beside ``test_file`` (every ``<top>*.v`` there) with ``sim`` (default ``$SIM``, else
    Verilator) and run the cocotb tests of ``test_file`` (or of the importable ``test_module``, e.g.
    ``cubenoc.tb.axis_partners_bench``, with ``test_file`` naming the folder's top file; ``design``: the
    generated network's top when ``top`` wraps it, every ``<design>*.v`` is built); raises if a test
    fails. Returns the waveform file with ``waves`` (default ``$WAVES``), else None."""
    from cocotb_tools.runner import get_runner

    test_file = Path(test_file).resolve()
    here = test_file.parent
    sim = sim or os.environ.get("SIM", "verilator")
    if sim not in SIMULATORS:
        raise CubenocError(f"SIM must be one of {', '.join(SIMULATORS)}, got {sim!r}")
    waves = os.environ.get("WAVES", "") not in ("", "0") if waves is None else waves
    sources = sorted(str(p) for p in here.glob(f"{design or top}*.v"))     # the top, its routers, its interface
    build = here / (f"sim_build_{sim}" + ("_waves" if waves else ""))
    runner = get_runner(sim)
    t0 = time.perf_counter()
    if sim == "verilator":
        use_verilator()
        vlt = here / "public_ports.vlt"           # only the top's ports visible to cocotb (fast to build)
        vlt.write_text(f'`verilator_config\npublic_flat_rw -module "{top}" -var "*"\n')
        with cheap_cxx():
            runner.build(sources=sources, hdl_toplevel=top, build_dir=str(build), waves=waves,
                         build_args=BUILD_ARGS + [str(vlt)] + (["--trace"] if waves else []),
                         log_file=None)
    else:
        if shutil.which("iverilog") is None:
            raise CubenocError("Icarus Verilog is not installed: apt-get install iverilog")
        runner.build(sources=sources, hdl_toplevel=top, build_dir=str(build), waves=waves, timescale=("1ns", "1ps"))
    print(f"cubenoc kit: {sim} build {time.perf_counter() - t0:.1f} s ({build})", flush=True)
    results = runner.test(test_module=test_module or test_file.stem, hdl_toplevel=top, hdl_toplevel_lang="verilog",
                          build_dir=str(build), test_dir=str(here), waves=waves)
    from cocotb_tools.runner import get_results
    total, failed = get_results(results)
    if failed:
        raise AssertionError(f"{failed} of {total} kit tests failed ({results})")
    if not waves:
        return None
    found = sorted(list(build.glob("*.fst")) + list(build.glob("*.vcd")) + list(here.glob("*.vcd")),
                   key=lambda p: p.stat().st_mtime)
    path = found[-1] if found else None
    if path is not None:
        print(f"cubenoc kit: waveform {path} (open it with gtkwave or surfer)", flush=True)
    return path
