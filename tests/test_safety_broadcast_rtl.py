# amaranth: UnusedElaboratable=no
"""The safety-level broadcast fork unit (rtl/safety/fork.py) in amaranth.sim against
``sim.broadcast.safety.fork`` (Wu Sec. 2.2): on every fault set of up to 2 faults (n = 3, 4) and
random larger node/link/mixed sets (n = 4, 5), for every node and every tag that occurs in a real
broadcast, the unit's outputs equal the Python decision; played as a broadcast, the unit's answers give
every non-faulty node exactly one copy over a shortest path, from safe sources and via the hand-over.
Plus random (also inconsistent) level/fault inputs, where the unit must still equal ``fork``."""
import itertools
import random

import numpy as np
import pytest
from amaranth import Cat, Elaboratable, Module, Signal, Value
from amaranth.sim import Simulator

from cubenoc.errors import CubenocError
from cubenoc.rtl.safety.unit import SafetyLevelUnit
from cubenoc.rtl.safety.fork import SafetyBroadcastFork, connect, safe_bit, view_inputs
from cubenoc.sim.broadcast.safety import (LocalView, SafetyBroadcast, check_broadcast, fork, levels_of,
                                          tag_layout)
from cubenoc.sim.routing.base import Hop
from cubenoc.sim.safety import MODELS, FaultSet, compute


# ---- fault sets ------------------------------------------------------------------------------------------
def all_small_sets(n: int, most: int = 2) -> list[FaultSet]:
    """Every fault set of at most ``most`` faults (nodes and links mixed)."""
    N = 1 << n
    items = [("n", v) for v in range(N)] + [("l", (u, d)) for u in range(N) for d in range(n) if not u >> d & 1]
    out = []
    for r in range(most + 1):
        for combo in itertools.combinations(items, r):
            out.append(FaultSet.build(n, [x for t, x in combo if t == "n"], [x for t, x in combo if t == "l"]))
    return out


def random_sets(rng, n: int, count: int, lo: int, hi: int) -> list[FaultSet]:
    """``count`` random sets of lo..hi faults, a third each node-only, link-only and mixed."""
    N = 1 << n
    out = []
    for i in range(count):
        f = rng.randint(lo, hi)
        kind = i % 3
        k = f if kind == 0 else 0 if kind == 1 else rng.randint(1, f - 1) if f > 1 else f
        nodes = rng.sample(range(N), k)
        links = set()
        while len(links) < f - k:
            u, d = rng.randrange(N), rng.randrange(n)
            links.add((u & ~(1 << d), d))
        out.append(FaultSet.build(n, nodes, links))
    return out


def algorithms(sets, model):
    """One SafetyBroadcast per set, the levels computed in one batch."""
    nf = np.stack([fs.arrays()[0] for fs in sets])
    lf = np.stack([fs.arrays()[1] for fs in sets])
    batch = compute(nf, lf, model)
    return [SafetyBroadcast(fs, model, levels_of(batch, b)) for b, fs in enumerate(sets)]


def sources(alg):
    """Non-faulty sources the broadcast can start from (safe, or unsafe with a safe neighbour)."""
    return [s for s in range(1 << alg.n)
            if s not in alg.faults.nodes and (alg.safe(s) or alg.handoff_neighbour(s) is not None)]


def reached_tags(alg) -> set:
    """Every (node, packed tag) a broadcast from any source delivers (forward is deterministic, so the
    reachable states are closed under forward: a search over them, not one run per source)."""
    lay = alg.layout
    todo, seen = [], set()

    def push(v, hops):
        for h in hops:
            w = v ^ (1 << h.port)
            if w in alg.faults.nodes or alg.lf[v, h.port]:
                continue
            state = (w, lay.pack(h.header))
            if state not in seen:
                seen.add(state)
                todo.append((w, h.header))

    for s in sources(alg):
        push(s, alg.start(s))
    while todo:
        v, hdr = todo.pop()
        push(v, alg.forward(v, hdr)[1])
    return seen


