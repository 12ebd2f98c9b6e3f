"""The pipelined lane stage (rtl/router/pipe_stage.py) built from its own parameters, in amaranth.sim against the
model's candidate rule (``pipe_request`` in sim/model/pipelined.py, docs/router.md "Pipelined router"): the
candidate is the FIFO head while the stage is empty or crossing (``advance``), else the stage; it requests its
``want`` output when that output has room and is not locked by another lane; a grant (``sent``) crosses next
cycle; the stage takes the FIFO head whenever it advances. Hypothesis draws FIFO heads (routed flits with
their one-hot output), locks, room and grants."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from unit_sim import SETTINGS, cycles, layout, pack, ready_bits, run

from cubenoc.rtl.router import PipeStage
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.topology.hypercube import Hypercube

P = 4
LAY = layout(EcubeRouting(Hypercube(3)))


@SETTINGS
@given(st.sets(st.integers(0, P - 1), min_size=1), cycles(st.tuples(
    st.booleans(), st.booleans(), st.booleans(), st.integers(0, 2**32 - 1), st.integers(0, P - 1),
    ready_bits(P), ready_bits(P), st.booleans()), max_size=60))
def test_pipe_stage_matches_the_candidate_rule(outputs, steps):
    outputs = sorted(outputs)
    dut = PipeStage(LAY, P, outputs)

    async def bench(ctx):
        stage, adv = None, True                      # (flit, want) in the stage; the advance register
        for ready, head, tail, data, o, locked, room, grant in steps:
            flit = {"head": head, "tail": tail, "data": data}
            want = 1 << o if ready else 0            # an empty FIFO's want bits read 0
            ctx.set(dut.entry, pack(LAY, flit) | want << LAY.size)
            for name, v in (("ready", ready), ("locked", locked), ("room", room)):
                ctx.set(getattr(dut, name), v)
            cand = ((flit, want) if ready else None) if adv else stage
            req = 0
            if cand is not None:
                req = cand[1] & ~locked & room & sum(1 << k for k in outputs)
                assert ctx.get(dut.cand_tail) == cand[0]["tail"]
            assert ctx.get(dut.request) == req and ctx.get(dut.pop) == adv
            if stage is not None and stage[1]:
                f = ctx.get(dut.flit)
                assert (f.head, f.tail, f.data) == (stage[0]["head"], stage[0]["tail"], stage[0]["data"])
            sent = int(bool(req) and grant)
            ctx.set(dut.sent, sent)
            await ctx.tick()
            if adv:
                stage = (flit, want) if ready else None
            adv = bool(sent) or (adv and not ready)
    run(dut, bench)
