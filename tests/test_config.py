"""``--config FILE.toml`` (cubenoc/config.py, docs/config.md) and the examples/ folder."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from cubenoc.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SHORT = ["--warmup", "100", "--measure", "300", "--drain", "2000", "--quiet"]


@pytest.mark.parametrize("name", [pytest.param("enhanced", marks=pytest.mark.slow), "compare", "hypercube", "pdn", "hin"])
def test_example_configs_run_and_write_csv_and_plot(name, tmp_path, capsys):
    """Every simulate example runs (shortened on the command line, which wins over the file)."""
    csv_path, png = tmp_path / f"{name}.csv", tmp_path / f"{name}.png"
    argv = ["simulate", "--config", str(EXAMPLES / f"{name}.toml"), "--sweep", "0.1:0.2:0.1", *SHORT,
            "--csv", str(csv_path), "--plot", str(png)]
    assert main(argv) == 0
    rows = list(csv.DictReader(csv_path.open()))
    import tomllib
    cfg = tomllib.loads((EXAMPLES / f"{name}.toml").read_text())
    nets = cfg.get("networks", [cfg.get("network")])
    assert len({r["network"] for r in rows}) == len(nets)          # one curve per network of the file
    assert {float(r["offered"]) for r in rows} <= {0.1, 0.2}       # the command line's sweep won
    assert png.stat().st_size > 1000


def test_config_values_reach_the_command(tmp_path, capsys):
    cfg = tmp_path / "c.toml"
    cfg.write_text('network = "pdn:set=0,1,3"\n[traffic]\nrate = 0.15\nlength = "2"\n[run]\nseed = 7\n'
                   '[router]\ndepth = 2\n')
    assert main(["simulate", "--config", str(cfg), *SHORT, "--json"]) == 0
    import json
    (row,) = json.loads(capsys.readouterr().out)
    assert row["offered"] == 0.15 and row["length"] == "2" and "0,1,3" in row["network"]


def test_metacube_hotspot_example_reports_per_source(tmp_path, capsys):
    assert main(["simulate", "--config", str(EXAMPLES / "metacube.toml"), *SHORT, "--json",
                 "--csv", str(tmp_path / "m.csv")]) == 0
    import json
    (row,) = json.loads(capsys.readouterr().out)
    assert row["arbitration"] == "fair" and row["source_max_over_min"] is not None


def test_generate_example(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["generate", "--config", str(EXAMPLES / "generate.toml")]) == 0
    assert "pipelined" in capsys.readouterr().out
    assert (tmp_path / "out" / "q40-pipelined" / "cubenoc_enhanced_n4_k0.v").exists()


@pytest.mark.parametrize("text,message", [
    ('[traffic]\nrat = 0.1\n', "unknown key [traffic] rat"),
    ('[simulate]\nout = "x"\n', "unknown key [simulate] out (not an option of cubenoc simulate"),
    ('[run]\nwarmup = "long"\n', "[run] warmup must be an integer, got 'long'"),
    ('[router]\narbitration = "lottery"\n', "[router] arbitration must be one of round-robin, fair"),
    ('[output]\njson = 1\n', "[output] json must be true or false"),
    ('network = 3\n', "networks must be a list of spec strings"),
    ('network = "torus:n=3"\n', "unknown network 'torus:n=3'"),
    ('colour = "red"\n', "unknown key 'colour'"),
    ('[traffic\nrate = 0.1\n', "not valid TOML"),
])
def test_malformed_config_is_one_line_exit_2(text, message, tmp_path, capsys):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(text)
    assert main(["simulate", "--config", str(cfg), *SHORT]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("cubenoc: error:") and message in err[0]


def test_missing_config_file(tmp_path, capsys):
    assert main(["generate", "--config", str(tmp_path / "none.toml")]) == 2
    assert "cannot read it" in capsys.readouterr().err


def test_shared_keys_another_command_takes_are_skipped(tmp_path, capsys, monkeypatch):
    """One file drives simulate and generate: generate skips [traffic] sweep, simulate skips [output] out."""
    monkeypatch.chdir(tmp_path)
    cfg = tmp_path / "both.toml"
    cfg.write_text('network = "hypercube:n=2"\n[traffic]\nsweep = "0.1:0.2:0.1"\n[output]\nout = "v"\n')
    assert main(["generate", "--config", str(cfg)]) == 0 and (tmp_path / "v").is_dir()
    assert main(["simulate", "--config", str(cfg), *SHORT]) == 0


def test_bench_and_synth_report_read_networks_from_the_config(tmp_path, capsys):
    cfg = tmp_path / "b.toml"
    cfg.write_text('networks = ["pdn:set=0,1,3", "q4"]\n[bench]\npacket-len = 1\n[router]\ndepth = 2\n')
    assert main(["bench", "latency", "--config", str(cfg)]) == 0
    out = capsys.readouterr().out
    assert "--network pdn:set=0,1,3 q4" in out and "| Hypercube(n=4) | 4 |" in out
    assert main(["synth-report", "--config", str(cfg), "--list"]) == 0
    out = capsys.readouterr().out
    assert "set='0,1,3'" in out and "Hypercube(n=4)" in out


@pytest.mark.parametrize("name", ["examples/generate.toml", "generate.toml", "generate"])
def test_the_readme_examples_run_from_any_folder(name, tmp_path, monkeypatch, capsys):
    """``--config examples/generate.toml`` from a folder without examples/ reads the example installed with
    cubenoc (and says so); the work starts (stopped here) with the file's network."""
    import cubenoc.rtl.emit as emit
    seen = []

    def stop(plan, *a, **k):
        seen.append(repr(plan.topology))
        raise KeyboardInterrupt
    monkeypatch.setattr(emit, "write_network", stop)
    monkeypatch.chdir(tmp_path)
    assert main(["generate", "--config", name, "-o", str(tmp_path / "v")]) == 130
    assert "reading the example installed with cubenoc" in capsys.readouterr().err
    assert seen and "n=4" in seen[0]


