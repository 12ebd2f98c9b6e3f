"""The network simulator: traffic patterns, methodology, saturation detector, CLI."""
import math
import re

import numpy as np
import pytest

from cubenoc.cli import main
from cubenoc.errors import CubenocError
from cubenoc.sim import simulator as S
from cubenoc.sim import traffic as T
from cubenoc.sim.analysis.enhanced_formulas import phi
from cubenoc.sim.model.network import NetworkModel
from cubenoc.sim.model.perf import zero_load_latency
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.topology.hierarchical import hierarchical_from_spec
from cubenoc.sim.topology.hypercube import EnhancedHypercube, Hypercube
from cubenoc.sim.network_plan import plan_of

FAST = dict(warmup=300, measure=2000, drain=2000)


# ---- traffic ------------------------------------------------------------------------------------------
def test_locality_pattern_follows_eq_2():
    n, g = 6, 2.0
    rng = np.random.default_rng(3)
    src = rng.integers(0, 64, size=200_000)
    dst = T.make_pattern("locality", Hypercube(n), g=g)(src, rng)
    dist = np.bincount([int(x).bit_count() for x in (src ^ dst)], minlength=n + 1) / src.size
    expect = np.array([0.0] + [phi(n, g, l) for l in range(1, n + 1)])
    assert np.abs(dist - expect).max() < 0.005
    # within a distance class every node is equally likely: class 1 splits evenly over the n dimensions
    one = (src ^ dst)[[int(x).bit_count() == 1 for x in (src ^ dst)]]
    share = np.bincount(np.log2(one).astype(int), minlength=n) / one.size
    assert np.abs(share - 1 / n).max() < 0.01


def test_alpha_and_permutation_patterns():
    rng = np.random.default_rng(1)
    topo = hierarchical_from_spec("bh:3", "bh:2")                  # 4 clusters of 8
    src = rng.integers(0, 32, size=100_000)
    dst = T.make_pattern("alpha", topo, alpha=0.7)(src, rng)
    same = dst // 8 == src // 8
    assert abs(same.mean() - 0.7) < 0.01
    assert abs((dst[same] == src[same]).mean() - 1 / 8) < 0.01    # self allowed inside the cluster (Sec. III-A)
    q = Hypercube(6)
    allsrc = np.arange(64)
    for name in ("bitcomp", "transpose", "bitrev"):
        d = T.make_pattern(name, q)(allsrc, rng)
        assert sorted(d.tolist()) == list(range(64)), name        # a permutation
    assert T.make_pattern("transpose", q)(np.array([0b000111]), rng)[0] == 0b111000
    assert T.make_pattern("bitrev", q)(np.array([0b000011]), rng)[0] == 0b110000
    d = T.make_pattern("neighbor", EnhancedHypercube(5, 1))(np.repeat(np.arange(32), 50), rng)
    assert all(EnhancedHypercube(5, 1).distances_from(s)[t] == 1 for s, t in zip(np.repeat(np.arange(32), 50), d))
    hot = T.make_pattern("hotspot", q, hotspot=5, fraction=0.3)(src % 64, rng)
    assert abs((hot == 5).mean() - 0.3 - 0.7 / 63) < 0.01
    with pytest.raises(CubenocError, match="power-of-two"):
        T.make_pattern("bitcomp", hierarchical_from_spec("bh:2", "cc:3"))
    with pytest.raises(CubenocError, match="needs clusters"):
        T.make_pattern("alpha", q)


def test_length_distributions_and_injection_rate():
    rng = np.random.default_rng(2)
    for text, mean in (("4", 4), ("uniform:2:6", 4), ("exp:8:64", T.LengthDist.parse("exp:8:64").mean)):
        L = T.LengthDist.parse(text)
        assert abs(L.sample(200_000, rng).mean() - mean) < 0.05 * mean
    assert abs(T.LengthDist.parse("exp:8").mean - 8) < 1e-3
    stim = T.generate(64, T.make_pattern("uniform", Hypercube(6)), 0.4, T.LengthDist.parse("uniform:1:7"), 5000, 1)
    assert abs(stim.num_flits / (64 * 5000) - 0.4) < 0.01
    assert (stim.pkt_src != stim.pkt_dst).all()
    assert (np.diff(stim.release[stim.node_start[5]:stim.node_start[6]]) >= 0).all()
    for bad in ("0", "uniform:3:2", "exp:0.5", "poisson:3"):
        with pytest.raises(CubenocError, match="packet length"):
            T.LengthDist.parse(bad)


