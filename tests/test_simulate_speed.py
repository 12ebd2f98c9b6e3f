"""The simulator's fast table path for hypercube-family networks is the same model (no timing here:
the speed figures come from `cubenoc bench sim-speed`)."""
import numpy as np
import pytest

from cubenoc.errors import CubenocError

from cubenoc.sim.symmetric_tables import symmetric_model
from cubenoc.sim.model.network import NetworkModel
from cubenoc.sim.model.stimulus import random_traffic
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.routing.metacube import MetacubeRouting
from cubenoc.sim.topology.metacube import Metacube
from cubenoc.sim.simulator import model_for
from cubenoc.sim.speed import measure
from cubenoc.sim.topology.hypercube import EnhancedHypercube, Hypercube
from cubenoc.sim.routing.hierarchical import BalancedHierarchicalRouting, HierarchicalRouting
from cubenoc.sim.symmetric_tables import symmetry_of
from cubenoc.sim.topology.hierarchical import CubeConnectedCycles, Hierarchical, Ring
from cubenoc.sim.network_plan import plan_of


@pytest.mark.parametrize("topo, routing", [
    (t, EcubeRouting(t)) for t in (Hypercube(3), Hypercube(4), EnhancedHypercube(4, 0), EnhancedHypercube(5, 1),
                                   EnhancedHypercube(6, 2))] + [
    (t, MetacubeRouting(t, shortest=s)) for t in (Metacube(1, 1), Metacube(1, 2), Metacube(2, 1))
    for s in (False, True)] + [
    # BH/BH (Dandamudi and Eager): one orbit per node position, the interface node with more ports
    (t, HierarchicalRouting(t)) for t in (Hierarchical(Hypercube(2), Hypercube(2)), Hierarchical(Hypercube(2), Hypercube(3), replication=2),
                                          Hierarchical(Hypercube(3), Hypercube(2), replication=3))] + [
    # BH/CCC: one orbit per (node position, cycle position), 3 VCs, the dateline state in the header
    (t, HierarchicalRouting(t)) for t in (Hierarchical(Hypercube(2), CubeConnectedCycles(2)),
                                          Hierarchical(Hypercube(2), CubeConnectedCycles(2), replication=3),
                                          Hierarchical(Hypercube(1), CubeConnectedCycles(4), replication=2))][:-1] + [
    pytest.param(t, HierarchicalRouting(t), marks=pytest.mark.slow)     # 96 nodes, 3 VCs: a compile of its own
    for t in (Hierarchical(Hypercube(1), CubeConnectedCycles(4), replication=2),)])
def test_symmetric_tables_equal_the_generic_model(topo, routing):
    a = NetworkModel(plan_of(topo, routing))
    b = symmetric_model(plan_of(topo, routing))
    for name in ("link", "allowed", "nports"):
        assert (getattr(a.tables, name) == getattr(b.tables, name)).all(), name
    # every node's row, read through the orbit's shared row and the XOR, is the generic row
    nodes = np.repeat(np.arange(topo.num_nodes), 1 << a.tables.route_width)
    words = np.tile(np.arange(1 << a.tables.route_width), topo.num_nodes)
    ea, eb = a.tables.lookup(nodes, words), b.tables.lookup(nodes, words)
    defined = ea >= 0                     # a word no packet carries may be left undefined by either side
    assert (ea[defined & (eb >= 0)] == eb[defined & (eb >= 0)]).all()
    assert b.tables.route.shape[0] < topo.num_nodes
    # trace for trace on the cocotb bench's kind of traffic: random lengths, backpressure, bad destinations
    stim = random_traffic(topo.num_nodes, 25, 5, seed=7, mean_gap=1.5, p_ready=0.6, ready_cycles=4000,
                          p_bad_dest=0.05)
    ra, rb = a.run(stim), b.run(stim)
    assert ra.drained and rb.drained
    assert ra.trace_tuples() == rb.trace_tuples()
    assert (ra.counters == rb.counters).all()


