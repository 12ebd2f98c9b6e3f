# amaranth: UnusedElaboratable=no
"""The board demo's traffic generators/checkers, UART reporter and divider (amaranth.sim)."""
from __future__ import annotations

import pytest
from amaranth.sim import Simulator

from cubenoc.sim.network_plan import plan_of
from cubenoc.sim.router_config import RouterConfig
from cubenoc.boards.demo import DemoTop, MeanTenths, TrafficSystem
from cubenoc.boards.traffic_gen import (ERROR_KINDS, MIN_LENGTH, TrafficChecker, TrafficGenerator, check_salt,
                                    packet_words)
from cubenoc.boards.uart import LineReporter, UartTx
from cubenoc.errors import CubenocError
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.topology import EnhancedHypercube, Hypercube

KIND = {name: 1 << i for i, name in enumerate(ERROR_KINDS)}


def _run(dut, bench):
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


def test_packet_words_format():
    words = packet_words(src=3, dst=6, seq=9, length=6, timestamp=0x1234, width=32)
    assert len(words) == 6
    assert words[0] & 0xFFFF == 6 and words[1] & 0xFFFF == 3 | 9 << 8 | 6 << 12 and words[2] & 0xFFFF == 0x1234
    assert all(w >> 16 == (~w) & 0xFFFF for w in words[:-1])          # upper half = complement
    x = 0
    for w in words:
        x ^= w
    assert x == check_salt(32)
    with pytest.raises(CubenocError, match="packet length"):
        packet_words(1, 2, 3, 3, 0)


def test_generator_sends_the_documented_packets():
    """The first packets of a generator, decoded from its stream, are exactly packet_words(...)."""
    N, W = 8, 24
    gen = TrafficGenerator(2, N, payload_width=W, rate=200)
    got = []

    async def bench(ctx):
        ctx.set(gen.out.ready, 1)
        flits = []
        for cycle in range(300):
            ctx.set(gen.now, cycle)
            if ctx.get(gen.out.valid):
                flits.append((ctx.get(gen.out.payload.head), ctx.get(gen.out.payload.tail),
                              ctx.get(gen.out.payload.data)))
            await ctx.tick()
        got.extend(flits)
        assert ctx.get(gen.sent) == sum(t for _, t, _ in flits)

    _run(gen, bench)
    packets, cur = [], []
    for head, tail, data in got:
        assert head == (not cur)
        cur.append(data)
        if tail:
            packets.append(cur)
            cur = []
    assert len(packets) >= 10
    seqs = {}
    for words in packets:
        dst, f1, ts = words[0] & 0xFFFF, words[1] & 0xFFFF, words[2] & 0xFFFF
        src, seq, length = f1 & 0xFF, (f1 >> 8) & 0xF, f1 >> 12
        assert src == 2 and dst < N and MIN_LENGTH <= length <= 7 and len(words) == length
        assert seq == seqs.get(dst, 0)                       # per-destination sequence numbers
        seqs[dst] = (seq + 1) & 0xF
        assert words == packet_words(src, dst, seq, length, ts, W)
    assert len(seqs) > 3                                     # pseudo-random destinations