# ---- methodology -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec,topo,L", [("hypercube:n=4", Hypercube(4), 1), ("enhanced:n=5,k=1", EnhancedHypercube(5, 1), 4)])
def test_low_load_latency_equals_zero_load_figure(spec, topo, L):
    """At 1 % load the mean packet latency is the router benchmark's zero-load latency (perf.py) averaged
    over the uniform pair distribution: head latency h + 1 plus L - 1 for the tail."""
    z = zero_load_latency(NetworkModel(plan_of(topo)), packet_len=L)
    routing = EcubeRouting(topo)
    n = topo.num_nodes
    hops = np.array([routing.hops(s, d) for s in range(n) for d in range(n) if d != s])
    by_h = dict(zip(z.hops.tolist(), z.tail_latency.tolist()))
    expect = float(np.mean([by_h[h] for h in hops.tolist()]))
    p = S.simulate_point(spec, 0.01, S.SimConfig(length=str(L), warmup=200, measure=20000, drain=2000))
    assert not p.saturated
    assert abs(p.hops_mean - hops.mean()) < 0.03 * hops.mean()
    assert abs(p.latency_mean - expect) < 0.015 * expect, (p.latency_mean, expect)
    assert p.latency_p50 == pytest.approx(round(float(np.median([by_h[h] for h in hops.tolist()]))), abs=1)


def test_throughput_never_exceeds_offered_and_detector_stops_the_sweep():
    loads = [0.1, 0.3, 0.5, 0.7, 0.9, 1.0]
    res = S.sweep(["hypercube:n=4"], loads, S.SimConfig(**FAST), progress=False)
    assert res[-1].saturated and len(res) < len(loads) + 1
    for p in res:
        if not p.saturated:
            assert p.accepted <= p.offered_measured * 1.01 + 0.002
            assert abs(p.accepted - p.offered) < 0.05 * p.offered      # below saturation: all accepted
            assert p.link_util_max <= 1.0
    assert "source queues" in res[-1].message


def test_saturation_detector_rules():
    cfg = S.SimConfig(warmup=300, measure=4000, drain=4000)
    p = S.simulate_point("hypercube:n=4", 1.0, S.SimConfig(**{**cfg.__dict__, "traffic": "hotspot",
                                                                "traffic_args": {"fraction": 0.5}}))
    assert p.saturated and p.cycles < cfg.warmup + cfg.measure        # stopped early, cleanly
    assert "source queues" in p.message
    q = S.simulate_point("hypercube:n=4", 0.3, S.SimConfig(warmup=100, measure=500, drain=1))
    assert q.saturated and "undelivered" in q.message                    # the drain rule
    ok = S.simulate_point("hypercube:n=4", 0.3, S.SimConfig(warmup=100, measure=500, drain=500))
    assert not ok.saturated


def test_no_drain_reports_the_window_without_latency_and_no_saturation():
    """--drain 0: the measured packets still in flight when the window closes cannot arrive; the point
    gives the window's accepted load and link figures, no latency, and says why (not "saturated"); a
    sweep goes on past it."""
    cfg = S.SimConfig(warmup=100, measure=500, drain=0)
    p = S.simulate_point("hypercube:n=4", 0.3, cfg)
    full = S.simulate_point("hypercube:n=4", 0.3, S.SimConfig(warmup=100, measure=500, drain=500))
    assert not p.saturated and "no drain" in p.message and "--drain CYCLES" in p.message
    assert p.accepted == full.accepted and p.link_util_max == full.link_util_max   # the same window
    assert np.isnan(p.latency_mean) and p.packets == 0 and not np.isnan(full.latency_mean)
    assert p.hops_mean == full.hops_mean                                   # known at creation
    text = S.text_table([p])
    assert "saturated" not in text and "no drain" in text and "nan" not in text
    assert [q.offered for q in S.sweep(["hypercube:n=4"], [0.1, 0.2], cfg, progress=False)] == [0.1, 0.2]


def test_link_utilisation_per_port_places_each_flit_on_its_link(tmp_path):
    """A trace that sends a flit from node 0 to node 1 every cycle of Q_3: only node 0's dimension-0 link
    carries flits (one per cycle), so port 0's busiest link is busy every cycle, its mean over the 8 nodes
    an eighth of that, and ports 1 and 2 idle."""
    path = tmp_path / "one.csv"
    path.write_text("cycle,source,destination,length\n" + "".join(f"{t},0,1,1\n" for t in range(1000)))
    p = S.simulate_point("hypercube:n=3", None, S.SimConfig(warmup=0, measure=1000, drain=100), trace=str(path))
    assert not p.saturated and p.packets == 1000
    assert p.util_max_by_port[0] >= 0.99 and p.util_max_by_port[1:] == [0.0, 0.0]
    assert p.util_by_port[0] == pytest.approx(p.util_max_by_port[0] / 8) and p.util_by_port[1:] == [0.0, 0.0]
    assert p.link_util_max == p.util_max_by_port[0] and p.link_util_mean == pytest.approx(p.util_by_port[0] / 3)


