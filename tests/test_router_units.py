"""The router's units (rtl/router/) one by one in amaranth.sim against the model's matching phase function
(sim/model/kernel.py), Glasgow-style: random request/ready sequences from hypothesis plus directed corners.

* arbiter (RoundRobinArbiter) == ``rr_pick`` with the pointer moved past each winner (``next``) or onto
  it (``keep``); the weighted (fair) arbiter == ``wrr_after``;
* output unit (OutputUnit) == ``rr_pick`` + ``lock_after`` + the crossbar (the winner's flit, bit for bit),
  the pointer staying on a winner that was not taken; and the stream rule on its output (an offer not
  taken is offered again unchanged, docs/router.md "Streams hold their offer");
* source interface (SourceInterface) == ``source_step`` (accept, write, head bit, route, counters);
* input unit (InputUnit) == the model's FIFO (depth D, first-word fall-through) + route table lookup +
  docs/router.md "Requests", for V = 1 and V > 1 lanes.
"""
from __future__ import annotations

import random

import numpy as np

from amaranth.sim import Simulator
from hypothesis import given, settings
from hypothesis import strategies as st

from cubenoc.sim.router_config import RouterConfig
from cubenoc.rtl.formal.router import arrivals
from cubenoc.rtl.router import Router
from cubenoc.rtl.router.arbiter import RoundRobinArbiter
from cubenoc.rtl.router.input_unit import InputUnit
from cubenoc.rtl.router.output_unit import OutputUnit
from cubenoc.rtl.router.source import SourceInterface
from cubenoc.sim.model.kernel import lock_after, rr_pick, source_step, wrr_after
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.routing.metacube import MetacubeRouting
from cubenoc.sim.topology.hypercube import Hypercube
from cubenoc.sim.topology.metacube import Metacube

SETTINGS = settings(max_examples=12, deadline=None)


def run(dut, bench):
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


# ---- arbiter ----------------------------------------------------------------------------------------------
def check_arbiter(positions, size, cycles, pairwise=False):
    dut = RoundRobinArbiter(positions, size, pairwise=pairwise)

    async def bench(ctx):
        pointer = 0
        for req, advance in cycles:          # advance: True next, False keep, None neither
            ctx.set(dut.requests, req)
            mask = sum(1 << positions[r] for r in range(len(positions)) if req >> r & 1)
            win = rr_pick(mask, pointer, size)
            want = 0 if win < 0 else 1 << positions.index(win)
            assert ctx.get(dut.grant) == want, (req, pointer)
            if dut.pairwise:                 # the pointer moves past every grant
                advance = True
            ctx.set(dut.next, want if advance else 0)
            ctx.set(dut.keep, want if advance is False else 0)
            await ctx.tick()
            if advance is not None and win >= 0:
                pointer = (win + (1 if advance else 0)) % size
    run(dut, bench)


@SETTINGS
@given(st.data())
def test_arbiter_matches_rr_pick(data):
    size = data.draw(st.integers(1, 12))
    positions = sorted(data.draw(st.sets(st.integers(0, size - 1), min_size=1, max_size=size)))
    n = len(positions)
    cycles = data.draw(st.lists(st.tuples(st.integers(0, (1 << n) - 1), st.sampled_from([True, False, None])),
                                min_size=1, max_size=40))
    check_arbiter(positions, size, cycles, data.draw(st.booleans()))   # pairwise: the pipelined router's


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_weighted_arbiter_matches_wrr_after(data):
    """The fair arbiter (docs/router.md "Arbitration"): random requests, transfers (with the tail bit and
    the winner's weight) and stalls against the model's ``wrr_after``."""
    size = data.draw(st.integers(2, 8))
    positions = sorted(data.draw(st.sets(st.integers(0, size - 1), min_size=2, max_size=size)))
    n = len(positions)
    dut = RoundRobinArbiter(positions, size, weight_width=3)
    full = (1 << n) - 1                # mostly everyone requests, so a winner keeps first place for long
    weight = data.draw(st.integers(1, 4))
    steps = data.draw(st.lists(st.tuples(st.one_of(st.just(full), st.integers(1, full)),
                                         st.sampled_from([True, True, False, None]), st.booleans(),
                                         st.one_of(st.just(weight), st.integers(1, 7))), min_size=1, max_size=60))

    async def bench(ctx):
        rr, used = np.zeros(1, np.int64), np.zeros(1, np.int64)
        for req, taken, tail, weight in steps:
            ctx.set(dut.requests, req)
            mask = sum(1 << positions[r] for r in range(n) if req >> r & 1)
            win = rr_pick(mask, int(rr[0]), size)
            want = 1 << positions.index(win)
            assert ctx.get(dut.grant) == want, (req, rr, used)
            ctx.set(dut.next, want if taken else 0)
            ctx.set(dut.keep, want if taken is False else 0)
            for r in range(n):      # the winner's tail and weight; the others' must not matter
                mine = positions[r] == win
                ctx.set(dut.tail[r], tail if mine else not tail)
                ctx.set(dut.weight[r], weight if mine else 8 - weight)
            await ctx.tick()
            if taken is not None:
                wrr_after(rr, used, 0, win, taken, int(tail), weight, size)
    run(dut, bench)


