"""Before a run that can be asked for hours or gigabytes: refuse it with the figure and how to go on
(docs/cli.md "Exit status"); :func:`run_estimate`, the model's run from its nodes, cycles and flits."""
from __future__ import annotations

import os

from .errors import CubenocError
from .netargs import REFUSE_ESTIMATE, _duration

#: node-cycles the streamed model runs per second on a busy machine at a light load (docs/performance.md
#: "Model speed": 1.1e7 per CPU second on the 6-cube at load 0.1; a loaded point is slower)
NODE_CYCLES_PER_S = 5e6
#: flits the model moves (per hop) per second, and the bytes a flit takes while it is held (stimulus arrays)
FLIT_HOPS_PER_S, BYTES_PER_FLIT = 5e7, 64


def run_estimate(nodes: int, cycles: int, flits: float = 0.0, hops: float = 1.0, held_flits: float = 0.0):
    """(seconds, bytes) of a run of ``cycles`` cycles on ``nodes`` nodes moving ``flits`` flits of about
    ``hops`` hops, holding at most ``held_flits`` flits at once (a trace's packets, its longest packet)."""
    seconds = nodes * cycles / NODE_CYCLES_PER_S + flits * max(1.0, hops) / FLIT_HOPS_PER_S
    return seconds, held_flits * BYTES_PER_FLIT


#: the environment variable that lets a run estimated above an hour or the machine's memory go on
ALLOW_LONG = "CUBENOC_ALLOW_LONG"


def machine_memory() -> int | None:
    """Bytes of physical memory (None where the system does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def check_run(what: str, seconds: float, memory: float, smaller: str) -> None:
    """Refuse, before it starts, a run estimated above about an hour (netargs ``REFUSE_ESTIMATE``) or above
    the machine's memory, with the figure and how to go on (``smaller``: the values to lower); the
    environment variable :data:`ALLOW_LONG` set to 1 runs it anyway."""
    if os.environ.get(ALLOW_LONG) == "1":
        return
    total = machine_memory()
    go_on = f"lower {smaller}, or set {ALLOW_LONG}=1 to run it anyway"
    if total is not None and memory > total:
        raise CubenocError(f"{what} would need about {memory / 2**30:,.1f} GB, more than this machine's "
                           f"{total / 2**30:.1f} GB: {go_on}")
    if seconds > REFUSE_ESTIMATE:
        raise CubenocError(f"{what} would take about {_duration(seconds)} here (a rough estimate from the nodes "
                           f"and cycles): {go_on}")
