"""Large networks: streamed runs (memory flat in the run length), the table-free e-cube model for 2^20 nodes,
trace-driven traffic and the Dask sweep."""
import numpy as np
import pytest

from cubenoc.sim.router_config import RouterConfig
from cubenoc.sim import simulator as S
from cubenoc.sim import traffic as T
from cubenoc.sim.model.ecube import ecube_model
from cubenoc.sim.model.stream import hist_percentile
from cubenoc.sim.model.tables import build_tables, ecube_inject
from cubenoc.sim.model.network import allowed_of
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.topology.hypercube import EnhancedHypercube, Hypercube
from cubenoc.sim.network_plan import plan_of


def _upfront(spec, rate, cfg):
    """The reference: every packet generated up front (generate), the model run on the whole stimulus,
    the figures computed from the per-flit cycles (what simulate_point did before the streamed runs)."""
    model, _ = S.model_for(spec, cfg.router)
    N, W, M = model.num_nodes, cfg.warmup, cfg.measure
    stim = T.generate(N, T.make_pattern(cfg.traffic, model.topology), rate, T.LengthDist.parse(cfg.length),
                      W + M + cfg.drain, cfg.seed)
    sim = model.start(stim)
    sim.advance(W)
    at_w = sim.link_flits.copy()
    sim.advance(M)
    util = (sim.link_flits - at_w) / M
    sim.advance(cfg.drain)
    ej = sim.eject_cycle
    meas = np.nonzero((stim.pkt_release >= W) & (stim.pkt_release < W + M))[0]
    last = stim.pkt_first[meas] + stim.pkt_len[meas] - 1
    assert (ej[last] >= 0).all()
    lat = ej[last] - stim.pkt_release[meas]
    hops = S.walk_routes(model, sim.s_route[stim.pkt_first[meas]], stim.pkt_src[meas])[0]
    return dict(accepted=((ej >= W) & (ej < W + M)).sum() / (N * M), packets=meas.size, latency_mean=lat.mean(),
                pct=list(np.percentile(lat, [50, 95, 99])), link_util_max=util[model.tables.link >= 0].max(),
                hops_mean=hops.mean(), network_latency_mean=(ej[last] - sim.accept_cycle[stim.pkt_first[meas]]).mean())


@pytest.mark.parametrize("spec,length,span,rate,depth", [("hypercube:n=4", "uniform:1:4", 37, 0.3, 4),
                                                         ("enhanced:n=5,k=1", "2", 50, 0.3, 4),
                                                         ("pdn:set=0,1,3,9,routing=availability", "uniform:1:3", 23,
                                                          0.3, 4),
                                                         ("hypercube:n=3,pipeline=1", "3", 41, 0.3, 4),
                                                         ("hypercube:n=4", "uniform:1:4", 31, 0.3, 2),
                                                         ("enhanced:n=4,k=0", "2", 29, 0.2, 1)])
def test_streamed_run_equals_upfront_run(spec, length, span, rate, depth):
    """Same seed, same packets (BernoulliSource is generate's source): the streamed run, renumbering the
    in-flight flits every ``span`` cycles (each FIFO's head register and the words behind it), is cycle for
    cycle the up-front run, so the figures are equal (the mean latency up to float summation order); FIFO
    depths 4, 2 and 1 (no words behind the head)."""
    cfg = S.SimConfig(warmup=300, measure=2000, drain=3000, length=length, router=RouterConfig(fifo_depth=depth))
    p = S.simulate_point(spec, rate, cfg, span=span)
    r = _upfront(spec, rate, cfg)
    assert not p.saturated and p.packets == r["packets"] > 1000
    assert p.accepted == r["accepted"] and p.link_util_max == r["link_util_max"]
    assert [p.latency_p50, p.latency_p95, p.latency_p99] == r["pct"]
    assert p.latency_mean == pytest.approx(r["latency_mean"], rel=1e-12)
    assert p.network_latency_mean == pytest.approx(r["network_latency_mean"], rel=1e-12)
    if "availability" not in spec:       # (run-time selection: hops are link crossings per flit instead)
        assert p.hops_mean == pytest.approx(r["hops_mean"], rel=1e-12)


