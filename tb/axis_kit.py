"""The user's cocotb kit for a network with the AXI4-Stream interface (docs/verification.md "The AXI4-Stream
kit"): ``cubenoc generate NETWORK --interface axis --testbench`` writes ``test_<top>.py`` beside the Verilog
(:func:`testbench_text`), a cocotb test that drives every ``s<vv>_axis`` with cocotbext-axi's
``AxiStreamSource``, receives every ``m<vv>_axis`` with ``AxiStreamSink`` and checks the run against the
cycle-accurate model.

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
    from ..sim.model.network import NetworkModel
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


def testbench_text(top: str, spec_text: str, num_nodes: int, digits: int, data_bytes: int, dest_width: int,
                   broadcast: bool = False, fifo_depth: int = 4) -> str:
    """The cocotb test ``generate --testbench`` writes beside the Verilog (``test_<top>.py``)."""
    return TESTBENCH.format(top=top, spec=spec_text, n=num_nodes, d=digits, nbytes=data_bytes,
                            tdest_max=(1 << dest_width) - 1, broadcast=bool(broadcast), depth_beats=fifo_depth - 1)


TESTBENCH = '''"""cocotb test of {top} ({spec}), written by `cubenoc generate --testbench`.

Every node's s<vv>_axis is driven by cocotbext-axi's AxiStreamSource, every m<vv>_axis read by an
AxiStreamSink (bound by AxiStreamBus.from_prefix, no wrapper); each frame must arrive whole at its tdest
with its source in tid, and the run must be the cycle-accurate model's, beat by beat and cycle by cycle
(cubenoc.tb.axis_kit). Run it:

    pytest -s test_{top}.py              # Verilator
    SIM=icarus pytest -s test_{top}.py   # Icarus Verilog
    WAVES=1 pytest -s test_{top}.py      # and write a waveform (its path is printed)

FRAMES (per node, default 6), MAX_BEATS (default 4), SEED, PAUSE (sinks' tready low, default 0.2),
BAD_DEST (a fraction of frames to an absent node, default 0) and, with broadcast routers, BCAST (a fraction
of broadcast frames, tdest all ones, default 0.2) change the traffic. A broadcast copy arrives at every other
node with tdest all ones; a broadcast frame of more than {depth_beats} beats is dropped whole and counted in
the source's status dropped (docs/ip.md).
"""
import logging
import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource

from cubenoc.tb.axis_kit import Recorder, check_against_model, run_kit

TOP, SPEC, NODES, DIGITS, BYTES, TDEST_MAX = "{top}", "{spec}", {n}, {d}, {nbytes}, {tdest_max}
BROADCAST, BCAST_BEATS = {broadcast}, {depth_beats}      # broadcast routers; the longest broadcast frame


@cocotb.test()
async def random_frames(dut):
    rng = random.Random(int(os.environ.get("SEED", "1")))
    frames, max_beats = int(os.environ.get("FRAMES", "6")), int(os.environ.get("MAX_BEATS", "4"))
    pause, bad = float(os.environ.get("PAUSE", "0.2")), float(os.environ.get("BAD_DEST", "0"))
    bcast = float(os.environ.get("BCAST", "0.2")) if BROADCAST else 0.0
    if bad and TDEST_MAX < NODES:
        raise ValueError(f"BAD_DEST: every tdest of this network is a node (0..{{TDEST_MAX}})")
    Clock(dut.clk, 10, unit="ns").start()
    sources = [AxiStreamSource(AxiStreamBus.from_prefix(dut, f"s{{v:0{{DIGITS}}d}}_axis"), dut.clk, dut.rst)
               for v in range(NODES)]
    sinks = [AxiStreamSink(AxiStreamBus.from_prefix(dut, f"m{{v:0{{DIGITS}}d}}_axis"), dut.clk, dut.rst)
             for v in range(NODES)]
    for bfm in sources + sinks:
        bfm.log.setLevel(logging.WARNING)      # not a line per frame
    for v, sink in enumerate(sinks):
        sink_rng = random.Random(rng.random())
        sink.set_pause_generator(iter(lambda r=sink_rng: r.random() < pause, None))
    dut.rst.value = 1
    await ClockCycles(dut.clk, 2)
    dut.rst.value = 0
    rec = Recorder(dut, NODES, DIGITS)
    rec.start()
    expect = [[] for _ in range(NODES)]        # (source, tdata, tdest) per receiver
    for _ in range(frames):
        for v in range(NODES):
            r = rng.random()
            dest = TDEST_MAX if r < bcast else rng.randrange(NODES) if r >= bcast + bad else \
                rng.randrange(NODES, TDEST_MAX + (0 if BROADCAST else 1))
            beats = rng.randint(1, max_beats)
            data = rng.randbytes(BYTES * beats)
            await sources[v].send(AxiStreamFrame(data, tdest=dest))
            if dest < NODES:
                expect[dest].append((v, data, dest))
            elif BROADCAST and dest == TDEST_MAX and beats <= BCAST_BEATS:    # a copy at every other node
                for u in range(NODES):
                    if u != v:
                        expect[u].append((v, data, dest))
    for v, sink in enumerate(sinks):
        got = [await sink.recv() for _ in expect[v]]
        mine = sorted((f.tid, bytes(f.tdata), f.tdest) for f in got)
        assert mine == sorted(expect[v]), f"node {{v}} received other frames than were sent to it"
        for src in range(NODES):               # the frames of one source arrive in the order sent
            assert [bytes(f.tdata) for f in got if f.tid == src] == [d for s, d, _ in expect[v] if s == src]
    await ClockCycles(dut.clk, 8)
    rec.stop()
    report = check_against_model(rec, SPEC)
    dut._log.info("model: %s", report.summary())
    assert not report.problems, "\\n".join(report.problems)
    await RisingEdge(dut.clk)
    for v in range(NODES):                     # the status counters: the model's (dropped: frames to absent nodes)
        for i, name in enumerate(("injected", "ejected", "dropped", "malformed")):
            assert int(getattr(dut, f"status{{v:0{{DIGITS}}d}}_{{name}}").value) == report.status[v, i], (v, name)


def test_{top}():
    """pytest entry: builds the Verilog under $SIM (default Verilator) and runs random_frames."""
    run_kit(__file__, TOP)
'''
