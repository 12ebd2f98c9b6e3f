"""cocotb test module: drive fault inputs on a SafetyNetwork's flat top and record every level output.

Started by :func:`cubenoc.tb.safety.runner.run_safety` (never by pytest directly). The job file named by
``CUBENOC_SAFETY_JOB`` lists segments ``[node_faulty, link_faulty, reset, samples]``: the bench writes the
fault inputs at a falling clock edge, optionally holds ``rst`` for one rising edge (levels restart from
the top level), then samples every output ``samples`` times, once per clock cycle (ReadOnly after each
falling edge, so between two samples exactly one rising edge happens: sample r of a segment is round r;
only the first sample after new inputs waits for ReadOnly).
Outputs are stored little-endian, ``bytes_per_sample`` bytes per sample, in an .npz per output name; the
pytest side decodes them and compares with sim/safety.py.
"""
from __future__ import annotations

import json
import os

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly


@cocotb.test()
async def record_levels(dut):
    with open(os.environ["CUBENOC_SAFETY_JOB"]) as fh:
        job = json.load(fh)
    names = job["outputs"]
    handles = [getattr(dut, name) for name in names]
    nbytes = [int(job["bytes"][name]) for name in names]
    bufs = [bytearray() for _ in names]
    Clock(dut.clk, 10, unit="ns").start(start_high=False)
    dut.rst.value = 1
    dut.node_faulty.value = 0
    dut.link_faulty.value = 0
    await FallingEdge(dut.clk)
    dut.rst.value = 0
    node = link = 0
    for seg_node, seg_link, reset, samples in job["segments"]:
        await FallingEdge(dut.clk)
        if seg_node != node:
            dut.node_faulty.value = node = seg_node
        if seg_link != link:
            dut.link_faulty.value = link = seg_link
        if reset:
            dut.rst.value = 1
            await FallingEdge(dut.clk)
            dut.rst.value = 0
        for s in range(samples):
            if s:
                await FallingEdge(dut.clk)       # half a cycle after the rising edge: settled
            else:
                await ReadOnly()                 # the new fault inputs' combinational effect
            for h, nb, buf in zip(handles, nbytes, bufs):
                buf += h.value.to_unsigned().to_bytes(nb, "little")
    np.savez(job["out"], **{name: np.frombuffer(bytes(buf), np.uint8) for name, buf in zip(names, bufs)})