def test_hin_symmetry_only_where_it_holds():
    """The cluster-XOR translation is used only where it holds: BH/BH and BH/CCC (D_c a power of two)
    with e-cube HIN routing; the Sec. IV-B routing clears before setting (absolute bits), a ring is not
    XOR-symmetric, and CCC(3)'s cycle address is not a bit field of the node number."""
    t = Hierarchical(Hypercube(2), Hypercube(2))
    assert symmetry_of(t, HierarchicalRouting(t)).translation_mask == 0b1100
    # node = (w * D_c + i) * 4 + x: x bits 0-1, the cycle position i above, the cycle address w on top
    for dc, mask in ((2, 0b11000), (4, 0b11110000)):
        ccc = Hierarchical(Hypercube(2), CubeConnectedCycles(dc))
        assert symmetry_of(ccc, HierarchicalRouting(ccc)).translation_mask == mask
    ccc3 = Hierarchical(Hypercube(2), CubeConnectedCycles(3))
    assert symmetry_of(ccc3, HierarchicalRouting(ccc3)) is None
    assert symmetry_of(t, BalancedHierarchicalRouting(t)) is None
    br = Hierarchical(Hypercube(2), Ring(4))
    assert symmetry_of(br, HierarchicalRouting(br)) is None
    # an interface router with 1 + 8 x 8 + 1 ports is beyond the model's 62-bit port masks: one error
    wide = Hierarchical(Hypercube(1), Hypercube(8), replication=8)
    with pytest.raises(CubenocError, match="up to 61 network ports"):
        symmetric_model(plan_of(wide, HierarchicalRouting(wide)))


@pytest.mark.parametrize("topo", [Hierarchical(Hypercube(2), CubeConnectedCycles(2), replication=3),
                                  Hierarchical(Hypercube(2), CubeConnectedCycles(3)),
                                  Hierarchical(Hypercube(2), Hypercube(3), replication=2), Hierarchical(Hypercube(2), Ring(4))])
@pytest.mark.parametrize("kind", [HierarchicalRouting, BalancedHierarchicalRouting,
                                  lambda t: HierarchicalRouting(t, use_vcs=False)])
def test_hin_route_row_is_route_on_every_word(topo, kind):
    """The whole-row route of the HIN routing (the symmetric tables' builder) is ``route()`` word by
    word, on every word whose fields are in range; the other words are left undefined."""
    routing = kind(topo)
    layout = routing.layout
    for node in topo.nodes():
        port, new, vc = routing.route_row(node)
        for word in range(1 << layout.width):
            h = layout.unpack(word)
            if h["dest_cluster"] >= topo.num_clusters or h.get("l2_state", 0) >= 3 or h.get("lane", 0) >= topo.replication:
                continue
            hop = routing.route(node, h)
            assert (port[word], new[word]) == (hop.port, layout.pack(hop.header)), (node, h)
            if hop.port != topo.local_port(node):
                assert vc[word] == hop.vc


def test_simulator_uses_the_fast_path_for_the_hypercube_family():
    model, label = model_for("hypercube:n=12")          # 4096 nodes: generic tables would walk 2^24 pairs
    assert label == "Hypercube(n=12)" and model.tables.route.shape[0] == 1
    m = measure("hypercube:n=5", 0.3, 200, repeat=1)
    assert m["nodes"] == 32 and m["cycles_per_s"] > 0


def test_the_traffic_generators_import_no_compiler():
    """The traffic generators and the stimulus do not import numba; the model's compiled kernel comes with
    :class:`NetworkModel` (what each command loads at start-up: tests/test_structure.py ``STARTUP``)."""
    import subprocess
    import sys
    code = ("import sys\n"
            "import cubenoc.sim.traffic, cubenoc.sim.model.stimulus\n"
            "print('numba' in sys.modules)\n"
            "from cubenoc.sim.model.network import NetworkModel\n"
            "print('numba' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True"]


def test_a_compile_is_said_and_the_bar_never_stands_still(monkeypatch, capsys):
    """While numba compiles a cycle loop (a kernel shape's first run, whatever the cache holds for others)
    the sweep says so once, the bar shows the seconds, and the caller is told to leave it out of the ETA;
    while nothing compiles the bar is redrawn each second (no silence over 5 s)."""
    import time

    from cubenoc.sim import simulator as S
    from cubenoc.sim.model import kernel

    class Loop:                                  # a cycle loop numba is compiling
        _compiling_counter = True
    monkeypatch.setattr(kernel, "run_testshape", Loop, raising=False)

    class Bar:
        def __init__(self):
            self.postfix, self.refreshes = [], 0

        def set_postfix_str(self, s):
            self.postfix.append(s)

        def refresh(self):
            self.refreshes += 1
    bar = Bar()
    with S.CompileWatch(bar) as watch:
        watch.point("Q @ 0.1")
        time.sleep(2.5)
        Loop._compiling_counter = False
        time.sleep(2.2)
    assert any("compiling the cycle loop" in p for p in bar.postfix) and bar.postfix[-1] == "Q @ 0.1"
    assert watch.compiled() and not watch.compiled()
    assert bar.refreshes >= 1
    assert capsys.readouterr().err.count("compiling the model's cycle loop") == 1
