"""Build a SafetyNetwork with Verilator (cocotb_tools.runner) and record its level outputs.

``design = build_safety(n, models)`` writes the Verilog into ``build/safety_q<n>_<models>/src`` (a file
is rewritten only when its text changes, so an unchanged design is not recompiled) and builds it in
``.../sim``. ``run_safety(design, segments)`` plays ``[(node_faulty, link_faulty, reset, samples), ...]``
(see tb/safety/cocotb_safety.py) in one simulator process and returns ``{output: int array [samples, N, fields]}``
(the bench reads the one concatenated ``levels`` port per cycle and this side splits it).
"""
from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cubenoc.rtl.tools import use_builtin_yosys, use_verilator
from cubenoc.tb.runner import BUILD_ARGS, _locked, build_root, cheap_cxx


@dataclass
class SafetyDesign:
    n: int
    models: tuple
    top: str
    dir: Path
    fields: dict          # output name -> (elements per node, bits per element)


def _runner():
    """cocotb's Verilator runner, but only the top's ports public (``--public-depth 1`` instead of
    ``--public-flat-rw``): the bench touches nothing else, and Verilator may then optimise the units'
    internal wires away (an 8x smaller C++ model, a build in seconds instead of minutes)."""
    from cocotb_tools.runner import Verilator

    class PortsOnlyVerilator(Verilator):
        def _build_command(self):
            cmds = super()._build_command()
            first = []
            for arg in cmds[0]:
                first += ["--public-depth", "1"] if arg == "--public-flat-rw" else [arg]
            return [first] + cmds[1:]

    return PortsOnlyVerilator()


def build_safety(n: int, models) -> SafetyDesign:
    from cubenoc.rtl.safety.unit import check_models, output_fields
    from cubenoc.rtl.safety.unit_files import write_safety

    models = check_models(models)
    use_verilator()
    use_builtin_yosys()
    name = f"safety_q{n}_" + "_".join(m.lower() for m in models)
    d = build_root() / name
    with _locked(build_root() / f".{name}.lock"), cheap_cxx():
        files, top = write_safety(n, d / "src", models)
        _runner().build(sources=[str(p) for p in files], hdl_toplevel=top,
                                      build_dir=str(d / "sim"), build_args=BUILD_ARGS,
                                      log_file=str(d / "build.log"))
    return SafetyDesign(n, models, top, d, output_fields(n, models))


def _decode(raw: np.ndarray, nodes: int, fields: dict) -> dict[str, np.ndarray]:
    """Bytes of the concatenated ``levels`` word per sample -> {output: [samples, N, per]}."""
    total = sum(nodes * per * w for per, w in fields.values())
    nb = (total + 7) // 8
    bits = np.unpackbits(raw.reshape(-1, nb), axis=1, bitorder="little")[:, :total]
    out, pos = {}, 0
    for name, (per, w) in fields.items():
        chunk = bits[:, pos:pos + nodes * per * w].reshape(-1, nodes, per, w)
        val = np.zeros(chunk.shape[:-1], np.uint8)
        for b in range(w):
            val |= chunk[..., b] << b
        out[name] = val.astype(np.int8)
        pos += nodes * per * w
    return out


def run_safety(design: SafetyDesign, segments) -> dict[str, np.ndarray]:
    use_verilator()
    N = 1 << design.n
    work = Path(tempfile.mkdtemp(prefix="run_", dir=design.dir))
    total = sum(N * per * w for per, w in design.fields.values())
    job = {"outputs": ["levels"], "bytes": {"levels": (total + 7) // 8}, "out": str(work / "levels.npz"),
           "segments": [[int(a), int(b), int(bool(c)), int(s)] for a, b, c, s in segments]}
    (work / "job.json").write_text(json.dumps(job))
    _runner().test(test_module="cubenoc.tb.safety.cocotb_safety", hdl_toplevel=design.top,
                                 hdl_toplevel_lang="verilog", build_dir=str(design.dir / "sim"),
                                 test_dir=str(work), extra_env={"CUBENOC_SAFETY_JOB": str(work / "job.json")},
                                 log_file=str(work / "sim.log"))
    path = work / "levels.npz"
    if not path.exists():
        log = (work / "sim.log").read_text() if (work / "sim.log").exists() else ""
        raise RuntimeError(f"the safety simulation did not finish; log tail:\n{log[-3000:]}")
    z = np.load(path)
    out = _decode(z["levels"], N, design.fields)
    for p in work.iterdir():
        if p.suffix in (".npz", ".json"):
            p.unlink()
    return out
