"""The pipelined router's ejection buffer (rtl/router/eject_buffer.py) built from its own parameters, in
amaranth.sim against the model's ejection rule (the kernel's PIPE mode, docs/router.md "Pipelined router"):
``local_out`` offers the buffer's head, else the flit crossing now; a crossing flit not taken at once waits
(two entries); ``room``/``room2`` say one / two entries are free; ``tail_taken`` marks a tail leaving.
Hypothesis draws crossing flits (only when the buffer has room, as the output unit's requests ensure) and
``local_out`` ready patterns."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from unit_sim import SETTINGS, cycles, layout, pack, run

from cubenoc.rtl.router.eject_buffer import EjectBuffer
from cubenoc.sim.model.phases import EJECT_DEPTH
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.topology.hypercube import Hypercube

LAY = layout(EcubeRouting(Hypercube(2)))


@SETTINGS
@given(cycles(st.tuples(st.booleans(), st.booleans(), st.booleans(), st.integers(0, 2**32 - 1), st.booleans())))
def test_eject_buffer_matches_the_model_rule(steps):
    dut = EjectBuffer(LAY, 32)

    async def bench(ctx):
        buf = []                                     # the model's ejection buffer
        for valid, head, tail, data, ready in steps:
            assert ctx.get(dut.room) == (len(buf) < EJECT_DEPTH)
            assert ctx.get(dut.room2) == (len(buf) == 0)
            valid = valid and len(buf) < EJECT_DEPTH   # a flit crosses only when it was granted room
            flit = {"head": head, "tail": tail, "data": data}
            ctx.set(dut.valid, valid)
            ctx.set(dut.flit.as_value(), pack(LAY, flit))
            ctx.set(dut.out.ready, ready)
            offer = buf[0] if buf else (flit if valid else None)
            assert ctx.get(dut.out.valid) == (offer is not None)
            if offer is not None:
                p = ctx.get(dut.out.payload)
                assert (p.head, p.tail, p.data) == (offer["head"], offer["tail"], offer["data"])
            assert ctx.get(dut.tail_taken) == bool(offer is not None and ready and offer["tail"])
            await ctx.tick()
            if ready and buf:
                buf.pop(0)
            elif ready and valid:
                valid = False                        # the crossing flit was taken at once
            if valid:
                buf.append(flit)
    run(dut, bench)
