"""``cubenoc simulate --report FILE.html`` (sim/report_page.py): the page is self-contained and small, draws
one path per link with the run's own link loads, and its figures agree with the run's results; the layouts
of every family place the nodes as the family is drawn; a headless Chromium renders it (where installed)."""
import contextlib
import io
import json
import math
import re
import shutil
import subprocess
import time

import numpy as np
import pytest

from cubenoc.cli import main
from cubenoc.sim import load_point as LP
from cubenoc.sim import simulator as S
from cubenoc.sim.catalog import NetworkSpec
from cubenoc.sim.report_layout import node_positions
from cubenoc.sim.report_page import report_html
from cubenoc.sim.report_svg import topology_svg

from cli_run import run_cli

WINDOW = ["--warmup", "200", "--measure", "1500", "--drain", "3000"]
LINK = re.compile(r'<path class=link [^>]*data-u="(\d+)" data-pu="(\d+)" data-v="(\d+)" data-pv="(\d+)" '
                  r'data-util-uv="([^"]+)" data-util-vu="([^"]+)"')


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The worked example of docs/simulator.md, short: the page and the run's results (its --json)."""
    page = tmp_path_factory.mktemp("report") / "r.html"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["simulate", "enhanced:n=4,k=0", "--sweep", "0.1:0.7:0.2", *WINDOW, "--report", str(page),
                       "--json"])                 # stdout: the JSON alone (the note goes to stderr)
    assert status == 0
    return page, page.read_text(encoding="utf-8"), json.loads(out.getvalue())


