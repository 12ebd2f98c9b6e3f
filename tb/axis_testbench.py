"""The test file of the AXI4-Stream kit (docs/verification.md "The AXI4-Stream kit"): ``cubenoc generate NETWORK
--interface axis --testbench`` writes ``test_<top>.py`` beside the Verilog (:func:`testbench_text`), a cocotb
test that drives every ``s<vv>_axis`` with cocotbext-axi's ``AxiStreamSource``, receives every ``m<vv>_axis``
with ``AxiStreamSink`` and checks the run against the cycle-accurate model with tb/axis_kit.py. Text only: it
loads neither the model nor cocotb.
"""
from __future__ import annotations


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