def test_hist_percentile_is_numpy_percentile():
    rng = np.random.default_rng(4)
    for size in (1, 2, 7, 1000):
        x = rng.geometric(0.1, size=size)
        h = np.bincount(x)
        for q in (0, 13, 50, 95, 99, 100):
            assert hist_percentile(h, q) == np.percentile(x, q), (size, q)


@pytest.mark.parametrize("topo", [Hypercube(4), EnhancedHypercube(5, 1), EnhancedHypercube(4, 0)])
def test_table_free_ecube_equals_table_route(topo):
    """The e-cube / Algorithm C model from the addresses (sim/model/ecube.py) = the dense tables that
    routing.route / routing.inject / topology.neighbor / the turn walk give."""
    routing = EcubeRouting(topo)
    a = ecube_model(plan_of(topo, routing)).tables
    b = build_tables(topo, routing, allowed_of(plan_of(topo, routing)))
    N = topo.num_nodes
    assert (a.lookup(np.repeat(np.arange(N), 1 << a.route_width), np.tile(np.arange(1 << a.route_width), N))
            == b.route.ravel()).all()
    assert (a.link == b.link).all() and (a.allowed == b.allowed).all() and (a.nports == b.nports).all()
    s, d = np.divmod(np.arange(N * N), N)
    assert (ecube_inject(routing, s, d) ==
            [routing.layout.pack(routing.inject(int(x), int(y))) for x, y in zip(s, d)]).all()


def test_table_free_ecube_model_runs_trace_for_trace_as_the_generic_model():
    from cubenoc.sim.model.network import NetworkModel
    from cubenoc.sim.model.stimulus import random_traffic
    topo = EnhancedHypercube(4, 1)
    stim = random_traffic(topo.num_nodes, 25, 5, seed=3, mean_gap=1.0, p_ready=0.6, ready_cycles=3000,
                          p_bad_dest=0.05)
    a, b = ecube_model(plan_of(topo, EcubeRouting(topo))).run(stim), NetworkModel(plan_of(topo)).run(stim)
    assert a.drained and a.trace_tuples() == b.trace_tuples() and (a.counters == b.counters).all()


@pytest.mark.parametrize("pattern", ["uniform", "transpose"])
def test_bernoulli_takes_are_per_source_in_release_order_however_asked(pattern):
    """take(t1) hands the kernel each source's packets grouped by source, in creation order (the source
    interface injects them in that order), and the same packets whatever cycles the run asks at: across
    chunk boundaries (chunk 7) and with the packets a chunk holds back for the next take."""
    topo = Hypercube(4)
    make = lambda: T.BernoulliSource(16, T.make_pattern(pattern, topo), 0.4, "uniform:1:3", 5, chunk=7)
    whole = make().take(60)
    parts, src = [], make()
    for t1 in (3, 7, 8, 20, 21, 50, 60):
        got = src.take(t1)
        s, rel = got[0], got[2]
        assert (np.diff(s) >= 0).all()                                    # grouped by source
        assert ((np.diff(rel) > 0) | (np.diff(s) != 0)).all()             # creation order within one
        assert rel.size == 0 or rel.max() < t1
        parts.append(got)
    key = lambda p: np.lexsort((p[0], p[2]))                              # (cycle, source) order
    cat = [np.concatenate([p[i] for p in parts]) for i in range(4)]
    assert whole[0].size > 100
    for a, b in zip(cat, whole):
        assert (a[key(cat)] == b[key(whole)]).all()


