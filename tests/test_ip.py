"""The network as IP (docs/ip.md): beside the Verilog, an instantiation template that compiles in a module
of the user's, a FuseSoC core whose lint target FuseSoC runs, and the examples instantiating the network
from Amaranth (examples/amaranth_axis.py, simulated) and from LiteX (examples/litex_axis.py, its Verilog
compiled with the network's by Icarus)."""
from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path

import pytest
from test_icarus import need_iverilog

from cubenoc.cli import main
from cubenoc.rtl.tools import iverilog_compile, verilator_env

ROOT = Path(__file__).resolve().parents[1]
TOP = "cubenoc_hypercube_n3"


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    d = tmp_path_factory.mktemp("ip")
    assert main(["generate", "hypercube:n=3", "--interface", "axis", "-o", str(d), "--quiet"]) == 0
    return d


def test_instantiation_template_compiles_in_a_users_module(out, tmp_path):
    need_iverilog()
    veo = (out / f"{TOP}.veo").read_text()
    assert ".s07_axis_tdest(s07_axis_tdest)" in veo and ".m00_axis_tid(m00_axis_tid)" in veo
    user = tmp_path / "user_top.v"
    user.write_text("module user_top;\n" + veo + "endmodule\n")
    res = iverilog_compile([user] + sorted(out.glob(f"{TOP}*.v")), "user_top")
    assert res.returncode == 0 and not res.stderr.strip(), res.stderr[-2000:]


def test_fusesoc_runs_the_cores_lint_target(out, tmp_path):
    core = (out / f"{TOP}.core").read_text()
    assert core.startswith("CAPI=2:") and f"name: cubenoc:noc:{TOP}:0.1.0" in core and f"{TOP}_axis_ni.v" in core
    cmd = [str(Path(sys.executable).parent / "fusesoc"), "--cores-root", str(out), "run", "--target", "lint",
           f"cubenoc:noc:{TOP}"]
    res = subprocess.run(cmd, cwd=tmp_path, env=verilator_env(), capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, (res.stdout + res.stderr)[-3000:]
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