def test_arbiter_corners():
    # everyone requests: the grant walks round the pruned positions in order, wrapping past the top
    check_arbiter([0, 2, 5], 6, [(0b111, True)] * 7)
    # a lone requester behind the pointer still wins; no request, no grant, pointer stays
    check_arbiter([1, 3], 4, [(0b10, True), (0b01, True), (0, True), (0b11, True), (0b11, True)])
    # kept: the stalled winner (position 3) stays first although position 1 asks again after it
    check_arbiter([1, 3], 4, [(0b10, False), (0b11, False), (0b11, True), (0b11, True)])
    assert rr_pick(0b1010, 2, 4) == 3 and rr_pick(0b0011, 2, 4) == 0 and rr_pick(0, 1, 4) == -1


# ---- output unit ------------------------------------------------------------------------------------------
def _router(topo, routing, node=0, **kw):
    r = Router(topo, routing, node, RouterConfig(**kw))
    r._MustUse__silence = True              # only its parameters are used: the units are built on their own
    return r


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 2]))
def test_output_unit_matches_model(seed, V):
    rng = random.Random(seed)
    topo = Hypercube(2) if V == 1 else Metacube(1, 1)
    layout = _router(topo, (EcubeRouting if V == 1 else MetacubeRouting)(topo)).flit_layout
    size = 3 * V
    positions = sorted(rng.sample(range(size), rng.randint(1, size)))
    n = len(positions)
    dut = OutputUnit(layout, positions, size, V)

    async def bench(ctx):
        pointer, lock = 0, [-1] * V
        for _ in range(60):
            flits = [{"head": rng.random() < 0.5, "tail": rng.random() < 0.5, "data": rng.getrandbits(32),
                      **({"vc": rng.randrange(V)} if V > 1 else {})} for _ in range(n)]
            req = rng.getrandbits(n)
            ready = rng.getrandbits(V)
            for r in range(n):
                ctx.set(dut.flit[r].as_value(), pack(layout, flits[r]))
            ctx.set(dut.request, req)
            ctx.set(dut.ready, ready)
            mask = sum(1 << positions[r] for r in range(n) if req >> r & 1)
            win = rr_pick(mask, pointer, size)
            assert ctx.get(dut.grant) == (0 if win < 0 else 1 << positions.index(win))
            assert ctx.get(dut.valid) == (win >= 0)
            xfer = False
            if win >= 0:
                f = flits[positions.index(win)]
                got = ctx.get(dut.payload)
                assert (got.head, got.tail, got.data) == (f["head"], f["tail"], f["data"])
                c = f.get("vc", 0)
                xfer = bool(ready >> c & 1)
                assert ctx.get(dut.xfer) == xfer
            assert ctx.get(dut.locked) == sum(1 << c for c in range(V) if lock[c] >= 0)
            await ctx.tick()
            if xfer:
                pointer = (win + 1) % size
                lock[c] = lock_after(lock[c], win, int(f["head"]), int(f["tail"]))
            elif win >= 0:                    # offered, not taken: the winner stays first
                pointer = win
    run(dut, bench)


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 2]))
def test_output_unit_holds_its_offer(seed, V):
    """docs/router.md "Streams hold their offer": sources request as the input units do (a requester
    keeps its flit and request until its flit is taken; new requesters come at random, also ahead of
    the winner in round-robin order); whenever ``valid`` was high and the flit not taken, the output
    offers the same flit next cycle, whatever ``ready`` does."""
    rng = random.Random(seed)
    topo = Hypercube(2) if V == 1 else Metacube(1, 1)
    layout = _router(topo, (EcubeRouting if V == 1 else MetacubeRouting)(topo)).flit_layout
    size = 3 * V
    positions = sorted(rng.sample(range(size), rng.randint(2, size)))
    n = len(positions)
    dut = OutputUnit(layout, positions, size, V)

    def new_flit():
        return pack(layout, {"head": 1, "tail": 1, "data": rng.getrandbits(32),
                             **({"vc": rng.randrange(V)} if V > 1 else {})})

    async def bench(ctx):
        req, flits, held, stalls = 0, [new_flit() for _ in range(n)], None, 0
        for _ in range(80):
            req |= rng.getrandbits(n) & rng.getrandbits(n)           # new requesters; old ones stay
            ctx.set(dut.request, req)
            for r in range(n):
                ctx.set(dut.flit[r].as_value(), flits[r])
            ctx.set(dut.ready, rng.getrandbits(V) if rng.random() < 0.6 else 0)
            valid, payload = ctx.get(dut.valid), ctx.get(dut.payload.as_value())
            if held is not None:
                assert valid and payload == held, "the output withdrew or changed a flit it offered"
            xfer, grant = ctx.get(dut.xfer), ctx.get(dut.grant)
            held = payload if valid and not xfer else None
            stalls += held is not None
            if xfer:                          # the winner's flit left: its source offers a new one later
                r = grant.bit_length() - 1
                req &= ~grant
                flits[r] = new_flit()
            await ctx.tick()
        assert stalls > 0                     # the rule was exercised
    run(dut, bench)


