"""Parhami & Rakov's H^2 collectives (perfect difference networks, Sec. 4) on the routers: the model of
the H^2 network (dimension-order routing, the product broadcast in the fork ROMs) at its smallest sizes,
{0,1}^2 (3 x 3, each factor the triangle K_3) and {0,1,3}^2 (7 x 7).

Bounds from first principles: a node receives N - 1 packets through one local output (at most one flit
per cycle, checked on the trace), the first no earlier than cycle 2 (one hop, zero-load latency h + 1),
so the last ejection is at cycle >= N (>= N - 1 receipts); in the exchange a node's N - 1 packets enter
through one local input, the last no earlier than cycle N - 2, and travel at most the diameter (2 per
dimension for a PDN of order >= 2, 1 for K_3).
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from cubenoc.cli import main
from cubenoc.sim.analysis import pdn_routers as R
from cubenoc.sim.broadcast.fork import BROADCAST_DEST, broadcast_algorithm_for
from cubenoc.sim.model.network import NetworkModel
from cubenoc.sim.router_config import RouterConfig
from cubenoc.sim.routing.pdn import DimensionOrderPDNRouting
from cubenoc.sim.network_plan import plan_of

SIZES = {(0, 1): (3, 2), (0, 1, 3): (7, 4)}        # set: (n, diameter of H^2 by hand)


def _run(pds, broadcast: bool):
    topo = R.h2_network(pds)
    cfg = RouterConfig(broadcast=broadcast_algorithm_for(topo)) if broadcast else None
    model = NetworkModel(plan_of(topo, DimensionOrderPDNRouting(topo), cfg))
    stim = R.all_to_all_stimulus(topo) if broadcast else R.complete_exchange_stimulus(topo)
    return topo, model.run(stim)


def _one_flit_per_local_output_per_cycle(res):
    key = res.tr_cycle * res.stimulus.num_nodes + res.tr_node
    assert np.unique(key).size == key.size


@pytest.mark.parametrize("pds", list(SIZES))
def test_all_to_all_broadcast_on_the_routers(pds):
    n, _diam = SIZES[pds]
    topo, res = _run(pds, broadcast=True)
    big_n = n * n
    assert topo.num_nodes == big_n and res.drained
    s = res.stimulus
    assert (s.pkt_dst == BROADCAST_DEST).all() and (s.pkt_release == 0).all() and (res.accept_cycle == 0).all()
    got = sorted(zip(s.pkt_src[s.packet[res.tr_flit]].tolist(), res.tr_node.tolist()))
    assert got == [(u, v) for u in range(big_n) for v in range(big_n) if u != v]     # each copy exactly once
    _one_flit_per_local_output_per_cycle(res)
    last = int(res.eject_cycle.max())
    assert last >= big_n - 1 and last >= big_n
    assert int(res.tr_cycle.min()) >= 2
    # docs/papers/pdn.md: the routers meet the bound
    assert last == big_n


@pytest.mark.parametrize("pds", list(SIZES))
def test_complete_exchange_on_the_routers(pds):
    n, diam = SIZES[pds]
    topo, res = _run(pds, broadcast=False)
    big_n = n * n
    assert res.drained
    s = res.stimulus
    got = sorted(zip(s.pkt_src[s.packet[res.tr_flit]].tolist(), res.tr_node.tolist()))
    assert got == [(u, v) for u in range(big_n) for v in range(big_n) if u != v]
    assert (res.tr_node == s.pkt_dst[s.packet[res.tr_flit]]).all()
    _one_flit_per_local_output_per_cycle(res)
    last = int(res.eject_cycle.max())
    assert last >= big_n
    # the sources never stall: one packet accepted per cycle, the last at N - 2 ...
    assert int(res.accept_cycle.max()) == big_n - 2
    # ... and nothing waits in the network beyond the diameter's zero-load latency
    assert last <= big_n - 2 + diam + 1


def test_exchange_rounds_are_permutations():
    topo = R.h2_network((0, 1, 3))
    stim = R.complete_exchange_stimulus(topo)
    big_n = topo.num_nodes
    dst = stim.pkt_dst.reshape(big_n, big_n - 1)          # [source, round]
    assert (stim.pkt_src.reshape(big_n, big_n - 1) == np.arange(big_n)[:, None]).all()
    for j in range(big_n - 1):
        assert sorted(dst[:, j].tolist()) == list(range(big_n))
        assert (dst[:, j] != np.arange(big_n)).all()
    offsets = {tuple(o) for o in R.exchange_offsets(topo)}
    assert offsets == set(itertools.product(range(7), range(7))) - {(0, 0)}


def test_cli_prints_the_router_rows(capsys):
    assert main(["analyze", "pdn", "--set", "0,1,3", "--collectives"]) == 0
    out = capsys.readouterr().out
    assert "H^2 collectives on the routers" in out
    row = next(line for line in out.splitlines() if "all-to-all broadcast (fork ROMs)" in line)
    assert row.split()[4:7] == ["49", "49", "yes"]
    row = next(line for line in out.splitlines() if "complete exchange (unicast" in line)
    assert "98 = 2 n^2" in row and " yes " in row


def test_cli_order_1_pdn(capsys):
    """{0,1} (the triangle K_3, the smallest PDN): the analysis runs whole; its bisection (one node
    against two) cuts 2 links."""
    from cubenoc.sim.analysis.pdn_measure import exact_bisection
    assert exact_bisection(range(3), [(0, 1), (1, 2), (0, 2)]) == 2 and exact_bisection(range(2), [(0, 1)]) == 1
    assert main(["analyze", "pdn", "--set", "0,1", "--collectives"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "all-to-all broadcast (fork ROMs)" in line)
    assert row.split()[4:7] == ["9", "9", "yes"]
