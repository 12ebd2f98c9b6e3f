"""The network as IP (docs/ip.md): beside the Verilog, a Verilator waiver file with which `verilator --lint-only
-Wall` reports nothing (alone and under a user's module), an instantiation template that pastes into a module
of the user's, a FuseSoC core whose lint target FuseSoC runs, and the examples instantiating the network
from Amaranth (examples/amaranth_axis.py, simulated) and from LiteX (examples/litex_axis.py, its Verilog
compiled with the network's by Icarus)."""
from __future__ import annotations

import contextlib
import io
import re
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from test_icarus import need_iverilog

from cubenoc.cli import main
from cubenoc.rtl.emit import WAIVERS
from cubenoc.rtl.tools import iverilog_compile, verilator_env, verilator_lint

ROOT = Path(__file__).resolve().parents[1]
TOP = "cubenoc_hypercube_n3"


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    d = tmp_path_factory.mktemp("ip")
    assert main(["generate", "hypercube:n=3", "--interface", "axis", "-o", str(d), "--quiet"]) == 0
    return d


Q4 = "cubenoc_enhanced_n4_k0"


@pytest.fixture(scope="module", params=["native", "axis"])
def q4(request, tmp_path_factory):
    """Q(4, 0) as ``generate --lint`` writes and lints it: (folder, what --lint printed)."""
    d = tmp_path_factory.mktemp(f"q4_{request.param}")
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        assert main(["generate", "enhanced:n=4,k=0", "--interface", request.param, "-o", str(d), "--quiet",
                     "--lint"]) == 0
    return d, printed.getvalue()


def verilog_files(d: Path, top: str) -> list[Path]:
    return [d / f"{top}.v"] + sorted(p for p in d.glob(f"{top}_*.v"))


def test_q4_lints_clean_with_its_waiver_file(q4):
    """`generate --lint` and a user's own `verilator --lint-only -Wall <top>.vlt <top>*.v`: 0 warnings; without
    the waiver file, only the waived rules are reported (no WIDTH warning: every operator of the Verilog is
    written at its operands' width, rtl/tools.width_exact_rtlil)."""
    d, printed = q4
    assert f"verilator --lint-only -Wall {Q4}.vlt: 0 errors, 0 warnings" in printed, printed
    files = verilog_files(d, Q4)
    res = verilator_lint(files, Q4, d / f"{Q4}.vlt")
    assert (res.returncode, res.errors, res.warnings) == (0, 0, 0), res.log[-3000:]
    bare = verilator_lint(files, Q4)
    assert bare.warnings > 0 and set(bare.by_kind) <= {rule for rule, _ in WAIVERS}, bare.by_kind


def test_the_waiver_file_is_in_the_cores_lint_target(out):
    vlt = (out / f"{TOP}.vlt").read_text()
    assert vlt.startswith("`verilator_config\n")
    rules = re.findall(r'^lint_off -rule (\w+) -file "\*(\w+)\*\.v"$', vlt, re.M)
    assert rules == [(rule, TOP) for rule, _ in WAIVERS]
    for rule, _ in WAIVERS:           # each waiver says why, in the comment above it
        assert re.search(rf"^// {rule}: \w.*\n(// .*\n)*lint_off -rule {rule} ", vlt, re.M), rule
    core = yaml.safe_load((out / f"{TOP}.core").read_text())
    assert core["filesets"]["waivers"] == {"files": [f"{TOP}.vlt"], "file_type": "vlt"}
    lint = core["targets"]["lint"]
    assert lint["filesets"] == ["waivers", "rtl"] and lint["tools"]["verilator"]["verilator_options"] == ["-Wall"]
    assert core["targets"]["sim"]["filesets"] == ["rtl"]


