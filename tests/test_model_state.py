"""The model's state in the narrowest integer types from 64 nodes up (docs/simulator.md "Large
networks"): the arrays the compiled loop reads per hop hold the same values as the tables they come from,
in fewer bytes (a smaller cache footprint at 16,384-65,536 nodes). Below that, one layout for every
network, so that the small networks of the tests share one compiled loop."""
from __future__ import annotations

import numpy as np

from cubenoc.sim.router_config import RouterConfig
from cubenoc.sim.model.stimulus import bernoulli_traffic
from cubenoc.sim.simulator import model_for


def test_kernel_state_is_narrow_and_equal_to_the_tables():
    model, _ = model_for("enhanced:n=6,k=0")
    tb = model.tables
    sim = model.start(bernoulli_traffic(tb.num_nodes, 0.3, 1, 50, 1))
    tab, arb = sim.tab, sim.arb
    # route entries port | tag << 8 (tags of 7 bits) fit 16 bits, the allowed-turn masks of 8 ports 16 bits
    assert tab.route.dtype.itemsize < tb.route.dtype.itemsize and (tab.route == tb.route).all()
    assert tab.allowed.dtype.itemsize < tb.allowed.dtype.itemsize
    assert (tab.allowed[tab.arow].ravel() == tb.allowed).all() and tab.allowed.shape[0] == 1   # one row
    # used < weight and cur_w <= weight: one byte for round robin (weight 1)
    assert int(arb.wt.max()) == 1
    assert arb.used.dtype.itemsize == arb.cur_w.dtype.itemsize == 1
    sim.advance(60)                               # and the narrow state runs: every packet delivered
    assert sim.drained


def _dtypes(sim) -> list:
    arrays = [*sim.tab, *sim.fifo, *sim.arb, sim.src_state, sim.src_lane, *sim.ad[3:7]]
    return [a.dtype for a in arrays]


def test_small_networks_share_one_state_layout_and_one_compiled_loop():
    from cubenoc.sim.model import kernel
    before = len(kernel.run_unicast.signatures)
    layouts = []
    for spec in ("hypercube:n=3", "enhanced:n=5,k=0", "pdn:set=0,1,3,9", "hypercube:n=4"):
        model, _ = model_for(spec)
        sim = model.start(bernoulli_traffic(model.tables.num_nodes, 0.3, 1, 30, 2))
        sim.advance(40)
        layouts.append(_dtypes(sim))
    assert all(lay == layouts[0] for lay in layouts)
    assert len(kernel.run_unicast.signatures) - before <= 1
    # the fair arbiter's weights fit that layout's used / cur_w (used < weight, cur_w <= weight)
    model, _ = model_for("metacube:k=1,m=1", RouterConfig(arbitration="fair"))
    sim = model.start(bernoulli_traffic(model.tables.num_nodes, 0.3, 1, 30, 2))
    wmax = int(sim.arb.wt.max())
    assert wmax > 1 and all(np.iinfo(a.dtype).max >= wmax for a in (sim.arb.used, sim.arb.cur_w))
    sim.advance(200)
    assert sim.drained


def test_allowed_rows_give_back_every_allowed_turn():
    """sim/model/tables.py ``allowed_rows``: the allowed-turn masks, each distinct node's row stored once,
    give back the tables' own in every family (as the loop reads them); Q_n and Q(n, k) share one row, a
    hierarchical network's gateway nodes have rows of their own."""
    for spec in ("hypercube:n=4", "enhanced:n=5,k=1", "hypercube:n=12", "metacube:k=1,m=2", "pdn:set=0,1,3",
                 "hin-bh3-ccc2"):
        model, _ = model_for(spec)
        tb = model.tables
        N, P = tb.num_nodes, tb.max_ports
        arow, rows = tb.allowed_rows()
        assert (rows[arow].ravel() == tb.allowed).all(), spec
        distinct = {tuple(tb.allowed[v * P:(v + 1) * P].tolist()) for v in range(N)}
        assert rows.shape[0] == len(distinct) and (len(distinct) == 1 or not spec.startswith(("hyper", "enh"))), spec
        assert len(distinct) > 1 or not spec.startswith("hin")    # two levels: gateway nodes differ
        sim = model.start(bernoulli_traffic(N, 0.2, 1, 20, 3))
        assert (sim.tab.allowed[sim.tab.arow].ravel() == tb.allowed).all(), spec
