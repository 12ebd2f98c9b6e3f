"""cocotb test module: play Stimulus files on a generated network's flat top and record what it ejects.

Started by :func:`cubenoc.tb.runner.run_scenarios` (never by pytest directly). The job file named by
``CUBENOC_JOB`` lists scenarios; for each one the bench resets the network, then every cycle
  * drives ``in_valid``/``in_payload`` (each node's next flit once its release cycle has come, held
    until ``in_ready``) and ``out_ready`` (the ejection pattern),
  * waits for the combinational logic to settle (ReadOnly) and samples ``in_ready``, ``out_valid`` and,
    only when something is ejected, ``out_payload``,
and finally writes the ejected trace and the status counters to an .npz for the scoreboard. It also checks
the stream rule on every ``local_out`` (docs/router.md "Streams hold their offer"): a flit offered and not
taken is offered again, unchanged, next cycle; breaks are listed in ``stream_errors``.
Python work per cycle is a few integer operations on N-bit masks (no per-node loops unless a node's
handshake happened).
"""
from __future__ import annotations

import heapq
import json
import os

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from ..sim.model.word import pack_local, unpack_local


def _u(handle) -> int:
    return handle.value.to_unsigned()


async def _reset(dut, cycles: int = 2, candidate_stage: bool = False) -> None:
    dut.in_valid.value = 0
    dut.out_ready.value = 0
    if candidate_stage:                       # docs/router.md "Run-time faults": nothing faulty before a change
        dut.link_fault.value = 0
        dut.node_fault.value = 0
    dut.rst.value = 1
    for _ in range(cycles):
        await RisingEdge(dut.clk)
    dut.rst.value = 0


async def _play(dut, sc: dict, n: int, fw: int, candidate_stage: bool = False) -> dict:
    start, words, release, rw = _stimulus(sc, n)
    all_ready = (1 << n) - 1
    cycles = int(sc["cycles"])
    fmask = (1 << fw) - 1
    ptr = start[:-1]
    end = start[1:]
    payload = 0
    valid = 0
    waiting = []                       # heap of (release, node) for nodes whose next flit is not due yet
    for v in range(n):
        if ptr[v] < end[v]:
            payload |= words[ptr[v]] << (v * fw)
            heapq.heappush(waiting, (release[ptr[v]], v))
    tr_c, tr_v, tr_w = [], [], []
    faults = [(int(c), int(lw), int(nw)) for c, lw, nw in sc.get("faults", [])]
    fptr = 0
    dut.in_payload.value = payload
    last_payload = payload
    held, held_out, errors = 0, 0, []       # local_out offers not taken last cycle, the payload then
    for t in range(cycles):
        while fptr < len(faults) and faults[fptr][0] <= t:      # the fault inputs of this cycle
            dut.link_fault.value = faults[fptr][1]
            dut.node_fault.value = faults[fptr][2]
            fptr += 1
        while waiting and waiting[0][0] <= t:
            valid |= 1 << heapq.heappop(waiting)[1]
        ready = rw[t] if t < len(rw) else all_ready
        dut.in_valid.value = valid
        if payload != last_payload:
            dut.in_payload.value = payload
            last_payload = payload
        dut.out_ready.value = ready
        await ReadOnly()
        acc = valid & _u(dut.in_ready) if valid else 0
        ov = _u(dut.out_valid)
        ej = ov & ready
        stalled = ov & ~ready
        out = _u(dut.out_payload) if ej or stalled or held else 0
        if held and len(errors) < 8:
            _offers_kept(t, held, held_out, ov, out, fw, errors)
        held, held_out = stalled, out
        if ej:
            while ej:
                low = ej & -ej
                v = low.bit_length() - 1
                tr_c.append(t)
                tr_v.append(v)
                tr_w.append((out >> (v * fw)) & fmask)
                ej ^= low
        while acc:
            low = acc & -acc
            v = low.bit_length() - 1
            acc ^= low
            p = ptr[v] + 1
            ptr[v] = p
            old = words[p - 1]
            if p < end[v]:
                payload ^= (old ^ words[p]) << (v * fw)
                if release[p] > t + 1:
                    valid &= ~low
                    heapq.heappush(waiting, (release[p], v))
            else:
                payload ^= old << (v * fw)
                valid &= ~low
        await RisingEdge(dut.clk)
    dut.in_valid.value = 0
    await RisingEdge(dut.clk)       # the counters show an event one edge after it (docs/router.md "Status")
    head, tail, data = zip(*map(unpack_local, tr_w)) if tr_w else ((), (), ())
    return {
        **_status(dut, n, candidate_stage),
        "cycle": np.array(tr_c, dtype=np.int64), "node": np.array(tr_v, dtype=np.int64),
        "head": np.array(head, dtype=np.int64), "tail": np.array(tail, dtype=np.int64),
        "data": np.array(data, dtype=np.uint64),
        "accepted": np.array([p - s for p, s in zip(ptr, start[:-1])], dtype=np.int64),
        "stream_errors": np.array(errors, dtype=str),
    }


