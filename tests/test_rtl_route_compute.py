"""The route-compute and injection units in gates against sim/routing, exhaustively (amaranth.sim).

Tzeng and Wei Sec. VI-B: bit w first, then the highest set bit, a zero tag ejects; Algorithm C at injection.
Every tag value for every Q_n and Q(n, k) with n <= 6; every destination from a spread of sources.
"""
import pytest
from amaranth.sim import Simulator

from cubenoc.rtl.route import RomRTL, rtl_for
from cubenoc.rtl.route.hypercube import EcubeRTL
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.topology import EnhancedHypercube, Hypercube

CONFIGS = [(n, None) for n in range(1, 7)] + [(n, k) for n in range(2, 7) for k in range(n - 1)]


def _routing(n, k):
    return EcubeRouting(Hypercube(n) if k is None else EnhancedHypercube(n, k))


def _run_comb(dut, body):
    sim = Simulator(dut)
    sim.add_testbench(body)
    sim.run()


@pytest.mark.parametrize("n,k", CONFIGS, ids=[f"n{n}_k{k}" for n, k in CONFIGS])
def test_route_unit_every_tag(n, k):
    routing = _routing(n, k)
    adapter = rtl_for(routing)
    assert isinstance(adapter, EcubeRTL)
    unit = adapter.route_unit(0)
    width = routing.layout.width
    mismatches = []

    async def bench(ctx):
        for tag in range(1 << width):
            ctx.set(unit.route.tag, tag)
            for node in (0, routing.topology.num_nodes - 1):     # the rule must not depend on the node
                ctx.set(unit.node_id, node)
                hop = routing.route(node, {"tag": tag})
                got = (ctx.get(unit.port), ctx.get(unit.new_route.tag))
                if got != (hop.port, hop.header["tag"]):
                    mismatches.append((node, tag, got, hop))

    _run_comb(unit, bench)
    assert not mismatches, mismatches[:5]


@pytest.mark.parametrize("n,k", CONFIGS, ids=[f"n{n}_k{k}" for n, k in CONFIGS])
def test_inject_unit_every_destination(n, k):
    routing = _routing(n, k)
    num = routing.topology.num_nodes
    unit = rtl_for(routing).inject_unit(0)
    sources = sorted({0, 1, num // 3, num // 2, num - 2, num - 1} & set(range(num)))
    mismatches = []

    async def bench(ctx):
        for src in sources:
            ctx.set(unit.node_id, src)
            for dst in range(num):
                ctx.set(unit.dest, dst | (0xA5 << 8 if num <= 256 else 0))   # bits above n are ignored
                want = routing.inject(src, dst)["tag"]
                if ctx.get(unit.route.tag) != want:
                    mismatches.append((src, dst, ctx.get(unit.route.tag), want))

    _run_comb(unit, bench)
    assert not mismatches, mismatches[:5]


def test_inject_unit_all_pairs_q4_1():
    """Every (source, destination) pair of Q(4, 1): Algorithm C's complement-and-skip at every node."""
    routing = _routing(4, 1)
    unit = rtl_for(routing).inject_unit(0)
    bad = []

    async def bench(ctx):
        for src in range(16):
            ctx.set(unit.node_id, src)
            for dst in range(16):
                ctx.set(unit.dest, dst)
                if ctx.get(unit.route.tag) != routing.inject(src, dst)["tag"]:
                    bad.append((src, dst))

    _run_comb(unit, bench)
    assert not bad
    skips = sum(routing.inject(s, d)["tag"] >> 4 for s in range(16) for d in range(16))
    assert skips > 0        # the skip branch of Algorithm C was exercised


@pytest.mark.parametrize("n,k", [(3, None), (3, 0), (4, 1)])
def test_rom_fallback_matches_python(n, k):
    """The generic ROM route/inject units, tabulated from the Python function, agree with it."""
    routing = _routing(n, k)
    rom = RomRTL(routing)
    node = (1 << n) - 3
    route, inject = rom.route_unit(node), rom.inject_unit(node)
    bad = []

    async def bench_route(ctx):
        for tag in range(1 << routing.layout.width):
            hop = routing.route(node, {"tag": tag})
            ctx.set(route.route.tag, tag)
            if (ctx.get(route.port), ctx.get(route.new_route.tag)) != (hop.port, hop.header["tag"]):
                bad.append(("route", tag))

    async def bench_inject(ctx):
        for dst in range(1 << n):
            ctx.set(inject.dest, dst)
            if ctx.get(inject.route.tag) != routing.inject(node, dst)["tag"]:
                bad.append(("inject", dst))

    _run_comb(route, bench_route)
    _run_comb(inject, bench_inject)
    assert not bad
