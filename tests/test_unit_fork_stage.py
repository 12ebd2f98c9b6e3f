"""The broadcast fork of one input (rtl/router/fork_stage.py) built from its own parameters, in amaranth.sim
against the model's fork rules (``fork_requests``/``fork_present`` in sim/model/forks.py; docs/router.md
"Broadcast and multicast"): the wanted set is the fork table's (``fork_entry``, the one the model reads); a
head is eligible with nothing held, every wanted output unlocked and its downstream empty; chosen, it holds
its outputs, is presented on those not yet done, and pops once every branch has sent it; a broadcast packet's
body follows the held set (``bmode``). Hypothesis draws flits, locks, empties, choices and ready patterns."""
from __future__ import annotations

from functools import partial

from hypothesis import given
from hypothesis import strategies as st
from unit_sim import SETTINGS, cycles, ready_bits, run

from cubenoc.rtl.route.base import NodeUnit
from cubenoc.rtl.router import ForkStage
from cubenoc.rtl.router.fork_stage import fork_unit
from cubenoc.sim.broadcast.fork import fork_entry
from cubenoc.sim.broadcast.hypercube import BinomialBroadcast
from cubenoc.sim.topology.hypercube import Hypercube

TOPO, NODE = Hypercube(3), 5


@SETTINGS
@given(st.booleans(), st.data())
def test_fork_stage_matches_the_fork_rules(origin, data):
    alg = BinomialBroadcast(TOPO)
    P, loc, tw = TOPO.local_port(NODE) + 1, TOPO.local_port(NODE), alg.layout.width
    outputs = tuple(range(P))
    dut = ForkStage(P, NodeUnit(partial(fork_unit, alg, NODE), NODE), tw, origin=origin, outputs=outputs)
    tags = [0] if origin else [t for t in range(1 << tw) if (e := fork_entry(alg, NODE, False, t)).ports or e.keep]

    def mask(tag):
        e = fork_entry(alg, NODE, origin, tag)
        return sum(1 << p for p in e.ports) | (int(e.keep) << loc)
    steps = data.draw(cycles(st.tuples(st.booleans(), st.booleans(), st.booleans(), st.sampled_from(tags),
                                       st.booleans(), st.booleans(), ready_bits(P), ready_bits(P), st.booleans(),
                                       ready_bits(P), ready_bits(P)), max_size=50))

    async def bench(ctx):
        held = done = bmode = 0
        for head, tail, bcast, tag, ready, sent, locked, empty, chosen, taken, out_ready in steps:
            for name, v in (("head", head), ("tail", tail), ("bcast", bcast), ("route", tag), ("ready", ready),
                            ("sent", sent), ("locked", locked), ("empty", empty), ("chosen", chosen),
                            ("taken", taken), ("out_ready", out_ready)):
                ctx.set(getattr(dut, name), v)
            want = mask(tag)
            forking = ready and (bmode or (head and bcast))
            wants = held if bmode else want
            eligible = forking and not bmode and held == 0 and wants != 0 and wants & (locked | ~empty) == 0
            full = forking and (held == wants or chosen)
            present = wants & ~done if full else 0
            sent_all = done | (present & out_ready)
            last = full and sent_all == wants
            assert (ctx.get(dut.forking), ctx.get(dut.want), ctx.get(dut.eligible)) == (forking, want, eligible)
            assert (ctx.get(dut.present), ctx.get(dut.pop)) == (present, bool(sent or last))
            e = fork_entry(alg, NODE, origin, tag)
            for p in e.ports:                    # each branch's new tag
                assert ctx.get(dut.fork_route[p]) == e.new_tags[p]
            await ctx.tick()
            if chosen and taken:
                held = want
            if last:
                done = 0
                if tail:
                    held, bmode = 0, 0
                elif head:
                    bmode = 1
            elif full:
                done = sent_all
    run(dut, bench)
