# amaranth: UnusedElaboratable=no
"""The round-robin arbiter (rtl/router/arbiter.py) in amaranth.sim against the model's ``rr_pick`` (the pointer
moved past each winner on ``next``, onto it on ``keep``; the pairwise arbiter of the pipelined router moves past
every grant) and the weighted (fair) arbiter against ``wrr_after`` (sim/model/phases.py), on hypothesis
sequences of requests, transfers, tails and weights, plus directed corners."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from unit_sim import SETTINGS, run

from cubenoc.rtl.router.arbiter import RoundRobinArbiter
from cubenoc.sim.model.phases import WORD, rr_pick, rr_pick_words, wrr_after


def model_pick(mask, pointer, size):
    """The model's pick from a request mask of ``size`` positions, cut into its 62-bit request words."""
    W = -(-size // WORD)
    words = np.array([(mask >> (WORD * k)) & ((1 << WORD) - 1) for k in range(W)], np.int64)
    return rr_pick_words(words, 0, W, pointer, size)


def check_arbiter(positions, size, cycles, pairwise=False):
    dut = RoundRobinArbiter(positions, size, pairwise=pairwise)

    async def bench(ctx):
        pointer = 0
        for req, advance in cycles:          # advance: True next, False keep, None neither
            ctx.set(dut.requests, req)
            mask = sum(1 << positions[r] for r in range(len(positions)) if req >> r & 1)
            win = model_pick(mask, pointer, size)
            want = 0 if win < 0 else 1 << positions.index(win)
            assert ctx.get(dut.grant) == want, (req, pointer)
            if dut.pairwise:                 # the pointer moves past every grant
                advance = True
            ctx.set(dut.next, want if advance else 0)
            ctx.set(dut.keep, want if advance is False else 0)
            await ctx.tick()
            if advance is not None and win >= 0:
                pointer = (win + (1 if advance else 0)) % size
    run(dut, bench)


@SETTINGS
@given(st.data())
def test_arbiter_matches_rr_pick(data):
    size = data.draw(st.integers(1, 12))
    positions = sorted(data.draw(st.sets(st.integers(0, size - 1), min_size=1, max_size=size)))
    n = len(positions)
    cycles = data.draw(st.lists(st.tuples(st.integers(0, (1 << n) - 1), st.sampled_from([True, False, None])),
                                min_size=1, max_size=40))
    check_arbiter(positions, size, cycles, data.draw(st.booleans()))   # pairwise: the pipelined router's


@settings(max_examples=10, deadline=None)
@given(st.data())
def test_wide_arbiter_matches_the_model_request_words(data):
    """Past 62 (port, VC) pairs (an interface router with many level-2 lanes) the model's requests span
    several words: the RTL arbiter over up to 190 positions against them."""
    size = data.draw(st.integers(WORD + 1, 3 * WORD + 4))
    high = data.draw(st.sets(st.integers(WORD - 2, size - 1), min_size=1, max_size=6))   # around the word edges
    positions = sorted(high | data.draw(st.sets(st.integers(0, size - 1), max_size=6)))
    n = len(positions)
    cycles = data.draw(st.lists(st.tuples(st.integers(0, (1 << n) - 1), st.sampled_from([True, False, None])),
                                min_size=1, max_size=30))
    check_arbiter(positions, size, cycles)


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_weighted_arbiter_matches_wrr_after(data):
    """The fair arbiter (docs/router.md "Arbitration"): random requests, transfers (with the tail bit and
    the winner's weight) and stalls against the model's ``wrr_after``."""
    size = data.draw(st.integers(2, 8))
    positions = sorted(data.draw(st.sets(st.integers(0, size - 1), min_size=2, max_size=size)))
    n = len(positions)
    dut = RoundRobinArbiter(positions, size, weight_width=3)
    full = (1 << n) - 1                # mostly everyone requests, so a winner keeps first place for long
    weight = data.draw(st.integers(1, 4))
    steps = data.draw(st.lists(st.tuples(st.one_of(st.just(full), st.integers(1, full)),
                                         st.sampled_from([True, True, False, None]), st.booleans(),
                                         st.one_of(st.just(weight), st.integers(1, 7))), min_size=1, max_size=60))

    async def bench(ctx):
        rr, used = np.zeros(1, np.int64), np.zeros(1, np.int64)
        for req, taken, tail, weight in steps:
            ctx.set(dut.requests, req)
            mask = sum(1 << positions[r] for r in range(n) if req >> r & 1)
            win = rr_pick(mask, int(rr[0]), size)
            want = 1 << positions.index(win)
            assert ctx.get(dut.grant) == want, (req, rr, used)
            ctx.set(dut.next, want if taken else 0)
            ctx.set(dut.keep, want if taken is False else 0)
            for r in range(n):      # the winner's tail and weight; the others' must not matter
                mine = positions[r] == win
                ctx.set(dut.tail[r], tail if mine else not tail)
                ctx.set(dut.weight[r], weight if mine else 8 - weight)
            await ctx.tick()
            if taken is not None:
                wrr_after(rr, used, 0, win, taken, int(tail), weight, size)
    run(dut, bench)


def test_arbiter_corners():
    # everyone requests: the grant walks round the pruned positions in order, wrapping past the top
    check_arbiter([0, 2, 5], 6, [(0b111, True)] * 7)
    # a lone requester behind the pointer still wins; no request, no grant, pointer stays
    check_arbiter([1, 3], 4, [(0b10, True), (0b01, True), (0, True), (0b11, True), (0b11, True)])
    # kept: the stalled winner (position 3) stays first although position 1 asks again after it
    check_arbiter([1, 3], 4, [(0b10, False), (0b11, False), (0b11, True), (0b11, True)])
    assert rr_pick(0b1010, 2, 4) == 3 and rr_pick(0b0011, 2, 4) == 0 and rr_pick(0, 1, 4) == -1
    # across request words: from pointer 63, bit 1 wraps to first; from 2, bit 62 (word 1, bit 0) is next
    wide = (1 << 62) | 0b10
    assert model_pick(wide, 63, 100) == 1 and model_pick(wide, 2, 100) == 62 and model_pick(0, 5, 100) == -1
