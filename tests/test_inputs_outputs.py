"""What a user types cannot crash a command or run away with the machine; what a command writes is whole or
absent (docs/cli.md "Exit status", "Where outputs go"; cubenoc/outputs.py):

* every input file (``--config``, ``--trace``, results files) is read as UTF-8 text, any other content is one
  line naming the file and the line;
* a run that would take hours or more memory than the machine has is refused at once, with the figure;
* a trace replays what users expect (the default window is the trace's own), an empty point says why;
* outputs are written under a temporary name and renamed when whole; a rerun of ``generate`` into a folder
  removes the files its previous run wrote and this one does not (its manifest), and only those.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cubenoc.cli import main

HEADER = "cycle,source,destination,length\n"
LIMIT_S = 10

from cli_run import run_cli as _run  # noqa: E402


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """The model's loop for Q(2) compiled before the runs with a time limit (a cold cache takes 10-30 s)."""
    trace = tmp_path_factory.mktemp("warm") / "t.csv"
    trace.write_text(HEADER + "0,0,1,1\n")
    assert main(["simulate", "hypercube:n=2", "--trace", str(trace), "--quiet"]) == 0


def _one_error(status, err, *words):
    assert status == 2, (status, err)
    assert len(err) == 1 and err[0].startswith("cubenoc: error: "), err
    for w in words:
        assert w in err[0], err[0]


# ---- 1. every input file is text, checked with its file and line ------------------------------------------
def _first_bad(content: bytes) -> int:
    """The offset of the first byte that makes ``content`` not text: a NUL, or where UTF-8 decoding fails."""
    try:
        content.decode("utf-8")
        bad = len(content)
    except UnicodeDecodeError as exc:
        bad = exc.start
    nul = content.find(b"\0")
    return min(bad, nul) if nul >= 0 else bad


def _not_utf8(data: bytes, at: int) -> bytes:
    """``data`` with a byte that is never UTF-8 (0xff) at position ``at``."""
    at = min(at, len(data))
    return data[:at] + b"\xff" + data[at:]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300), at=st.integers(0, 300))
def test_a_binary_config_file_is_one_line_naming_the_file_and_line(tmp_path, capsys, data, at):
    content = _not_utf8(data, at)
    path = tmp_path / "bin.toml"
    path.write_bytes(content)
    status, _, err, _ = _run(["generate", "--config", str(path), "-o", str(tmp_path / "out")], capsys)
    line = content.count(b"\n", 0, _first_bad(content)) + 1
    _one_error(status, err, f"--config {path} line {line}: not a text file")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300))
def test_any_config_content_is_refused_in_one_line(tmp_path, capsys, data):
    """Whatever the bytes (TOML or not, text or not), generate without a network exits 2 in one line."""
    path = tmp_path / "any.toml"
    path.write_bytes(data)
    status, _, err, _ = _run(["generate", "--config", str(path), "-o", str(tmp_path / "out")], capsys)
    _one_error(status, err, "--config" if data.strip() else "")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300), at=st.integers(0, 300), header=st.booleans())
def test_a_binary_trace_is_one_line_naming_the_file_and_line(compiled, tmp_path, capsys, data, at, header):
    content = (HEADER.encode() if header else b"") + _not_utf8(data, at)
    path = tmp_path / "t.csv"
    path.write_bytes(content)
    status, _, err, _ = _run(["simulate", "hypercube:n=2", "--trace", str(path), "--quiet"], capsys)
    line = content.count(b"\n", 0, _first_bad(content)) + 1
    _one_error(status, err, f"--trace {path} line {line}: not a text file")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet="0123456789,-\n x", max_size=80))
def test_any_trace_text_runs_or_is_refused_in_one_line_naming_the_line(compiled, tmp_path, capsys, text):
    path = tmp_path / "t.csv"
    path.write_text(HEADER + text)
    status, _, err, _ = _run(["simulate", "hypercube:n=2", "--trace", str(path), "--quiet", "--drain", "100"], capsys)
    assert status in (0, 2), (status, err)
    if status == 2:
        assert len(err) == 1 and re.match(rf"cubenoc: error: --trace {re.escape(str(path))} line \d+: ", err[0]), err


