"""The input unit (rtl/router/input_unit.py) built from its own parameters (``InputParams``, from the network
plan, no Router), in amaranth.sim against the model: its FIFO (depth D, first-word fall-through, ``ready`` =
count < D, ``fifo_push``/``fifo_pop``), the route table lookup (``routing.route``, what the model's tables
hold) and docs/router.md "Requests" (``lane_request``), for V = 1 and V > 1 lanes, per-output queues (VOQ) and
the pipelined lane (``pipe_request``: the candidate, the stage, ``ready2``). Hypothesis draws the flits, ``valid``,
the locks, the room and the grants cycle by cycle; seeded runs also show the pipelined lane was exercised."""
from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st
from unit_sim import SETTINGS, cycles, hop, legal_words, pack, ready_bits, route_unit, run

from cubenoc.rtl.flit import link_flit_layout
from cubenoc.rtl.route import rtl_for
from cubenoc.rtl.router import InputParams, InputUnit
from cubenoc.sim.model.lookahead import LookaheadVoqRouting
from cubenoc.sim.network_plan import NetworkPlan
from cubenoc.sim.router_config import RouterConfig
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.routing.metacube import MetacubeRouting
from cubenoc.sim.topology.hypercube import EnhancedHypercube, Hypercube
from cubenoc.sim.topology.metacube import Metacube


def input_params(topo, routing, node, port, **config) -> InputParams:
    """Input ``port`` of ``node`` as the Router derives it, here straight from the network plan."""
    cfg = RouterConfig(**config)
    plan = NetworkPlan(topo, routing, cfg)
    local = topo.local_port(node)
    outputs = tuple(o for o, ok in enumerate(plan.allowed_matrix(node)[port]) if ok)
    voq = cfg.queues == "voq"
    generic = rtl_for(routing).node_generic and not voq
    wire = LookaheadVoqRouting(routing) if voq else routing
    lookahead = tuple(None if o == local else route_unit(routing, topo.neighbor(node, o)[0]) for o in outputs) if voq else ()
    fixed = plan.fixed_bits(None if generic else node).get(("in", port))
    return InputParams(link_flit_layout(wire, cfg.payload_width), local + 1, outputs, route_unit(routing, node, generic),
                       routing.layout.width, local=port == local, num_vcs=wire.num_vcs, fifo_depth=cfg.fifo_depth,
                       queues=cfg.queues, lookahead=lookahead, route_at_write=cfg.route_at_write(routing),
                       fixed=fixed, pipeline=cfg.pipeline)


def unicast_steps(L, n, P, V):
    """Per cycle: lane, head, tail, data, route word index, valid, locked, room, which requesters are taken."""
    return cycles(st.tuples(st.integers(0, L - 1), st.booleans(), st.booleans(), st.integers(0, 2**32 - 1),
                            st.integers(0, n - 1), st.booleans(), ready_bits(P * V), ready_bits(P * V),
                            ready_bits(L)), max_size=80)


def seeded_unicast_steps(seed, L, n, P, V, count=80):
    rng = random.Random(seed)
    return [(rng.randrange(L), rng.random() < 0.6, rng.random() < 0.5, rng.getrandbits(32), rng.randrange(n),
             rng.random() < 0.7, rng.getrandbits(P * V), rng.getrandbits(P * V),
             sum(1 << c for c in range(L) if rng.random() < 0.6)) for _ in range(count)]


def check_input_unit(topo, routing, node, port, steps):
    params = input_params(topo, routing, node, port)
    dut = InputUnit(params)
    P, V, D, L, lay = params.num_ports, params.num_vcs, params.fifo_depth, dut.num_lanes, params.flit_layout
    local = P - 1
    words = legal_words(topo, routing, node, port)

    def target(h, c):                       # (output, VC) of the lane's head flit: route table or cur_out
        if not h["head"]:
            return cur[c]
        to = hop(routing, node, h["route"])
        return to.port, (0 if to.port == local else to.vc)

    cur = [(0, 0)] * L

    async def bench(ctx):
        if "node_id" in dut.signature.members:
            ctx.set(dut.node_id, node)
        fifo = [[] for _ in range(L)]
        for lane, head, tail, data, w, valid, locked, room, take in steps:
            flit = {"head": head, "tail": tail, "data": data, "route": words[w % len(words)],
                    **({"vc": lane} if L > 1 else {})}
            ctx.set(dut.i.valid, valid)
            ctx.set(dut.i.payload.as_value(), pack(lay, flit))
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
                    room_ok = V == 1 or o == local or room >> (o * V + vc) & 1
                    want = int(bool(o in params.outputs and free and room_ok)) << o
                assert ctx.get(dut.request[c]) == want, (c, fifo[c][:1], cur[c])
                if want and take >> c & 1:          # an output unit takes the flit
                    sent |= 1 << c
                    f = ctx.get(dut.flit[c])
                    assert (f.head, f.tail, f.data) == (h["head"], h["tail"], h["data"])
                    new = routing.layout.pack(hop(routing, node, h["route"]).header)   # every flit's route
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


