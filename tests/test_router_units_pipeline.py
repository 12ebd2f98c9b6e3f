"""The pipelined input unit (docs/router.md "Pipelined router", ``InputUnit._pipe_lane``) in amaranth.sim
against the model's PIPE lane (sim/model/kernel.py: ``pipe_node``, ``clock_edge``), on hypothesis
sequences of random packets (body flits carry their head's route), random locks, random room and random
grants (``sent``, only to a lane that requests): ``ready`` is the FIFO's ``count < D`` and ``ready2`` its
``count <= D - 2``; the candidate (the FIFO head while the stage is empty or crossing, else the stage)
requests its route unit's output when that output has room and is not locked by another lane (``locked``:
the output unit's registered ``barred`` bit for this lane, checked below); the offered
flit is the stage's with its new route; at the edge a granted lane's stage crosses next cycle and the stage
takes the FIFO head whenever it was empty or crossing."""
from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st
from test_router_units import SETTINGS, _hop, _router, pack, run

from cubenoc.rtl.router.input_unit import InputUnit
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.topology.hypercube import Hypercube


def check_pipelined_input_unit(port, seed, cycles=200):
    rng = random.Random(seed)
    topo = Hypercube(3)
    routing, node = EcubeRouting(topo), 5
    r = _router(topo, routing, node, pipeline=True)
    dut = InputUnit(r.input_params(port))
    P, D = r.num_ports, r.fifo_depth
    assert dut.num_lanes == 1
    words = [w for w in range(1 << routing.layout.width)      # heads this input may carry (a turn it has)
             if _hop(routing, node, w) is not None and r.allowed[port][_hop(routing, node, w).port]]
    state = {"fifo": [], "stage": None, "crossing": False, "route": words[0], "in_packet": False}
    seen = {"requests": 0, "grants": 0, "held": 0}

    async def bench(ctx):
        fifo = state["fifo"]
        for _ in range(cycles):
            head = not state["in_packet"]
            if head:
                state["route"] = rng.choice(words)
            flit = {"head": head, "tail": rng.random() < 0.4, "data": rng.getrandbits(32), "route": state["route"]}
            valid = rng.random() < 0.7
            locked, room = rng.getrandbits(P), rng.getrandbits(P) | rng.getrandbits(P)
            ctx.set(dut.i.valid, valid)
            ctx.set(dut.i.payload.as_value(), pack(r.flit_layout, flit))
            ctx.set(dut.locked, locked)
            ctx.set(dut.room, room)
            assert bool(ctx.get(dut.i.ready)) == (len(fifo) < D)
            if port != r.local:
                assert bool(ctx.get(dut.i.ready2)) == (len(fifo) <= D - 2)
            accept = valid and len(fifo) < D
            advance = state["crossing"] or state["stage"] is None
            cand = (fifo[0] if fifo else None) if advance else state["stage"]
            want = 0
            if cand is not None:
                o = _hop(routing, node, cand["route"]).port
                if room >> o & 1 and not locked >> o & 1:      # ``locked``: by another lane
                    want = 1 << o
                assert ctx.get(dut.cand_tail[0]) == cand["tail"]
            assert ctx.get(dut.request[0]) == want, (cand, state)
            if state["stage"] is not None:          # the stage's flit, with its new route, on the crossbar
                h = state["stage"]
                f = ctx.get(dut.flit[0])
                assert (f.head, f.tail, f.data) == (h["head"], h["tail"], h["data"])
                assert ctx.get(dut.flit[0].route.as_value()) == routing.layout.pack(_hop(routing, node, h["route"]).header)
            sent = int(bool(want) and rng.random() < 0.6)
            seen["requests"] += bool(want)
            seen["grants"] += sent
            seen["held"] += bool(want) and not advance
            ctx.set(dut.sent, sent)
            await ctx.tick()
            state["crossing"] = bool(sent)           # the clock edge: a grant crosses next cycle ...
            if advance:                               # ... the stage takes the FIFO head (or empties) ...
                state["stage"] = fifo.pop(0) if fifo else None
            if accept:                                # ... then the write
                fifo.append(flit)
                state["in_packet"] = not flit["tail"]
    run(dut, bench)
    assert seen["requests"] > 10 and seen["grants"] > 5 and seen["held"] > 0, (seen, state)


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(0, 3))
def test_pipelined_input_unit_matches_model(seed, port):
    check_pipelined_input_unit(port, seed)


@SETTINGS
@given(st.integers(0, 2**32 - 1))
def test_pipelined_output_unit_lock_and_barred(seed):
    """The pipelined output unit (five sources, the local output's size) against the model's rules
    (``rr_pick``, ``lock_after`` in sim/model/kernel.py): the grant is the first request at or after the
    round-robin pointer, the pointer moves past it; the registered ``tail``/``valid``; ``locked`` and
    ``barred[r]`` (the lock held by a source other than r: the input unit's request mask) after each
    grant, on random requests and tail bits."""
    from cubenoc.rtl.router.output_unit import OutputUnit
    from cubenoc.sim.model.kernel import lock_after, rr_pick
    rng, n, cycles = random.Random(seed), 5, 120
    topo = Hypercube(3)
    dut = OutputUnit(_router(topo, EcubeRouting(topo)).flit_layout, range(n), n, pipelined=True)
    state = {"rr": 0, "owner": -1, "tail": 0, "valid": 0}
    seen = {"barred": 0, "owned": 0}

    async def bench(ctx):
        for _ in range(cycles):
            req, tails = rng.getrandbits(n) & rng.getrandbits(n), rng.getrandbits(n)
            ctx.set(dut.request, req)
            ctx.set(dut.cand_tail, tails)
            ctx.set(dut.ready, 1)
            owner = state["owner"]
            assert ctx.get(dut.locked) == (owner >= 0)
            assert ctx.get(dut.barred) == sum(1 << r for r in range(n) if owner >= 0 and r != owner)
            assert (ctx.get(dut.valid), ctx.get(dut.tail)) == (state["valid"], state["tail"])
            seen["barred"] += owner >= 0
            grant, state["tail"] = 0, 0
            if req:
                win = rr_pick(req, state["rr"], n)
                grant = 1 << win
                state["rr"] = (win + 1) % n
                state["owner"] = lock_after(owner, win, 1, tails >> win & 1)
                state["tail"] = tails >> win & 1
                seen["owned"] += state["owner"] >= 0
            state["valid"] = int(bool(req))
            assert ctx.get(dut.grant) == grant
            await ctx.tick()
    run(dut, bench)
    assert seen["barred"] > 5 and seen["owned"] > 5, seen
