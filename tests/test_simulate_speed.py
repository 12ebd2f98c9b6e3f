"""The simulator's fast table path for hypercube-family networks is the same model (no timing here:
the speed figures come from `cubenoc simulate --bench-speed`)."""
import numpy as np
import pytest

from cubenoc.sim.cayley_tables import cayley_model
from cubenoc.sim.model.network import NetworkModel
from cubenoc.sim.model.stimulus import random_traffic
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.simulator import model_for
from cubenoc.sim.speed import measure, write_speed_section
from cubenoc.sim.topology.hypercube import EnhancedHypercube, Hypercube


@pytest.mark.parametrize("topo", [Hypercube(3), Hypercube(4), EnhancedHypercube(4, 0), EnhancedHypercube(5, 1),
                                  EnhancedHypercube(6, 2)])
def test_cayley_tables_equal_the_generic_model(topo):
    a = NetworkModel(topo)
    b = cayley_model(topo, EcubeRouting(topo))
    for name in ("link", "allowed", "nports"):
        assert (getattr(a.tables, name) == getattr(b.tables, name)).all(), name
    assert (a.tables.route == b.tables.route).all()
    # trace for trace on the cocotb bench's kind of traffic: random lengths, backpressure, bad destinations
    stim = random_traffic(topo.num_nodes, 25, 5, seed=7, mean_gap=1.5, p_ready=0.6, ready_cycles=4000,
                          p_bad_dest=0.05)
    ra, rb = a.run(stim), b.run(stim)
    assert ra.drained and rb.drained
    assert ra.trace_tuples() == rb.trace_tuples()
    assert (ra.counters == rb.counters).all()


def test_simulator_uses_the_fast_path_for_the_hypercube_family():
    model, label = model_for("hypercube:n=12")          # 4096 nodes: generic tables would walk 2^24 pairs
    assert label == "Hypercube(n=12)" and model.tables.route.strides[0] == 0
    m = measure("hypercube:n=5", 0.3, 200, repeat=1)
    assert m["nodes"] == 32 and m["cycles_per_s"] > 0


def test_speed_section_is_replaced_between_markers(tmp_path):
    page = tmp_path / "perf.md"
    page.write_text("# perf\n\nother text\n")
    write_speed_section(page, "first")
    write_speed_section(page, "second")
    text = page.read_text()
    assert text.count("<!-- simulate-speed:begin -->") == 1 and "second" in text and "first" not in text
    assert text.startswith("# perf\n\nother text\n")
