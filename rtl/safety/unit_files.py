"""The safety-level network's Verilog and area (rtl/safety/unit.py; docs/safety_hw.md): one unit's module
(:func:`unit_verilog`), the network top with its port map (:func:`safety_files`, :func:`write_safety`) and a
unit's yosys cell counts (:func:`unit_area`).
"""
from __future__ import annotations

import json
from pathlib import Path

from amaranth.back import verilog

from cubenoc.rtl.area import count, synthesize
from cubenoc.rtl.tools import use_builtin_yosys

from .unit import DEFAULT_MODELS, SafetyLevelUnit, SafetyNetwork, check_models, output_fields, unit_module_name


def unit_verilog(n: int, models=DEFAULT_MODELS, name: str | None = None) -> str:
    use_builtin_yosys()
    unit = SafetyLevelUnit(n, models)
    return verilog.convert(unit, name=name or unit_module_name(n, models))


def safety_files(n: int, models=DEFAULT_MODELS, top: str | None = None) -> tuple[dict[str, str], str]:
    """``({file name: text}, top)``: the network top, the unit module, and ``<top>.json`` (port map)."""
    use_builtin_yosys()
    models = check_models(models)
    top = top or f"cubenoc_safety_q{n}"
    net = SafetyNetwork(n, models, structural=True)
    files = {f"{top}.v": verilog.convert(net, name=top),
             f"{net.unit_name}.v": unit_verilog(n, models, net.unit_name)}
    desc = {"top": top, "n": n, "num_nodes": 1 << n, "models": list(models), "unit": net.unit_name,
            "clock": "clk", "reset": "rst (synchronous, active high; levels restart from the top level)",
            "inputs": {"node_faulty": "bit v", "link_faulty": "bit v*n+k (link v -- v^2^k; either end's bit)"},
            "levels": "every output below concatenated in this order, the first at bit 0",
            "outputs": {name: {"fields_per_node": per, "bits_per_field": w,
                               "node_v": f"[v*{per * w} +: {per * w}]", "field_k": f"[(v*{per}+k)*{w} +: {w}]"}
                        for name, (per, w) in output_fields(n, models).items()}}
    files[f"{top}.json"] = json.dumps(desc, indent=2) + "\n"
    return files, top


def write_safety(n: int, outdir, models=DEFAULT_MODELS) -> tuple[list[Path], str]:
    """Write :func:`safety_files` into ``outdir``, touching a file only when its text changes;
    returns (Verilog files, top module name)."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    files, top = safety_files(n, models)
    paths = []
    for name, text in files.items():
        p = outdir / name
        if not p.exists() or p.read_text() != text:
            p.write_text(text)
        if name.endswith(".v"):
            paths.append(p)
    return paths, top


def unit_area(n: int, models=DEFAULT_MODELS, target: str = "ice40") -> dict:
    """Yosys ``synth_<target>`` cell counts of one unit: ``{"lut4", "ff", "carry", ...}`` (rtl/area.py)."""
    name = "safety_unit"
    cells, seconds = synthesize(unit_verilog(n, models, name), target, top=name)
    return count(cells, target) | {"seconds": seconds}