@pytest.mark.parametrize("text", ["a = " + "[" * 5000, "a = " + "{b=" * 3000], ids=["arrays", "tables"])
def test_a_config_nested_thousands_deep_is_one_line(tmp_path, capsys, text):
    (tmp_path / "deep.toml").write_text(text + "\n")
    status, _, err, _ = _run(["generate", "--config", str(tmp_path / "deep.toml")], capsys)
    _one_error(status, err, "not valid TOML (values nested too deeply)")


def test_a_binary_results_file_is_one_line_naming_it(tmp_path, capsys):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "x.json").write_bytes(b'{"page": "p.md"}\n\x00\x01')
    status, _, err, _ = _run(["bench", "--render", "--check", "--docs", str(tmp_path)], capsys)
    _one_error(status, err, "results file", "x.json line 2: not a text file (a NUL byte at column 1)")
    (tmp_path / "results" / "x.json").write_text('{"page": "p.md",\n "marks": 3}\n')
    status, _, err, _ = _run(["bench", "--render", "--check", "--docs", str(tmp_path)], capsys)
    _one_error(status, err, "x.json: not a results file")
    (tmp_path / "results" / "x.json").write_text("[" * 100000)
    status, _, err, _ = _run(["bench", "--render", "--check", "--docs", str(tmp_path)], capsys)
    _one_error(status, err, "x.json: not valid JSON (values nested too deeply)")


def test_read_text_names_line_and_column(tmp_path):
    from cubenoc.errors import CubenocError
    from cubenoc.outputs import read_text
    p = tmp_path / "f"
    p.write_bytes("ok\nsecond é\nab\xffc".encode("latin-1"))
    with pytest.raises(CubenocError, match=r"--x .*f line 2: not a text file \(byte 0xe9 at column 8 is not UTF-8\)"):
        read_text(p, "--x")
    p.write_bytes("\ufeffa = 1\n".encode())
    assert read_text(p) == "a = 1\n"                         # a byte-order mark is not content


# ---- 2. runaway work: refused at once with the figure -----------------------------------------------------
RUNAWAY = [
    # (trace text or None, command line; {trace} is the file, {tmp} the folder), words of the one line
    (HEADER + "0,0,1,100000000\n", "simulate hypercube:n=4 --trace {trace}", "line 2: the length must be 1..65,536"),
    (HEADER + "0,0,1,1\n100000000000000,1,0,1\n", "simulate hypercube:n=4 --trace {trace}", "would take about"),
    (HEADER + "1125899906842625,0,1,1\n", "simulate hypercube:n=4 --trace {trace}", "line 2: the cycle must be"),
    (None, "simulate hypercube:n=4 --measure 100000000000", "would take about"),
    (None, "simulate hypercube:n=4 --length 100000000", "at most 65,536 flits"),
    (None, "simulate hypercube:n=4 --sweep 0.1:0.9:0.1 --measure 1000000000", "CUBENOC_ALLOW_LONG=1"),
    (None, "demo --packets 0 --build-dir {tmp}/b", "--packets must be at least 1"),
    (None, "demo --packets 100000000 --build-dir {tmp}/b", "--packets 100000000: a node's packets would take"),
    (None, "demo --max-len 0 --build-dir {tmp}/b", "--max-len must be in 1..65536"),
    (None, "demo hypercube:n=2,interface=axis --build-dir {tmp}/b", "leave out interface=axis"),   # was 3 lines late
    (None, "bench throughput --window 1000000000", "lower --window"),
    (None, "bench model-speed --cycles 1000000000000", "lower --cycles"),
    (None, "bench sim-speed --cycles 100000000000", "would take about"),
]