# ---- the unit in amaranth.sim ------------------------------------------------------------------------------
def run_unit(n: int, model: str, queries) -> list:
    """``queries``: (LocalView, tag word, origin) -> per query (keep, ports, [new_tag word per port])."""
    unit = SafetyBroadcastFork(n, model)
    tw = tag_layout(n).width
    out = []

    async def bench(ctx):
        sigs, last = {}, {}
        for view, tag, origin in queries:
            values = view_inputs(view) | {"tag": tag, "origin": int(origin)}
            for name, val in values.items():
                if last.get(name) != val:
                    if name not in sigs:
                        sigs[name] = Value.cast(getattr(unit, name))
                    ctx.set(sigs[name], val)
                    last[name] = val
            word = ctx.get(Value.cast(unit.new_tag))
            out.append((ctx.get(unit.keep), ctx.get(unit.ports),
                        [(word >> (k * tw)) & ((1 << tw) - 1) for k in range(n)]))

    sim = Simulator(unit)
    sim.add_testbench(bench)
    sim.run()
    return out


def as_decision(n, layout, result) -> tuple[bool, list[Hop]]:
    keep, ports, words = result
    return bool(keep), [Hop(k, layout.unpack(words[k]), 0) for k in range(n) if ports >> k & 1]


def python_decision(layout, view, tag, origin) -> tuple[bool, list[Hop]]:
    """fork's answer with the hops in port order (the unit's ``ports`` is a set; the multicast fork
    sends in ascending port order)."""
    keep, hops = fork(view, None if origin else layout.unpack(tag), origin)
    return keep, sorted(hops, key=lambda h: h.port)


class ReplayBroadcast(SafetyBroadcast):
    """The broadcast played with the unit's answers (a table keyed by (view, tag, origin))."""

    def __init__(self, alg: SafetyBroadcast, table: dict):
        super().__init__(alg.faults, alg.model, alg.levels)
        self.table = table

    def start(self, src):
        return self.table[self.view(src), 0, True][1]

    def forward(self, node, header):
        return self.table[self.view(node), self.layout.pack(header), False]


def check_sets(n: int, model: str, sets, replay_sources=None) -> tuple[int, int]:
    """Unit == fork on every (node, reached tag) and every origin; the replayed broadcast from every
    possible source (``replay_sources``: at most that many per set, chosen at random) is correct.
    Returns (distinct unit queries, broadcasts replayed)."""
    algs = algorithms(sets, model)
    layout = tag_layout(n)
    queries = {}
    for alg in algs:
        for v in range(1 << n):
            if v not in alg.faults.nodes:
                queries.setdefault((alg.view(v), 0, True), None)
        for v, tag in reached_tags(alg):
            queries.setdefault((alg.view(v), tag, False), None)
    keys = list(queries)
    got = run_unit(n, model, keys)
    bad = []
    for key, res in zip(keys, got):
        mine = as_decision(n, layout, res)
        want = python_decision(layout, *key)
        if mine != want:
            bad.append((key, mine, want))
        queries[key] = mine
    assert not bad, f"{len(bad)} of {len(keys)} decisions differ, e.g. {bad[0]}"
    rng = random.Random(n * 31 + MODELS.index(model))
    played = 0
    for alg in algs:
        replay = ReplayBroadcast(alg, queries)
        srcs = sources(alg)
        if replay_sources is not None and len(srcs) > replay_sources:
            srcs = rng.sample(srcs, replay_sources)
        for src in srcs:
            ok, trace, msg = check_broadcast(replay, src)
            assert ok, (model, alg.faults.describe(), src, msg)
            played += 1
    return len(keys), played


# ---- tests -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("model", MODELS)
def test_every_set_of_up_to_two_faults_n3(model):
    sets = all_small_sets(3)
    assert len(sets) == 1 + 20 + 190
    queries, played = check_sets(3, model, sets)
    assert queries > 100 and played > 1000