def test_checker_counts_good_packets_and_each_kind_of_error():
    N, W, node = 8, 32, 5
    chk = TrafficChecker(node, N, payload_width=W)
    good0 = packet_words(src=1, dst=node, seq=0, length=5, timestamp=10, width=W)
    good1 = packet_words(src=1, dst=node, seq=1, length=4, timestamp=20, width=W)
    other = packet_words(src=7, dst=node, seq=0, length=7, timestamp=30, width=W)
    wrong_dest = packet_words(src=2, dst=4, seq=0, length=4, timestamp=0, width=W)
    replay = good1                                           # seq 1 again: expected 2
    corrupt = list(packet_words(src=3, dst=node, seq=0, length=6, timestamp=0, width=W))
    corrupt[3] ^= 1 << 20
    bad_check = list(packet_words(src=4, dst=node, seq=0, length=4, timestamp=0, width=W))
    bad_check[-1] ^= 1
    short = packet_words(src=6, dst=node, seq=0, length=5, timestamp=0, width=W)[:3]
    bad_src = packet_words(src=9, dst=node, seq=0, length=4, timestamp=0, width=W)
    cases = [  # (words, tail index or None for "no tail", expected error kinds, good?)
        (good0, True, 0, True), (good1, True, 0, True), (other, True, 0, True),
        (wrong_dest, True, KIND["dest"], False), (replay, True, KIND["sequence"], False),
        (corrupt, True, KIND["word"] | KIND["check"], False), (bad_check, True, KIND["check"], False),
        (short, True, KIND["length"] | KIND["check"], False), (bad_src, True, KIND["source"], False),
    ]
    seen = []

    async def bench(ctx):
        now = 100
        ctx.set(chk.now, now)

        async def step():                      # one clock; the cycle counter follows
            nonlocal now
            await ctx.tick()
            now += 1
            ctx.set(chk.now, now)

        for words, _, kinds, good in cases:
            errors0 = ctx.get(chk.errors)
            kinds0 = ctx.get(chk.error_kinds)
            for i, w in enumerate(words):
                ctx.set(chk.inp.valid, 1)
                ctx.set(chk.inp.payload.head, i == 0)
                ctx.set(chk.inp.payload.tail, i == len(words) - 1)
                ctx.set(chk.inp.payload.data, w)
                assert ctx.get(chk.inp.ready)
                await step()
            ctx.set(chk.inp.valid, 0)
            await step()
            seen.append((ctx.get(chk.done), ctx.get(chk.error), ctx.get(chk.latency)))   # registered pulses
            await step()
            assert not ctx.get(chk.done) and not ctx.get(chk.error)
            assert ctx.get(chk.errors) - errors0 == (0 if good else 1)
            k = ctx.get(chk.error_kinds)               # sticky: has this case's kinds, no others new
            assert k & kinds == kinds and (k & ~kinds0) & ~kinds == 0
        # a body flit outside any packet: one framing error, nothing received
        received0, errors0 = ctx.get(chk.received), ctx.get(chk.errors)
        ctx.set(chk.inp.valid, 1)
        ctx.set(chk.inp.payload.head, 0)
        ctx.set(chk.inp.payload.tail, 0)
        await ctx.tick()
        ctx.set(chk.inp.valid, 0)
        await ctx.tick()
        assert ctx.get(chk.errors) == errors0 + 1 and ctx.get(chk.received) == received0
        assert ctx.get(chk.error_kinds) & KIND["framing"]
        assert ctx.get(chk.received) == len(cases)

    _run(chk, bench)
    for (words, _, _, good), (done, err, lat) in zip(cases, seen):
        assert done == good and err == (not good)
    # latency = now at the tail - timestamp: good0 tail at now=104 (stamp 10)
    assert seen[0][2] == 104 - 10


def _uart_decode(bits: list[int], divisor: int) -> str:
    out, i = [], 0
    while i < len(bits):
        if bits[i] == 0:                      # start bit: sample mid-bit
            mid = i + divisor // 2
            byte = sum(bits[mid + divisor * (b + 1)] << b for b in range(8))
            assert bits[mid + divisor * 9] == 1, "stop bit"
            out.append(chr(byte))
            i = mid + divisor * 9
        i += 1
    return "".join(out)


def test_uart_reporter_prints_decimal_numbers():
    rep = LineReporter(["a=", ("x", False), " b=", ("y", True), " c=", ("z", False), "\n"])
    uart = UartTx(4)
    from amaranth import Module
    from amaranth.lib import wiring
    m = Module()
    m.submodules.rep, m.submodules.uart = rep, uart
    wiring.connect(m, rep.out, uart.data)
    bits = []

    async def bench(ctx):
        ctx.set(rep.values.x, 4294967295)
        ctx.set(rep.values.y, 7)
        ctx.set(rep.values.z, 0)
        ctx.set(rep.start, 1)
        await ctx.tick()
        ctx.set(rep.start, 0)
        for _ in range(40 * 10 * 4 + 600):
            bits.append(ctx.get(uart.tx))
            await ctx.tick()
        assert not ctx.get(rep.busy)

    _run(m, bench)
    assert _uart_decode(bits, 4) == "a=4294967295 b=0.7 c=0\n"


