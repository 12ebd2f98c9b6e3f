"""The AXI4-Stream network interface (rtl/axis_ni.py) in amaranth.sim against its rule in Python
(sim/axis_frames.py ``frame_flits``): hypothesis draws frames, tvalid gaps and the ready patterns; the
ingress must write exactly the header flit and the beats of every frame, holding each offer until it is
taken; the egress must deliver every beat with the source in tid, this node in tdest, and pass the user's
tready to the router unchanged."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from unit_sim import SETTINGS, run

from cubenoc.errors import CubenocError
from cubenoc.rtl.axis_ni import AxisNetworkInterface, AxisParams
from cubenoc.sim.axis_frames import frame_flits, header_source, header_word
from cubenoc.sim.broadcast.fork import BROADCAST_DEST

N = 13                                      # 4-bit node numbers, tdest 13..15 out of range
frames_st = st.lists(st.tuples(st.integers(0, 31), st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=4)),
                     min_size=1, max_size=5)
bits_st = st.lists(st.booleans(), min_size=8, max_size=64)


@SETTINGS
@given(st.integers(0, N - 1), st.booleans(), frames_st, bits_st, bits_st)
def test_ingress_writes_the_header_then_the_beats(node, broadcast, frames, valid_bits, ready_bits):
    p = AxisParams(32, N, broadcast)
    frames = [(tdest % (1 << p.dest_width), beats) for tdest, beats in frames]
    dut = AxisNetworkInterface(p)
    want = [f for tdest, beats in frames for f in frame_flits(node, tdest, beats, N, broadcast)]

    async def bench(ctx):
        ctx.set(dut.node_id, node)
        got, k, j, offering, held = [], 0, 0, False, None
        for t in range(4 * len(want) + 2 * len(valid_bits)):
            if k == len(frames):
                break
            offering = offering or valid_bits[t % len(valid_bits)] or t >= len(valid_bits)
            tdest, beats = frames[k]
            ready = ready_bits[t % len(ready_bits)] or t >= 2 * len(ready_bits)
            ctx.set(dut.s_axis.tvalid, offering)
            ctx.set(dut.s_axis.tdata, beats[j])
            ctx.set(dut.s_axis.tlast, j == len(beats) - 1)
            ctx.set(dut.s_axis.tdest, tdest)
            ctx.set(dut.local_in.ready, ready)
            valid, flit = ctx.get(dut.local_in.valid), ctx.get(dut.local_in.payload)
            word = (flit.head, flit.tail, flit.data)
            assert valid == offering
            if held is not None:                 # the stream rule: an offer not taken is offered again, unchanged
                assert valid and word == held, f"cycle {t}"
            if valid and ready:
                got.append(word)
            held = word if valid and not ready else None
            if offering and ctx.get(dut.s_axis.tready):
                assert ready, "a beat is taken only when the router takes it"
                offering, j = False, j + 1
                if j == len(beats):
                    k, j = k + 1, 0
            await ctx.tick()
        assert k == len(frames)
        assert got == [tuple(f) for f in want]
    run(dut, bench)


@SETTINGS
@given(st.integers(0, N - 1), frames_st, bits_st, bits_st)
def test_egress_takes_the_header_into_tid(node, frames, valid_bits, ready_bits):
    p = AxisParams(32, N)
    dut = AxisNetworkInterface(p)
    frames = [(src % N, beats) for src, beats in frames]
    flits = [f for src, beats in frames for f in frame_flits(src, node, beats, N)]
    want = [(src, beats) for src, beats in frames]

    async def bench(ctx):
        ctx.set(dut.node_id, node)
        got, cur, i, offering = [], [], 0, False
        for t in range(4 * len(flits) + 2 * len(valid_bits)):
            if i == len(flits):
                break
            offering = offering or valid_bits[t % len(valid_bits)] or t >= len(valid_bits)
            ready = ready_bits[t % len(ready_bits)] or t >= 2 * len(ready_bits)
            head, tail, data = flits[i]
            ctx.set(dut.local_out.valid, offering)
            ctx.set(dut.local_out.payload, {"head": head, "tail": tail, "data": data})
            ctx.set(dut.m_axis.tready, ready)
            assert ctx.get(dut.local_out.ready) == ready
            assert ctx.get(dut.m_axis.tvalid) == (offering and not head)
            if ctx.get(dut.m_axis.tvalid) and ready:
                assert ctx.get(dut.m_axis.tdest) == node
                cur.append((ctx.get(dut.m_axis.tid), ctx.get(dut.m_axis.tdata)))
                if ctx.get(dut.m_axis.tlast):
                    assert len({s for s, _ in cur}) == 1
                    got.append((cur[0][0], [d for _, d in cur]))
                    cur = []
            if offering and ready:
                offering, i = False, i + 1
            await ctx.tick()
        assert i == len(flits) and got == want
    run(dut, bench)


def test_header_word_and_broadcast():
    assert header_word(5, 12, N) == 5 | 12 << 16 and header_source(5 | 12 << 16, N) == 12
    assert header_word(31, 3, N, broadcast=True) & 0xFFFF == BROADCAST_DEST     # 5-bit tdest, all ones
    assert header_word(15, 3, N, broadcast=True) & 0xFFFF == 15                  # out of range: dropped later


def test_payload_too_narrow_for_the_source():
    with pytest.raises(CubenocError, match="at least 20 bits"):
        AxisParams(16, 16)
