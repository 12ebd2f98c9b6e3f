"""The per-output-queue router in the model (sim/model/voq.py, the kernel's VOQ mode; docs/router.md
"Per-output queues (VOQ)"): its lookahead table is LookaheadVoqRouting's, it delivers every packet
whole and in order on every V = 1 unicast family, its source interface counts exactly as the
single-FIFO router's, and bad combinations get a one-line error."""
from __future__ import annotations

import numpy as np
import pytest

from cubenoc.sim.catalog import NetworkSpec
from cubenoc.sim.router_config import RouterConfig
from cubenoc.cli import main
from cubenoc.errors import CubenocError
from cubenoc.sim.model.check import delivery_problems
from cubenoc.sim.model.lookahead import LookaheadVoqRouting
from cubenoc.sim.model.network import NetworkModel
from cubenoc.sim.model.stimulus import StimulusBuilder, random_traffic
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.routing.metacube import MetacubeRouting
from cubenoc.sim.topology.hypercube import Hypercube
from cubenoc.sim.topology.metacube import Metacube
from cubenoc.sim.topology.pdn import PerfectDifferenceNetwork
from cubenoc.sim.network_plan import plan_of


#: one network of each family (catalog specs, docs/networks.md)
FAMILIES = [NetworkSpec.parse(s).build("model") for s in ("hypercube:n=4", "enhanced:n=4,k=1", "pdn:set=0,1,3,9",
                                                         "pdn:product=2,2", "hin:level1=bh:2,level2=cc:4")]


@pytest.mark.parametrize("topo,routing", FAMILIES, ids=[repr(t) for t, _ in FAMILIES])
def test_lookahead_table_is_the_next_routers_port(topo, routing):
    """vc[v, word] = the port the next router takes on the new header (LookaheadVoqRouting's Hop.vc)."""
    tb = NetworkModel(plan_of(topo, routing, RouterConfig(queues="voq"))).tables
    ahead = LookaheadVoqRouting(routing)
    assert tb.num_vcs == ahead.num_vcs == tb.max_ports
    checked = 0
    for v in range(topo.num_nodes):
        for word in np.nonzero(tb.route[v] >= 0)[0].tolist()[:64]:
            try:
                hop = ahead.route(v, routing.layout.unpack(word))
            except CubenocError:        # a word whose next hop no packet reaches (the model leaves 0 there)
                continue
            assert tb.vc[v, word] == hop.vc, (v, word)
            checked += 1
    assert checked > topo.num_nodes


@pytest.mark.parametrize("topo,routing", FAMILIES, ids=[repr(t) for t, _ in FAMILIES])
def test_voq_delivers_and_counts_as_the_fifo_router(topo, routing):
    """Saturating random traffic with ejection backpressure and bad destinations: every good packet
    arrives whole, in order, at its destination; injected/ejected/dropped/malformed equal the
    single-FIFO router's on the same stimulus (the source interface is the same unit)."""
    stim = random_traffic(topo.num_nodes, 25, 5, 3, mean_gap=1, p_ready=0.6, ready_cycles=6000, p_bad_dest=0.1)
    voq = NetworkModel(plan_of(topo, routing, RouterConfig(queues="voq"))).run(stim)
    fifo = NetworkModel(plan_of(topo, routing)).run(stim)
    assert voq.drained and not delivery_problems(voq)
    assert (voq.counters == fifo.counters).all()
    assert voq.counters[:, 2].sum() > 0


def test_voq_source_interface_on_malformed_input():
    """Body flits outside a packet are discarded (malformed), a head inside a packet loses its head bit
    and stays in the packet's queue (the first output's), as in the single-FIFO router."""
    topo = Hypercube(3)
    b = StimulusBuilder(8, seed=2)
    b.raw(0, [(0, 0, 5), (0, 1, 5)])                 # (head, tail, data): body, tail outside a packet
    b.raw(0, [(1, 0, 6), (1, 0, 6), (0, 1, 6)])      # a head inside a packet: malformed, forwarded
    b.packet(0, 3, 3, release=5)
    b.packet(0, 0, 2, release=5)                     # to itself: ejected at its own router (0 hops)
    stim = b.build()
    res = NetworkModel(plan_of(topo, None, RouterConfig(queues="voq"))).run(stim)
    ref = NetworkModel(plan_of(topo)).run(stim)
    assert (res.counters == ref.counters).all() and res.counters[0, 3] == 3
    assert (res.eject_cycle >= 0).sum() == (ref.eject_cycle >= 0).sum() == 3 + 3 + 2
    assert (res.tr_node == ref.tr_node).all()