@pytest.mark.parametrize("trace, line, words", RUNAWAY, ids=[r[1].split(" {")[0] + f" [{i}]" for i, r in enumerate(RUNAWAY)])
def test_runaway_work_is_refused_in_one_line_within_10_s(tmp_path, capsys, monkeypatch, trace, line, words):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CUBENOC_ALLOW_LONG", raising=False)
    if trace is not None:
        (tmp_path / "t.csv").write_text(trace)
    argv = line.replace("{trace}", str(tmp_path / "t.csv")).replace("{tmp}", str(tmp_path)).split()
    status, out, err, seconds = _run(argv, capsys)
    _one_error(status, err, words)
    assert out == "" and seconds < LIMIT_S                   # nothing printed before the error
    assert not (tmp_path / "b").exists() or not any((tmp_path / "b").iterdir())


def test_the_estimate_says_how_to_go_on_and_the_variable_lets_it(monkeypatch):
    from cubenoc import estimate as S
    from cubenoc.errors import CubenocError
    monkeypatch.delenv(S.ALLOW_LONG, raising=False)
    with pytest.raises(CubenocError, match=r"about 3 hours here .*: lower --measure, or set CUBENOC_ALLOW_LONG=1"):
        S.check_run("x", 3 * 3600.0, 0, "--measure")
    with pytest.raises(CubenocError, match=r"more than this machine's"):
        S.check_run("x", 1.0, 2.0 * S.machine_memory(), "--measure")
    S.check_run("x", 3000.0, 0.5 * S.machine_memory(), "--measure")      # under both: runs
    monkeypatch.setenv(S.ALLOW_LONG, "1")
    S.check_run("x", 3 * 3600.0, 2.0 * S.machine_memory(), "--measure")


# ---- 3. a trace means what users think ------------------------------------------------------------------
DOCS_TRACE = HEADER + "0,2,8,4\n0,4,13,1\n3,2,5,2\n"          # docs/simulator.md "Trace-driven traffic"


def test_the_docs_example_trace_is_measured_by_default(tmp_path, capsys):
    (tmp_path / "t.csv").write_text(DOCS_TRACE)
    status, out, err, _ = _run(["simulate", "hypercube", "--n", "4", "--trace", str(tmp_path / "t.csv"), "--json",
                                "--quiet"], capsys)
    (p,) = json.loads(out)
    assert status == 0 and p["packets"] == 3 and p["message"] == "ok", (p, err)
    assert p["accepted"] > 0 and p["latency_mean"] >= 4


def test_the_trace_window_knows_the_method_defaults():
    """simulate tells a typed --warmup/--measure from their defaults (which a trace replaces): the same values."""
    from cubenoc import simulate_options as simulate
    from cubenoc.cli import build_parser
    p = build_parser("simulate")._commands["simulate"]
    defaults = {a.dest: a.default for a in p._actions}
    assert {k: defaults[k] for k in simulate.DEFAULT_WINDOW} == simulate.DEFAULT_WINDOW
    helps = {a.dest: a.help for a in p._actions}
    assert all("with --trace" in helps[k] and f"default {v}" in helps[k] for k, v in simulate.DEFAULT_WINDOW.items())


@pytest.mark.parametrize("text, extra, words", [
    (HEADER, [], "has no packets (only its header line)"),
    (DOCS_TRACE, ["--warmup", "1000"], "3 packet(s) before it, in the warm-up (from cycle 0: --warmup 0 measures"),
    (DOCS_TRACE + "100000000000000,1,0,1\n", ["--measure", "100"], None),
    (HEADER + "100000000000000,1,0,1\n", ["--measure", "100"], "1 after it (from cycle 100,000,000,000,000, beyond "
                                                              "the run"),
], ids=["header only", "all in the warm-up", "one beyond the run, others measured", "all beyond the run"])
def test_an_empty_point_says_why_in_the_table_and_the_json(tmp_path, capsys, text, extra, words):
    (tmp_path / "t.csv").write_text(text)
    base = ["simulate", "hypercube:n=4", "--trace", str(tmp_path / "t.csv"), "--quiet", *extra]
    status, table, _, _ = _run(base, capsys)
    status_json, out, _, _ = _run(base + ["--json"], capsys)
    (p,) = json.loads(out)
    assert status == status_json == 0
    if words is None:
        assert p["packets"] == 3 and p["message"] == "ok"
        return
    assert p["packets"] == 0 and p["accepted"] == 0 and words in p["message"], p["message"]
    assert words in table, table


