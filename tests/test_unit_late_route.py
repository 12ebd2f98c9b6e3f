"""The route at the FIFO head (rtl/router/late_route.py) built from its own parameters, in amaranth.sim against
the model's route table (filled from ``routing.route``): port, new route and VC (V > 1: the route's VC, 0 at
the local output); with per-output queues the lookahead (``LookaheadVoqRouting``): the VC is the next
router's output for the new route. Hypothesis draws the route words."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from unit_sim import SETTINGS, hop, legal_words, route_unit, run

from cubenoc.rtl.router import LateRoute
from cubenoc.sim.model.lookahead import LookaheadVoqRouting
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.routing.metacube import MetacubeRouting
from cubenoc.sim.topology.hypercube import EnhancedHypercube
from cubenoc.sim.topology.metacube import Metacube


def check(dut, routing, node, words, vc_of):
    async def bench(ctx):
        for word in words:
            ctx.set(dut.route, word)
            to = hop(routing, node, word)
            assert ctx.get(dut.hop.port) == to.port
            assert ctx.get(dut.hop.new_route) == routing.layout.pack(to.header)
            assert ctx.get(dut.hop.vc) == vc_of(word, to), (word, to)
            await ctx.delay(1e-9)
    run(dut, bench, clock=False)


@SETTINGS
@given(st.data())
def test_late_route_with_vcs_matches_the_route_table(data):
    topo, node = Metacube(1, 1), 3
    routing = MetacubeRouting(topo)
    P, port = topo.local_port(node) + 1, data.draw(st.integers(0, topo.local_port(node)))
    words = data.draw(st.lists(st.sampled_from(legal_words(topo, routing, node, port)), min_size=1, max_size=20))
    dut = LateRoute(P, route_unit(routing, node), routing.layout.width, num_vcs=routing.num_vcs)
    check(dut, routing, node, words, lambda word, to: 0 if to.port == P - 1 else to.vc)


@SETTINGS
@given(st.data())
def test_late_route_voq_lookahead_gives_the_next_routers_output(data):
    topo, node = EnhancedHypercube(3, 0), 6
    routing = EcubeRouting(topo)
    ahead, P = LookaheadVoqRouting(routing), topo.local_port(node) + 1
    o = data.draw(st.integers(0, P - 2))                 # a network output: its neighbour's route unit
    far = topo.neighbor(node, o)[0]
    words = [w for w in range(1 << routing.layout.width) if (h := hop(ahead, node, w)) is not None and h.port == o]
    picked = data.draw(st.lists(st.sampled_from(words), min_size=1, max_size=20))
    dut = LateRoute(P, route_unit(routing, node), routing.layout.width, num_vcs=ahead.num_vcs,
                    lookahead=route_unit(routing, far))
    check(dut, routing, node, picked, lambda word, to: hop(ahead, node, word).vc)