@pytest.mark.parametrize("model", MODELS)
def test_every_set_of_up_to_two_faults_n4(model):
    sets = all_small_sets(4)
    assert len(sets) == 1 + 48 + 1128
    queries, played = check_sets(4, model, sets, replay_sources=4)
    assert queries > 500 and played > 4000


@pytest.mark.parametrize("model", MODELS)
def test_random_larger_sets_n4_n5(model):
    rng = random.Random(5 + MODELS.index(model))
    check_sets(4, model, random_sets(rng, 4, 100, 3, 6), replay_sources=6)
    check_sets(5, model, random_sets(rng, 5, 40, 1, 8), replay_sources=4)


def test_handoff_is_exercised():
    """The hand-over path is really taken on the unit: an unsafe source's origin decision is one
    port with handoff = 1, and the neighbour's answer keeps a copy and sends one nocopy copy back."""
    fs = FaultSet.parse(4, "0000,1101", "0110-0111,1000-1010,1010-1110")      # Wu Fig. 2(b)
    alg = SafetyBroadcast(fs, "DSL2")
    layout = alg.layout
    src = 4                                   # 0010 in the paper's notation: GSL 1 under DSL(2)
    assert not alg.safe(src)
    k = alg.handoff_neighbour(src)
    (start,) = run_unit(4, "DSL2", [(alg.view(src), 0, True)])
    keep, hops = as_decision(4, layout, start)
    assert not keep and [h.port for h in hops] == [k] and hops[0].header["handoff"] == 1
    (fwd,) = run_unit(4, "DSL2", [(alg.view(src ^ 1 << k), layout.pack(hops[0].header), False)])
    keep, hops = as_decision(4, layout, fwd)
    back = [h for h in hops if h.port == k]
    assert keep and len(back) == 1 and back[0].header["nocopy"] == 1


def _random_view(rng, n, model) -> LocalView:
    top = n if model.startswith("SL") else n - 1
    d2 = model.endswith("2")

    def flags(p=0.3):
        return tuple(rng.random() < p for _ in range(n))
    order = list(range(n))
    rng.shuffle(order)
    return LocalView(n=n, model=model, own_level=rng.choice([n, n, rng.randint(0, n)]),
                     nbr_levels=tuple(rng.randint(0, top) for _ in range(n)), nbr_safe=flags(0.5),
                     link_faulty=flags(0.2), nbr_faulty=flags(0.2),
                     order=None if model.startswith("SL") else tuple(order),
                     nbr_links=tuple(flags() for _ in range(n)) if d2 else None,
                     nbr_nbrs=tuple(flags() for _ in range(n)) if d2 else None)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("n", [3, 5])
def test_random_inputs(model, n):
    """Arbitrary level/fault inputs (also ones no fault set produces) and arbitrary tags."""
    rng = random.Random(n * 7 + MODELS.index(model))
    layout = tag_layout(n)
    queries = []
    for _ in range(600):
        view = _random_view(rng, n, model)
        if model.startswith("SL"):      # the unit derives nbr_safe from the SL levels
            view = LocalView(**{**view.__dict__, "nbr_safe": tuple(x == n for x in view.nbr_levels)})
        origin = rng.random() < 0.2
        queries.append((view, 0 if origin else rng.randrange(1 << layout.width), origin))
    got = run_unit(n, model, queries)
    bad = [(q, as_decision(n, layout, r), python_decision(layout, *q)) for q, r in zip(queries, got)
           if as_decision(n, layout, r) != python_decision(layout, *q)]
    assert not bad, f"{len(bad)} differ, e.g. {bad[0]}"


