"""The model's state in the narrowest integer types (issue 17, docs/simulator.md "Large networks"): the
arrays the compiled loop reads per hop hold the same values as the tables they come from, in fewer bytes
(a smaller cache footprint at 16,384-65,536 nodes)."""
from __future__ import annotations

import numpy as np
import pytest

from cubenoc.sim.model.stimulus import bernoulli_traffic
from cubenoc.sim.simulator import model_for


@pytest.mark.parametrize("arbitration", ["round-robin", "fair"])
def test_kernel_state_is_narrow_and_equal_to_the_tables(arbitration):
    model, _ = model_for("enhanced:n=5,k=0", 4, arbitration)
    tb = model.tables
    sim = model.start(bernoulli_traffic(tb.num_nodes, 0.3, 1, 50, 1))
    tab, arb = sim.tab, sim.arb
    # route entries port | tag << 8 (tags of 6 bits) fit 16 bits, the allowed-turn masks of 7 ports 8 bits
    assert tab.route.dtype.itemsize < tb.route.dtype.itemsize and (tab.route == tb.route).all()
    assert tab.allowed.dtype.itemsize < tb.allowed.dtype.itemsize and (tab.allowed == tb.allowed).all()
    # used < weight and cur_w <= weight: one byte for round robin (weight 1), enough for the fair weights
    wmax = int(arb.wt.max())
    assert (wmax == 1) == (arbitration == "round-robin")
    for a in (arb.used, arb.cur_w):
        assert np.iinfo(a.dtype).max >= wmax and a.dtype.itemsize <= (1 if wmax < 128 else 8)
    sim.advance(60)                               # and the narrow state runs: every packet delivered
    assert sim.drained
