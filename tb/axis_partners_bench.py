"""cocotb test module behind tests/test_axis_partners.py: AXI4-Stream traffic of every kind on the partner
wrapper (tb/axis_partners.py), started by :func:`cubenoc.tb.axis_kit.run_kit` with the job in
``CUBENOC_PARTNERS`` (JSON): ``spec``, ``nodes``, ``digits``, ``bytes``, ``depth``, ``broadcast``,
``sinks`` (per node ``always`` / ``random`` / ``follow``), ``frames`` (``[src, tdest, beats]`` in offer order
per source, every source offering its whole list at once), ``chain`` (``[a, b, tdest]`` or null), ``after``
(``[src, tdest, beats]``: one unicast frame sent once everything else is delivered or counted).

Asserts: every source finishes; every unicast frame to a node arrives at it whole, in order per source, with
its source in ``tid``; every broadcast frame of at most D - 1 beats reaches every other node with ``tdest``
all ones; every other frame (a ``tdest`` that is no node, a broadcast too long for a FIFO) is counted in
``dropped``; the frame sent afterwards arrives in exactly its zero-load latency (the network is idle again);
and the whole run is the model's, beat by beat and cycle by cycle."""
from __future__ import annotations

import json
import logging
import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, with_timeout
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource

from cubenoc.tb.axis_kit import Recorder, check_against_model

TIMEOUT_CYCLES = 20_000


def _payload(rng, nbytes, beats) -> bytes:
    return rng.randbytes(nbytes * beats)


def _send_all(job: dict, rng, sources: dict, all_ones, a, b) -> tuple[dict, int]:
    """Offer every frame of the job at once; returns what each node must receive ((tid, tdest, data) per
    receiver; node a's frames are relayed by node b to the chain's tdest) and how many frames ``dropped``
    must count (a tdest that is no node, a broadcast longer than D - 1 beats)."""
    n, nb, depth, chain = job["nodes"], job["bytes"], job["depth"], job.get("chain")
    want = {v: [] for v in range(n)}
    counted = 0
    relayed = []
    for src, tdest, beats in job["frames"]:
        data = _payload(rng, nb, beats)
        sources[src].send_nowait(AxiStreamFrame(data, tdest=tdest))
        if all_ones is not None and tdest == all_ones:
            if beats <= depth - 1:
                for v in range(n):
                    if v == a and v != src:         # node a's copy is relayed by node b
                        relayed.append(data)
                    elif v != src:
                        want[v].append((src, all_ones, data))
            else:
                counted += 1
        elif tdest < n:
            if tdest == a:                          # relayed by node b to the chain's tdest
                relayed.append(data)
            else:
                want[tdest].append((src, tdest, data))
        else:
            counted += 1
    if chain:
        want[chain[2]] += [(b, chain[2], data) for data in relayed]
    return want, counted


@cocotb.test()
async def partners(dut):
    job = json.loads(os.environ["CUBENOC_PARTNERS"])
    n, d, nb, depth = job["nodes"], job["digits"], job["bytes"], job["depth"]
    all_ones = (1 << len(getattr(dut, f"s{0:0{d}d}_axis_tdest"))) - 1 if job["broadcast"] else None
    rng = random.Random(job.get("seed", 1))
    Clock(dut.clk, 10, unit="ns").start()
    chain = job.get("chain")
    a, b = (chain[0], chain[1]) if chain else (None, None)
    dut.follow.value = sum(1 << v for v, mode in enumerate(job["sinks"]) if mode == "follow")
    if chain:
        dut.chain_tdest.value = chain[2]
    sources = {v: AxiStreamSource(AxiStreamBus.from_prefix(dut, f"s{v:0{d}d}_axis"), dut.clk, dut.rst)
               for v in range(n) if v != b}
    sinks = {v: AxiStreamSink(AxiStreamBus.from_prefix(dut, f"m{v:0{d}d}_axis"), dut.clk, dut.rst)
             for v in range(n) if v != a}
    for bfm in [*sources.values(), *sinks.values()]:
        bfm.log.setLevel(logging.WARNING)
    for v, sink in sinks.items():
        if job["sinks"][v] == "random":
            r = random.Random(rng.random())
            sink.set_pause_generator(iter(lambda r=r: r.random() < 0.4, None))
    dut.rst.value = 1
    await ClockCycles(dut.clk, 2)
    dut.rst.value = 0
    rec = Recorder(dut, n, d)
    rec.start()
    want, counted = _send_all(job, rng, sources, all_ones, a, b)
    for v, s in sources.items():                     # every source finishes
        await with_timeout(s.wait(), TIMEOUT_CYCLES * 10, "ns")
    got = {v: [] for v in range(n)}
    for v, sink in sinks.items():
        for _ in want[v]:
            f = await with_timeout(sink.recv(), TIMEOUT_CYCLES * 10, "ns")
            got[v].append((f.tid, f.tdest, bytes(f.tdata)))
    await ClockCycles(dut.clk, 4 * depth + 16)
    for v in sinks:
        assert sinks[v].empty(), f"node {v} received a frame nobody sent to it"
        assert sorted(got[v]) == sorted(want[v]), f"node {v}: other frames than were sent to it"
        for src in range(n):                         # in order per source
            assert [x for x in got[v] if x[0] == src] == [x for x in want[v] if x[0] == src], (v, src)
    dropped = sum(int(getattr(dut, f"status{v:0{d}d}_dropped").value) for v in range(n))
    assert dropped == counted, f"{counted} frames should have been counted in dropped, the counters say {dropped}"
    if job.get("after"):                             # the network takes frames again: zero-load latency
        src, tdest, beats = job["after"]
        data = _payload(rng, nb, beats)
        await sources[src].send(AxiStreamFrame(data, tdest=tdest))
        f = await with_timeout(sinks[tdest].recv(), TIMEOUT_CYCLES * 10, "ns")
        assert bytes(f.tdata) == data and f.tid == src
        await ClockCycles(dut.clk, 4)
        offered = rec.offered[src][-beats][0]          # its first beat's first offer
        arrived = max(c for c, v, _, last, _ in rec.taken if v == tdest and last)
        latency = arrived - offered
        dut._log.info("the frame sent afterwards arrived %d cycles after it was offered", latency)
        assert latency == job["after_latency"], \
            f"the frame sent afterwards took {latency} cycles, {job['after_latency']} on an idle network"
    rec.stop()
    report = check_against_model(rec, job["spec"])
    dut._log.info("model: %s", report.summary())
    assert not report.problems, "\n".join(report.problems)