Q3, MC = Hypercube(3), Metacube(1, 1)


@SETTINGS
@given(st.data(), st.integers(0, 3))
def test_input_unit_v1_matches_model(data, port):
    n = len(legal_words(Q3, EcubeRouting(Q3), 5, port))
    check_input_unit(Q3, EcubeRouting(Q3), 5, port, data.draw(unicast_steps(1, n, 4, 1)))


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(0, 3))
def test_input_unit_v1_matches_model_seeded(seed, port):
    check_input_unit(Q3, EcubeRouting(Q3), 5, port, seeded_unicast_steps(seed, 1, 8, 4, 1))


@SETTINGS
@given(st.data(), st.integers(0, 2))
def test_input_unit_vcs_matches_model(data, port):
    routing = MetacubeRouting(MC)
    L = 1 if port == MC.local_port(3) else routing.num_vcs
    n = len(legal_words(MC, routing, 3, port))
    check_input_unit(MC, routing, 3, port, data.draw(unicast_steps(L, n, 3, routing.num_vcs)))


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(0, 2))
def test_input_unit_vcs_matches_model_seeded(seed, port):
    routing = MetacubeRouting(MC)
    L = 1 if port == MC.local_port(3) else routing.num_vcs
    check_input_unit(MC, routing, 3, port, seeded_unicast_steps(seed, L, 8, 3, routing.num_vcs))


# ---- per-output queues ------------------------------------------------------------------------------------
def check_voq_input_unit(topo, routing, node, port, steps):
    """``queues="voq"``: lane c holds the flits for output ``outputs[c]`` (a link flit's ``vc`` or, at the
    local input, its route's port picks the lane; one ready bit per lane's output); a head requests its
    lane's output when the output's single lock is free and the next router's queue (lookahead: the far
    node's route on the new header, ``LookaheadVoqRouting``) has room; the flit leaves with that ``vc``."""
    params = input_params(topo, routing, node, port, queues="voq")
    ahead = LookaheadVoqRouting(routing)
    dut = InputUnit(params)
    P, V, D, L, lay = params.num_ports, params.num_vcs, params.fifo_depth, dut.num_lanes, params.flit_layout
    local = P - 1
    outs = [o[0] for o in dut.outputs]
    assert outs == list(params.outputs) and L == len(outs)
    by_port = {}
    for w in range(1 << routing.layout.width):
        to = hop(ahead, node, w)
        if to is not None and to.port in outs:
            by_port.setdefault(to.port, []).append(w)
    ports = sorted(by_port)
    cur, cur_out = [0] * L, [0] * L

    async def bench(ctx):
        fifo = [[] for _ in range(L)]
        for o_pick, head, tail, data, w, valid, locked, room, take in steps:
            o_in = ports[o_pick % len(ports)]
            lane = outs.index(o_in)
            flit = {"head": head, "tail": tail, "data": data, "route": by_port[o_in][w % len(by_port[o_in])],
                    **({} if port == local else {"vc": o_in})}
            ctx.set(dut.i.valid, valid)
            ctx.set(dut.i.payload.as_value(), pack(lay, flit))
            ctx.set(dut.locked, locked)
            ctx.set(dut.room, room)
            ready = ctx.get(dut.i.ready)
            if port == local:                   # the lane of this flit's route
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
                        vc = hop(ahead, node, h["route"]).vc
                    free = not (h["head"] and locked >> (o * V) & 1)
                    room_ok = o == local or room >> (o * V + vc) & 1
                    mine = h["head"] or cur_out[c] == o       # a body follows its head (cur_out resets to 0)
                    want = int(bool(free and room_ok and mine)) << o
                assert ctx.get(dut.request[c]) == want, (c, fifo[c][:1], cur[c])
                if want and take >> c & 1:
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
                        cur[c], cur_out[c] = hop(ahead, node, h["route"]).vc, outs[c]
            if accept:
                fifo[lane].append(flit)
    run(dut, bench)


EQ = EnhancedHypercube(3, 0)


