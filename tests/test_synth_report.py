"""`cubenoc synth-report` for every family: router shapes, the cache, the table (no tool runs here except
where stated; tests/test_boards_build.py runs yosys on a router)."""
from __future__ import annotations

import argparse
import json

import pytest

from cubenoc.boards.synth import SynthResult
from cubenoc.cli import main
from cubenoc.errors import CubenocError, ToolError
from cubenoc import synth_report
from cubenoc.bench import synth_shapes as sr
from cubenoc.sim.catalog import NetworkSpec
from cubenoc.sim.network_plan import plan_of
from cubenoc.sim.router_config import RouterConfig


def _args(**kw):
    p = argparse.ArgumentParser()
    synth_report.add_arguments(p)
    argv = []
    for k, v in kw.items():
        flag = "--" + k.replace("_", "-")
        if v is True:
            argv.append(flag)
        elif isinstance(v, (list, tuple)):
            argv += [flag, *map(str, v)]
        else:
            argv += [flag, str(v)]
    return p.parse_args(argv)


def test_every_family_has_its_shapes_and_node_counts():
    """Each network's shapes cover every node once; the shapes are the distinct Verilog router modules
    of rtl/network_top.py (interface vs inner nodes of a HIN, one shape for a vertex-transitive PDN)."""
    new = ["metacube", "pdn", "hin"]               # hypercube/enhanced: one shape each (tests/test_rtl_area.py)
    shapes = sr.shapes_for(_args(payload=16, family=new))
    by_net: dict[str, list] = {}
    for s in shapes:
        by_net.setdefault(s.network, []).append(s)
    fams = {s.family for s in shapes}
    assert fams == set(new) and set(new) < set(sr.SYNTH_FAMILIES)
    for fam, label, topo, routing in sr.networks(_args(family=new)):      # the defaults: the issues' sizes
        got = by_net[label]
        assert sum(s.nodes for s in got) == topo.num_nodes
        assert len({s.router.shape_key for s in got}) == len(got), label     # one per Verilog module
        for s in got:
            assert s.ports == topo.num_ports(s.node) + 1 and s.router.num_vcs == routing.num_vcs
    # PDN of order delta: 2*delta + 1 ports on every node (Definition 1 of Parhami and Rakov)
    for label, delta in (("PDN {0,1,3} (7)", 2), ("PDN {0,1,3,9} (13)", 3), ("PDN {0,1,3,8,12,18} (31)", 5)):
        assert [(s.ports, s.nodes) for s in by_net[label]] == [(2 * delta + 1, {2: 7, 3: 13, 5: 31}[delta])]
    # BH(3)/BH(2): 4 clusters of 8, one interface node each (more ports), 28 inner nodes
    assert sorted((s.nodes, s.ports) for s in by_net["BH(3)/BH(2) (32)"]) == [(4, 6), (28, 4)]
    assert {s.router.num_vcs for s in by_net["BH(1)/CCC(2) (16)"]} == {3}
    assert {s.router.num_vcs for s in by_net["MC(1,2)"]} == {2}


def test_sizes_are_checked_with_a_clear_message():
    with pytest.raises(CubenocError, match="LEVEL1/LEVEL2"):
        sr.networks(_args(family=["hin"], size=["bh:3"]))
    with pytest.raises(CubenocError, match="metacube size"):
        sr.networks(_args(family=["metacube"], size=["1"]))
    got = sr.networks(_args(family=["pdn"], size=["delta=3", "1,2,4", "product=2,2"]))
    assert [lbl for _, lbl, _, _ in got] == ["PDN {0,1,3,9} (13)", "0-free PDN {1,2,4} (7)", "PDN product 2,2 (49)"]


