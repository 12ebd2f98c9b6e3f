"""cocotb (Verilator): the safety-level broadcast through the routers (Wu Sec. 2.2, 2.3;
docs/safety_hw.md "Safety-level broadcast through the routers"). Per random fault set (node, link,
mixed) the bench drives the fault inputs of :class:`~cubenoc.rtl.safety.broadcast_net.SafetyBroadcastNetwork`
from cycle 0, the level units settle (n - 1 rounds), then a broadcast from every non-faulty node in turn
(safe and unsafe sources, each alone in the network): the ejection trace equals the model's
(``NetworkModel(..., broadcast=SafetyBroadcast(faults, model))``, levels from sim/safety.py) cycle for
cycle, and from that trace every non-faulty node but the source ejects exactly one copy of every flit,
faulty nodes none, the head copy at accept + dist(root, v) (+1 after a hand-over) + 1.

Fast: Q_3 for every model (the SL2/DSL2 fault sets are checked to depend on the distance-2 information:
levels and the last-two-dimension swap); slow: Q_4 and Q_5 SL1/DSL1, Q_4 SL2/DSL2."""
from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from cubenoc.sim.broadcast.base import run_broadcast
from cubenoc.sim.broadcast.fork import BROADCAST_DEST
from cubenoc.sim.broadcast.safety import SafetyBroadcast, check_broadcast, fault_skips
from cubenoc.sim.safety import compute
from cubenoc.sim.model.stimulus import StimulusBuilder
from cubenoc.sim.safety import FaultSet
from cubenoc.tb.safety.broadcast_verify import verify_safety_broadcast


def has_tree(alg: SafetyBroadcast, src: int) -> bool:
    """``src`` can broadcast: it is safe or has a safe neighbour over a non-faulty link."""
    return alg.safe(src) or alg.handoff_neighbour(src) is not None


def fault_sets(n: int, model: str, count: int, lo: int, hi: int, seed: int) -> list[FaultSet]:
    """``count`` random sets of lo..hi faults, in turn node-only, link-only and mixed, kept when the
    algorithm on its own (:func:`check_broadcast`) is correct from every non-faulty node that can
    broadcast (:func:`has_tree`); the first set has an unsafe source that hands over."""
    rng = random.Random(seed)
    N = 1 << n
    out, tries = [], 0
    while len(out) < count:
        tries += 1
        assert tries < 2000, "no usable fault sets"
        f = rng.randint(lo, hi)
        kind = len(out) % 3
        k = f if kind == 0 else 0 if kind == 1 else rng.randint(1, f - 1)
        links = set()
        while len(links) < f - k:
            u, d = rng.randrange(N), rng.randrange(n)
            links.add((u & ~(1 << d), d))
        fs = FaultSet.build(n, rng.sample(range(N), k), links)
        alg = SafetyBroadcast(fs, model)
        srcs = [v for v in range(N) if v not in fs.nodes and has_tree(alg, v)]
        if all(check_broadcast(alg, v)[0] for v in srcs):
            if out or not all(alg.safe(v) for v in srcs):     # the first set has a hand-over
                out.append(fs)
    return out


def each_source(fs: FaultSet, length: int, seed: int):
    """A broadcast of ``length`` flits from every non-faulty node in random order, each alone: the first
    released once the levels have settled (cycle 2n + 2 > n - 1 rounds), then n + 6 + length apart."""
    n, N = fs.n, 1 << fs.n
    b = StimulusBuilder(N, seed=seed)
    srcs = [v for v in np.random.default_rng(seed).permutation(N).tolist() if v not in fs.nodes]
    for j, v in enumerate(srcs):
        b.packet(v, BROADCAST_DEST, length, 2 * n + 2 + j * (n + 6 + length))
    return b.build(), srcs


