"""The benchmark measurements on the model (figures themselves come from `cubenoc bench`, not tests)."""
from __future__ import annotations

from cubenoc.sim.router_config import RouterConfig
from cubenoc.cli import main
from cubenoc.sim.model import perf
from cubenoc.sim.model.network import NetworkModel
from cubenoc.sim.topology.hypercube import EnhancedHypercube, Hypercube
from cubenoc.sim.network_plan import plan_of


def test_zero_load_latency_fit_is_one_cycle_per_hop():
    z = perf.zero_load_latency(NetworkModel(plan_of(EnhancedHypercube(4, 1))), packet_len=3)
    assert abs(z.per_hop - 1) < 1e-9 and abs(z.overhead - 1) < 1e-9
    assert (z.tail_latency - z.head_latency == 2).all()
    assert z.hops.max() == EnhancedHypercube(4, 1).diameter()


def test_throughput_below_offered_and_saturates():
    model = NetworkModel(plan_of(Hypercube(4)))
    low, high = perf.saturation_sweep(model, 2, [0.1, 1.0], warmup=500, window=2000)
    assert abs(low.accepted - 0.1) < 0.02 and low.delivered_fraction == 1.0
    assert high.accepted < 1.0 and high.latency > 10 * low.latency
    assert perf.saturation_throughput([low, high]) == high.accepted


def test_bench_write_section(tmp_path, capsys):
    page = tmp_path / "perf.md"
    page.write_text("# Performance\n")
    assert main(["bench", "latency", "--n", "3", "--k", "0", "--write", str(page)]) == 0
    text = page.read_text()
    assert "<!-- bench latency: begin -->" in text and "| Hypercube(n=3) | 3 | 4.00 | 7.00 |" in text
    assert main(["bench", "latency", "--n", "3", "--k", "0", "--write", str(page)]) == 0
    assert page.read_text().count("bench latency: begin") == 1


def VoqModel(topo, depth=4):
    return NetworkModel(plan_of(topo, None, RouterConfig(fifo_depth=depth, queues="voq")))


def test_voq_keeps_one_cycle_per_hop_and_beats_head_of_line_blocking():
    from cubenoc.sim.model.stimulus import StimulusBuilder
    topo = Hypercube(5)
    b = StimulusBuilder(32, seed=1)
    for j, d in enumerate([31, 1, 0, 6]):
        b.packet(0, d, 3, release=20 * j)
    res = VoqModel(topo).run(b.build(), cycles=100)
    first = res.stimulus.pkt_first
    assert (res.eject_cycle[first] - res.accept_cycle[first]).tolist() == [6, 2, 1, 3]
    v1 = perf.load_point(NetworkModel(plan_of(topo)), 1.0, 1, warmup=500, window=2000)
    voq = perf.load_point(VoqModel(topo), 1.0, 1, warmup=500, window=2000)
    assert voq.accepted > v1.accepted + 0.05


def test_voq_delivers_every_flit_in_order():
    from cubenoc.sim.model.stimulus import bernoulli_traffic
    stim = bernoulli_traffic(16, 0.4, 3, 3000, seed=4)
    res = VoqModel(EnhancedHypercube(4, 0), depth=2).run(stim, cycles=4000)
    assert (res.eject_cycle >= 0).all()
    ej = res.eject_cycle.reshape(-1, 3)
    assert (ej[:, 1] > ej[:, 0]).all() and (ej[:, 2] > ej[:, 1]).all()
    assert res.counters[:, 0].sum() == res.counters[:, 1].sum() == stim.num_packets