def users_module(veo: str) -> str:
    """A user's module whose clock and reset are ports named clk and rst, with the template pasted in as it
    is, and its own side of each wire: our inputs tied to 0, our outputs gathered into one unused_ wire
    (Verilator's -Wall does not report names containing "unused")."""
    conns = re.findall(r"^ {4}\.(\w+)\(\1\),? +// (input|output)\b", veo, re.M)
    ins = [name for name, way in conns if way == "input" and name not in ("clk", "rst")]
    outs = [name for name, way in conns if way == "output"]
    return "\n".join(["module user_top (input clk, input rst);", veo,
                      *(f"assign {name} = '0;" for name in ins),
                      f"wire unused_outputs = &{{1'b0, {', '.join(outs)}}};", "endmodule", ""])


def test_instantiation_template_pastes_into_a_users_module(out, tmp_path):
    """The template declares no clk/rst wire (a module whose ports are clk and rst would declare them twice)
    and connects them by name; pasted into such a module it lints with 0 warnings under -Wall with the waiver
    file, and Icarus compiles it."""
    veo = (out / f"{TOP}.veo").read_text()
    assert ".s07_axis_tdest(s07_axis_tdest)" in veo and ".m00_axis_tid(m00_axis_tid)" in veo
    assert not re.search(r"^wire( \[\d+:0\])? (clk|rst);", veo, re.M)
    for port in ("clk", "rst"):
        assert re.search(rf"^ {{4}}\.{port}\({port}\), +// input$", veo, re.M), port
    user = tmp_path / "user_top.v"
    user.write_text(users_module(veo))
    files = [user] + verilog_files(out, TOP)
    res = verilator_lint(files, "user_top", out / f"{TOP}.vlt")
    assert (res.returncode, res.errors, res.warnings) == (0, 0, 0), res.log[-3000:]
    if shutil.which("iverilog") is None and shutil.which("apt-get") is None:
        return                  # where Icarus cannot be installed (test_icarus.need_iverilog), Verilator alone
    need_iverilog()
    res = iverilog_compile(files, "user_top")
    assert res.returncode == 0 and not res.stderr.strip(), res.stderr[-2000:]


def test_fusesoc_runs_the_cores_lint_target(out, tmp_path):
    core = (out / f"{TOP}.core").read_text()
    assert core.startswith("CAPI=2:") and f"name: cubenoc:noc:{TOP}:0.1.0" in core and f"{TOP}_axis_ni.v" in core
    cmd = [str(Path(sys.executable).parent / "fusesoc"), "--cores-root", str(out), "run", "--target", "lint",
           f"cubenoc:noc:{TOP}"]
    res = subprocess.run(cmd, cwd=tmp_path, env=verilator_env(), capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, (res.stdout + res.stderr)[-3000:]
    assert "%Warning" not in res.stdout + res.stderr, (res.stdout + res.stderr)[-3000:]
    assert (tmp_path / "build" / f"cubenoc_noc_{TOP}_0.1.0" / "lint-verilator").is_dir()


def test_amaranth_example_delivers_the_frame_with_its_source():
    ex = runpy.run_path(str(ROOT / "examples" / "amaranth_axis.py"))
    got = ex["main"]()
    src, dst, beats = ex["SRC"], ex["DST"], ex["BEATS"]
    assert [g[3] for g in got] == beats and [g[4] for g in got] == [0] * (len(beats) - 1) + [1]
    assert {g[1] for g in got} == {src} and {g[2] for g in got} == {dst}
    cycles = [g[0] for g in got]
    assert cycles == list(range(cycles[0], cycles[0] + len(beats)))       # back to back once it arrives


def test_litex_example_instantiates_the_network(out):
    pytest.importorskip("litex", reason="litex is in the [ip] extra (pip install '.[ip]')")
    need_iverilog()
    ex = runpy.run_path(str(ROOT / "examples" / "litex_axis.py"))
    path = ex["main"](out)
    text = path.read_text()
    assert f"{TOP} {TOP}(" in text and ".s07_axis_tdest(" in text and ".m03_axis_tid(" in text
    res = iverilog_compile([path] + sorted(out.glob(f"{TOP}*.v")), "litex_top")
    assert res.returncode == 0 and not res.stderr.strip(), res.stderr[-2000:]
