"""The safety-level unit in gates (amaranth.sim) against sim/safety.py's local rules: every neighbour
level combination for SL(1)/SL(2) and every relevant-level combination for DSL(1)/DSL(2) (n = 3, 4),
the adjustment and global level on random matrices, and a small network against ``compute``.
Wu: Definition 2, Sec. 3.2-3.4."""
import itertools

import numpy as np
import pytest
from amaranth import Value

from cubenoc.errors import CubenocError
from cubenoc.rtl.safety.unit import SafetyLevelUnit, SafetyNetwork, sideband_bits
from cubenoc.rtl.safety.unit_files import safety_files
from cubenoc.sim.safety import MODELS, adjust, compute, dsl_rule, global_level, sl_rule
from cubenoc.tb.safety.expect import random_fault_sets, settle_bound
from unit_sim import run


def _pack(values, width):
    return sum(int(v) << (i * width) for i, v in enumerate(values))


def _unpack(word, count, width):
    return [(word >> (i * width)) & ((1 << width) - 1) for i in range(count)]


@pytest.mark.parametrize("n", [3, 4])
def test_sl_rule_every_neighbour_level(n):
    unit = SafetyLevelUnit(n, ("SL1", "SL2"))
    w = len(unit.sl1)
    bad = []

    async def bench(ctx):
        for combo in itertools.product(range(n + 1), repeat=n):
            word = _pack(combo, w)
            ctx.set(Value.cast(unit.rx_sl1), word)
            ctx.set(Value.cast(unit.rx_sl2), word)
            await ctx.tick()
            got = (ctx.get(unit.sl1), ctx.get(unit.sl2))
            want = (sl_rule(None, combo, n, 1), sl_rule(None, combo, n, 2))
            if got != want:
                bad.append((combo, got, want))
        ctx.set(unit.node_faulty, 1)           # a faulty node shows 0 whatever its neighbours say
        await ctx.tick()
        if (ctx.get(unit.sl1), ctx.get(unit.sl2)) != (0, 0):
            bad.append(("faulty", ctx.get(unit.sl1), ctx.get(unit.sl2)))

    run(unit, bench)
    assert not bad, bad[:5]


@pytest.mark.parametrize("n", [3, 4])
def test_dsl_rule_adjustment_and_gsl_every_relevant_level(n):
    """DSL element rule over every (ns_00, ..., ns_(n-1)(n-1)); the off-diagonal levels are random, and
    the adjustment (ADSL, partition order) and GSL are checked on each of those matrices too."""
    unit = SafetyLevelUnit(n, ("DSL1", "DSL2"))
    wd = len(unit.dsl1[0])
    rng = np.random.default_rng(n)
    bad = []

    async def bench(ctx):
        for diag in itertools.product(range(n), repeat=n):
            ns = rng.integers(0, n, (n, n))
            ns[np.arange(n), np.arange(n)] = diag
            word = _pack(ns.reshape(-1), wd)
            ctx.set(Value.cast(unit.rx_dsl1), word)
            ctx.set(Value.cast(unit.rx_dsl2), word)
            rows = [tuple(int(x) for x in r) for r in ns]
            for d in (1, 2):
                adsl, order = adjust(rows)
                got = (tuple(_unpack(ctx.get(Value.cast(getattr(unit, f"adsl{d}"))), n, wd)),
                       tuple(_unpack(ctx.get(Value.cast(getattr(unit, f"order{d}"))), n, wd)),
                       ctx.get(getattr(unit, f"gsl{d}")))
                want = (adsl, order, global_level((n - 1,) * n, adsl, n, d))
                if got != want:
                    bad.append(("adjust", d, rows, got, want))
            await ctx.tick()
            for d in (1, 2):
                got = tuple(_unpack(ctx.get(Value.cast(getattr(unit, f"dsl{d}"))), n, wd))
                want = dsl_rule([None] * n, diag, n, d)
                if got != want:
                    bad.append(("rule", d, diag, got, want))

    run(unit, bench)
    assert not bad, bad[:5]


def test_adjustment_random_matrices_n5():
    n = 5
    unit = SafetyLevelUnit(n, ("DSL1",))
    wd = len(unit.dsl1[0])
    rng = np.random.default_rng(5)
    bad = []

    async def bench(ctx):
        for _ in range(400):
            ns = rng.integers(0, n, (n, n))
            ns[rng.random((n, n)) < 0.3] = n - 1          # ties and high levels are the hard cases
            ctx.set(Value.cast(unit.rx_dsl1), _pack(ns.reshape(-1), wd))
            rows = [tuple(int(x) for x in r) for r in ns]
            adsl, order = adjust(rows)
            got = (tuple(_unpack(ctx.get(Value.cast(unit.adsl1)), n, wd)),
                   tuple(_unpack(ctx.get(Value.cast(unit.order1)), n, wd)), ctx.get(unit.gsl1))
            want = (adsl, order, global_level((n - 1,) * n, adsl, n, 1))
            if got != want:
                bad.append((rows, got, want))

    run(unit, bench, clock=False)
    assert not bad, bad[:5]


def test_network_settles_to_compute_n3():
    """The amaranth (non-structural) network on random node/link/mixed fault sets, switched one after
    another without reset: after the settle bound every output equals sim/safety.py's levels."""
    n = 3
    net = SafetyNetwork(n, MODELS)
    NF, LF = random_fault_sets(n, 24, 4, seed=3)
    res = {m: compute(NF, LF, m) for m in MODELS}
    N = 1 << n
    bad = []

    async def bench(ctx):
        for b in range(len(NF)):
            ctx.set(net.node_faulty, _pack(NF[b], 1))
            ctx.set(net.link_faulty, _pack(LF[b].reshape(-1), 1))
            for _ in range(n - 1):
                await ctx.tick()
            for m in MODELS:
                key = m.lower()
                per, w = net.output_fields()[key]
                got = np.array(_unpack(ctx.get(getattr(net, key)), N * per, w)).reshape(N, per)
                want = res[m].level[b].reshape(N, per)
                if not np.array_equal(got, want):
                    bad.append((b, m, got.tolist(), want.tolist()))
                if m.startswith("DSL"):
                    gsl = _unpack(ctx.get(getattr(net, "gsl" + key[-1])), N, net.output_fields()["gsl" + key[-1]][1])
                    if gsl != res[m].gsl[b].tolist():
                        bad.append((b, m, "gsl", gsl, res[m].gsl[b].tolist()))

    run(net, bench)
    assert not bad, bad[:3]


def test_bad_parameters_and_files():
    with pytest.raises(CubenocError, match="n must be"):
        SafetyLevelUnit(1)
    with pytest.raises(CubenocError, match="models must be"):
        SafetyLevelUnit(4, ("SL3",))
    assert sideband_bits(4, ("SL1",)) == 3 and sideband_bits(4, ("DSL1",)) == 8
    assert sideband_bits(4, ("SL2",)) == 3 + 9
    assert [settle_bound(m, 5) for m in MODELS] == [4, 3, 3, 2]
    files, top = safety_files(3, ("SL1",))
    assert top == "cubenoc_safety_q3" and f"{top}.v" in files and "module cubenoc_safety_q3" in files[f"{top}.v"]