# ---- source interface -------------------------------------------------------------------------------------
@SETTINGS
@given(st.integers(0, 2**32 - 1))
def test_source_interface_matches_source_step(seed):
    rng = random.Random(seed)
    topo = Hypercube(3)
    routing = EcubeRouting(topo)
    node = rng.randrange(topo.num_nodes)
    r = _router(topo, routing, node)
    dut = SourceInterface(r.source_params())

    async def bench(ctx):
        ctx.set(dut.node_id, node)
        state, counts = 0, [0, 0, 0]
        route = 0
        for _ in range(80):
            head, tail = rng.random() < 0.5, rng.random() < 0.5
            dest = rng.choice([rng.randrange(topo.num_nodes), rng.randrange(topo.num_nodes, 1 << 16)])
            valid, room = rng.random() < 0.8, rng.random() < 0.7
            ctx.set(dut.i.valid, valid)
            ctx.set(dut.i.payload, {"head": head, "tail": tail, "data": dest | rng.getrandbits(16) << 16})
            ctx.set(dut.o.ready, room)
            dest_ok = dest < topo.num_nodes
            accepted, write, write_head, new_state, inj, drop, mal = source_step(state, int(head), int(tail),
                                                                                 int(dest_ok), int(room))
            assert ctx.get(dut.i.ready) == accepted or not valid
            # the FIFO write happens on o.valid & o.ready (room)
            assert bool(ctx.get(dut.o.valid) and room) == (bool(write) and valid)
            if write and valid:
                w = ctx.get(dut.o.payload)
                assert w.head == write_head and w.tail == tail
                if write_head:
                    route = routing.layout.pack(routing.inject(node, dest))
                assert ctx.get(dut.o.payload.route.as_value()) == route
            await ctx.tick()
            shown = counts                         # the counters show an event one cycle after it (count_after)
            if valid and accepted:
                state = new_state
                counts = [counts[0] + inj, counts[1] + drop, counts[2] + mal]
            assert [ctx.get(dut.injected), ctx.get(dut.dropped), ctx.get(dut.malformed)] == shown
    run(dut, bench)