def _stimulus(sc: dict, n: int) -> tuple[list, list, list, list]:
    """A scenario's stimulus: per node its first flit, the flits as local words, their release cycles, and per
    cycle the N-bit ``out_ready`` mask (the ejection pattern)."""
    st = np.load(sc["stim"])
    words = pack_local(st["head"].astype(object), st["tail"].astype(object), st["data"].astype(object)).tolist()
    ready_rows = st["eject_ready"]
    rw = []
    if ready_rows.shape[0]:
        weights = np.array([1 << v for v in range(n)], dtype=object)
        rw = (ready_rows.astype(object) * weights).sum(axis=1).tolist()
    return st["node_start"].tolist(), words, st["release"].tolist(), rw


def _offers_kept(t: int, held: int, held_out: int, ov: int, out: int, fw: int, errors: list) -> None:
    """The stream rule on every ``local_out`` that offered a flit last cycle without ``ready``: still valid
    with the same payload; each break is listed in ``errors``."""
    fmask = (1 << fw) - 1
    while held:
        low = held & -held
        v = low.bit_length() - 1
        held ^= low
        if not ov & low or (out ^ held_out) >> (v * fw) & fmask:
            errors.append(f"cycle {t}, node {v}: local_out withdrew or changed its offer "
                          f"({(held_out >> (v * fw)) & fmask:#x}) before ready took it")


def _status(dut, n: int, candidate_stage: bool) -> dict:
    """The status counters of every node (16 bits each); with the candidate stage also ``discarded``."""
    counters = {}
    for name in ("injected", "ejected", "dropped", "malformed"):
        word = _u(getattr(dut, name))
        counters[name] = [(word >> (16 * v)) & 0xFFFF for v in range(n)]
    extra = {}
    if candidate_stage and hasattr(dut, "discarded"):     # (fault inputs without the candidate stage: no counter)
        word = _u(dut.discarded)
        extra["discarded"] = np.array([(word >> (16 * v)) & 0xFFFF for v in range(n)], dtype=np.int64)
    return {**extra, "counters": np.array([counters[k] for k in ("injected", "ejected", "dropped", "malformed")],
                                          dtype=np.int64).T}


@cocotb.test()
async def run_scenarios(dut):
    with open(os.environ["CUBENOC_JOB"]) as fh:
        job = json.load(fh)
    n, fw = int(job["num_nodes"]), int(job["payload_width"]) + 2
    Clock(dut.clk, 10, unit="ns").start(start_high=False)
    for sc in job["scenarios"]:
        candidate_stage = bool(job.get("candidate_stage", False))
        await _reset(dut, candidate_stage=candidate_stage)
        out = await _play(dut, sc, n, fw, candidate_stage)
        np.savez(sc["out"], **out)
