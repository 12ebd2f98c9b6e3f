"""The route at the write (rtl/router/route_at_write.py, docs/router.md "Route at the write") built from its own
parameters, in amaranth.sim against the model's head decision (``head_route``: the route table, filled from
``routing.route``, and ``cur_out``/``cur_vc``): each written flit's FIFO entry is the flit with its new route,
its output VC (V > 1; 0 at the local output) and its output one-hot above it; a body flit takes the output
and VC of the head last written (reset: output 0, VC 0). Hypothesis draws flits and write strobes."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from unit_sim import SETTINGS, cycles, hop, layout, legal_words, pack, route_unit, run

from cubenoc.rtl.router import RouteAtWrite
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.routing.metacube import MetacubeRouting
from cubenoc.sim.topology.hypercube import Hypercube
from cubenoc.sim.topology.metacube import Metacube

CASES = {"q3": (Hypercube(3), EcubeRouting, 5), "mc11": (Metacube(1, 1), MetacubeRouting, 3)}


@SETTINGS
@given(st.sampled_from(sorted(CASES)), st.data())
def test_route_at_write_matches_the_route_table(case, data):
    topo, make, node = CASES[case]
    routing = make(topo)
    port = data.draw(st.integers(0, topo.local_port(node)))
    P, V, lay = topo.local_port(node) + 1, routing.num_vcs, layout(routing)
    words = legal_words(topo, routing, node, port)
    outs = sorted({hop(routing, node, w).port for w in words})
    dut = RouteAtWrite(lay, P, outs, route_unit(routing, node), num_vcs=V)
    steps = data.draw(cycles(st.tuples(st.booleans(), st.booleans(), st.integers(0, 2**32 - 1),
                                       st.sampled_from(words), st.booleans()), max_size=40))

    async def bench(ctx):
        want, vc = int(0 in outs), 0                     # the packet's output (one-hot) and VC
        for head, tail, data_, word, take in steps:
            ctx.set(dut.flit.as_value(), pack(lay, {"head": head, "tail": tail, "data": data_, "route": word}))
            ctx.set(dut.take, take)
            to = hop(routing, node, word)
            if head:
                w, c = 1 << to.port, (0 if to.port == P - 1 else to.vc)
            else:
                w, c = want, vc
            entry = ctx.get(dut.entry)
            def field(name):
                return entry >> lay[name].offset & ((1 << lay[name].width) - 1)
            assert (field("head"), field("tail"), field("data")) == (head, tail, data_)
            assert field("route") == routing.layout.pack(to.header)    # every flit's own update
            assert entry >> lay.size == w, (head, word, entry >> lay.size, w)
            if V > 1:
                assert field("vc") == c
            await ctx.tick()
            if take and head:
                want, vc = w, c
    run(dut, bench)