# ---- input unit -------------------------------------------------------------------------------------------
def pack(layout, fields: dict) -> int:
    """A flit as the integer of ``layout`` (fields given as integers)."""
    return sum(int(v) << layout[name].offset for name, v in fields.items())


def _hop(routing, node, word):
    try:
        return routing.route(node, routing.layout.unpack(word))
    except Exception:                      # noqa: BLE001 - words no packet carries
        return None


def check_input_unit(topo, routing, node, port, seed, cycles=80):
    rng = random.Random(seed)
    r = _router(topo, routing, node)
    dut = InputUnit(r.input_params(port))
    P, V, D, L = r.num_ports, r.num_vcs, r.fifo_depth, dut.num_lanes
    # a legal upstream (as the formal harness assumes): the route words packets arrive here with, since the
    # router fixes the bits they all agree on (docs/router.md "Fixed route bits")
    if port == r.local:
        words = sorted({routing.layout.pack(routing.inject(node, d)) for d in topo.nodes()})
    else:
        words = sorted(set().union(*[w for (p, _), w in arrivals(routing, node).items() if p == port]))

    def target(h, c):                       # (output, VC) of the lane's head flit: route table or cur_out
        if not h["head"]:
            return cur[c]
        hop = _hop(routing, node, h["route"])
        return hop.port, (0 if hop.port == r.local else hop.vc)

    cur = [(0, 0)] * L

    async def bench(ctx):
        if "node_id" in dut.signature.members:
            ctx.set(dut.node_id, node)
        fifo = [[] for _ in range(L)]
        for _ in range(cycles):
            lane = rng.randrange(L)
            flit = {"head": rng.random() < 0.6, "tail": rng.random() < 0.5, "data": rng.getrandbits(32),
                    "route": rng.choice(words), **({"vc": lane} if L > 1 else {})}
            valid = rng.random() < 0.7
            locked, room = rng.getrandbits(P * V), rng.getrandbits(P * V)
            ctx.set(dut.i.valid, valid)
            ctx.set(dut.i.payload.as_value(), pack(r.flit_layout, flit))
            ctx.set(dut.locked, locked)
            ctx.set(dut.room, room)
            for c in range(L):                  # ready = count < D, registered (no same-cycle dequeue)
                assert bool(ctx.get(dut.i.ready) >> c & 1) == (len(fifo[c]) < D)
            accept = valid and len(fifo[lane]) < D
            sent = 0
            for c in range(L):
                want = 0
                if fifo[c]:
                    h = fifo[c][0]
                    o, vc = target(h, c)
                    free = not (h["head"] and locked >> (o * V + vc) & 1)
                    room_ok = V == 1 or o == r.local or room >> (o * V + vc) & 1
                    want = int(bool(r.allowed[port][o] and free and room_ok)) << o
                assert ctx.get(dut.request[c]) == want, (c, fifo[c][:1], cur[c])
                if want and rng.random() < 0.6:          # an output unit takes the flit
                    sent |= 1 << c
                    f = ctx.get(dut.flit[c])
                    assert (f.head, f.tail, f.data) == (h["head"], h["tail"], h["data"])
                    new = routing.layout.pack(_hop(routing, node, h["route"]).header)   # every flit's route
                    assert ctx.get(f.route.as_value()) == new, (c, h)
                    if V > 1:
                        assert f.vc == vc
            ctx.set(dut.sent, sent)
            await ctx.tick()
            for c in range(L):                  # the clock edge: dequeues, then the enqueue
                if sent >> c & 1:
                    h = fifo[c].pop(0)
                    if h["head"]:
                        cur[c] = target(h, c)
            if accept:
                fifo[lane].append(flit)
    run(dut, bench)


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(0, 3))
def test_input_unit_v1_matches_model(seed, port):
    topo = Hypercube(3)
    check_input_unit(topo, EcubeRouting(topo), 5, port, seed)


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(0, 2))
def test_input_unit_vcs_matches_model(seed, port):
    topo = Metacube(1, 1)
    check_input_unit(topo, MetacubeRouting(topo), 3, port, seed)