@pytest.mark.parametrize("num,den", [(0, 0), (11382, 919), (7, 3), ((1 << 40) - 1, 1)])
def test_mean_tenths_divider(num, den):
    div = MeanTenths()

    async def bench(ctx):
        ctx.set(div.dividend, num)
        ctx.set(div.divisor, den)
        ctx.set(div.start, 1)
        await ctx.tick()
        ctx.set(div.start, 0)
        await ctx.tick().until(div.done)
        expect = 0 if den == 0 else min(10 * num // den, (1 << 32) - 1)
        assert ctx.get(div.quotient) == expect

    _run(div, bench)


def _system_totals(topo, cycles, drain, config, **kw):
    dut = TrafficSystem(plan_of(topo, EcubeRouting(topo), config), **kw)
    res = {}

    async def bench(ctx):
        await ctx.tick().repeat(cycles)
        ctx.set(dut.enable, 0)
        await ctx.tick().repeat(drain)
        for name in ("sent", "received", "errors", "lat_sum", "lat_count", "error_kinds"):
            res[name] = ctx.get(getattr(dut, name))
        res["ejected"] = sum(ctx.get(s.ejected) for s in dut.network.status)
        res["checked"] = sum(ctx.get(c.received) for c in dut.checkers)

    _run(dut, bench)
    return res


def test_q3_traffic_runs_without_errors():
    """8-node hypercube, every node sending to pseudo-random nodes for 2000 cycles, then draining:
    every packet sent arrives, checked, in order, with zero errors."""
    topo = Hypercube(3)
    res = _system_totals(topo, 2000, 300, config=RouterConfig(payload_width=16), rate=96)
    assert res["errors"] == 0 and res["error_kinds"] == 0
    assert res["sent"] > 8 * 2000 // 40                     # the generators really ran
    assert res["received"] == res["sent"] == res["lat_count"] == res["checked"] == res["ejected"]
    # mean latency at least the zero-load minimum: 4 flits, 0 hops (self) -> 4 cycles
    assert res["lat_sum"] >= 4 * res["lat_count"]


def test_demo_top_uart_line_matches_the_counters():
    """A 2-node demo with a tiny clock: the UART line's numbers equal the system's snapshot."""
    topo = Hypercube(1)
    top = DemoTop(plan_of(topo, EcubeRouting(topo), RouterConfig(payload_width=16)), clk_freq=40_000, baud=10_000,
                  rate=128, report_period=0.025)
    bits, snap = [], {}

    async def bench(ctx):
        sysm = top.system
        for cycle in range(1000 + 70 * 10 * 4 + 100):
            if cycle == 999:   # the report fires in this cycle (report_cycles = 1000)
                snap.update(sent=ctx.get(sysm.sent), received=ctx.get(sysm.received),
                            errors=ctx.get(sysm.errors), lat_sum=ctx.get(sysm.lat_sum),
                            lat_count=ctx.get(sysm.lat_count))
            bits.append(ctx.get(top.tx))
            await ctx.tick()
        assert ctx.get(top.traffic) == 1 and ctx.get(top.error) == 0

    _run(top, bench)
    line = _uart_decode(bits, 4)
    assert line.startswith("cubenoc Hypercube(n=1) W=16: sent ") and line.endswith("\r\n")
    f = line.split(": ", 1)[1].split()
    assert f[0::2] == ["sent", "recv", "err", "lat"]
    assert int(f[1]) == snap["sent"] and int(f[3]) == snap["received"] and int(f[5]) == snap["errors"] == 0
    tenths = 10 * snap["lat_sum"] // snap["lat_count"]
    assert f[7] == f"{tenths // 10}.{tenths % 10}"


@pytest.mark.filterwarnings("ignore:.*created but never used")      # the rejected objects
def test_generator_parameters_are_checked():
    with pytest.raises(CubenocError, match="injection rate"):
        TrafficGenerator(0, 8, rate=300)
    with pytest.raises(CubenocError, match="maximum packet length"):
        TrafficGenerator(0, 8, max_length=6)
    with pytest.raises(CubenocError, match="payload width"):
        TrafficChecker(0, 8, payload_width=8)


@pytest.mark.slow
def test_enhanced_traffic_verilator_soak_with_backpressure():
    """20,000 cycles on Q(3, 0) under Verilator with random ejection stalls: zero errors, no loss."""
    from cubenoc.boards.sim_traffic import run_traffic
    topo = EnhancedHypercube(3, 0)
    res = run_traffic(plan_of(topo, EcubeRouting(topo), RouterConfig(payload_width=16)), cycles=20000, drain=2000,
                      rate=128, stall_rate=64)
    assert res["errors"] == 0 and res["error_kinds"] == 0
    assert res["sent"] == res["received"] == res["lat_count"] > 8 * 20000 // 40
