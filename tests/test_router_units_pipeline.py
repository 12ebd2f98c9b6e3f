"""The pipelined input unit (docs/router.md "Pipelined router", ``InputUnit._stage``) in amaranth.sim
against the model's PIPE lane (sim/model/kernel.py: ``router_node`` on ``fifo.stage``, ``clock_edge``
empties a sent stage and refills an empty one from the FIFO's head, before the FIFO's write), on
hypothesis sequences of random flits (framing included: body flits after tails), random locks and
random ``sent``: ``ready`` is the FIFO's ``count < D``, the requests and the offered flit are the stage's,
a body flit's request is its packet's output (``cur_out``) whatever came before."""
from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st
from test_router_units import SETTINGS, _hop, _router, pack, run

from cubenoc.rtl.router.input_unit import InputUnit
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.topology.hypercube import Hypercube


def check_pipelined_input_unit(port, seed, cycles=80):
    rng = random.Random(seed)
    topo = Hypercube(3)
    routing, node = EcubeRouting(topo), 5
    r = _router(topo, routing, node, pipeline=True)
    dut = InputUnit(r, port)
    P, D = r.num_ports, r.fifo_depth
    assert dut.num_lanes == 1
    words = [w for w in range(1 << routing.layout.width)      # heads this input may carry (a turn it has)
             if _hop(routing, node, w) is not None and r.allowed[port][_hop(routing, node, w).port]]
    state = {"fifo": [], "stage": None, "cur": 0}
    seen = {"requests": 0, "stalls": 0, "heads": 0}

    async def bench(ctx):
        fifo = state["fifo"]
        for _ in range(cycles):
            flit = {"head": not seen["heads"] or rng.random() < 0.5, "tail": rng.random() < 0.5, "data": rng.getrandbits(32),
                    "route": rng.choice(words)}
            valid = rng.random() < 0.7
            locked = rng.getrandbits(P)
            ctx.set(dut.i.valid, valid)
            ctx.set(dut.i.payload.as_value(), pack(r.flit_layout, flit))
            ctx.set(dut.locked, locked)
            ctx.set(dut.room, (1 << P) - 1)
            assert bool(ctx.get(dut.i.ready)) == (len(fifo) < D)
            accept = valid and len(fifo) < D
            h, want = state["stage"], 0
            if h is not None:
                o = _hop(routing, node, h["route"]).port if h["head"] else state["cur"]
                if r.allowed[port][o] and not (h["head"] and locked >> o & 1):
                    want = 1 << o
            assert ctx.get(dut.request[0]) == want, (h, state["cur"])
            sent = 0
            if want:
                seen["requests"] += 1
                if rng.random() < 0.6:               # an output unit takes the flit, else it stalls
                    sent = 1
                    f = ctx.get(dut.flit[0])
                    assert (f.head, f.tail, f.data) == (h["head"], h["tail"], h["data"])
                else:
                    seen["stalls"] += 1
            ctx.set(dut.sent, sent)
            await ctx.tick()
            if sent:                                  # the clock edge: the sent stage empties ...
                if h["head"]:
                    state["cur"] = _hop(routing, node, h["route"]).port
                state["stage"] = None
            if state["stage"] is None and fifo:      # ... an empty stage takes the FIFO head ...
                state["stage"] = fifo.pop(0)
            if accept:                                # ... then the write
                fifo.append(flit)
                seen["heads"] += flit["head"]       # (the first flit is a head: cur_out resets to 0)
    run(dut, bench)
    assert seen["requests"] > 10 and seen["stalls"] > 0, (seen, state)


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(0, 3))
def test_pipelined_input_unit_matches_model(seed, port):
    check_pipelined_input_unit(port, seed)
