# amaranth: UnusedElaboratable=no
"""One router under amaranth.sim: head-on contention, round-robin order, wormhole lock, source interface.

The cycle numbers are docs/router.md's: a flit written into an input FIFO at the edge ending cycle t is
at the FIFO head (and, if it wins, on the output) in cycle t+1.
"""
import pytest
from amaranth.sim import Simulator

from cubenoc.sim.router_config import RouterConfig
from cubenoc.rtl.router import Router
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.routing.turns import fixed_route_bits, turns_at
from cubenoc.sim.topology import EnhancedHypercube, Hypercube
from cubenoc.sim.network_plan import plan_of


def _link(head, tail, tag, data):
    return {"head": head, "tail": tail, "route": {"tag": tag}, "data": data}


def _simulate(router, stimulus, cycles, out_port, ready=lambda cyc: 1):
    """``stimulus[port]``: flits offered back to back; returns [(cycle, head, tail, data, tag)] seen on
    ``out_port`` with valid & ready, and the input transfer cycles per port."""
    got, accepted = [], {p: [] for p in stimulus}

    async def bench(ctx):
        queues = {p: list(fl) for p, fl in stimulus.items()}
        out = router.output_stream(out_port)
        for cyc in range(cycles):
            for p, q in queues.items():
                s = router.input_stream(p)
                ctx.set(s.valid, bool(q))
                if q:
                    ctx.set(s.payload, q[0])
            ctx.set(out.ready, ready(cyc))
            await ctx.delay(1e-9)
            for p, q in queues.items():
                s = router.input_stream(p)
                if q and ctx.get(s.ready):
                    q.pop(0)
                    accepted[p].append(cyc)
            if ctx.get(out.valid) and ctx.get(out.ready):
                f = ctx.get(out.payload)
                tag = f.route.tag if out_port != router.local else None
                got.append((cyc, f.head, f.tail, f.data, tag))
            await ctx.tick()

    sim = Simulator(router)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return got, accepted


def test_contention_round_robin_and_wormhole_lock():
    topo = Hypercube(3)
    router = Router(plan_of(topo, EcubeRouting(topo)), 0)
    L = router.local
    # round 1: input 1 (2 flits) and input 2 (3 flits) both eject here (tag 0), arriving in cycle 0;
    # round 2 (offered right after): one more packet on each input.
    a = [_link(1, 0, 0, 0xA0), _link(0, 0, 0, 0xA1), _link(0, 1, 0, 0xA2)]
    b = [_link(1, 0, 0, 0xB0), _link(0, 1, 0, 0xB1)]
    c = [_link(1, 1, 0, 0xC0)]
    d = [_link(1, 0, 0, 0xD0), _link(0, 1, 0, 0xD1)]
    got, accepted = _simulate(router, {2: a + c, 1: b + d}, 16, L)
    assert accepted[1][:2] == [0, 1] and accepted[2][:3] == [0, 1, 2]
    order = [g[3] for g in got]
    # rr starts at 0: input 1 first; its packet holds the local output head to tail (no interleaving);
    # then rr = 2 so input 2's packet; then rr = 3 -> input 1 (D) before input 2 (C)
    assert order == [0xB0, 0xB1, 0xA0, 0xA1, 0xA2, 0xD0, 0xD1, 0xC0]
    assert [g[0] for g in got] == [1, 2, 3, 4, 5, 6, 7, 8]     # one flit per cycle, first in cycle 1
    assert [(g[1], g[2]) for g in got][:5] == [(1, 0), (0, 1), (1, 0), (0, 0), (0, 1)]


def test_lock_held_under_backpressure_and_route_update():
    """Two inputs to dimension-1 output; ready low in some cycles: no flit is lost, the packet that
    won keeps the output until its tail, and heads leave with the tag's top bit cleared."""
    topo = Hypercube(3)
    router = Router(plan_of(topo, EcubeRouting(topo)), 0)
    # tag 0b011 at input 2 and tag 0b010 at the local FIFO... use network input 2 and the local input:
    a = [_link(1, 0, 0b011, 1), _link(0, 0, 0b011, 2), _link(0, 1, 0b011, 3)]
    dest = 0b010                       # from node 0: tag 0b010 -> port 1
    local = [{"head": 1, "tail": 0, "data": dest | (7 << 16)}, {"head": 0, "tail": 1, "data": 8 << 16}]
    stall = {2, 3, 5}
    got, _ = _simulate(router, {2: a, router.local: local}, 14, 1, ready=lambda c: c not in stall)
    datas = [g[3] for g in got]
    assert datas == [1, 2, 3, dest | (7 << 16), 8 << 16]     # input 2 (rr from 0: 2 before 3) then local
    assert [g[0] for g in got] == [1, 4, 6, 7, 8]            # cycles 2, 3, 5 stalled
    assert all(g[4] == 0b001 for g in got[:3]) and all(g[4] == 0 for g in got[3:])


