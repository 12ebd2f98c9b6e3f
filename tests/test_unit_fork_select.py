"""The broadcast selector (rtl/router/fork_select.py) built from its own parameters, in amaranth.sim against the
model's selector step (``fork_select`` in sim/model/forks.py, docs/router.md "Broadcast and multicast"): the
first eligible input at or after the pointer (round robin over the inputs) is chosen, takes every output it
wants, and the pointer moves past it; ``empty`` is "no stalled offer and an empty downstream input".
Hypothesis draws the set of inputs, eligibility, wants, stalls and empties."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from unit_sim import SETTINGS, cycles, ready_bits, run

from cubenoc.rtl.router.fork_select import ForkSelect

P = 4


@SETTINGS
@given(st.sets(st.integers(0, P - 1), min_size=1),
       cycles(st.tuples(ready_bits(P), st.lists(ready_bits(P), min_size=P, max_size=P), ready_bits(P),
                        ready_bits(P))))
def test_fork_select_matches_the_model_selector(inputs, steps):
    inputs = sorted(inputs)
    dut = ForkSelect(inputs, P)

    async def bench(ctx):
        pointer = 0
        for elig, wants, stalled, empty in steps:
            elig &= (1 << len(inputs)) - 1
            ctx.set(dut.eligible, elig)
            for r in range(len(inputs)):
                ctx.set(dut.want[r], wants[r])
            ctx.set(dut.stalled, stalled)
            ctx.set(dut.link_empty, empty)
            order = sorted(range(len(inputs)), key=lambda r: (inputs[r] - pointer) % P)
            win = next((r for r in order if (elig >> r) & 1), None)
            taken = wants[win] if win is not None else 0
            assert ctx.get(dut.grant) == (0 if win is None else 1 << win)
            assert ctx.get(dut.taken) == taken
            assert ctx.get(dut.empty) == ~stalled & empty & ((1 << P) - 1)
            await ctx.tick()
            if taken:
                pointer = (inputs[win] + 1) % P
    run(dut, bench)