def test_reproducible_for_a_fixed_seed():
    cfg = S.SimConfig(length="uniform:1:4", traffic="bitrev", **FAST)
    a = S.simulate_point("enhanced:n=4,k=0", 0.4, cfg).row()
    b = S.simulate_point("enhanced:n=4,k=0", 0.4, cfg).row()
    c = S.simulate_point("enhanced:n=4,k=0", 0.4, S.SimConfig(**{**cfg.__dict__, "seed": 2})).row()
    assert a == b
    assert a != c


def test_dask_sweep_equals_sequential():
    # dask is an optional extra of the default install and part of the test extra
    from dask.distributed import LocalCluster
    loads = [0.2, 0.6]
    cfg = S.SimConfig(**FAST)
    seq = S.sweep(["hypercube:n=3", "enhanced:n=3,k=0"], loads, cfg, progress=False)
    with LocalCluster(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as cl:
        par = S.sweep(["hypercube:n=3", "enhanced:n=3,k=0"], loads, cfg, progress=False, dask=cl.scheduler_address)
    assert [p.row() for p in par] == [p.row() for p in seq]


@pytest.mark.parametrize("address", ["nonsense", "tcp://127.0.0.1:x", "tcp://127.0.0.1:9"])
def test_bad_scheduler_is_a_clear_error(monkeypatch, address):
    """An address Dask cannot parse, or one where no scheduler answers (port 9: nothing listens; the wait
    cut to 1 s here), is a one-line error naming the address, not a traceback."""
    monkeypatch.setattr(S, "SCHEDULER_TIMEOUT", 1)
    with pytest.raises(CubenocError, match=rf"--scheduler {re.escape(address)}: cannot reach a Dask scheduler"):
        S.sweep(["hypercube:n=3"], [0.1, 0.2], S.SimConfig(**FAST), progress=False, dask=address)


def test_dask_missing_is_a_clear_error(monkeypatch):
    import builtins
    real = builtins.__import__

    def fake(name, *a, **kw):
        if name.startswith("dask"):
            raise ImportError(name)
        return real(name, *a, **kw)
    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(CubenocError, match=r"pip install .\.\[dask\]. in the cubenoc folder"):
        S.sweep(["hypercube:n=3"], [0.1], S.SimConfig(**FAST), progress=False, dask=True)


def test_vc_families_and_routing_options_build():
    """Metacube (2 VCs) and BH/CCC (3 VCs) run now that the model has virtual channels; with a
    one-VC model the simulator refuses them with one clear error instead of a wrong answer."""
    from cubenoc.sim.routing.metacube import MetacubeRouting
    from cubenoc.sim.topology.metacube import Metacube
    p = S.simulate_point("metacube:k=1,m=2", 0.02, S.SimConfig(warmup=100, measure=4000, drain=2000))
    r = MetacubeRouting(Metacube(1, 2))
    n = r.topology.num_nodes
    hops = np.mean([r.hops(s, d) for s in range(n) for d in range(n) if d != s])
    assert not p.saturated and p.hops_mean == pytest.approx(hops, rel=0.03)
    assert p.latency_mean == pytest.approx(hops + 1, rel=0.03)           # h + 1 at zero load, 1-flit packets
    assert S.build_network("hin:d=2,level2=ccc,size=2")[1].num_vcs == 3
    assert S.build_network("pdn:set=0,1,3,9")[2] == "PerfectDifferenceNetwork(set='0,1,3,9')"   # Algorithm 1
    assert S.build_network("pdn:set=0,1,3,9,routing=availability")[2].endswith(" availability")
    with pytest.raises(CubenocError, match="pdn routing must be"):
        S.build_network("pdn:set=0,1,3,9,routing=fastest")


def test_parse_sweep():
    assert S.parse_sweep("0.05:0.95:0.05") == pytest.approx([0.05 * i for i in range(1, 20)])
    for bad in ("0.1:0.5", "0.5:0.1:0.1", "0:0.5:0.1", "0.5:1.5:0.5"):
        with pytest.raises(CubenocError):
            S.parse_sweep(bad)


# ---- CLI ---------------------------------------------------------------------------------------------------
def test_cli_sweep_writes_plot_and_csv(tmp_path, capsys):
    png = tmp_path / "lat.png"
    rc = main(["simulate", "enhanced", "--n", "4", "--k", "0", "--traffic", "uniform", "--sweep", "0.2:0.6:0.2",
               "--measure", "1000", "--warmup", "200", "--plot", str(png), "--quiet",
               "--compare", "hypercube:n=4", "pdn:set=0,1,3,9"])
    assert rc == 0
    assert png.stat().st_size > 10_000 and png.read_bytes()[:4] == b"\x89PNG"
    rows = (tmp_path / "lat.csv").read_text().splitlines()
    assert len(rows) == 1 + 3 * 3 and rows[0].startswith("network,traffic,length,offered")
    out = capsys.readouterr().out
    assert "PerfectDifferenceNetwork" in out and "EnhancedHypercube(n=4, k=0)" in out


@pytest.mark.parametrize("argv,msg", [
    (["simulate", "--compare", "torus:n=3"], "unknown network 'torus:n=3': a spec is FAMILY:key=value"),
    (["simulate", "hypercube", "--n", "4", "--rate", "1.5"], "offered load must be in (0, 1]"),
    (["simulate", "metacube", "--k", "9", "--m", "2"], "k (class bits) must be in 1..4"),
    (["simulate", "enhanced", "--n", "4", "--k", "7"], "k must be"),
    (["simulate", "hypercube", "--n", "4", "--traffic", "zipf"], "traffic must be one of"),
    (["simulate", "--compare", "enhanced:n=4,q=1"], "takes parameters"),
    (["simulate"], "give a network family"),
])
def test_cli_bad_input_is_one_line_exit_2(argv, msg, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("cubenoc: error:") and msg in err[0]


def test_cli_json(capsys):
    import json
    assert main(["simulate", "hypercube", "--n", "3", "--rate", "0.2", "--measure", "500", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data[0]["offered"] == 0.2 and math.isclose(data[0]["hops_mean"], 12 / 7, rel_tol=0.05)


def test_link_counters_count_every_flit_on_every_hop():
    """The kernel's per-link counters (the simulator's utilisation) = flits x hops over the routes."""
    from cubenoc.sim.model.stimulus import random_traffic
    topo = EnhancedHypercube(4, 1)
    model = NetworkModel(plan_of(topo))
    stim = random_traffic(topo.num_nodes, 20, 4, seed=5, mean_gap=1.0, p_ready=0.7, ready_cycles=3000)
    sim = model.start(stim)
    sim.advance(100_000, stop_when_drained=True)
    assert sim.drained
    _, ch, owner = S.walk_routes(model, sim.s_route[stim.pkt_first], stim.pkt_src)
    expect = np.bincount(ch, weights=stim.pkt_len[owner], minlength=sim.link_flits.size)
    assert (sim.link_flits == expect).all() and sim.link_flits.sum() > 0


def test_link_counters_past_the_loops_16_bit_span():
    """The loop counts each output's flits in 16 bits for at most SENT_SPAN cycles, then folds them into
    int64: two nodes sending every cycle for 70,000 cycles put more than 2**16 flits on each link."""
    from cubenoc.sim.model.simulation import SENT_SPAN
    from cubenoc.sim.model.stimulus import bernoulli_traffic
    cycles = 70_000
    assert 2 * SENT_SPAN < cycles and cycles > 1 << 16
    model = NetworkModel(plan_of(Hypercube(1)))
    sim = model.start(bernoulli_traffic(2, 1.0, 1, cycles, seed=1))
    sim.advance(cycles - 5)
    sim.advance(3 * cycles, stop_when_drained=True)       # another call, ending early once drained
    assert sim.drained and sim.cycle < 2 * cycles
    P = model.tables.max_ports
    assert sim.link_flits.dtype == np.int64
    assert sim.link_flits[0 * P + 0] == sim.link_flits[1 * P + 0] == cycles   # one flit per cycle each way
    assert (sim.counters[:, 1] == cycles).all()                            # and every one ejected


def test_log_axis_ticks_read_as_plain_numbers():
    """The latency plot's log axis: ticks like 2, 5, 10, 20, 50, 100, never 4x10^0 or 10^2."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from cubenoc.sim.analysis.report import log_axis
    fig, ax = plt.subplots()
    ax.plot([0.1, 0.5, 0.9], [2.5, 9.0, 140.0])
    log_axis(ax, "y")
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.yaxis.get_majorticklabels() + ax.yaxis.get_minorticklabels()]
    plt.close(fig)
    shown = [t for t in labels if t]
    assert "10" in shown and "100" in shown and "5" in shown and "20" in shown
    assert all(t.replace(".", "").isdigit() for t in shown), shown


def test_the_comparison_plot_labels_each_saturation_line(tmp_path, monkeypatch):
    import matplotlib.axes
    from cubenoc.sim.simulator import PointResult, plot_latency
    labels = []
    real = matplotlib.axes.Axes.axvline
    monkeypatch.setattr(matplotlib.axes.Axes, "axvline",
                        lambda self, *a, **k: labels.append(k.get("label")) or real(self, *a, **k))
    pts = [PointResult(net, "uniform", "1", r, r, r if r < 0.6 else 0.5, r >= 0.6, "ok", latency_mean=3.0 + r)
           for net in ("Q(4)", "Q(4, 0)") for r in (0.2, 0.4, 0.6)]
    plot_latency(pts, tmp_path / "p.png")
    assert labels == ["Q(4): saturated at 0.6", "Q(4, 0): saturated at 0.6"]
