# amaranth: UnusedElaboratable=no
"""The input FIFO unit (rtl/router/fifo.py) against a Python reference queue and against the model's FIFO
(``fifo_push``/``fifo_pop`` in sim/model/phases.py: the head register ``first`` and the D - 1 words behind
it), cycle by cycle (amaranth.sim, hypothesis over written words, write and pop patterns): not-full ``w_rdy``
(no write into a full FIFO even while it pops), ``r_rdy`` not empty, first word falls through one edge after
its write, order kept; flip-flop and Memory storage."""
from __future__ import annotations

from collections import deque

import pytest
from amaranth.hdl import Fragment
from amaranth.sim import Simulator
from hypothesis import given, settings
from hypothesis import strategies as st

import numpy as np

from cubenoc.errors import CubenocError
from cubenoc.rtl.router.fifo import HeadFifo
from cubenoc.sim.model.phases import fifo_pop, fifo_push

WIDTH = 8


def run_against_reference(depth: int, memory: bool, steps: list[tuple[int, int, int]], late=None,
                          platform=None) -> None:
    dut = HeadFifo(WIDTH, depth, memory=memory, late=late)
    sim = Simulator(Fragment.get(dut, platform))
    sim.add_clock(1e-6)

    async def bench(ctx):
        q = deque()
        for cycle, (w_en, data, r_en) in enumerate(steps):
            ctx.set(dut.w_en, w_en)
            ctx.set(dut.w_data, data)
            ctx.set(dut.r_en, r_en)
            assert ctx.get(dut.w_rdy) == (len(q) < depth), f"cycle {cycle}: w_rdy with {len(q)} of {depth}"
            assert ctx.get(dut.r_rdy) == (len(q) > 0), f"cycle {cycle}: r_rdy with {len(q)} entries"
            if q:
                assert ctx.get(dut.r_data) == q[0], f"cycle {cycle}: head {ctx.get(dut.r_data)} != {q[0]}"
            full = len(q) == depth
            if r_en and q:
                q.popleft()
            if w_en and not full:
                q.append(data)
            await ctx.tick()

    sim.add_testbench(bench)
    sim.run()


steps = st.lists(st.tuples(st.integers(0, 1), st.integers(0, (1 << WIDTH) - 1), st.integers(0, 1)),
                 min_size=1, max_size=60)


@pytest.mark.parametrize("depth,memory", [(1, False), (2, False), (3, False), (4, False), (4, True), (5, True)])
@settings(max_examples=25, deadline=None)
@given(steps=steps)
def test_fifo_matches_reference_queue(depth, memory, steps):
    run_against_reference(depth, memory, steps)


@pytest.mark.parametrize("depth,late", [(2, (2, 6)), (3, (0, 5)), (4, (2, 6)), (5, (3, 8))])
@settings(max_examples=25, deadline=None)
@given(steps=steps)
def test_late_bits_in_a_ring_keep_the_fifo_behaviour(depth, late, steps):
    """``late``: with Memory storage bits lo:hi of each entry live in a ring read at a counter, the rest in the
    head-register FIFO; the whole still behaves as the reference queue (order, first word through, flags):
    read as it is (distributed RAM) and, for an iCE40, read at the edge at the next head's address with the
    write that edge makes passed through (block RAM)."""
    class Ice40:
        family = "ice40"
    run_against_reference(depth, True, steps, late)
    run_against_reference(depth, "block", steps, late)
    run_against_reference(depth, True, steps, late, Ice40())


@pytest.mark.parametrize("depth,memory", [(2, False), (4, False), (4, True)])
def test_fill_then_drain_while_writing(depth, memory):
    """Fill to full, then pop and offer a write every cycle: the full FIFO refuses the write in the cycle it
    pops (not-full ready), accepts it the next; order is kept throughout."""
    fill = [(1, k + 1, 0) for k in range(depth + 2)]
    drain = [(1, 100 + k, 1) for k in range(2 * depth + 3)] + [(0, 0, 1)] * (depth + 2)
    run_against_reference(depth, memory, fill + drain)


@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")
def test_bad_depth_is_a_clear_error():
    with pytest.raises(CubenocError, match="fifo depth"):
        HeadFifo(WIDTH, 0)


def test_storage_follows_the_platform_when_not_chosen():
    """``memory=None``: a Memory on a Lattice family with distributed RAM (ECP5 board builds), flip-flops
    otherwise (no platform: Verilog, iCE40); an explicit choice wins."""
    class Ecp5:
        family = "ecp5"

    def storage(memory, platform):
        frag = Fragment.get(HeadFifo(WIDTH, 4, memory=memory), platform)
        return any(sub[1] == "storage" for sub in frag.subfragments)
    assert storage(None, Ecp5()) and not storage(None, None) and not storage(False, Ecp5()) and storage(True, None)
    late = Fragment.get(HeadFifo(WIDTH, 4, memory=True, late=(2, 6)), None)    # a ring and an inner FIFO
    assert {sub[1] for sub in late.subfragments} >= {"late", "early"}
    with pytest.raises(CubenocError, match="FIFO memory must be"):
        HeadFifo(WIDTH, 4, memory="bram")
    run_against_reference(4, None, [(1, k, k % 2) for k in range(12)])


@pytest.mark.parametrize("depth,memory", [(1, False), (2, False), (4, False), (4, True), (3, "block")])
@settings(max_examples=15, deadline=None)
@given(steps=steps)
def test_fifo_matches_the_model_fifo(depth, memory, steps):
    """The model's FIFO at the clock edge (pop, then push, as ``clock_edge``): ``w_rdy`` is its count < D,
    ``r_rdy`` count > 0, ``r_data`` its head register ``first``, ``w_rdy2`` count <= D - 2."""
    dut = HeadFifo(WIDTH, depth, memory=memory, late=(2, 6) if memory == "block" else None)
    first, buf = np.zeros(1, np.int64), np.zeros((1, max(1, depth - 1)), np.int64)
    fhead, fcnt = np.zeros(1, np.int64), np.zeros(1, np.int64)
    if depth == 1:                               # the model's buffer holds D - 1 words (none)
        buf = np.zeros((1, 1), np.int64)

    async def bench(ctx):
        for cycle, (w_en, data, r_en) in enumerate(steps):
            ctx.set(dut.w_en, w_en)
            ctx.set(dut.w_data, data)
            ctx.set(dut.r_en, r_en)
            n = int(fcnt[0])
            assert (ctx.get(dut.w_rdy), ctx.get(dut.r_rdy)) == (n < depth, n > 0), cycle
            if depth > 1:
                assert ctx.get(dut.w_rdy2) == (n <= depth - 2), cycle
            if n:
                assert ctx.get(dut.r_data) == first[0], cycle
            await ctx.tick()
            if r_en and n:
                fifo_pop(first, buf, fhead, fcnt, 0)
            if w_en and n < depth:
                fifo_push(first, buf, fhead, fcnt, 0, data)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