def run(n: int, model: str, count: int, lo: int, hi: int, seed: int):
    sets = fault_sets(n, model, count, lo, hi, seed)
    cases = []
    for c, fs in enumerate(sets):
        stim, _srcs = each_source(fs, 1 + c % 3, seed + c)
        cases.append((fs, [("each_source", stim)]))
    results = verify_safety_broadcast(n, model, cases)
    report = [f"{fs.describe()} / {v.name}: {p}" for fs, _alg, vs in results for v in vs for p in v.problems]
    assert not report, "\n".join(report)
    unsafe = handovers = copies = stranded = 0
    for fs, alg, verdicts in results:
        v = verdicts[0]
        assert v.model.drained and v.rtl.cycle.size == v.model.tr_cycle.size > 0
        s = v.model.stimulus
        for k in range(s.num_packets):
            src = int(s.pkt_src[k])
            if not alg.safe(src):
                unsafe += 1
                handovers += has_tree(alg, src)
        # exactly one copy per flit at every non-faulty node but the source (checked per packet above);
        # nothing at all from an unsafe source without a safe neighbour
        good = (1 << n) - len(fs.nodes)
        assert v.rtl.cycle.size == sum(int(s.pkt_len[k]) * (good - 1) for k in range(s.num_packets)
                                       if has_tree(alg, int(s.pkt_src[k])))
        stranded += sum(not has_tree(alg, int(x)) for x in s.pkt_src)
        copies += v.rtl.cycle.size
    assert unsafe > 0 and handovers > 0, "no unsafe source handed over"
    kinds = {(bool(fs.nodes), bool(fs.links)) for fs in sets}
    assert {(True, False), (False, True), (True, True)} <= kinds
    return copies, stranded, results


class _NoSwap(SafetyBroadcast):
    """The same levels and views, but the coordinate sequence without the distance-2 swap of the last
    two dimensions (the model name's "2" read as "1" inside :func:`coordinate_sequence` only)."""

    def view(self, v):
        return dataclasses.replace(super().view(v), model=self.model[:-1] + "1")


def distance2_effects(results) -> tuple[int, int]:
    """How much of a run depended on the distance-2 information (the relayed fault bits): the number
    of fault sets whose safe nodes differ from the distance-1 model's, and the number of broadcasts
    (source, fault set) of the stimulus whose tree changes without the distance-2 swap."""
    level_sets = swapped = 0
    for fs, alg, verdicts in results:
        d1 = compute(*fs.arrays(), alg.model[:-1] + "1")
        level_sets += not np.array_equal(alg.gsl, d1.gsl[0])
        plain = _NoSwap(fs, alg.model)
        skip_nodes, skip_links = fault_skips(fs)
        for src in sorted(set(verdicts[0].model.stimulus.pkt_src.tolist())):
            if has_tree(alg, src):
                a = run_broadcast(alg, src, skip_nodes=skip_nodes, skip_links=skip_links).edges
                b = run_broadcast(plain, src, skip_nodes=skip_nodes, skip_links=skip_links).edges
                swapped += sorted(a) != sorted(b)
    return level_sets, swapped


@pytest.mark.parametrize("model", ["SL1", "DSL1"])
def test_q3(model):
    _copies, stranded, _results = run(3, model, count=6, lo=2, hi=3, seed=56)
    assert stranded > 0          # an unsafe source without a safe neighbour occurs (and broadcasts nothing)


@pytest.mark.slow
@pytest.mark.parametrize("model", ["SL1", "DSL1"])
def test_q4(model):
    _copies, stranded, _results = run(4, model, count=6, lo=2, hi=4, seed=41)
    assert stranded > 0


@pytest.mark.slow
@pytest.mark.parametrize("model", ["SL1", "DSL1"])
def test_q5(model):
    run(5, model, count=6, lo=3, hi=6, seed=53)


@pytest.mark.slow
@pytest.mark.parametrize("model", ["SL2", "DSL2"])
def test_q4_distance2(model):
    """The distance-2 models: the fork units read the relayed fault bits (rx_fault, rx_nbrs)."""
    run(4, model, count=6, lo=2, hi=4, seed=43)


@pytest.mark.parametrize("model", ["SL2", "DSL2"])
def test_q3_distance2(model):
    """The distance-2 models at the smallest size (fast): the level units read the relayed fault bits
    (rx_fault, rx_nbrs) and so do the fork units (the swap of the last two dimensions). Checked on the
    fault sets themselves: in some the safe nodes differ from the distance-1 model's, and some broadcasts
    of the stimulus take another tree without the swap, so a hardware that ignored the relay would
    diverge from the model."""
    _copies, _stranded, results = run(3, model, count=6, lo=2, hi=3, seed=31)
    level_sets, swapped = distance2_effects(results)
    assert level_sets > 0, "no fault set where the distance-2 levels differ from the distance-1 ones"
    assert swapped > 0, "no broadcast whose tree depends on the distance-2 swap"