def test_cache_reruns_only_what_changed(tmp_path, monkeypatch, capsys):
    """A fake synth_router counts the tool runs: a rerun is all cache hits, a changed router (payload)
    or --force runs again; the cache key is the router's RTLIL, so identical routers share an entry."""
    import cubenoc.boards.synth as synth
    calls = []

    def fake(router, target, workdir, **kw):
        calls.append((router.num_ports, target))
        assert kw["router_il"].startswith("attribute") or "module" in kw["router_il"]
        return SynthResult(target, 10 * router.num_ports, 5, 1, 0, 0, 50.0 if kw["pnr"] else None, 0.0)

    monkeypatch.setattr(synth, "synth_router", fake)
    base = ["synth-report", "--family", "pdn", "--size", "0,1,3", "0,1,3", "--work-dir", str(tmp_path),
            "--no-progress", "--json"]
    assert main(base) == 0                   # the same router twice: the second is a cache hit
    rows = json.loads(capsys.readouterr().out)
    assert len(calls) == 2 and len(rows) == 4 and [r["cached"] for r in rows] == [False, False, True, True]
    assert [r["lut4"] for r in rows] == [50] * 4
    assert main(base[:5] + base[6:]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(calls) == 2 and all(r["cached"] for r in rows)
    assert main(base[:5] + base[6:] + ["--payload", "16", "--targets", "up5k"]) == 0
    assert len(calls) == 3
    assert main(base[:5] + base[6:] + ["--targets", "up5k", "--force"]) == 0
    assert len(calls) == 4
    capsys.readouterr()


def test_table_and_section_mark_the_targets(tmp_path):
    rows = [{"family": "pdn", "network": "PDN {0,1,3} (7)", "routing": "pdn_oblivious", "shape": 0, "nodes": 7,
             "node": 0, "ports": 5, "vcs": 1, "payload": 32, "depth": 4, "target": "up5k", "lut4": 450, "ff": 10,
             "carry": 1, "bram": 0, "lutram": 0, "fmax_mhz": 41.0, "seconds": 1.0, "cached": False},
            {"family": "pdn", "network": "PDN {0,1,3} (7)", "routing": "pdn_oblivious", "shape": 0, "nodes": 7,
             "node": 0, "ports": 5, "vcs": 1, "payload": 32, "depth": 4, "target": "ecp5-25f", "lut4": 600,
             "ff": 10, "carry": 1, "bram": 0, "lutram": 40, "fmax_mhz": 99.0, "seconds": 1.0, "cached": True}]
    table = sr.markdown_table(rows)
    assert "| 90 ✓ |" in table and "| 41.0 ✓ |" in table and "| 120 ✗ |" in table and "| 99.0 ✗ |" in table
    assert "P=5, V=1 (7)" in table
    text = sr.section_text(table, _args(), rows)
    assert "ecp5-25f: 120-120 LUT4/port" in text and "up5k: 90-90 LUT4/port" in text
    doc = tmp_path / "perf.md"
    doc.write_text(f"# P\n\n{sr.BEGIN}\nold\n{sr.END}\n\nkept\n")
    sr.write_section(doc, text)
    page = doc.read_text()
    assert "old" not in page and "kept" in page and "every router shape" in page


def test_a_failed_tool_run_is_reported_and_the_others_are_kept(tmp_path, monkeypatch, capsys):
    import cubenoc.boards.synth as synth

    def fake(router, target, workdir, **kw):
        if target == "ecp5-25f":
            raise ToolError("nextpnr-ecp5 failed (exit 1); log x")
        return SynthResult(target, 100, 5, 1, 0, 0, None, 0.0, note="does not fit the up5k (router + harness)")

    monkeypatch.setattr(synth, "synth_router", fake)
    doc = tmp_path / "perf.md"
    argv = ["synth-report", "--family", "pdn", "--size", "0,1,3", "--work-dir", str(tmp_path), "--no-progress",
            "--write", "--doc", str(doc)]
    assert main(argv) == 3                                          # exit 3: an external tool failed
    out = capsys.readouterr()
    assert "1 synthesis run(s) failed" in out.err and "ecp5-25f" in out.err and "docs not updated" in out.err
    assert "does not fit" in out.out and not doc.exists()
    assert len(list((tmp_path / "cache").iterdir())) == 1          # the good row is cached for the rerun


def test_several_seeds_give_the_median_fmax_and_options_reach_the_router(tmp_path, monkeypatch, capsys):
    """``--seed 1 2 3``: one place-and-route per seed (cached per seed), Fmax the median, every seed's
    figure kept; ``--fifo-memory``/``--no-counters`` build the router with those options."""
    import cubenoc.boards.synth as synth
    calls = []

    def fake(router, target, workdir, **kw):
        calls.append((kw["seed"], router.fifo_memory, router.counters))
        return SynthResult(target, 100, 5, 1, 0, 0, {1: 30.0, 2: 36.0, 3: 31.0}[kw["seed"]], 1.0)

    monkeypatch.setattr(synth, "synth_router", fake)
    base = ["synth-report", "--family", "hypercube", "--n", "3", "--targets", "up5k", "--work-dir", str(tmp_path),
            "--no-progress", "--json"]
    assert main(base + ["--seed", "1", "2", "3", "--fifo-memory", "--no-counters"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["fmax_by_seed"] == [30.0, 36.0, 31.0] and row["fmax_mhz"] == 31.0 and row["seeds"] == [1, 2, 3]
    assert row["fifo_memory"] is True and row["counters"] is False
    assert calls == [(1, True, False), (2, True, False), (3, True, False)]
    config = RouterConfig(**row["router_config"])            # every field, as resolved: the row says what it is
    assert config.fifo_memory is True and config.counters is False
    assert (config.payload_width, config.fifo_depth) == (row["payload"], row["depth"])
    assert NetworkSpec.parse(row["spec"]).router_config() == config
    assert NetworkSpec.parse(row["spec"]).without_router() == NetworkSpec.parse("hypercube:n=3")
    assert main(base + ["--seed", "3"]) == 0                  # another router (default options): runs again
    (row,) = json.loads(capsys.readouterr().out)
    assert row["fmax_mhz"] == 31.0 and "fmax_by_seed" not in row and calls[-1] == (3, False, True)
    with pytest.raises(SystemExit) as refused:                # a negative seed: refused while parsing
        main(base + ["--seed", "-1"])
    assert refused.value.code == 2
    goals = []
    monkeypatch.setattr(synth, "synth_router", lambda router, target, workdir, **kw: goals.append(kw["goal"]) or
                        SynthResult(target, 90, 5, 1, 0, 0, 40.0, 1.0))
    assert main(base + ["--seed", "3", "--synth", "area"]) == 0   # another goal: its own cache entry, runs again
    (row,) = json.loads(capsys.readouterr().out)
    assert goals == ["area"] and row["synth"] == "area" and row["lut4"] == 90 and not row["cached"]
    assert "--synth area" in sr.section_text("table", _args(synth="area"), [])
    text = sr.section_text("table", _args(seed=[1, 2, 3], fifo_memory=True), [])
    assert "--fifo-memory --seed 1 2 3" in text and "median over seeds 1, 2, 3" in text


@pytest.mark.parametrize("family,size,spec", [
    ("hypercube", "4", "hypercube:n=4"), ("enhanced", "4", "enhanced:n=4,k=0"), ("enhanced", "5,1", "enhanced:n=5,k=1"),
    ("metacube", "1,2", "mc12"), ("pdn", "0,1,3,9", "pdn13"), ("pdn", "delta=4", "pdn:delta=4"),
    ("pdn", "product=2,2", "pdn:product=2,2"), ("hin", "bh:3/ccc:2", "hin-bh3-ccc2")])
def test_family_and_size_are_a_shorthand_for_catalog_specs(family, size, spec):
    """The catalog is the one factory: --family/--size names a spec, and synth-report builds it
    with NetworkSpec.build, so its network equals the spec's."""
    from cubenoc.sim.catalog import NetworkSpec
    assert sr.size_spec(family, size) == NetworkSpec.parse(spec)
    (fam, label, topo, routing), = sr.networks(_args(family=[family], size=[size]))
    t2, r2 = NetworkSpec.parse(spec).build("rtl")
    assert fam == family and repr(topo) == repr(t2) and routing.name == r2.name and label == NetworkSpec.parse(spec).short_label()


def test_default_networks_are_catalog_specs():
    from cubenoc.prove import PROVE_NETWORKS
    from cubenoc.sim.catalog import NetworkSpec
    for fam, (specs, _what) in sr.SYNTH_FAMILIES.items():
        assert specs and all(NetworkSpec.parse(s).family == fam for s in specs)
    assert all(NetworkSpec.parse(s).family == fam for fam, s in PROVE_NETWORKS.items())


@pytest.mark.parametrize("message", ["ERROR: no BELs remaining to place cell", "ERROR: Unable to place cell",
                                     "ERROR: Unable to find legal placement for all cells, design is probably at "
                                     "utilisation limit."])
def test_a_router_that_does_not_fit_is_a_note_and_another_failure_an_error(tmp_path, monkeypatch, message):
    """Each way nextpnr says the design does not fit (the last one: PDN {0,1,3,8,12,18}'s 11-port router on
    the UP5K) gives the "does not fit" note and yosys' counts; any other nextpnr failure is a ToolError."""
    import cubenoc.boards.synth as synth
    from cubenoc.rtl.router import Router
    from cubenoc.sim.catalog import NetworkSpec
    topo, routing = NetworkSpec.parse("hypercube:n=2").build("rtl")

    def fake_run(cmd, cwd, log, timeout=None, text=message):
        if "nextpnr" in cmd[0]:
            (cwd / "nextpnr.out").write_text(text + "\n")
            raise ToolError("nextpnr failed")
        if "router_stat.json" in cmd[-1]:
            stat = {"modules": {"\\router": {"num_cells_by_type": {"SB_LUT4": 7}}}}
            (cwd / "router_stat.json").write_text(json.dumps(stat))
    monkeypatch.setattr(synth, "_run", fake_run)
    res = synth.synth_router(Router(plan_of(topo, routing), 0), "up5k", tmp_path / "fits")
    assert res.fmax_mhz is None and res.note.startswith("does not fit") and res.lut4 == 7
    monkeypatch.setattr(synth, "_run", lambda cmd, cwd, log, timeout=None: fake_run(cmd, cwd, log,
                                                                                      text="ERROR: bad constraint"))
    with pytest.raises(ToolError):
        synth.synth_router(Router(plan_of(topo, routing), 0), "up5k", tmp_path / "other")


def test_a_stopped_nextpnr_seed_is_a_note_not_cached_and_the_limit_is_checked(tmp_path, monkeypatch, capsys):
    """``--pnr-timeout``: a seed whose nextpnr was stopped has no Fmax, so the row has none (no median over
    fewer seeds) and says which seed; the finished seeds are cached, the stopped one runs again next time.
    A limit that is not a positive number of seconds is a clear error before any tool runs."""
    import cubenoc.boards.synth as synth
    calls = []

    def fake(router, target, workdir, **kw):
        calls.append((kw["seed"], kw["pnr_timeout"]))
        if kw["seed"] == 2:
            return SynthResult(target, 100, 5, 1, 0, 0, None, 5.0,
                               note=f"nextpnr did not finish in {kw['pnr_timeout']:g} s at seed 2 (stopped)")
        return SynthResult(target, 100, 5, 1, 0, 0, 30.0 + kw["seed"], 1.0)

    monkeypatch.setattr(synth, "synth_router", fake)
    base = ["synth-report", "--family", "hypercube", "--n", "3", "--targets", "up5k", "--work-dir", str(tmp_path),
            "--no-progress", "--json", "--seed", "1", "2", "3", "--pnr-timeout", "5"]
    assert main(base) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["fmax_mhz"] is None and row["fmax_by_seed"] == [31.0, None, 33.0]
    assert row["note"] == "nextpnr did not finish in 5 s at seed 2 (stopped)"
    assert calls == [(1, 5.0), (2, 5.0), (3, 5.0)] and len(list((tmp_path / "cache").iterdir())) == 2
    assert main(base) == 0                                       # only the stopped seed runs again
    assert calls[3:] == [(2, 5.0)]
    capsys.readouterr()
    for bad in ("0", "-3"):
        assert main(base[:-1] + [bad]) == 2
        assert "--pnr-timeout must be a positive number of seconds" in capsys.readouterr().err


def test_nextpnr_places_with_the_family_options_and_the_cache_key_holds_them(tmp_path, monkeypatch):
    """boards/synth.py ``PNR_PLACE``: nextpnr-ice40 runs with ``--no-promote-ce`` (clock enables on the
    fabric), nextpnr-ecp5 without it; a cached UP5K Fmax from before the option is not reused (the key
    holds the options), an ECP5 one is (no options: the same key)."""
    import cubenoc.boards.synth as synth
    from cubenoc.rtl.router import Router
    from cubenoc.sim.catalog import NetworkSpec
    from cubenoc.bench.synth_shapes import cache_key
    topo, routing = NetworkSpec.parse("hypercube:n=2").build("rtl")
    seen = {}

    def fake_run(cmd, cwd, log, timeout=None):
        if "nextpnr" in cmd[0]:
            seen[cmd[0].rsplit("-", 1)[-1]] = cmd
            (cwd / "report.json").write_text(json.dumps({"fmax": {"clk": {"achieved": 50.0}}}))
        elif "router_stat.json" in cmd[-1]:
            (cwd / "router_stat.json").write_text(json.dumps({"modules": {"\\router": {"num_cells_by_type": {}}}}))
    monkeypatch.setattr(synth, "_run", fake_run)
    for target in ("up5k", "ecp5-25f"):
        assert synth.synth_router(Router(plan_of(topo, routing), 0), target, tmp_path / target).fmax_mhz == 50.0
    assert "--no-promote-ce" in seen["ice40"] and "--no-promote-ce" not in seen["ecp5"]

    def key_without_options(target, pnr=True):
        monkeypatch.setattr(synth, "PNR_PLACE", {"ice40": [], "ecp5": []})
        key = cache_key("il", target, pnr, 1, "t")
        monkeypatch.undo()
        return key
    assert cache_key("il", "up5k", True, 1, "t") != key_without_options("up5k")
    assert cache_key("il", "ecp5-25f", True, 1, "t") == key_without_options("ecp5-25f")
    assert cache_key("il", "up5k", False, 1, "t") == key_without_options("up5k", False)   # yosys only


@pytest.mark.parametrize("bad", [["--jobs", "0"], ["--pnr-timeout", "0"], ["--work-dir", "/dev/null/x"]])
def test_bad_input_is_refused_before_the_networks_are_planned(bad, monkeypatch, capsys):
    """Planning every default network's router shapes takes seconds; a bad option is refused before it."""
    def planned(*a, **k):
        raise AssertionError("planned the networks before checking the options")
    monkeypatch.setattr(synth_report, "shapes_for", planned)
    try:
        rc = main(["synth-report", *bad])
    except SystemExit as exc:                      # argparse's own check (--jobs)
        rc = exc.code
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("cubenoc") and " error: " in err and err.count("\n") == 1, err