# ---- 4. outputs whole or absent ---------------------------------------------------------------------------
def test_atomic_write_keeps_the_old_file_when_the_writer_fails(tmp_path):
    from cubenoc.outputs import atomic_write
    path = tmp_path / "out.csv"
    path.write_text("old\n")
    with pytest.raises(RuntimeError):
        with atomic_write(path, "--csv") as tmp:
            tmp.write_text("half")
            raise RuntimeError("stopped")
    assert path.read_text() == "old\n" and sorted(tmp_path.iterdir()) == [path]
    with atomic_write(path, "--csv") as tmp:
        assert tmp.parent == tmp_path and tmp.suffix == ".csv" and ".partial" in tmp.name
        tmp.write_text("new\n")
    assert path.read_text() == "new\n" and sorted(tmp_path.iterdir()) == [path]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("option", ["--csv", "--record"])
def test_a_full_disk_is_one_line_naming_the_file(capsys, option):
    status, _, err, _ = _run(["simulate", "hypercube:n=3", "--warmup", "0", "--measure", "100", "--drain", "100",
                              option, "/dev/full", "--quiet"], capsys)
    _one_error(status, err, f"{option} /dev/full: cannot write it (No space left on device)")


def test_a_run_that_fails_leaves_no_record(tmp_path, capsys, monkeypatch):
    """The record is written as NAME.partial and renamed at the end: a run stopped half way leaves neither."""
    from cubenoc.sim import simulator as S
    real = S.run_point

    def fail(model, label, source, *a, **k):
        source.take(500)                         # some packets recorded, then the run breaks off
        assert (tmp_path / "rec.csv.partial").stat().st_size > len(HEADER)
        raise KeyboardInterrupt
    monkeypatch.setattr(S, "run_point", fail)
    status, _, err, _ = _run(["simulate", "hypercube:n=3", "--rate", "0.3", "--record", str(tmp_path / "rec.csv"),
                              "--quiet"], capsys)
    assert status == 130 and err == ["cubenoc: interrupted"]
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(S, "run_point", real)
    status, _, _, _ = _run(["simulate", "hypercube:n=3", "--rate", "0.3", "--measure", "500", "--record",
                            str(tmp_path / "rec.csv"), "--quiet"], capsys)
    assert status == 0 and [p.name for p in tmp_path.iterdir()] == ["rec.csv"]


@pytest.mark.parametrize("name, cut, words", [
    ("rec.csv.partial", False, "a trace still being written"),
    ("rec.x1.partial.csv", False, "a trace still being written"),
    ("cut.csv", True, "ends in the middle of a line"),
])
def test_an_unfinished_trace_does_not_replay(tmp_path, capsys, name, cut, words):
    text = HEADER + "".join(f"{t},0,1,1\n" for t in range(50))
    (tmp_path / name).write_text(text[:-3] if cut else text)
    status, _, err, _ = _run(["simulate", "hypercube:n=2", "--trace", str(tmp_path / name), "--quiet"], capsys)
    _one_error(status, err, f"--trace {tmp_path / name}", words)


def test_an_empty_output_path_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for argv in (["generate", "hypercube:n=2", "-o", ""], ["simulate", "hypercube:n=2", "--csv", ""]):
        status, _, err, _ = _run(argv, capsys)
        _one_error(status, err, "the path is empty")
    assert list(tmp_path.iterdir()) == []