def test_voq_refuses_what_it_does_not_build():
    q = Hypercube(3)
    with pytest.raises(CubenocError, match="queues must be one of"):
        NetworkModel(plan_of(q, None, RouterConfig(queues="vc")))
    mc = Metacube(1, 1)
    with pytest.raises(CubenocError, match="one-VC routing function"):
        NetworkModel(plan_of(mc, MetacubeRouting(mc), RouterConfig(queues="voq")))
    p = PerfectDifferenceNetwork((0, 1, 3))
    from cubenoc.sim.routing.pdn import AdaptivePDNRouting
    with pytest.raises(CubenocError, match="unicast oblivious"):
        NetworkModel(plan_of(p, AdaptivePDNRouting(p, hop_vcs=False, selection="availability"), RouterConfig(queues="voq")))
    from cubenoc.rtl.router import Router
    with pytest.raises(CubenocError, match="unicast oblivious"):
        Router(plan_of(q, EcubeRouting(q), RouterConfig(faults=True, queues="voq")), 0)


def test_bench_throughput_json_rows(capsys):
    """`cubenoc bench throughput --json`: a row per (network, option, packet length) with the option's
    verifying test; per-output queues beat the single FIFO at full load."""
    import json
    assert main(["bench", "throughput", "--n", "3", "--k", "0", "--loads", "1.0", "--window", "1000",
                 "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 2 * 2 * 2
    by = {(r["network"], r["queues"], r["packet_len"]): r for r in rows}
    for (net, q, L), r in by.items():
        assert r["verified"] and r["verified_by"].startswith("tests/test_cocotb_")
        if q == "voq":
            assert r["saturation"] > by[net, "fifo", L]["saturation"] + 0.03
    assert main(["bench", "throughput", "--n", "3", "--loads", "1.5"]) == 2


def test_throughput_options_name_the_test_that_verifies_them():
    from pathlib import Path

    from cubenoc.sim.model.perf import ROUTER_OPTIONS
    root = Path(__file__).resolve().parent.parent
    for q, (_label, test) in ROUTER_OPTIONS.items():
        text = (root / test).read_text()
        assert "verify_network(" in text or "check_network_option(" in text     # (tests/network_checks.py)
        assert (f'queues="{q}"' in text or (q == "pipe" and "pipeline=True" in text)) == (q != "fifo")


def test_cli_queues_flag(tmp_path, capsys):
    """--queues voq on generate (the Verilog and its description say so), simulate (the model's VOQ mode)
    and synth-report (the VOQ router's shapes); unsupported combinations exit 2 with one line."""
    import json
    assert main(["generate", "hypercube", "--n", "2", "--queues", "voq", "-o", str(tmp_path)]) == 0
    desc = json.loads((tmp_path / "cubenoc_hypercube_n2.json").read_text())
    assert desc["queues"] == "voq" and any(f["name"] == "vc" for f in desc["link_flit"])
    assert "in_p0__ready" in (tmp_path / "cubenoc_hypercube_n2_router0.v").read_text()
    capsys.readouterr()
    assert main(["simulate", "enhanced", "--n", "4", "--k", "0", "--queues", "voq", "--rate", "0.9", "--json",
                 "--quiet"]) == 0
    row = json.loads(capsys.readouterr().out)
    row = row[0] if isinstance(row, list) else row
    assert "voq" in json.dumps(row)
    assert main(["synth-report", "--family", "hypercube", "--n", "3", "--queues", "voq", "--list"]) == 0
    assert "P=4 V=4 (8 nodes" in capsys.readouterr().out
    for bad in (["generate", "metacube", "--k", "1", "--m", "1", "--queues", "voq", "-o", str(tmp_path)],
                ["generate", "hypercube", "--n", "2", "--broadcast", "--queues", "voq", "-o", str(tmp_path)],
                ["simulate", "pdn", "--set", "0,1,3", "--routing", "availability", "--queues", "voq", "--rate", "0.1"]):
        assert main(bad) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "queues" in err, err
