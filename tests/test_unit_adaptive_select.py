"""The adaptive route stage (rtl/router/adaptive_select.py) built from its own parameters, in amaranth.sim against
the model's ``select`` (sim/model/phases.py): the chosen candidate (port, VC, new route) under drawn faults,
locks, room and use counts, for availability (Algorithm 2) and least used; a head whose candidates are all
faulty is discarded (``select`` gives port -1) and the rest of its packet popped (``disc`` in ``adaptive_request``)."""
from __future__ import annotations

from collections import namedtuple
from functools import partial

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from unit_sim import SETTINGS, cycles, legal_words, ready_bits, run

from cubenoc.rtl.route.base import NodeUnit
from cubenoc.rtl.route.candidates import candidate_unit
from cubenoc.rtl.router import AdaptiveSelect
from cubenoc.sim.model.phases import select
from cubenoc.sim.model.word import PORT_BITS
from cubenoc.sim.routing.pdn import AdaptivePDNRouting
from cubenoc.sim.topology.pdn import PerfectDifferenceNetwork

TOPO, NODE = PerfectDifferenceNetwork((0, 1, 3)), 4
Ad = namedtuple("Ad", "selection route2 vc2 use fault")


@SETTINGS
@given(st.sampled_from(["availability", "least_used"]), st.data())
def test_adaptive_select_matches_select(selection, data):
    routing = AdaptivePDNRouting(TOPO, selection=selection)
    P, V, loc = TOPO.local_port(NODE) + 1, routing.num_vcs, TOPO.local_port(NODE)
    port = data.draw(st.integers(0, loc))
    words = legal_words(TOPO, routing, NODE, port)
    width = routing.layout.width
    e0s, r2, v2 = {}, np.full((1, 1 << width), -1, np.int64), np.zeros((1, 1 << width), np.int64)
    for w in words:
        cands = routing.selection_candidates(NODE, routing.layout.unpack(w))
        e0s[w] = (cands[0].port | routing.layout.pack(cands[0].header) << PORT_BITS, cands[0].port, cands[0].vc)
        if len(cands) > 1:
            r2[0, w], v2[0, w] = cands[1].port | routing.layout.pack(cands[1].header) << PORT_BITS, cands[1].vc
    dut = AdaptiveSelect(P, V, NodeUnit(partial(candidate_unit, routing, NODE), NODE), width, selection=selection)
    uses = st.lists(st.integers(0, 7), min_size=P, max_size=P)
    steps = data.draw(cycles(st.tuples(st.sampled_from(words), st.booleans(), st.booleans(), st.booleans(),
                                       ready_bits(loc), ready_bits(P * V), ready_bits(P * V), uses, st.booleans()),
                             max_size=40))

    async def bench(ctx):
        dropping = False
        for w, head, tail, ready, fault, locked, room, use, sent in steps:
            for name, v in (("route", w), ("head", head), ("tail", tail), ("ready", ready), ("fault", fault),
                            ("locked", locked), ("room", room), ("sent", sent)):
                ctx.set(getattr(dut, name), v)
            if selection == "least_used":
                for o in range(P):
                    ctx.set(dut.use[o], use[o])
            lock = np.array([0 if locked >> k & 1 else -1 for k in range(P * V)], np.int64)
            link = np.array([o if o != loc else -1 for o in range(P)], np.int64)
            fcnt = np.array([0 if room >> k & 1 else 1 for k in range(P * V)], np.int64)
            ad = Ad(0 if selection == "availability" else 1, r2, v2, np.array(use, np.int64),
                    np.array([fault >> o & 1 for o in range(loc)] + [0], np.int64))
            e0, o0, c0 = e0s[w]
            e, o, c = select(0, 0, loc, w, e0, o0, 0 if o0 == loc else c0, V, 1, ad, lock, link, fcnt)
            live = ready and not dropping
            assert ctx.get(dut.live) == live
            assert ctx.get(dut.discard) == (live and head and o < 0)
            assert ctx.get(dut.pop) == (sent or (live and head and o < 0) or (ready and dropping))
            if o >= 0:
                assert (ctx.get(dut.hop.port), ctx.get(dut.hop.vc)) == (o, c), (w, fault, locked, room)
                assert ctx.get(dut.hop.new_route) == e >> PORT_BITS
            await ctx.tick()
            if live and head and o < 0 and not tail:
                dropping = True
            elif ready and dropping and tail:
                dropping = False
    run(dut, bench)