def test_the_page_fetches_nothing_and_is_small(run):
    page, html, _ = run
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    assert page.stat().st_size < 2 * 2**20
    assert not re.search(r"""\b(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", html, re.I)   # nothing fetched
    assert not re.search(r"<script|<link\b|<iframe|<img\b|@import|url\(\s*['\"]?(?:https?:)?//", html, re.I)
    assert not list(page.parent.glob("*.partial*"))                                       # written whole


def test_one_path_per_link_with_the_runs_link_loads(run):
    _, html, points = run
    n = 4                               # Q(4, 0): n 2^(n-1) cube links and 2^(n-1) complement links
    links = LINK.findall(html)
    assert len(links) == n * 2 ** (n - 1) + 2 ** (n - 1) == 40
    assert len({(int(u), int(v)) for u, _, v, _, _, _ in links}) == 40          # each link once
    drawn = max((p for p in points if not p["saturated"]), key=lambda p: p["offered"])   # the default load
    assert re.search(rf"class=drawn-load>{drawn['offered']:g}<", html)
    util = drawn["channel_util"]
    for u, pu, v, pv, uv, vu in links:
        u, pu, v, pv = int(u), int(pu), int(v), int(pv)
        assert u ^ v in {1 << pu, 2 ** n - 1} and pu == pv            # a cube link on dimension pu, or the complement
        assert float(uv) == pytest.approx(util[u][pu], rel=1e-5, abs=1e-9)
        assert float(vu) == pytest.approx(util[v][pv], rel=1e-5, abs=1e-9)
    hottest = re.search(r"<table class=hottest>.*?</tr><tr><td>[^<]*</td><td>[^<]*</td><td>([\d.]+)</td>", html, re.S)
    assert float(hottest.group(1)) == pytest.approx(max(x for row in util for x in row), abs=5e-5)


def test_the_runs_detail_obeys_flit_conservation(run):
    """Independent of how the figures are kept: the flits that crossed links in the window are the flits
    delivered times their hops (to the window's edges); per-source sums are the network's figures."""
    _, _, points = run
    for p in points:
        if p["saturated"]:
            continue
        N = len(p["source_accepted"])
        crossings = sum(x for row in p["channel_util"] for x in row if x is not None)
        assert crossings == pytest.approx(p["accepted"] * N * p["hops_mean"], rel=0.05)
        assert sum(p["source_accepted"]) / N == pytest.approx(p["accepted"], rel=1e-12)
        done = np.array(p["source_packets"])
        assert done.sum() == p["packets"]
        lat = np.array([x if x is not None else 0.0 for x in p["source_latency"]])
        assert float((lat * done).sum() / done.sum()) == pytest.approx(p["latency_mean"], rel=1e-9)


def test_the_page_says_how_it_was_made(run):
    page, html, _ = run
    command = re.search(r"<pre class=command>(.*?)</pre>", html, re.S).group(1)
    assert "simulate enhanced:n=4,k=0 --sweep 0.1:0.7:0.2" in command and f"--report {page}" in command
    config = json.loads(re.search(r"<pre class=config>(.*?)</pre>", html, re.S).group(1).replace("&quot;", '"'))
    assert config["loads"] == [0.1, 0.3, 0.5, 0.7] and config["warmup"] == 200 and config["measure"] == 1500
    assert config["networks"] == ["enhanced:n=4,k=0"] and config["router"]["fifo_depth"] == 4
    assert f'&quot;numpy&quot;: &quot;{np.__version__}&quot;' in html
    assert "Latency and accepted load" in html and html.count("<svg") == 3     # the curves, the network, per source


def test_the_saturation_point_is_marked_and_labelled():
    """A sweep past saturation: the page names the first saturated load and the last stable one."""
    spec = "hin:level1=bh:3,level2=bh:3"          # saturates between 0.1 and 0.3 (docs/simulator.md)
    cfg = S.SimConfig(warmup=200, measure=1500, drain=2000, detail=True)
    points = [S.simulate_point(spec, r, cfg) for r in (0.05, 0.1, 0.3)]
    assert [p.saturated for p in points] == [False, False, True]
    model, label = S.model_for(spec, cfg.router)
    html = report_html(points, {label: model.topology}, command="c", config={}, provenance={})
    assert "saturated at offered 0.3, stable at 0.1" in html
    assert ">saturated at 0.3<" in html.replace("\n", "<")    # the label on the curves (matplotlib text)
    assert "class=drawn-load>0.1<" in html                     # by default: the highest load below saturation
    # where it saturates: drawn at 0.3, the busiest links are the interface (level-2) links, as the HIN
    # studies of Dandamudi and Eager, "Hierarchical Interconnection Networks for Multicomputer Systems", find
    html = report_html(points, {label: model.topology}, command="c", config={}, provenance={}, load=0.3)
    assert "class=drawn-load>0.3<" in html and "saturated at this load" in html
    topo = model.topology
    hot = max(((v, p, x) for v, row in enumerate(points[2].channel_util) for p, x in enumerate(row) if x is not None),
              key=lambda t: t[2])
    assert topo.is_level2_port(hot[0], hot[1])
    links = LINK.findall(html.split("the network and its link loads")[1])
    busiest = max(links, key=lambda k: max(float(k[4]), float(k[5])))
    assert topo.is_level2_port(int(busiest[0]), int(busiest[1]))


@pytest.mark.parametrize("argv, says", [
    (["--report", "{tmp}/r.png"], "--report {tmp}/r.png: the file name must end in .html"),
    (["--report", "{tmp}/f.txt/r.html"], "is a file, not a folder"),
    (["--report", "{tmp}/d.html"], "is a folder, expected a file name"),
    (["--report-load", "0.3"], "give --report too"),
    (["--report", "{tmp}/r.html", "--report-load", "0.4"], "--report-load 0.4 is not one of the run's loads"),
])
def test_bad_report_options_are_one_line(argv, says, tmp_path, capsys):
    (tmp_path / "f.txt").write_text("x")
    (tmp_path / "d.html").mkdir()
    argv = [a.format(tmp=tmp_path) for a in argv]
    status, _, err, _ = run_cli(["simulate", "enhanced:n=4,k=0", "--sweep", "0.1:0.3:0.2", *WINDOW, *argv], capsys)
    assert status == 2 and len(err) == 1 and says.format(tmp=tmp_path) in err[0]
    assert [p.name for p in tmp_path.glob("*.html")] == ["d.html"] and not list(tmp_path.glob("*partial*"))


def test_report_load_chooses_the_drawn_load(tmp_path, capsys):
    page = tmp_path / "r.html"
    status, _, _, _ = run_cli(["simulate", "pdn:set=0,1,3,9", "--sweep", "0.1:0.5:0.2", *WINDOW, "--report",
                               str(page), "--report-load", "0.3", "--quiet"], capsys, limit=60)
    assert status == 0
    html = page.read_text()
    assert "class=drawn-load>0.3<" in html
    assert len(LINK.findall(html)) == 13 * 6 // 2     # PDN {0,1,3,9}: 13 nodes of degree 2 x 3


# ---- layouts: where the nodes are drawn ---------------------------------------------------------------------
LAYOUTS = {"hypercube:n=5": 5 * 16, "enhanced:n=6,k=1": 6 * 32 + 32, "pdn:set=0,1,3,9": 39,
           "metacube:k=1,m=2": 32 * 3 // 2, "metacube:k=2,m=1": 64 * 3 // 2,
           "hin:level1=bh:3,level2=bh:3": 8 * 12 + 12, "hin:level1=bh:1,level2=bh:1,level3=bh:2": 8 * 1 + 4 * 1 + 4,
           "hin:level1=cc:4,level2=ccc:2": 8 * 6 + 8 * 3 // 2, "hin:level1=bh:2,level2=br:4": 4 * 4 + 4,
           "pdn:product=2,2": 49 * 8 // 2}


@pytest.mark.parametrize("spec, links", LAYOUTS.items())
def test_every_family_is_drawn_with_distinct_nodes_and_a_path_per_link(spec, links):
    topo, _ = NetworkSpec.parse(spec).build("model")
    pos = node_positions(topo)
    assert pos.shape == (topo.num_nodes, 2) and np.isfinite(pos).all()
    gaps = np.hypot(*(pos[:, None, :] - pos[None, :, :]).transpose(2, 0, 1)) + np.eye(topo.num_nodes) * 1e9
    assert gaps.min() > 0.2 * np.ptp(pos, axis=0).max() / topo.num_nodes     # no two nodes on one spot
    svg = topology_svg(topo, [[0.5] * topo.num_ports(v) for v in range(topo.num_nodes)])
    assert svg.count("<path class=link ") == links


def test_cube_dimensions_are_parallel_edges():
    """Nested cubes: every edge of one dimension is the same vector (the drawing people make of Q_n)."""
    topo, _ = NetworkSpec.parse("enhanced:n=6,k=0").build("model")
    pos = node_positions(topo)
    x = np.arange(64)
    for i in range(6):
        step = pos[x ^ (1 << i)] - pos[x]
        sign = np.where((x >> i) & 1, -1, 1)[:, None]
        assert np.allclose(step * sign, step[0] * sign[0])


def test_hin_clusters_are_drawn_together():
    """By level: each node is nearer its own level-1 cluster's middle than any other cluster's."""
    topo, _ = NetworkSpec.parse("hin:level1=bh:3,level2=bh:3").build("model")
    pos = node_positions(topo)
    middles = pos.reshape(8, 8, 2).mean(axis=1)
    nearest = np.argmin(np.hypot(*(pos[:, None, :] - middles[None, :, :]).transpose(2, 0, 1)), axis=1)
    assert (nearest == np.arange(64) // 8).all()


def test_a_64_node_page_is_under_2_mb_and_quick():
    cfg = S.SimConfig(warmup=100, measure=800, drain=2000, detail=True)
    spec = "enhanced:n=6,k=0"
    points = [S.simulate_point(spec, r, cfg) for r in (0.1, 0.4, 0.7)]
    model, label = S.model_for(spec, cfg.router)
    report_html(points[:1], {label: model.topology}, command="c", config={}, provenance={})   # imports, once
    t0 = time.process_time()
    html = report_html(points, {label: model.topology}, command="c", config={}, provenance={})
    assert time.process_time() - t0 < 2.0
    assert len(html.encode()) < 2 * 2**20
    assert len(LINK.findall(html)) == 6 * 32 + 32


# ---- as a person sees it: headless Chromium -------------------------------------------------------------------
def need_chromium() -> str:
    """Skip only where the Makefile could not have installed it (no apt-get); otherwise its absence fails."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        if shutil.which("apt-get") is None:
            pytest.skip("chromium is not installed and apt-get is unavailable to install it (make venv does "
                        "where apt-get exists)")
        pytest.fail("chromium is missing: `make venv` installs it (apt-get install chromium)")
    return exe


def _chromium(exe, *args, timeout=60):
    return subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--no-first-run", "--user-data-dir=" + args[0], *args[1:]],
                          capture_output=True, text=True, timeout=timeout)


def test_chromium_renders_the_page(run, tmp_path):
    import matplotlib.image
    exe = need_chromium()
    page, _, _ = run
    shot = tmp_path / "shot.png"
    res = _chromium(exe, str(tmp_path / "profile"), "--window-size=1100,1400", f"--screenshot={shot}",
                    page.resolve().as_uri())
    assert shot.is_file(), res.stderr[-2000:]
    img = matplotlib.image.imread(shot)[..., :3]
    assert img.shape[0] >= 1000 and img.shape[1] >= 1000
    inked = (img.min(axis=2) < 0.9).mean()
    assert img.std() > 0.05 and inked > 0.03                      # not blank
    from collections import Counter
    html = page.read_text()
    colour = Counter(re.findall(r'<path class=link d="[^"]*" stroke="#([0-9a-f]{6})"', html)).most_common(1)[0][0]
    rgb = np.array([int(colour[i:i + 2], 16) / 255 for i in (0, 2, 4)])
    near = (np.abs(img - rgb) < 0.1).all(axis=2).sum()
    assert near > 2000                  # the links drawn in their load's colour (the scale bar alone: < 500 px)
    dom = _chromium(exe, str(tmp_path / "profile2"), "--dump-dom", page.resolve().as_uri()).stdout
    assert len(re.findall(r'<path class="link"', dom)) == 40     # the browser parsed a path per link


# ---- cubenoc demo --report: the model's run of the demo traffic --------------------------------------------------
def test_demo_report_draws_the_flits_each_link_carried(monkeypatch, tmp_path, capsys):
    """The Verilator build and run are stood in for by the model's own run (what is tested here is the page):
    each link's flits, read back from the page, add up to the hops of the packets delivered."""
    from types import SimpleNamespace

    import cubenoc.tb.verify as verify
    from cubenoc.sim.model.network import NetworkModel
    runs = {}

    def rtl(design, scenarios):
        for name, stim, cycles in scenarios:
            res = NetworkModel(design.plan).run(stim, cycles=cycles)
            runs[name] = res
        return {name: SimpleNamespace(cycle=r.tr_cycle, cycles=r.cycles, counters=r.counters, vcd=None)
                for name, r in runs.items()}
    monkeypatch.setattr(verify, "build_network", lambda plan, build_dir=None: SimpleNamespace(plan=plan, dir=tmp_path))
    monkeypatch.setattr(verify, "run_scenarios", rtl)
    monkeypatch.setattr(verify, "compare", lambda *a, **k: [])
    page = tmp_path / "demo.html"
    status, out, _, _ = run_cli(["demo", "hypercube:n=3", "--packets", "6", "--build-dir", str(tmp_path / "b"),
                                 "--report", str(page)], capsys, limit=60)
    assert status == 0 and "verdict: PASS" in out and f"report written to {page}" in out
    html = page.read_text()
    assert "verdict: PASS" in html and "Latency and accepted load" not in html      # one run: no curves
    links = LINK.findall(html)
    assert len(links) == 3 * 4                          # Q_3: 12 links
    res = runs["demo"]
    s = res.stimulus
    hops = [bin(int(a) ^ int(b)).count("1") * int(n) for a, b, n in zip(s.pkt_src, s.pkt_dst, s.pkt_len)]
    carried = sum(round(float(uv) * res.cycles) + round(float(vu) * res.cycles) for *_, uv, vu in links)
    assert carried == sum(hops) > 0                     # every packet delivered, over its e-cube path


def test_bench_throughput_report_draws_each_sweep(monkeypatch, tmp_path, capsys):
    monkeypatch.chdir(tmp_path)                          # (the benchmark's results file goes to ./build)
    status, out, _, _ = run_cli(["bench", "throughput", "--network", "hypercube:n=3", "--length", "1", "--rate", "0.3",
                                 "1.0", "--window", "500", "--routers", "fifo", "--report", "bt.html", "--format",
                                 "json"], capsys, limit=60)
    assert status == 0
    (row,) = json.loads(out)                             # stdout is the JSON alone (the note went to stderr)
    html = (tmp_path / "bt.html").read_text()
    assert len(LINK.findall(html)) == 12                 # Q_3
    ok = [p for p in row["points"] if not p["saturated"]]
    assert ok and row["points"][-1]["saturated"]         # load 1.0 is past Q_3's saturation
    assert f"class=drawn-load>{max(p['offered'] for p in ok):g}<" in html
    assert f"(accepted {max(ok, key=lambda p: p['offered'])['accepted']:.3f}," in html
    assert "saturated at offered 1, stable at 0.3" in html


def test_study_report_draws_each_measured_point(tmp_path, capsys):
    """``--study density --report``: each Q(4, k) point drawn; its skip links' loads, read from the page, give
    the study's measured TD_s (Tzeng and Wei's traffic density of the skip links)."""
    page = tmp_path / "d.html"
    status, out, _, _ = run_cli(["simulate", "--study", "density", "--n", "4", "--report", str(page), "--json",
                                 "--quiet"], capsys, limit=90)
    assert status == 0
    rows = json.loads(out)
    html = page.read_text()
    sections = re.split(r"<h2>", html)
    drawn = [s for s in sections if "the network and its link loads" in s]
    assert len(drawn) == len(rows) == 4                  # k = 0, 1 and g = 1, 2
    for row, sec in zip(rows, drawn):
        assert sec.startswith(f"EnhancedHypercube(n=4, k={row['k']}), locality (g {row['g']:g})")
        links = LINK.findall(sec)
        assert len(links) == 40
        skip = [float(uv) + float(vu) for u, pu, v, pv, uv, vu in links if int(pu) == 4]
        accepted = float(re.search(r"\(accepted ([\d.]+),", sec).group(1))
        assert sum(skip) / len(skip) / accepted == pytest.approx(row["TD_s"], rel=0.01)
    assert "<h2>The study's table</h2>" in html


def test_a_network_too_large_for_per_link_figures_says_so(monkeypatch):
    monkeypatch.setattr(LP, "DETAIL_MAX_CHANNELS", 16 * 6 - 1)        # just under Q(4, 0)'s 16 x (5 ports + local)
    cfg = S.SimConfig(warmup=100, measure=500, drain=1000, detail=True)
    p = S.simulate_point("enhanced:n=4,k=0", 0.2, cfg)
    assert not p.saturated and p.channel_util == [] and p.source_latency == []
    model, label = S.model_for("enhanced:n=4,k=0", cfg.router)
    html = report_html([p], {label: model.topology}, command="c", config={}, provenance={})
    assert "per-link and per-source figures are kept for networks of up to 95 channels" in html
    assert not LINK.findall(html)


@pytest.mark.parametrize("argv", [["demo", "hypercube:n=2"], ["bench", "throughput", "--n", "3"],
                                  ["simulate", "--study", "density"]])
def test_every_command_refuses_a_bad_report_path_before_its_work(argv, tmp_path, capsys):
    status, _, err, seconds = run_cli([*argv, "--report", str(tmp_path / "r.txt")], capsys)
    assert status == 2 and len(err) == 1 and "the file name must end in .html" in err[0] and seconds < 5
