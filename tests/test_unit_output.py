"""The output unit (rtl/router/output_unit.py) built from its own parameters, in amaranth.sim against the model
(sim/model/phases.py): ``rr_pick`` + ``lock_after`` + the crossbar (the winner's flit, bit for bit), the
pointer staying on a winner that was not taken; the stream rule on its output (an offer not taken is offered
again unchanged, docs/router.md "Streams hold their offer"); the pipelined output unit's registered grant,
lock and ``barred`` bits. Hypothesis draws the sources' flits, requests and ready patterns cycle by cycle."""
from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st
from unit_sim import SETTINGS, cycles, layout, pack, ready_bits, run

from cubenoc.rtl.router.output_unit import OutputUnit
from cubenoc.sim.model.phases import lock_after, rr_pick
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.routing.metacube import MetacubeRouting
from cubenoc.sim.topology.hypercube import Hypercube
from cubenoc.sim.topology.metacube import Metacube


def _layout(V):
    topo = Hypercube(2) if V == 1 else Metacube(1, 1)
    return layout((EcubeRouting if V == 1 else MetacubeRouting)(topo))


def _flit(V):
    return st.fixed_dictionaries({"head": st.booleans(), "tail": st.booleans(), "data": st.integers(0, 2**32 - 1),
                                  **({"vc": st.integers(0, V - 1)} if V > 1 else {})})


@SETTINGS
@given(st.data(), st.sampled_from([1, 2]))
def test_output_unit_matches_model(data, V):
    lay, size = _layout(V), 3 * V
    positions = sorted(data.draw(st.sets(st.integers(0, size - 1), min_size=1, max_size=size)))
    n = len(positions)
    steps = data.draw(cycles(st.tuples(st.lists(_flit(V), min_size=n, max_size=n), ready_bits(n), ready_bits(V)),
                             max_size=60))
    dut = OutputUnit(lay, positions, size, V)

    async def bench(ctx):
        pointer, lock = 0, [-1] * V
        for flits, req, ready in steps:
            for r in range(n):
                ctx.set(dut.flit[r].as_value(), pack(lay, flits[r]))
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


def check_holds_offer(V, positions, steps, first):
    """Runs the output unit on ``steps`` (new requesters a & b, ready, the flits offered next); returns how
    many cycles held a stalled offer."""
    n = len(positions)
    dut = OutputUnit(_layout(V), positions, 3 * V, V)
    seen = {"stalls": 0}

    async def bench(ctx):
        req, flits, held = 0, list(first), None
        for a, b, ready, fresh in steps:
            req |= a & b                                             # new requesters; old ones stay
            ctx.set(dut.request, req)
            for r in range(n):
                ctx.set(dut.flit[r].as_value(), flits[r])
            ctx.set(dut.ready, ready)
            valid, payload = ctx.get(dut.valid), ctx.get(dut.payload.as_value())
            if held is not None:
                assert valid and payload == held, "the output withdrew or changed a flit it offered"
            xfer, grant = ctx.get(dut.xfer), ctx.get(dut.grant)
            held = payload if valid and not xfer else None
            seen["stalls"] += held is not None
            if xfer:                          # the winner's flit left: its source offers a new one later
                r = grant.bit_length() - 1
                req &= ~grant
                flits[r] = fresh[r]
            await ctx.tick()
    run(dut, bench)
    return seen["stalls"]


@SETTINGS
@given(st.data(), st.sampled_from([1, 2]))
def test_output_unit_holds_its_offer(data, V):
    """docs/router.md "Streams hold their offer": sources request as the input units do (a requester
    keeps its flit and request until its flit is taken; new requesters come at random, also ahead of
    the winner in round-robin order); whenever ``valid`` was high and the flit not taken, the output
    offers the same flit next cycle, whatever ``ready`` does."""
    lay, size = _layout(V), 3 * V
    positions = sorted(data.draw(st.sets(st.integers(0, size - 1), min_size=2, max_size=size)))
    n = len(positions)
    body = {"head": st.just(1), "tail": st.just(1), "data": st.integers(0, 2**32 - 1),
            **({"vc": st.integers(0, V - 1)} if V > 1 else {})}
    new_flits = st.lists(st.fixed_dictionaries(body).map(lambda f: pack(lay, f)), min_size=n, max_size=n)
    steps = data.draw(cycles(st.tuples(ready_bits(n), ready_bits(n), st.one_of(ready_bits(V), st.just(0)),
                                       new_flits), min_size=40, max_size=80))
    check_holds_offer(V, positions, steps, data.draw(new_flits))


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 2]))
def test_output_unit_holds_its_offer_seeded(seed, V):
    """The same on seeded stimulus (new requesters a quarter of the time, no ready in 40 % of the cycles),
    which also shows the rule was exercised."""
    rng = random.Random(seed)
    lay, size = _layout(V), 3 * V
    positions = sorted(rng.sample(range(size), rng.randint(2, size)))
    n = len(positions)

    def new_flits():
        return [pack(lay, {"head": 1, "tail": 1, "data": rng.getrandbits(32),
                           **({"vc": rng.randrange(V)} if V > 1 else {})}) for _ in range(n)]
    first = new_flits()
    steps = [(rng.getrandbits(n), rng.getrandbits(n), rng.getrandbits(V) if rng.random() < 0.6 else 0, new_flits())
             for _ in range(80)]
    assert check_holds_offer(V, positions, steps, first) > 0      # the rule was exercised


def check_pipelined_output(steps):
    """The pipelined output unit (five sources) on ``steps`` (requests a & b, tail bits); returns how many
    cycles a lock was held and how many grants left one."""
    n = 5
    dut = OutputUnit(_layout(1), range(n), n, pipelined=True)
    state = {"rr": 0, "owner": -1, "tail": 0, "valid": 0}
    seen = {"barred": 0, "owned": 0}

    async def bench(ctx):
        for a, b, tails in steps:
            req = a & b
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
    return seen


@SETTINGS
@given(cycles(st.tuples(ready_bits(5), ready_bits(5), ready_bits(5)), min_size=60, max_size=120))
def test_pipelined_output_unit_lock_and_barred(steps):
    """The pipelined output unit (five sources, the local output's size) against the model's rules
    (``rr_pick``, ``lock_after`` in sim/model/phases.py): the grant is the first request at or after the
    round-robin pointer, the pointer moves past it; the registered ``tail``/``valid``; ``locked`` and
    ``barred[r]`` (the lock held by a source other than r: the input unit's request mask) after each
    grant, on drawn requests and tail bits."""
    check_pipelined_output(steps)


@SETTINGS
@given(st.integers(0, 2**32 - 1))
def test_pipelined_output_unit_lock_and_barred_seeded(seed):
    """The same on seeded requests and tails (120 cycles), which also shows locks were taken and held."""
    rng = random.Random(seed)
    seen = check_pipelined_output([(rng.getrandbits(5), rng.getrandbits(5), rng.getrandbits(5)) for _ in range(120)])
    assert seen["barred"] > 5 and seen["owned"] > 5, seen
