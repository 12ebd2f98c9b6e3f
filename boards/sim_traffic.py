"""Run the demo's :class:`~cubenoc.boards.demo.TrafficSystem` under Verilator (cocotb) for many cycles.

``run_traffic(plan, cycles=4000, drain=1000, ...)`` (``plan``: the network and its routers) converts the
system to Verilog (Amaranth's bundled Yosys), builds it in ``build/boards_sim/<name>/`` (rewriting the .v only when its
text changes, so a second run does not recompile), runs ``cycles`` clock cycles of traffic, stops the
generators, lets the network drain for ``drain`` cycles and returns the totals as a dict:
``sent``, ``received``, ``errors``, ``lat_sum``, ``lat_count``, ``error_kinds``, ``cycles``.

The cocotb test in this module (``traffic_run``) does the clocking: no Python per cycle.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from ..rtl.tools import use_builtin_yosys, use_verilator

BUILD_ARGS = ["-Wno-fatal", "-Wno-lint", "-Wno-style", "-O1"]
RESULT_NAMES = ("sent", "received", "errors", "lat_sum", "lat_count", "error_kinds")


def _project_root() -> Path:
    return Path(__file__).resolve().parents[1]


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def run_traffic(plan, *, cycles: int = 4000, drain: int = 1000, rate: int = 64, stall_rate: int = 0,
                max_length: int = 7) -> dict:
    from amaranth.back import verilog
    from cocotb_tools.runner import get_runner

    from .demo import TrafficSystem

    use_builtin_yosys()
    use_verilator()
    topology = plan.topology
    system = TrafficSystem(plan, rate=rate, stall_rate=stall_rate, max_length=max_length)
    payload_width, fifo_depth = system.payload_width, system.fifo_depth
    name = f"traffic_{topology.name}_w{payload_width}_d{fifo_depth}_r{rate}_s{stall_rate}_l{max_length}"
    root = Path(os.environ.get("CUBENOC_BUILD_DIR", _project_root() / "build")) / "boards_sim" / name
    top = "traffic_top"
    src = root / "src" / f"{top}.v"
    _write_if_changed(src, verilog.convert(system, name=top, emit_src=False))
    runner = get_runner("verilator")
    runner.build(sources=[str(src)], hdl_toplevel=top, build_dir=str(root / "sim"),
                 build_args=BUILD_ARGS, log_file=str(root / "build.log"))
    work = Path(tempfile.mkdtemp(prefix="run_", dir=root))
    out = work / "result.json"
    job = {"cycles": int(cycles), "drain": int(drain), "out": str(out)}
    runner.test(test_module="cubenoc.boards.sim_traffic", hdl_toplevel=top, build_dir=str(root / "sim"),
                test_dir=str(work), extra_env={"CUBENOC_TRAFFIC_JOB": json.dumps(job)},
                log_file=str(work / "sim.log"))
    if not out.exists():
        log = (work / "sim.log").read_text() if (work / "sim.log").exists() else ""
        raise RuntimeError(f"the traffic simulation did not finish; log tail:\n{log[-3000:]}")
    return json.loads(out.read_text())


try:  # the cocotb side (imported by the simulator process only)
    import cocotb
    from cocotb.clock import Clock
    from cocotb.triggers import ClockCycles

    @cocotb.test()
    async def traffic_run(dut):
        job = json.loads(os.environ["CUBENOC_TRAFFIC_JOB"])
        cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
        dut.rst.value = 1
        dut.enable.value = 1
        dut.clear_window.value = 0
        await ClockCycles(dut.clk, 2)
        dut.rst.value = 0
        await ClockCycles(dut.clk, job["cycles"])
        dut.enable.value = 0
        await ClockCycles(dut.clk, job["drain"])
        result = {n: int(getattr(dut, n).value) for n in RESULT_NAMES}
        result["cycles"] = job["cycles"]
        Path(job["out"]).write_text(json.dumps(result))
except ImportError:  # pragma: no cover
    pass
