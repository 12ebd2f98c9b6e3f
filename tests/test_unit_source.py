"""The source interface (rtl/router/source.py) built from its own parameters (``SourceParams``), in amaranth.sim
against the model's ``source_step`` (sim/model/phases.py): accept, write, head bit, route, counters one cycle
after the event; hypothesis draws the offered flits (head/tail bits, in- and out-of-range destinations),
``valid`` and the local FIFO's room cycle by cycle."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from unit_sim import SETTINGS, cycles, inject_unit, layout, run

from cubenoc.rtl.gates import node_width
from cubenoc.rtl.router import SourceInterface, SourceParams
from cubenoc.sim.model.phases import source_step
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.topology.hypercube import Hypercube

TOPO = Hypercube(3)
ROUTING = EcubeRouting(TOPO)
N = TOPO.num_nodes

#: one offered flit: head, tail, destination (in range or not), the data's upper half, valid, room
offers = st.tuples(st.booleans(), st.booleans(), st.one_of(st.integers(0, N - 1), st.integers(N, 0xFFFF)),
                   st.integers(0, 0xFFFF), st.booleans(), st.booleans())


def source(node, **kw):
    return SourceInterface(SourceParams(layout(ROUTING), N, inject_unit(ROUTING, node, generic=True),
                                        node_width(TOPO), **kw))


@SETTINGS
@given(st.integers(0, N - 1), st.booleans(), cycles(offers, max_size=80))
def test_source_interface_matches_source_step(node, route_at_write, steps):
    """``route_at_write`` (the default router's): the route field is driven in every state."""
    dut = source(node, route_at_write=route_at_write)

    async def bench(ctx):
        ctx.set(dut.node_id, node)
        state, counts = 0, [0, 0, 0]
        route = 0
        for head, tail, dest, high, valid, room in steps:
            ctx.set(dut.i.valid, valid)
            ctx.set(dut.i.payload, {"head": head, "tail": tail, "data": dest | high << 16})
            ctx.set(dut.o.ready, room)
            dest_ok = dest < N
            accepted, write, write_head, new_state, inj, drop, mal = source_step(state, int(head), int(tail),
                                                                                 int(dest_ok), int(room))
            assert ctx.get(dut.i.ready) == accepted or not valid
            # the FIFO write happens on o.valid & o.ready (room)
            assert bool(ctx.get(dut.o.valid) and room) == (bool(write) and valid)
            if write and valid:
                w = ctx.get(dut.o.payload)
                assert w.head == write_head and w.tail == tail
                if write_head:
                    route = ROUTING.layout.pack(ROUTING.inject(node, dest))
                assert ctx.get(dut.o.payload.route.as_value()) == route
            await ctx.tick()
            shown = counts                         # the counters show an event one cycle after it (count_after)
            if valid and accepted:
                state = new_state
                counts = [counts[0] + inj, counts[1] + drop, counts[2] + mal]
            assert [ctx.get(dut.injected), ctx.get(dut.dropped), ctx.get(dut.malformed)] == shown
    run(dut, bench)


@SETTINGS
@given(st.integers(0, N - 1), st.booleans(), cycles(offers, max_size=40))
def test_source_interface_without_loopback_or_counters(node, counters, steps):
    """``drop_own_node`` (a router without loopback, docs/router.md "Loopback"): a head to its own node is
    dropped like an out-of-range one (the model's ``dest_ok``); ``count_events=False``: the counters read 0."""
    dut = source(node, drop_own_node=True, count_events=counters)

    async def bench(ctx):
        ctx.set(dut.node_id, node)
        state, counts = 0, [0, 0, 0]
        for head, tail, dest, high, valid, room in steps:
            dest = node if high & 1 else dest      # often its own node
            ctx.set(dut.i.valid, valid)
            ctx.set(dut.i.payload, {"head": head, "tail": tail, "data": dest | high << 16})
            ctx.set(dut.o.ready, room)
            accepted, write, _, new_state, inj, drop, mal = source_step(state, int(head), int(tail),
                                                                        int(dest < N and dest != node), int(room))
            assert ctx.get(dut.i.ready) == accepted or not valid
            assert bool(ctx.get(dut.o.valid) and room) == (bool(write) and valid)
            await ctx.tick()
            shown = counts if counters else [0, 0, 0]
            if valid and accepted:
                state = new_state
                counts = [counts[0] + inj, counts[1] + drop, counts[2] + mal]
            assert [ctx.get(dut.injected), ctx.get(dut.dropped), ctx.get(dut.malformed)] == shown
    run(dut, bench)