# ---- 6. a rerun of generate into a folder leaves no stale files -----------------------------------------
def test_a_rerun_of_generate_leaves_no_stale_files(tmp_path, capsys):
    pytest.importorskip("amaranth")
    out = tmp_path / "X"
    assert main(["generate", "hypercube:n=2", "-o", str(out), "--interface", "axis", "--testbench", "--quiet"]) == 0
    first = {p.name for p in out.iterdir()}
    assert {"cubenoc_hypercube_n2_axis_ni.v", "test_cubenoc_hypercube_n2.py"} <= first
    assert main(["generate", "hypercube:n=3", "-o", str(out), "--quiet"]) == 0          # another design beside it
    (out / "notes.txt").write_text("mine")                                               # the user's own file
    capsys.readouterr()
    assert main(["generate", "hypercube:n=2", "-o", str(out)]) == 0
    said = capsys.readouterr().out.splitlines()
    now = {p.name for p in out.iterdir()}
    assert "cubenoc_hypercube_n2_axis_ni.v" not in now and "test_cubenoc_hypercube_n2.py" not in now
    assert "notes.txt" in now and "cubenoc_hypercube_n3.v" in now and "cubenoc_hypercube_n2.v" in now
    notes = [x for x in said if x.startswith("removed")]
    assert notes == [f"removed 2 file(s) that the previous `cubenoc generate` of cubenoc_hypercube_n2 wrote into "
                     f"{out} and this run does not: cubenoc_hypercube_n2_axis_ni.v, test_cubenoc_hypercube_n2.py"]
    listed = json.loads((out / ".cubenoc-manifest").read_text())["runs"]
    assert set(listed) == {"cubenoc_hypercube_n2", "cubenoc_hypercube_n3"}
    assert set(listed["cubenoc_hypercube_n2"]) | set(listed["cubenoc_hypercube_n3"]) | {"notes.txt",
                                                                                        ".cubenoc-manifest"} == now
    # --quiet removes them without a word
    assert main(["generate", "hypercube:n=2", "-o", str(out), "--interface", "axis", "--quiet"]) == 0
    assert main(["generate", "hypercube:n=2", "-o", str(out), "--quiet"]) == 0
    assert capsys.readouterr().out == "" and not (out / "cubenoc_hypercube_n2_axis_ni.v").exists()


def test_the_manifest_never_removes_what_it_does_not_list(tmp_path):
    from cubenoc.outputs import MANIFEST, clean_stale
    (tmp_path / "keep.v").write_text("x")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.v"
    outside.write_text("x")
    (tmp_path / MANIFEST).write_text(json.dumps({"runs": {"top": ["keep.v", f"../{outside.name}", str(outside),
                                                                  MANIFEST, 7]}}))
    (tmp_path / "top.v").write_text("x")
    assert clean_stale(tmp_path, [tmp_path / "top.v"], "generate", "top") == [tmp_path / "keep.v"]
    assert outside.exists() and (tmp_path / MANIFEST).exists()
    (tmp_path / MANIFEST).write_bytes(b"\xff\xfe garbage")           # a manifest that is not ours: nothing goes
    (tmp_path / "other.v").write_text("x")
    assert clean_stale(tmp_path, [tmp_path / "top.v"], "generate", "top") == []
    outside.unlink()


# ---- 7. small things --------------------------------------------------------------------------------------
def test_build_says_its_estimate_once_and_safety_has_its_own_bitstream():
    pytest.importorskip("amaranth")
    from cubenoc.boards.flow import BuildReport, output_name
    rep = BuildReport("icebreaker", Path("build/icebreaker"), Path("build/icebreaker/top.bin"), 20.0, 12.0,
                      {"ICESTORM_LC": (10, 5280)}, (3112, 1980), 3.0)
    assert "estimate before the build" in rep.text() and "estimate" not in rep.text(estimate=False)
    assert output_name() == "top" and output_name(safety=True) == "top_safety"


@pytest.mark.parametrize("command", ["prove hypercube:n=2", "demo"])
def test_a_core_install_names_the_verify_extra(tmp_path, command):
    """Without Amaranth (a core install), prove and demo name [verify], the extra the README gives them."""
    code = ("import sys; sys.modules['amaranth'] = None\n"
            "from cubenoc.cli import main\n"
            f"sys.exit(main({command.split()!r}))")
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    err = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(err) == 1, p.stderr
    assert "'.[verify]'" in err[0] and "fpga" not in err[0], err[0]
