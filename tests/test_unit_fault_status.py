"""Run-time faults at a router (rtl/router/fault_status.py) built from its own parameters, in amaranth.sim
against the model's rule (docs/router.md "Adaptive selection and run-time faults"): an output is faulty when
its link or its node is faulty, the local output never; a faulty node's source is disabled; ``discarded``
counts the discarding lanes each cycle, 16 bits wrapping. Hypothesis draws fault patterns and discards."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from unit_sim import SETTINGS, cycles, ready_bits, run

from cubenoc.rtl.router.fault_status import FaultStatus
from cubenoc.rtl.router.source import COUNTER_WIDTH

LINKS, LANES = 3, 5


@SETTINGS
@given(cycles(st.tuples(ready_bits(LINKS), st.booleans(), ready_bits(LANES))))
def test_fault_status_matches_the_model_rule(steps):
    dut = FaultStatus(LINKS, LANES)

    async def bench(ctx):
        count = 0
        for links, node, discard in steps:
            ctx.set(dut.link_fault, links)
            ctx.set(dut.node_fault, node)
            ctx.set(dut.discard, discard)
            assert ctx.get(dut.fault) == ((1 << LINKS) - 1 if node else links)   # bit LINKS (local) never
            assert ctx.get(dut.enable) == (not node)
            assert ctx.get(dut.discarded) == count
            await ctx.tick()
            count = (count + bin(discard).count("1")) % (1 << COUNTER_WIDTH)
    run(dut, bench)
