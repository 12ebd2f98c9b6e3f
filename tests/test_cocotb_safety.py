"""cocotb (Verilator) on whole SafetyNetworks: fault inputs switched at run time, levels sampled every
cycle and compared with sim/safety.py (Wu).

* 4-cube, all four models (SL(1), SL(2), DSL(1), DSL(2)): every set of up to 3 faults (nodes, links and
  mixed: 18,472 sets) one after another in one run. Per set: switched on the settled network, every
  cycle's levels min(., r + d) are final and everything (levels, ADSL, partition order, GSL) equals
  ``compute`` from the paper's round bound on; then after a restart (one reset cycle) cycle r equals
  Python's round r exactly.
* 5-cube, SL(1) and DSL(1) with its adjustment and GSL: random node, link and mixed sets, same checks
  (``@slow``: the 4-cube run is every model at the smallest size).
"""
import pytest

from cubenoc.sim.safety import MODELS
from cubenoc.tb.safety.expect import all_fault_sets, check, random_fault_sets, schedule, settle_bound
from cubenoc.tb.safety.runner import build_safety, run_safety


def _verify(n, models, NF, LF):
    design = build_safety(n, models)
    obs = run_safety(design, schedule(NF, LF, n))
    problems, settle = check(obs, NF, LF, models, n)
    assert not problems, "\n".join(problems[:20])
    return settle


def test_q4_every_fault_set_up_to_3():
    NF, LF = all_fault_sets(4, 3)
    assert len(NF) == 1 + 48 + 48 * 47 // 2 + 48 * 47 * 46 // 6
    settle = _verify(4, MODELS, NF, LF)
    # within the paper's bounds, and some fault set needs all of it (the bound is tight)
    assert settle == {m: settle_bound(m, 4) for m in MODELS}


@pytest.mark.slow
def test_q5_random_fault_sets():
    NF, LF = random_fault_sets(5, 900, 10, seed=5)
    models = ("SL1", "DSL1")
    settle = _verify(5, models, NF, LF)
    assert all(settle[m] <= settle_bound(m, 5) for m in models)