@SETTINGS
@given(st.data(), st.integers(0, 4))
def test_input_unit_voq_matches_model(data, port):
    L, P = len(input_params(EQ, EcubeRouting(EQ), 6, port, queues="voq").outputs), 5
    check_voq_input_unit(EQ, EcubeRouting(EQ), 6, port, data.draw(unicast_steps(L, 16, P, P)))


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(0, 4))
def test_input_unit_voq_matches_model_seeded(seed, port):
    L, P = len(input_params(EQ, EcubeRouting(EQ), 6, port, queues="voq").outputs), 5
    check_voq_input_unit(EQ, EcubeRouting(EQ), 6, port, seeded_unicast_steps(seed, L, 16, P, P))


# ---- the pipelined lane -----------------------------------------------------------------------------------
def check_pipelined_input_unit(port, steps):
    """docs/router.md "Pipelined router": ``ready`` is the FIFO's ``count < D`` and ``ready2`` its
    ``count <= D - 2``; the candidate (the FIFO head while the stage is empty or crossing, else the stage)
    requests its route unit's output when that output has room and is not locked by another lane (``locked``:
    the output unit's registered ``barred`` bit for this lane); the offered flit is the stage's with its new
    route; at the edge a granted lane's stage crosses next cycle and the stage takes the FIFO head whenever
    it was empty or crossing. Packets are whole (body flits carry their head's route). Returns what was seen."""
    topo, node = Q3, 5
    routing = EcubeRouting(topo)
    params = input_params(topo, routing, node, port, pipeline=True)
    dut = InputUnit(params)
    P, D, local, lay = params.num_ports, params.fifo_depth, params.num_ports - 1, params.flit_layout
    assert dut.num_lanes == 1
    words = [w for w in range(1 << routing.layout.width)      # heads this input may carry (a turn it has)
             if hop(routing, node, w) is not None and hop(routing, node, w).port in params.outputs]
    state = {"fifo": [], "stage": None, "crossing": False, "route": words[0], "in_packet": False}
    seen = {"requests": 0, "grants": 0, "held": 0}

    async def bench(ctx):
        fifo = state["fifo"]
        for tail, data, w, valid, locked, room, take in steps:
            head = not state["in_packet"]
            if head:
                state["route"] = words[w % len(words)]
            flit = {"head": head, "tail": tail, "data": data, "route": state["route"]}
            ctx.set(dut.i.valid, valid)
            ctx.set(dut.i.payload.as_value(), pack(lay, flit))
            ctx.set(dut.locked, locked)
            ctx.set(dut.room, room)
            assert bool(ctx.get(dut.i.ready)) == (len(fifo) < D)
            if port != local:
                assert bool(ctx.get(dut.i.ready2)) == (len(fifo) <= D - 2)
            accept = valid and len(fifo) < D
            advance = state["crossing"] or state["stage"] is None
            cand = (fifo[0] if fifo else None) if advance else state["stage"]
            want = 0
            if cand is not None:
                o = hop(routing, node, cand["route"]).port
                if room >> o & 1 and not locked >> o & 1:      # ``locked``: by another lane
                    want = 1 << o
                assert ctx.get(dut.cand_tail[0]) == cand["tail"]
            assert ctx.get(dut.request[0]) == want, (cand, state)
            if state["stage"] is not None:          # the stage's flit, with its new route, on the crossbar
                h = state["stage"]
                f = ctx.get(dut.flit[0])
                assert (f.head, f.tail, f.data) == (h["head"], h["tail"], h["data"])
                assert ctx.get(dut.flit[0].route.as_value()) == routing.layout.pack(hop(routing, node, h["route"]).header)
            sent = int(bool(want) and take)
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
    return seen


@SETTINGS
@given(st.integers(0, 3), cycles(st.tuples(st.booleans(), st.integers(0, 2**32 - 1), st.integers(0, 7), st.booleans(),
                                           ready_bits(4), ready_bits(4), st.booleans()), max_size=120))
def test_pipelined_input_unit_matches_model(port, steps):
    check_pipelined_input_unit(port, steps)


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(0, 3))
def test_pipelined_input_unit_matches_model_seeded(seed, port):
    """200 seeded cycles (tails 40 %, valid 70 %, room mostly): requests, grants and stalled candidates seen."""
    rng = random.Random(seed)
    steps = [(rng.random() < 0.4, rng.getrandbits(32), rng.randrange(8), rng.random() < 0.7, rng.getrandbits(4),
              rng.getrandbits(4) | rng.getrandbits(4), rng.random() < 0.6) for _ in range(200)]
    seen = check_pipelined_input_unit(port, steps)
    assert seen["requests"] > 10 and seen["grants"] > 5 and seen["held"] > 0, seen