def test_trace_take_keeps_file_order_among_a_sources_packets_of_one_cycle(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("cycle,source,destination,length\n5,2,7,1\n1,3,0,2\n5,2,4,3\n0,2,1,1\n5,1,6,1\n5,2,5,2\n")
    src, dst, rel, length = T.TraceSource(path, 8).take(10)
    assert list(zip(src, rel, dst, length)) == [(1, 5, 6, 1), (2, 0, 1, 1), (2, 5, 7, 1), (2, 5, 4, 3), (2, 5, 5, 2),
                                                (3, 1, 0, 2)]


def test_streamed_memory_is_bounded_by_the_window():
    """The flit arrays a streamed run holds are one window's, whatever the run length."""
    from cubenoc.sim.model.stream import StreamRun
    model, _ = S.model_for("hypercube:n=4")
    sizes = []
    for cycles in (2_000, 40_000):
        run = StreamRun(model, T.BernoulliSource(16, T.make_pattern("uniform", model.topology), 0.5, "2", 1), 400)
        for _ in range(cycles // 1000):
            run.advance(1000)
            sizes.append(run.sim.stim.num_flits)
        assert run.created > 0 and run.hist.size == 256      # every packet measured: a histogram, no arrays
    assert max(sizes) < 16 * 0.5 * 400 * 1.3                # one window of new flits + backlog + in flight
    assert run.sim.eject_cycle.size == run.sim.stim.num_flits


def test_heap_trimmed_only_when_it_has_grown(monkeypatch):
    """A streamed run hands the free heap pages back (malloc_trim) only when the heap (mallinfo2's arena)
    is larger than just after the last trim: trimming at every window re-faulted every page the next
    window reused (a quarter of a long run's time)."""
    from types import SimpleNamespace
    from cubenoc.sim.model import stream
    heap, trims = [0], []

    class Libc:
        def malloc_trim(self, pad):
            trims.append(pad)
            heap[0] -= 5                                     # the free top of the heap goes back
    monkeypatch.setattr(stream, "_LIBC", [Libc(), lambda: SimpleNamespace(arena=heap[0])])
    monkeypatch.setattr(stream, "_HEAP", [0])
    for size in (10, 5, 20, 15, 16):                         # the heap at each window
        heap[0] = size
        stream._trim()
    assert len(trims) == 3 and stream._HEAP[0] == 11         # at 10, 20 and 16 (> 15 - 5 after the last)


def test_cube_size_limit_is_a_clear_error():
    from cubenoc.errors import CubenocError
    with pytest.raises(CubenocError, match=r"n must be in 1\.\.20"):
        S.build_network("hypercube:n=21")
    assert S.build_network("hypercube:n=20")[0].num_nodes == 1 << 20


def test_record_then_replay_gives_identical_results(tmp_path):
    """--record writes the packets a run offered; --trace replays them: the same run, the same figures."""
    cfg = S.SimConfig(warmup=200, measure=1500, drain=2000, length="uniform:1:4")
    path = tmp_path / "rec.csv"
    a = S.simulate_point("enhanced:n=4,k=0", 0.3, cfg, record=str(path))
    b = S.simulate_point("enhanced:n=4,k=0", None, cfg, trace=str(path))
    lines = path.read_text().splitlines()
    assert lines[0] == "cycle,source,destination,length" and len(lines) > 1000
    assert not a.saturated and a.packets > 1000
    same = ("accepted", "offered_measured", "packets", "latency_mean", "latency_p50", "latency_p99",
            "network_latency_mean", "hops_mean", "link_util_max", "cycles", "util_by_port")
    assert {k: getattr(a, k) for k in same} == {k: getattr(b, k) for k in same}
    assert b.traffic == "trace:rec.csv" and abs(b.offered - 0.3) < 0.01


@pytest.mark.parametrize("text,msg", [("cycle,source,destination,length\n1,2,3,1\n5,2,x,1\n", "t.csv line 3: expected four"),
                                      ("cycle,src\n", "t.csv line 1: a trace starts with the header"),
                                      ("cycle,source,destination,length\n1,2,9,1\n", "t.csv line 2: source and destination must be nodes 0..7")])
def test_malformed_trace_is_one_line_naming_the_line(tmp_path, capsys, text, msg):
    from cubenoc.cli import main
    (tmp_path / "t.csv").write_text(text)
    assert main(["simulate", "hypercube", "--n", "3", "--trace", str(tmp_path / "t.csv")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("cubenoc: error:") and msg in err[0], err


def test_dask_sweep_on_a_local_cluster_equals_serial():
    """--jobs 2: a local Dask cluster of two worker processes; the same seeds give the same points."""
    pytest.importorskip("dask.distributed")
    specs, loads = ["hypercube:n=3", "enhanced:n=3,k=0"], [0.2, 0.5]
    cfg = S.SimConfig(warmup=100, measure=600, drain=1000)
    serial = S.sweep(specs, loads, cfg, progress=False)
    par = S.sweep(specs, loads, cfg, progress=False, jobs=2)
    assert len(par) == 4 and S.to_json(par) == S.to_json(serial)     # (NaN fields compare as null)


def test_bench_model_speed_reports_whole_run_and_loop(capsys):
    from cubenoc.cli import main
    assert main(["bench", "model-speed", "--n", "3", "--cycles", "300", "--json"]) == 0
    import json
    row, = json.loads(capsys.readouterr().out)
    assert row["nodes"] == 8 and row["cycles"] == 300 and row["hops"] == pytest.approx(12 / 7, rel=0.05)
    assert main(["bench", "model-speed", "--n", "3", "--cycles", "300"]) == 0       # the table: one loop run
    head = capsys.readouterr().out.splitlines()[2]
    assert "ns per node-cycle per hop" in head and "median" not in head and "peak RSS" in head
    assert row["whole_wall_s"] >= row["first_cycle_wall_s"] * 0.5 and row["loop_cpu_s"] < row["whole_cpu_s"]
    assert 50e6 < row["peak_rss_bytes"] < 2e9 and row["accepted"] > 0


def test_bench_model_speed_loop_only(capsys):
    """``--loop-only``: the compiled loop alone in rounds (every network once per round), no child runs
    (A/B figure): the best run, the median, and the ratio to the family's smallest network."""
    from cubenoc.cli import main
    assert main(["bench", "model-speed", "--n", "3", "4", "--cycles", "300", "--loop-only", "--repeat", "3",
                 "--json"]) == 0
    import json
    small, big = json.loads(capsys.readouterr().out)
    assert "whole_cpu_s" not in small and small["nodes"] == 8 and small["hops"] == pytest.approx(12 / 7, rel=0.05)
    assert small["ns_per_node_cycle_hop"] == pytest.approx(small["loop_cpu_s"] * 1e9 / (8 * 300 * small["hops"]))
    assert small["vs_smallest"] == 1.0 and big["nodes"] == 16 and big["vs_smallest"] > 0
    assert all(r["ns_median"] >= r["ns_per_node_cycle_hop"] for r in (small, big))   # best <= median
    with pytest.raises(SystemExit) as refused:                   # refused while parsing, before any run
        main(["bench", "model-speed", "--n", "3", "--loop-only", "--repeat", "0"])
    assert refused.value.code == 2
    assert "argument --repeat: must be an integer of at least 1" in capsys.readouterr().err


def test_loop_rounds_pair_each_round(monkeypatch):
    """The ratio to the smallest network is the median of the per-round ratios (a slow round slows both),
    not the ratio of the medians; each family has its own smallest network."""
    from cubenoc.sim import speed
    cpu = {"Hypercube(n=3)": [1.0, 4.0, 3.0], "Hypercube(n=4)": [2.0, 8.0, 3.0], "EnhancedHypercube(n=3, k=0)": [5.0] * 3}
    monkeypatch.setattr(speed.LoopRun, "run", lambda self: (1.0, cpu[self.label].pop(0)))
    a, b, e = speed.loop_rounds([("hypercube:n=3", 0.1, 20, "q"), ("hypercube:n=4", 0.1, 20, "q"),
                                 ("enhanced:n=3,k=0", 0.1, 20, "e")], 3)
    scale = (8 * a["hops"]) / (16 * b["hops"])               # ns = CPU s / (nodes x cycles x hops)
    assert b["vs_smallest"] == pytest.approx(2.0 * scale)     # rounds: 2, 2, 1 (medians: 3 / 3 = 1)
    assert a["vs_smallest"] == e["vs_smallest"] == 1.0 and b["loop_cpu_s"] == 2.0
    assert b["ns_median"] == pytest.approx(3.0 * 1e9 / (16 * 20 * b["hops"]))
