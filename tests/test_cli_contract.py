"""The CLI contract (docs/cli.md): --version, the command list, exit statuses 0/1/2/3, and output
paths checked before any work."""
from __future__ import annotations

import subprocess
import sys

import pytest

from cubenoc.cli import main
from cubenoc.errors import ToolError


def test_version():
    out = subprocess.run([sys.executable, "-m", "cubenoc", "--version"], capture_output=True, text=True)
    from importlib.metadata import version
    assert out.returncode == 0 and out.stdout.strip() == f"cubenoc {version('cubenoc')}"


def test_no_command_lists_the_commands(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    for cmd in ("analyze", "generate", "simulate", "bench", "synth-report", "build", "prove", "demo"):
        assert f"    {cmd}" in out


@pytest.fixture
def a_file(tmp_path):
    f = tmp_path / "a_file"
    f.write_text("x")
    return f


@pytest.mark.parametrize("argv", [
    ["generate", "q4", "-o", "{f}/v"],
    ["simulate", "q4", "--csv", "{f}/x.csv"],
    ["simulate", "q4", "--plot", "{f}/x.png"],
    ["analyze", "pdn", "--set", "0,1,3", "--plot", "{f}/x.png"],
    ["bench", "latency", "--write", "{f}/p.md"],
    ["build", "--board", "icebreaker", "--build-dir", "{f}/b"],
    ["synth-report", "--network", "q4", "--work-dir", "{f}/w"],
    ["bench", "sim-speed", "--write", "{f}/p.md"],
    ["simulate", "--bench-speed", "--write", "{f}/p.md"],
])
def test_unwritable_output_is_one_line_exit_2_before_the_work(argv, a_file, capsys, monkeypatch):
    """Each path lies under a regular file, so it cannot be created. The work must not start: the model,
    the Verilog writer and the tools are replaced by functions that fail the test."""
    import cubenoc.boards.flow as flow
    import cubenoc.rtl.emit as emit
    import cubenoc.sim.simulator as sim

    def must_not_run(*a, **k):
        raise AssertionError("the work started before the output path was checked")
    monkeypatch.setattr(sim, "simulate_point", must_not_run)
    monkeypatch.setattr(emit, "write_network", must_not_run)
    monkeypatch.setattr(flow, "build_demo", must_not_run)
    import cubenoc.sim.speed as speed
    monkeypatch.setattr(speed, "measure", must_not_run)
    import cubenoc.sim.model.perf as perf
    monkeypatch.setattr(perf, "zero_load_latency", must_not_run)
    import cubenoc.sim.analysis.pdn as pdn
    monkeypatch.setattr(pdn, "analyze", must_not_run)
    assert main([a.replace("{f}", str(a_file)) for a in argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("cubenoc: error: ") and str(a_file) in err[0]


def test_an_external_tool_failure_is_exit_3(monkeypatch, capsys, tmp_path):
    import cubenoc.boards.flow as flow

    def failing_build(*a, **k):
        raise ToolError("nextpnr-ice40 failed (exit 1); log build/top.tim\nlog tail ...")
    monkeypatch.setattr(flow, "build_demo", failing_build)
    assert main(["build", "--board", "icebreaker", "--build-dir", str(tmp_path)]) == 3
    err = capsys.readouterr().err.strip().splitlines()       # (before it, the line saying the tools run)
    assert err[-1] == "cubenoc: error: nextpnr-ice40 failed (exit 1); log build/top.tim"
    assert [e for e in err if "error" in e] == err[-1:]


def test_a_failed_check_is_exit_1(monkeypatch, capsys, tmp_path):
    import cubenoc.rtl.tools as tools
    from cubenoc.rtl.tools import LintResult
    monkeypatch.setattr(tools, "verilator_lint", lambda *a, **k: LintResult(1, 1, 0, {"WIDTH": 1}, "%Error: x"))
    assert main(["generate", "hypercube:n=2", "-o", str(tmp_path), "--lint"]) == 1


def test_every_option_has_help_text():
    import argparse

    from cubenoc.cli import build_parser
    parser = build_parser()
    missing = []

    def walk(p, path):
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, sub in a.choices.items():
                    walk(sub, f"{path} {name}")
            elif a.option_strings and a.help is None:
                missing.append(f"{path} {a.option_strings[-1]}")
    walk(parser, "cubenoc")
    assert missing == []


def test_simulate_bench_speed_is_a_deprecated_alias_of_bench_sim_speed(monkeypatch, capsys):
    import cubenoc.bench.sim_speed as ss
    row = {"network": "Q", "nodes": 4, "rate": 0.1, "cycles": 10, "cycles_per_s": 1.0, "cpu_cycles_per_s": 2.0,
           "node_cycles_per_s": 8.0, "build_s": 0.0}
    monkeypatch.setattr(ss, "speed_rows", lambda *a: ([row], []))
    assert main(["simulate", "--bench-speed", "--json"]) == 0
    out = capsys.readouterr()
    assert "moved to `cubenoc bench sim-speed`" in out.err and __import__("json").loads(out.out) == [row]


def test_an_option_the_run_would_ignore_is_an_error(capsys, tmp_path):
    """``simulate --write`` only updates a page with --bench-speed; a plain run with it says so instead of
    running and writing nothing."""
    assert main(["simulate", "q3", "--measure", "10", "--write", str(tmp_path / "p.md")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--write FILE.md only goes with --bench-speed" in err[0]
    assert not (tmp_path / "p.md").exists()


class _Stop(Exception):
    pass


def test_synth_report_build_and_prove_take_the_positional_network(capsys, monkeypatch, tmp_path):
    """The network is named as in generate and simulate: NETWORK first, not only --network."""
    assert main(["synth-report", "pdn:set=0,1,3,9", "--no-pnr", "--list", "--targets", "up5k"]) == 0
    assert "PerfectDifferenceNetwork(set='0,1,3,9')" in capsys.readouterr().out
    assert main(["build", "--board", "ulx3s-25f", "pdn:set=0,1,3", "--estimate-only",
                 "--build-dir", str(tmp_path)]) == 0
    assert "PerfectDifferenceNetwork" in capsys.readouterr().out
    import cubenoc.rtl.formal.plan as plan
    seen = []

    def stop(label, *a, **k):
        seen.append(label)
        raise _Stop
    monkeypatch.setattr(plan, "prove_network", stop)
    with pytest.raises(_Stop):
        main(["prove", "pdn:set=0,1,3", "--work-dir", str(tmp_path / "p")])
    assert seen == ["PerfectDifferenceNetwork(set='0,1,3')"]


def test_demo_builds_in_the_current_folder_and_says_where(capsys, monkeypatch, tmp_path):
    """``cubenoc demo`` from an empty folder: the Verilator build goes to ./build there, and the run says so
    (the build itself is stopped here)."""
    import cubenoc.tb.verify as verify
    seen = []

    def stop(*a, build_dir=None, **k):
        seen.append(build_dir)
        raise _Stop
    monkeypatch.setattr(verify, "build_network", stop)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(_Stop):
        main(["demo", "--packets", "2"])
    assert seen == [tmp_path / "build"]
    assert "building it with Verilator in build/ (" in capsys.readouterr().out


@pytest.mark.parametrize("name,part", [("up5k", "up5k"), ("ice40", "up5k"), ("ecp5", "ecp5-25f"),
                                       ("ecp5-25f", "ecp5-25f"), ("gowin", "gowin")])
def test_every_command_takes_the_same_fpga_target_names(name, part, tmp_path, capsys):
    """One set of FPGA target names: generate --target, synth-report --targets and the area benchmarks."""
    from cubenoc.bench.render import yosys_families
    from cubenoc.boards.synth import TARGET_FAMILY, fpga_target
    from cubenoc.cli import main
    assert fpga_target(name) == part
    assert main(["generate", "q4", "--target", name, "-o", str(tmp_path), "--quiet"]) == 0
    assert main(["synth-report", "q4", "--targets", name, "--list"]) == 0
    assert f"{part} " in capsys.readouterr().out
    if TARGET_FAMILY[part] != "gowin":
        assert yosys_families([fpga_target(name)]) == (TARGET_FAMILY[part],)


def test_generic_is_no_fpga_target(capsys):
    from cubenoc.cli import main
    with pytest.raises(SystemExit) as e:                # argparse's own one-line usage error, exit 2
        main(["synth-report", "q4", "--targets", "generic", "--list"])
    assert e.value.code == 2 and "generic is the router for no FPGA" in capsys.readouterr().err


def test_every_command_takes_quiet():
    """One vocabulary: --quiet on every command, every bench and every analysis (docs/cli.md)."""
    from cubenoc.cli import COMMANDS, build_parser
    parser = build_parser()
    missing = []
    for name in COMMANDS:
        p = parser._commands.get(name)
        if p is None:
            continue
        subs = list(getattr(p, "_bench_parsers", {}).values())
        if name == "analyze" or not subs:
            subs = subs or [p]
        for q in subs:
            if "--quiet" not in q._option_string_actions:
                missing.append(f"{name} {q.prog}")
    analyze = parser._commands["analyze"]
    for action in analyze._subparsers._group_actions if analyze._subparsers else []:
        for fam, q in action.choices.items():
            if "--quiet" not in q._option_string_actions:
                missing.append(f"analyze {fam}")
    assert not missing, missing
    synth = parser._commands["synth-report"]
    assert synth._option_string_actions["--no-progress"].dest == synth._option_string_actions["--quiet"].dest


def test_quiet_prints_only_the_output_asked_for(tmp_path, capsys):
    from cubenoc.cli import main
    from cubenoc import outputs
    try:
        assert main(["build", "--board", "icebreaker", "--estimate-only", "--quiet"]) == 0
        out = capsys.readouterr()
        assert out.out.count("\n") == 1 and "estimate" in out.out and out.err == ""
        assert main(["simulate", "q4", "--rate", "0.1", "--quiet", "--warmup", "100", "--measure", "300",
                     "--csv", str(tmp_path / "r.csv")]) == 0
        out = capsys.readouterr()
        assert "CSV written" not in out.out + out.err and "0.1" in out.out and out.err == ""
    finally:
        outputs.quiet(False)


def test_depth_is_the_fifo_depth_in_prove_too(tmp_path, capsys):
    """prove's --depth is the FIFO depth as everywhere (--fifo-depth its old name), the BMC bound --bmc-depth;
    a depth= spec key and --depth that disagree are refused as in every command."""
    from cubenoc.cli import build_parser, main
    p = build_parser("prove")._commands["prove"]
    assert p.parse_args(["--depth", "3"]).depth == 3 and p.parse_args(["--fifo-depth", "3"]).depth == 3
    assert p.parse_args(["--bmc-depth", "6"]).bmc_depth == 6
    assert main(["prove", "hypercube:n=2,depth=4", "--depth", "2", "--work-dir", str(tmp_path)]) == 2
    assert "give one of them" in capsys.readouterr().err


def test_quiet_lasts_one_call(tmp_path, capsys):
    """main() in one process (the tests, a notebook): a --quiet call does not silence the next one."""
    from cubenoc.cli import main
    assert main(["build", "--board", "icebreaker", "--estimate-only", "--quiet"]) == 0
    assert main(["simulate", "q4", "--rate", "0.1", "--warmup", "100", "--measure", "300",
                 "--csv", str(tmp_path / "r.csv")]) == 0
    assert "CSV written" in capsys.readouterr().out


def test_generate_quiet_writes_the_files_and_says_nothing(tmp_path, capsys):
    from cubenoc.cli import main
    assert main(["generate", "q4", "-o", str(tmp_path), "--quiet"]) == 0
    out = capsys.readouterr()
    assert out.out == "" and out.err == "" and list(tmp_path.glob("*.v"))


def test_a_long_step_says_what_runs_in_a_log(capsys, monkeypatch):
    """Where stderr is not a terminal, a long step writes a line when it starts and one every LOG_EVERY
    seconds while it runs (a terminal gets the spinner instead); --quiet silences both."""
    import time

    from cubenoc import outputs
    outputs.quiet(False)
    monkeypatch.setattr(outputs.working, "LOG_EVERY", 1)
    with outputs.working("yosys on the router"):
        time.sleep(2.3)
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "cubenoc: yosys on the router ..." and len([e for e in err if "still running" in e]) >= 1
    with outputs.working("yosys on the router", quiet=True):
        time.sleep(1.2)
    assert capsys.readouterr().err == ""


def test_an_analysis_says_it_is_alive_only_when_it_runs_long(capsys, monkeypatch):
    """``cubenoc analyze``: a quick analysis writes nothing on stderr; one still running after
    ANALYSIS_QUIET_SECONDS says so once, and --quiet silences it."""
    import time

    from cubenoc import cli, outputs
    from cubenoc.sim.analysis import safety
    outputs.quiet(False)
    monkeypatch.setattr(cli, "ANALYSIS_QUIET_SECONDS", 1.0)
    assert cli.main(["analyze", "safety", "--n", "3"]) == 0
    assert capsys.readouterr().err == ""
    quick = safety.analyze
    monkeypatch.setattr(safety, "analyze", lambda args: (time.sleep(2.5), quick(args))[1])
    assert cli.main(["analyze", "safety", "--n", "3"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("cubenoc: analyze safety ... (") and err[0].endswith(" s so far)")
    assert cli.main(["analyze", "safety", "--n", "3", "--quiet"]) == 0
    assert capsys.readouterr().err == ""