def test_bad_parameters():
    with pytest.raises(CubenocError, match="model must be one of"):
        SafetyBroadcastFork(4, "SL3")
    with pytest.raises(CubenocError, match="n must be"):
        SafetyBroadcastFork(1, "SL1")
    unit = SafetyLevelUnit(3, ("SL1", "DSL1"))
    forks = {m: SafetyBroadcastFork(3, m) for m in ("SL1", "SL2", "DSL1")}
    with pytest.raises(CubenocError, match="needs nbr_safe"):
        connect(forks["DSL1"], unit, nbr_faulty=Signal(3))
    with pytest.raises(CubenocError, match="needs nbr_faulty"):
        connect(forks["SL1"], unit)
    with pytest.raises(CubenocError, match="not the fork's SL2"):
        connect(forks["SL2"], unit)


class _Cube(Elaboratable):
    """N level units (all four models) wired as an n-cube, each node's forks wired by ``connect``."""

    def __init__(self, n):
        self.n, N = n, 1 << n
        self.node_faulty = Signal(N)
        self.link_faulty = Signal(N * n)
        self.units = [SafetyLevelUnit(n, MODELS) for _ in range(N)]
        self.forks = {model: [SafetyBroadcastFork(n, model) for _ in range(N)] for model in MODELS}

    def elaborate(self, platform):
        m = Module()
        n, units = self.n, self.units
        for v, u in enumerate(units):
            m.submodules[f"unit{v}"] = u
            m.d.comb += [u.node_faulty.eq(self.node_faulty[v]),
                         u.link_faulty.eq(Cat(*[self.link_faulty[v * n + k] | self.link_faulty[(v ^ 1 << k) * n + k]
                                                for k in range(n)]))]
            for name, mem in u.signature.members.items():
                if name.startswith("rx_"):
                    src = "tx_" + name[3:] if name in ("rx_fault", "rx_nbrs") else name[3:]
                    m.d.comb += getattr(u, name).eq(Cat(*[getattr(units[v ^ 1 << k], src) for k in range(n)]))
            for model, forks in self.forks.items():
                m.submodules[f"fork_{model}_{v}"] = forks[v]
                m.d.comb += connect(forks[v], u, nbr_faulty=Cat(*[self.node_faulty[v ^ 1 << k] for k in range(n)]),
                                    nbr_safe=Cat(*[safe_bit(units[v ^ 1 << k], model) for k in range(n)]))
        return m


def test_forks_fed_by_level_units():
    """End to end in gates: level units settle on their own (no reset) after the faults switch, and the
    forks wired to them by ``connect`` answer every origin and reached tag as the Python broadcast."""
    n = 3
    rng = random.Random(11)
    sets = random_sets(rng, n, 12, 1, 4) + [FaultSet.build(n)]
    top = _Cube(n)
    bad, checked = [], 0

    async def bench(ctx):
        nonlocal checked
        for fs in sets:
            nf, lf = fs.arrays()
            ctx.set(top.node_faulty, sum(1 << v for v in fs.nodes))
            ctx.set(top.link_faulty, sum(1 << (v * n + k) for v in range(1 << n) for k in range(n) if lf[v, k]))
            await ctx.tick().repeat(n)                # every model settles within n-1 cycles
            for model in MODELS:
                alg = SafetyBroadcast(fs, model)
                qs = [(v, 0, True) for v in range(1 << n) if v not in fs.nodes]
                qs += [(v, t, False) for v, t in reached_tags(alg)]
                for v, tag, origin in qs:
                    f = top.forks[model][v]
                    ctx.set(f.tag, tag)
                    ctx.set(f.origin, int(origin))
                    word = ctx.get(Value.cast(f.new_tag))
                    tw = alg.layout.width
                    got = as_decision(n, alg.layout, (ctx.get(f.keep), ctx.get(f.ports),
                                                      [(word >> (k * tw)) & ((1 << tw) - 1) for k in range(n)]))
                    want = python_decision(alg.layout, alg.view(v), tag, origin)
                    checked += 1
                    if got != want:
                        bad.append((model, fs.describe(), v, tag, origin, got, want))

    sim = Simulator(top)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert not bad, bad[:3]
    assert checked > 300
