"""Parhami and Rakov Sec. 4: Algorithms 3-6 and the Theorem 1 emulation, replayed step by step."""
import random

import pytest

from cubenoc.errors import CubenocError
from cubenoc.sim.broadcast.base import run_broadcast
from cubenoc.sim.broadcast.pdn import (PDNBroadcast, ProductPDNBroadcast, all_to_all_broadcast, broadcast_single_port,
                                       complete_exchange, emulate_complete_network, personalized_complete,
                                       run_schedule, shift_permutation)
from cubenoc.sim.topology.pdn import PerfectDifferenceNetwork, ProductPDN

DELTAS = [2, 3, 4, 5]


@pytest.mark.parametrize("delta", DELTAS)
def test_algorithm3_all_port(delta):
    t = PerfectDifferenceNetwork(delta)
    alg = PDNBroadcast(t)
    for src in (0, 5 % t.n):
        tr = run_broadcast(alg, src)
        assert tr.exactly_once and tr.steps == alg.expected_steps() == 2
        assert tr.messages == delta * delta + delta                  # the minimum, n - 1


@pytest.mark.parametrize("delta", DELTAS)
def test_algorithm3_single_port(delta):
    t = PerfectDifferenceNetwork(delta)
    rep = run_schedule(t, *broadcast_single_port(t, 3))
    assert rep.steps == 2 * delta and rep.transmissions == delta * delta + delta
    assert rep.max_sends == 1 and rep.max_receives == 1 and rep.duplicates == 0
    assert all("m" in h for h in rep.holdings)


@pytest.mark.parametrize("delta", DELTAS)
def test_algorithm4_all_to_all(delta):
    t = PerfectDifferenceNetwork(delta)
    rep = run_schedule(t, *all_to_all_broadcast(t))
    assert rep.steps == t.n - 1 == delta * delta + delta
    assert rep.max_sends == rep.max_receives == rep.max_channel == 1 and rep.duplicates == 0
    assert all(h == set(t.nodes()) for h in rep.holdings)


@pytest.mark.parametrize("delta", DELTAS)
def test_algorithm5_complete_exchange(delta):
    t = PerfectDifferenceNetwork(delta)
    steps, init = complete_exchange(t)
    want = set().union(*init)
    assert len(want) == t.n * (t.n - 1)
    rep = run_schedule(t, steps, init)
    assert rep.steps == 2 * delta * delta and rep.max_sends == rep.max_receives == 1
    assert personalized_complete(rep, want)
    # pipelined: n steps, but every node then sends on one forward and one backward chord per step
    rep = run_schedule(t, *complete_exchange(t, pipelined=True))
    assert rep.steps == t.n and personalized_complete(rep, want)
    assert rep.max_sends == 2 and rep.max_fwd_sends == 1 and rep.max_bwd_sends == 1 and rep.max_channel == 1


@pytest.mark.parametrize("delta", DELTAS)
def test_algorithm6_shift(delta):
    t = PerfectDifferenceNetwork(delta)
    chords = {e % t.n for s in t.chords for e in (s, -s)}
    rng = random.Random(delta)
    for c in range(1, t.n):
        steps, init = shift_permutation(t, c)
        rep = run_schedule(t, steps, init)
        assert rep.steps == (1 if c in chords else 2) and rep.max_channel == 1
        assert personalized_complete(rep, set().union(*init))
        signs = [rng.choice((1, -1)) for _ in t.nodes()]          # the generalized +c / -c shift
        steps, init = shift_permutation(t, c, signs)
        rep = run_schedule(t, steps, init)
        assert rep.steps <= 2 and rep.max_channel == 1 and personalized_complete(rep, set().union(*init))
    with pytest.raises(CubenocError):
        shift_permutation(t, t.n)


@pytest.mark.parametrize("delta", DELTAS)
def test_theorem1_emulation_in_delta_steps(delta):
    t = PerfectDifferenceNetwork(delta)
    steps, init = emulate_complete_network(t)
    rep = run_schedule(t, steps, init)
    assert rep.steps == delta and rep.max_channel == 1
    assert personalized_complete(rep, set().union(*init))


@pytest.mark.parametrize("orders", [[2, 2], [1, 3], [2, 1, 2]])
def test_product_broadcast(orders):
    t = ProductPDN(orders)
    alg = ProductPDNBroadcast(t)
    tr = run_broadcast(alg, 4)
    assert tr.exactly_once and tr.steps == alg.expected_steps() == t.diameter()
    assert tr.messages == t.num_nodes - 1


def test_collectives_need_a_basic_pdn():
    with pytest.raises(CubenocError, match="basic PDN"):
        PDNBroadcast(PerfectDifferenceNetwork((1, 2, 4)))
