"""The pipelined router's ejection buffer (rtl/router/eject_buffer.py) against the model's rule for the
local output in PIPE mode (a FIFO of EJECT_DEPTH words behind the crossing; sim/model/kernel.py), cycle by
cycle, hypothesis over crossing flits and ready patterns: ``local_out`` offers the oldest waiting flit, else
the one crossing now; a crossing flit not taken waits; the offer holds until taken (the stream rule);
``w_rdy``/``w_rdy2`` are the room after this cycle; ``tail_out`` marks each tail that leaves."""
from __future__ import annotations

from collections import deque

from amaranth.lib import data
from hypothesis import given
from hypothesis import strategies as st

from cubenoc.rtl.router.eject_buffer import EjectBuffer
from cubenoc.sim.model.kernel import EJECT_DEPTH
from unit_sim import SETTINGS, run

W = 16
LAYOUT = data.StructLayout({"head": 1, "tail": 1, "route": 3, "data": W})

#: per cycle: (a flit crosses now, its data, its tail bit, local_out is ready)
CYCLES = st.lists(st.tuples(st.booleans(), st.integers(0, (1 << W) - 1), st.booleans(), st.booleans()),
                  min_size=1, max_size=40)


@SETTINGS
@given(CYCLES)
def test_eject_buffer_matches_the_model(cycles):
    dut = EjectBuffer(LAYOUT, W)

    async def bench(ctx):
        waiting: deque = deque()                 # the model's ejection FIFO
        offered = None
        for t, (cross, word, tail, ready) in enumerate(cycles):
            cross = cross and len(waiting) < EJECT_DEPTH        # the output unit only grants into room
            ctx.set(dut.i_valid, cross)
            ctx.set(dut.i_flit, {"head": 0, "tail": tail, "route": 0, "data": word})
            ctx.set(dut.i_tail, tail)
            ctx.set(dut.o.ready, ready)
            assert ctx.get(dut.w_rdy) == (len(waiting) < EJECT_DEPTH), t
            assert ctx.get(dut.w_rdy2) == (len(waiting) <= EJECT_DEPTH - 2), t
            want = waiting[0] if waiting else ((word, tail) if cross else None)
            assert ctx.get(dut.o.valid) == (want is not None), t
            if want is not None:
                got = (ctx.get(dut.o.payload.data), ctx.get(dut.o.payload.tail))
                assert got == want, t
                if offered is not None:
                    assert got == offered, f"cycle {t}: the offer changed before it was taken"
            assert ctx.get(dut.tail_out) == (want is not None and ready and want[1]), t
            offered = want if want is not None and not ready else None
            if cross:
                waiting.append((word, tail))
            if ready and waiting:
                waiting.popleft()
            await ctx.tick()
    run(dut, bench)
