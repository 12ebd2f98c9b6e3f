"""numba's on-disk cache of the model's cycle loops (sim/model/kernel.py) checks only the source of the file
that defines a cached function, not that of the modules whose inline functions and constants it compiled in
(docs/decisions/model-speed.md "The loop by stage"): :func:`drop_stale_loops` keeps a stamp of those
modules' sources beside the cache and drops the cached loops when it differs, else an edited stage would run
as it was.
"""
from __future__ import annotations

import hashlib
from pathlib import Path


def drop_stale_loops(loops, modules) -> None:
    """Flush the on-disk cache of every compiled loop in ``loops`` when one of ``modules`` (names of this
    package's modules) changed since they were compiled; a read-only cache is left alone (numba then
    compiles in memory)."""
    here = Path(__file__).parent
    stamp = hashlib.sha256(b"".join((here / f"{m}.py").read_bytes() for m in modules)).hexdigest()
    folder = getattr(getattr(loops[0], "_cache", None), "_cache_path", None)   # numba's (private) cache object
    if folder is None or not all(hasattr(getattr(run, "_cache", None), "flush") for run in loops):
        return                  # a numba that keeps it elsewhere: nothing to flush here, the loops still run
    path = Path(folder) / "kernel.stages"
    if path.is_file() and path.read_text() == stamp:
        return
    try:
        for run in loops:
            run._cache.flush()
        path.write_text(stamp)
    except OSError:
        pass
