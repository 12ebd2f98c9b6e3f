"""The AXI4-Stream network interface (rtl/axis_ni.py) in amaranth.sim against its rule in Python
(sim/axis_frames.py ``ingress_flits``): hypothesis draws frames (unicast, broadcast, too long for a
broadcast), tvalid gaps and the ready patterns. Ingress: exactly the header flit and the beats of every
frame reach the router, each offer held until taken, ``tready`` the same whatever ``tvalid``, a broadcast
header offered only once its frame's tlast is in. Egress: every beat with the source in tid, this node (or
all ones for a broadcast copy) in tdest, held until taken; a header taken at once; ``tvalid`` and the
router's ``ready`` the same whatever ``tready``."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from unit_sim import SETTINGS, run

from cubenoc.errors import CubenocError
from cubenoc.rtl.axis_ni import AxisNetworkInterface, AxisParams
from cubenoc.sim.axis_frames import DROP_DEST, frame_flits, header_source, header_word, ingress_flits
from cubenoc.sim.broadcast.fork import BROADCAST_DEST

N = 13                                      # 4-bit node numbers, tdest 13..15 out of range
frames_st = st.lists(st.tuples(st.integers(0, 31), st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=9)),
                     min_size=1, max_size=5)
bits_st = st.lists(st.booleans(), min_size=8, max_size=64)


@SETTINGS
@given(st.integers(0, N - 1), st.booleans(), st.sampled_from([2, 4]), frames_st, bits_st, bits_st)
def test_ingress_writes_the_header_then_the_beats(node, broadcast, depth, frames, valid_bits, ready_bits):
    p = AxisParams(32, N, broadcast, depth)
    frames = [(31 if broadcast and tdest % 3 == 0 else tdest % (1 << p.dest_width), beats) for tdest, beats in frames]
    dut = AxisNetworkInterface(p)
    want = ingress_flits(node, frames, N, broadcast, depth)

    async def bench(ctx):
        ctx.set(dut.node_id, node)
        got, k, j, offering, held, tlast_in = [], 0, 0, False, None, 0
        for t in range(6 * len(want) + 2 * len(valid_bits) + 20):
            if k == len(frames) and len(got) == len(want):
                break
            if k < len(frames):
                tdest, beats = frames[k]
                offering = offering or valid_bits[t % len(valid_bits)] or t >= len(valid_bits)
                ctx.set(dut.s_axis.tdata, beats[j])
                ctx.set(dut.s_axis.tlast, j == len(beats) - 1)
                ctx.set(dut.s_axis.tdest, tdest)
                ctx.set(dut.s_axis.tvalid, 0)
                ready_without = ctx.get(dut.s_axis.tready)
                ctx.set(dut.s_axis.tvalid, 1)
                assert ctx.get(dut.s_axis.tready) == ready_without, "tready depends on tvalid"
                ctx.set(dut.s_axis.tvalid, offering)
            else:
                ctx.set(dut.s_axis.tvalid, 0)
            ready = ready_bits[t % len(ready_bits)] or t >= 2 * len(ready_bits)
            ctx.set(dut.local_in.ready, ready)
            valid, flit = ctx.get(dut.local_in.valid), ctx.get(dut.local_in.payload)
            word = (flit.head, flit.tail, flit.data)
            if held is not None:                 # the stream rule: an offer not taken is offered again, unchanged
                assert valid and word == held, f"cycle {t}"
            if valid and flit.head and flit.data & 0xFFFF == BROADCAST_DEST:   # stored whole before it goes
                assert tlast_in > sum(1 for f in got if f[0] and f[2] & 0xFFFF in (BROADCAST_DEST, DROP_DEST))
            if valid and ready:
                got.append(word)
            held = word if valid and not ready else None
            if k < len(frames) and offering and ctx.get(dut.s_axis.tready):
                offering, j = False, j + 1
                if j == len(beats):
                    k, j = k + 1, 0
                    tlast_in += tdest == (1 << p.dest_width) - 1 and broadcast
            await ctx.tick()
        assert k == len(frames)
        assert got == [tuple(f) for f in want]
    run(dut, bench)


def test_too_long_broadcast_is_marked_for_dropping():
    """The rule: a broadcast frame of D beats (D flits with its header: more than a FIFO) is marked."""
    flits = ingress_flits(3, [(31, [1, 2, 3]), (31, [1, 2, 3, 4]), (5, [1] * 9)], N, True, 4)
    heads = [d & 0xFFFF for h, _, d in flits if h]
    assert heads == [BROADCAST_DEST, DROP_DEST, 5] and len(flits) == (1 + 3) + (1 + 4) + (1 + 9)


@SETTINGS
@given(st.integers(0, N - 1), st.booleans(), frames_st, bits_st, bits_st)
def test_egress_takes_the_header_into_tid(node, broadcast, frames, valid_bits, ready_bits):
    p = AxisParams(32, N, broadcast)
    dut = AxisNetworkInterface(p)
    frames = [(src % N, beats, broadcast and src % 2) for src, beats in frames]
    flits = [f for src, beats, bc in frames
             for f in frame_flits(src, (1 << p.dest_width) - 1 if bc else node, beats, N, broadcast)]
    want = [(src, beats, (1 << p.dest_width) - 1 if bc else node) for src, beats, bc in frames]

    async def bench(ctx):
        ctx.set(dut.node_id, node)
        got, cur, i, offering, held = [], [], 0, False, None
        for t in range(6 * len(flits) + 2 * len(valid_bits) + 8):
            if i == len(flits) and len(got) == len(want):
                break
            offering = i < len(flits) and (offering or valid_bits[t % len(valid_bits)] or t >= len(valid_bits))
            ready = ready_bits[t % len(ready_bits)] or t >= 2 * len(ready_bits)
            head, tail, data = flits[i] if i < len(flits) else (0, 0, 0)
            ctx.set(dut.local_out.valid, offering)
            ctx.set(dut.local_out.payload, {"head": head, "tail": tail, "data": data})
            ctx.set(dut.m_axis.tready, 1 - ready)
            other = (ctx.get(dut.m_axis.tvalid), ctx.get(dut.local_out.ready))
            ctx.set(dut.m_axis.tready, ready)
            assert (ctx.get(dut.m_axis.tvalid), ctx.get(dut.local_out.ready)) == other, \
                "tvalid or the router's ready depends on tready"
            if offering and head:
                assert ctx.get(dut.local_out.ready), "a header waits"
            beat = (ctx.get(dut.m_axis.tid), ctx.get(dut.m_axis.tdata), ctx.get(dut.m_axis.tdest),
                    ctx.get(dut.m_axis.tlast))
            if held is not None:                 # the hold rule on m_axis
                assert ctx.get(dut.m_axis.tvalid) and beat == held, f"cycle {t}"
            held = beat if ctx.get(dut.m_axis.tvalid) and not ready else None
            if ctx.get(dut.m_axis.tvalid) and ready:
                cur.append(beat[:3])
                if beat[3]:
                    assert len({(s, d) for s, _, d in cur}) == 1
                    got.append((cur[0][0], [x for _, x, _ in cur], cur[0][2]))
                    cur = []
            if offering and ctx.get(dut.local_out.ready):
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


def test_broadcast_needs_a_fifo_for_a_header_and_a_beat():
    """At D = 1 every broadcast frame would be too long and stay held: refused where the config is made."""
    from cubenoc.sim.router_config import RouterConfig
    with pytest.raises(CubenocError, match="FIFO depth 2 or more"):
        AxisParams(32, 8, True, 1)
    with pytest.raises(CubenocError, match="FIFO depth 2 or more"):
        RouterConfig(interface="axis", broadcast=True, fifo_depth=1).check()
    AxisParams(32, 8, False, 1)                     # unicast frames cut through at any depth