def check_voq_input_unit(topo, routing, node, port, seed, cycles=80):
    """``queues="voq"``: lane c holds the flits for output ``outputs[c]`` (a link flit's ``vc`` or, at the
    local input, its route's port picks the lane; one ready bit per lane's output); a head requests its
    lane's output when the output's single lock is free and the next router's queue (lookahead: the far
    node's route on the new header, ``LookaheadVoqRouting``) has room; the flit leaves with that ``vc``."""
    from cubenoc.sim.model.lookahead import LookaheadVoqRouting
    rng = random.Random(seed)
    r = _router(topo, routing, node, queues="voq")
    ahead = LookaheadVoqRouting(routing)
    dut = InputUnit(r.input_params(port))
    P, V, D, L = r.num_ports, r.num_vcs, r.fifo_depth, dut.num_lanes
    outs = [o[0] for o in dut.outputs]
    assert outs == [o for o in range(P) if r.allowed[port][o]] and L == len(outs)
    by_port = {}
    for w in range(1 << routing.layout.width):
        hop = _hop(ahead, node, w)
        if hop is not None and hop.port in outs:
            by_port.setdefault(hop.port, []).append(w)
    cur, cur_out = [0] * L, [0] * L

    async def bench(ctx):
        fifo = [[] for _ in range(L)]
        for _ in range(cycles):
            o_in = rng.choice(sorted(by_port))
            lane = outs.index(o_in)
            flit = {"head": rng.random() < 0.6, "tail": rng.random() < 0.5, "data": rng.getrandbits(32),
                    "route": rng.choice(by_port[o_in]), **({} if port == r.local else {"vc": o_in})}
            valid = rng.random() < 0.7
            locked, room = rng.getrandbits(P * V), rng.getrandbits(P * V)
            ctx.set(dut.i.valid, valid)
            ctx.set(dut.i.payload.as_value(), pack(r.flit_layout, flit))
            ctx.set(dut.locked, locked)
            ctx.set(dut.room, room)
            ready = ctx.get(dut.i.ready)
            if port == r.local:                 # the lane of this flit's route
                assert ready == (len(fifo[lane]) < D)
            else:                               # one bit per lane's output
                assert ready == sum(1 << o for c, o in enumerate(outs) if len(fifo[c]) < D)
            accept = valid and len(fifo[lane]) < D
            sent = 0
            for c, o in enumerate(outs):
                want, vc = 0, cur[c]
                if fifo[c]:
                    h = fifo[c][0]
                    if h["head"]:
                        vc = _hop(ahead, node, h["route"]).vc
                    free = not (h["head"] and locked >> (o * V) & 1)
                    room_ok = o == r.local or room >> (o * V + vc) & 1
                    mine = h["head"] or cur_out[c] == o       # a body follows its head (cur_out resets to 0)
                    want = int(bool(free and room_ok and mine)) << o
                assert ctx.get(dut.request[c]) == want, (c, fifo[c][:1], cur[c])
                if want and rng.random() < 0.6:
                    sent |= 1 << c
                    f = ctx.get(dut.flit[c])
                    assert (f.head, f.tail, f.data, f.vc) == (h["head"], h["tail"], h["data"], vc)
                    if h["head"]:
                        new = routing.route(node, routing.layout.unpack(h["route"])).header
                        assert ctx.get(dut.flit[c].route.as_value()) == routing.layout.pack(new)
            ctx.set(dut.sent, sent)
            await ctx.tick()
            for c in range(L):
                if sent >> c & 1:
                    h = fifo[c].pop(0)
                    if h["head"]:
                        cur[c], cur_out[c] = _hop(ahead, node, h["route"]).vc, outs[c]
            if accept:
                fifo[lane].append(flit)
    run(dut, bench)


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(0, 4))
def test_input_unit_voq_matches_model(seed, port):
    from cubenoc.sim.topology.hypercube import EnhancedHypercube
    topo = EnhancedHypercube(3, 0)
    check_voq_input_unit(topo, EcubeRouting(topo), 6, port, seed)
