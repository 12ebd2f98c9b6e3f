"""Random command lines for every command, benchmark and analysis, made from the parsers (and so from the
option registry, cubenoc/options.py): each one exits 0 or 2, never with a traceback, its error in one line,
within 10 s. The long work itself (the model, Verilog, the tools, proofs) is replaced by a stop: what is
fuzzed is everything a command does with its input before the work starts."""
from __future__ import annotations

import argparse
import importlib
import math
import signal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cubenoc.cli import build_parser, main


class WorkStarted(Exception):
    """The command got past its input checks to the work (an accepted command line)."""


#: where a command's long work starts: each replaced by a function that raises WorkStarted
WORK = ["cubenoc.sim.simulator.sweep", "cubenoc.sim.simulator.model_for", "cubenoc.sim.model.network.NetworkModel",
        "cubenoc.rtl.emit.write_network", "cubenoc.rtl.area.synthesize", "cubenoc.boards.flow.build_demo",
        "cubenoc.rtl.formal.plan.prove_network", "cubenoc.tb.verify.verify_network", "cubenoc.tb.runner.build_network",
        "cubenoc.synth_report.tool_versions", "cubenoc.bench.synth.tool_versions", "cubenoc.sim.speed.speed_rows",
        "cubenoc.bench.sim_speed.speed_rows", "cubenoc.sim.speed.scaling_point", "cubenoc.bench.model.scaling_point",
        "cubenoc.sim.model.perf.throughput_rows", "cubenoc.bench.model.throughput_rows",
        "cubenoc.sim.model.perf.zero_load_latency", "cubenoc.bench.model.latency_rows",
        "cubenoc.bench.families.family_networks", "cubenoc.bench.adaptive.throughput_table",
        "cubenoc.bench.adaptive.area_rows", "cubenoc.bench.area.measure", "cubenoc.bench.vc_area.measure",
        "cubenoc.bench.broadcast_area.measure", "cubenoc.bench.vc_throughput.table",
        "cubenoc.bench.vc_throughput.voq_table", "cubenoc.bench.fair_area.rows", "cubenoc.bench.safety_area.level_table",
        "cubenoc.bench.safety_area.fork_table", "cubenoc.bench.render.render_results",
        "cubenoc.sim.analysis.safety.figure5", "cubenoc.sim.analysis.safety.recover_figure2",
        "cubenoc.sim.analysis.pdn.properties", "cubenoc.sim.analysis.safety_claims.claims",
        "cubenoc.synth_report.shapes_for", "cubenoc.sim.speed.model_for", "cubenoc.sim.speed._model",
        "cubenoc.bench.anynet_speed.measure", "cubenoc.bench.model.NetworkModel", "cubenoc.bench.families.NetworkModel"]

SPECS = ["q4", "hypercube:n=3", "pdn:set=0,1,3", "metacube:k=1,m=2", "hin:level1=bh:2,level2=bh:2",
         "enhanced:n=3,k=1,broadcast=1", "hypercube:n=3,depth=0", "bogus:n=1", "hypercube:n=40", "", "q4,,"]
TEXT = ["", "x", "-1", "0", "1", "2", "1..3", "0,1,3,9", "bh:2", "uniform:1:4", "exp:0", "\x00", "nan", "9" * 30]
PATHS = ["/dev/full", "/dev/zero", "",  "/nonexistent/dir/f.csv", "{tmp}/out.csv", "{tmp}/out.png", "{tmp}/d"]
INTS = [-3, -1, 0, 1, 2, 3, 4, 6, 17, 10 ** 9]
FLOATS = [-1.0, 0.0, 0.05, 0.5, 1.0, 2.0, 1e12, math.nan, math.inf]


def _commands():
    """(argv prefix, parser) for every command, benchmark and analysis."""
    parser = build_parser()
    out = []
    for name, p in parser._commands.items():
        if getattr(p, "_bench_parsers", None):
            out += [(["bench", b], q) for b, q in p._bench_parsers.items()]
        elif name == "analyze":
            out += [(["analyze", f], q) for f, q in p._subparsers._group_actions[0].choices.items()]
        else:
            out.append(([name], p))
    return out


COMMANDS = _commands()


def _value(action: argparse.Action):
    if action.choices is not None:
        return st.sampled_from([*map(str, action.choices), "bogus"])
    meta = str(action.metavar or "").upper()
    if any(w in meta for w in ("FILE", "DIR", "PAGE", ".CSV", ".PNG", ".MD", ".TOML")) or action.dest in (
            "out", "work_dir", "build_dir", "csv", "plot", "record", "trace", "write", "config", "doc"):
        return st.sampled_from(PATHS)
    if action.dest in ("network", "network_option", "compare"):
        return st.sampled_from(SPECS)
    kind = getattr(action.type, "minimum", None) is not None or action.type is int
    if kind:
        return st.sampled_from(INTS).map(str)
    if action.type is float:
        return st.sampled_from(FLOATS).map(repr)
    return st.sampled_from(TEXT)


@st.composite
def command_lines(draw, prefix, parser):
    argv = list(prefix)
    positional = [a for a in parser._actions if not a.option_strings and not isinstance(a, argparse._SubParsersAction)]
    if positional and draw(st.booleans()):
        argv.append(draw(st.sampled_from(SPECS)))
    options = [a for a in parser._actions if a.option_strings and a.help != argparse.SUPPRESS
               and not isinstance(a, (argparse._HelpAction, argparse._VersionAction))]
    for a in draw(st.lists(st.sampled_from(options), max_size=4, unique_by=id)) if options else []:
        flag = draw(st.sampled_from([s for s in a.option_strings if s.startswith("--")] or a.option_strings))
        if a.nargs == 0:
            argv.append(flag)
        elif a.nargs in ("+", "*", 2):
            argv += [flag, *draw(st.lists(_value(a), min_size=1 if a.nargs != 2 else 2,
                                          max_size=2 if a.nargs != 2 else 2))]
        elif a.nargs == "?":
            argv += [flag] + ([draw(_value(a))] if draw(st.booleans()) else [])
        else:
            argv += [flag, draw(_value(a))]
    return argv


@pytest.fixture
def no_work(monkeypatch):
    def stop(*a, **k):
        raise WorkStarted
    for dotted in WORK:
        module, _, name = dotted.rpartition(".")
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError:
            continue
        if hasattr(mod, name):
            monkeypatch.setattr(mod, name, stop)


class TookTooLong(BaseException):
    """Not an OSError (as TimeoutError is, which the CLI would report as a bad path and exit 2) and not an
    Exception, so nothing on the way catches it."""


@pytest.mark.parametrize("prefix,parser", COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_random_command_lines_exit_0_or_2_in_one_line(prefix, parser, no_work, tmp_path, capsys):
    @settings(max_examples=10, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(command_lines(prefix, parser))
    def check(argv):
        argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
        fired = []

        def alarm(signum, frame):
            fired.append(signum)
            raise TookTooLong("no first line within 10 s")
        old = signal.signal(signal.SIGALRM, alarm)
        signal.alarm(10)
        try:
            rc = main(argv)
        except WorkStarted:
            rc = 0
        except SystemExit as e:                   # argparse's usage errors (and --help)
            rc = e.code
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)
        out, err = capsys.readouterr()
        assert not fired, (argv, "ran over 10 s (the alarm may have been swallowed by a gc callback)")
        assert rc in (0, 2), (argv, rc, err[-500:])
        assert "Traceback" not in err, (argv, err[-2000:])
        errors = [line for line in err.splitlines() if "error" in line.lower()]
        assert rc == 0 or len(errors) == 1, (argv, err)
    check()