def test_a_missing_config_names_the_installed_examples(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["simulate", "--config", "no-such-example"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "compare" in err[0] and "generate" in err[0]


def test_rate_on_the_command_line_replaces_the_files_sweep(tmp_path, capsys):
    """docs/config.md "Precedence": --rate replaces the file's sweep (the options that stand for one another)."""
    from cubenoc.cli import main
    cfg = tmp_path / "sw.toml"
    cfg.write_text('[traffic]\nsweep = "0.1:0.3:0.1"\n[simulate]\nwarmup = 100\nmeasure = 300\ndrain = 300\n')
    assert main(["simulate", "q4", "--config", str(cfg), "--rate", "0.3", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["offered"] for r in rows] == [0.3]
    assert main(["simulate", "q4", "--config", str(cfg), "--json"]) == 0       # the file's sweep without a flag
    assert len(json.loads(capsys.readouterr().out)) == 3


@pytest.mark.parametrize("command", [
    ["generate", "enhanced:n=3,k=0,depth=2", "--depth", "8", "-o", "{tmp}"],
    ["simulate", "enhanced:n=3,k=0,depth=2", "--depth", "8"],
    ["synth-report", "enhanced:n=3,k=0,depth=2", "--depth", "8", "--list"],
    ["generate", "enhanced:n=3,k=0,loopback=0", "--loopback", "-o", "{tmp}"],
    ["simulate", "enhanced:n=3,k=0,arbitration=fair", "--arbitration", "round-robin"],
])
def test_a_spec_key_and_a_flag_that_disagree_are_refused(command, tmp_path, capsys):
    from cubenoc.cli import main
    assert main([c.replace("{tmp}", str(tmp_path)) for c in command]) == 2
    err = capsys.readouterr().err
    assert "give one of them" in err and len(err.strip().splitlines()) == 1
    assert not list(tmp_path.glob("*.v"))


def test_a_spec_key_and_the_same_flag_agree(tmp_path, capsys):
    from cubenoc.cli import main
    assert main(["generate", "enhanced:n=3,k=0,depth=2", "--depth", "2", "-o", str(tmp_path), "--quiet"]) == 0
    assert json.loads(next(tmp_path.glob("*.json")).read_text())["fifo_depth"] == 2


def test_simulate_and_generate_say_which_depth(tmp_path, capsys):
    """The same spec resolves the same depth in both commands, and both outputs say it."""
    from cubenoc.cli import main
    spec = "enhanced:n=3,k=0,depth=2"
    assert main(["simulate", spec, "--rate", "0.1", "--json", "--warmup", "50", "--measure", "100"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["router_config"]["fifo_depth"] == 2 and row["spec"] == spec
    assert main(["generate", spec, "-o", str(tmp_path), "--quiet"]) == 0
    assert json.loads(next(tmp_path.glob("*.json")).read_text())["fifo_depth"] == 2