@pytest.mark.parametrize("counters", [True, False])
def test_source_interface_drop_and_malformed(counters):
    """The same traffic with and without the status counters (``counters=False``: same flits, counters 0)."""
    topo = EnhancedHypercube(3, 0)
    router = Router(plan_of(topo, EcubeRouting(topo), RouterConfig(counters=counters)), 0)
    L = router.local
    flits = [
        {"head": 0, "tail": 1, "data": 0x111},           # tail outside a packet: malformed, discarded
        {"head": 1, "tail": 0, "data": 9},               # dest 9 >= 8: dropped with the rest of the packet
        {"head": 1, "tail": 0, "data": 0x22},            # head inside the dropped packet: malformed
        {"head": 0, "tail": 1, "data": 0x33},
        {"head": 1, "tail": 0, "data": 0},               # to itself: ejects here
        {"head": 1, "tail": 0, "data": 0x44},            # head inside a packet: forwarded as body, malformed
        {"head": 0, "tail": 1, "data": 0x55},
    ]
    got, accepted = _simulate(router, {L: flits}, 14, L)
    assert accepted[L] == list(range(7))
    assert [(g[1], g[2], g[3]) for g in got] == [(1, 0, 0), (0, 0, 0x44), (0, 1, 0x55)]
    assert [g[0] for g in got] == [5, 6, 7]

    counts = {}

    async def read(ctx):
        for name in ("injected", "ejected", "dropped", "malformed"):
            counts[name] = ctx.get(getattr(router, name))
    # re-run to read the counters at the end
    sim = Simulator(router)
    sim.add_clock(1e-8)

    async def bench(ctx):
        s, out = router.local_in, router.local_out
        ctx.set(out.ready, 1)
        for f in flits:
            ctx.set(s.valid, 1)
            ctx.set(s.payload, f)
            await ctx.tick()
        ctx.set(s.valid, 0)
        for _ in range(4):
            await ctx.tick()
        await read(ctx)

    sim.add_testbench(bench)
    sim.run()
    expect = {"injected": 1, "ejected": 1, "dropped": 1, "malformed": 3}
    assert counts == (expect if counters else {name: 0 for name in expect})


def test_crossbar_pruned_to_allowed_turns():
    """E-cube never turns from a lower to a higher dimension: those crossbar inputs are not requested
    (the router's allowed matrix is the walk's turns, sim/routing/turns.py)."""
    topo = EnhancedHypercube(4, 0)
    router = Router(plan_of(topo, EcubeRouting(topo)), 3)
    turns = turns_at(router.routing, 3)
    m = [[(i, o) in turns for o in range(topo.n + 2)] for i in range(topo.n + 2)]
    assert router.allowed == m
    for i in range(topo.n):
        for o in range(topo.n + 1):
            assert m[i][o] == (o < i)          # dimension i -> lower dimensions only, never to the skip
    assert all(m[topo.n][o] for o in range(topo.n)) and not m[topo.n][topo.n]   # skip -> any dimension
    assert all(m[router.local])                                                  # local -> anywhere


def test_fixed_route_bits_follow_the_ecube_tag():
    """Algorithm A corrects the highest differing dimension first, so a packet arriving on dimension d
    carries a tag with bits >= d clear and the bits below d free (any destination), and one leaving on
    dimension d, from any input, a new tag with the same bits clear; an ejected packet's tag is 0; an
    injected tag (source XOR destination) fixes nothing. ``fixed_route_bits`` finds exactly these."""
    n = 4
    topo = Hypercube(n)
    routing = EcubeRouting(topo)
    full = (1 << n) - 1
    for node in (0, 6, 15):
        fixed = fixed_route_bits(routing, node)
        assert fixed["in", n] == (0, 0)                    # the local input (port n)
        for d in range(n):
            high = full & ~((1 << d) - 1)
            assert fixed["in", d] == fixed["out", d] == (high, 0)
            for i in [*range(d + 1, n), n]:                # e-cube turns into dimension d
                assert fixed["turn", i, d] == (high, 0)
        assert fixed["out", n] == (full, 0)                # ejection
        for i in range(n + 1):
            assert fixed["turn", i, n] == (full, 0)
        assert fixed == fixed_route_bits(routing, None)    # every node alike: one router for all
        assert set(fixed) == ({("in", i) for i in range(n + 1)} | {("out", o) for o in range(n + 1)} |
                              {("turn", i, o) for i in range(n + 1) for o in range(n + 1) if o == n or o < i})

