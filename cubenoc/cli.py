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

from .errors import CubenocError

#: ``cubenoc analyze FAMILY``: family name -> analysis module
ANALYSES = {
    "hypercube": "cubenoc.sim.analysis.enhanced",
    "enhanced": "cubenoc.sim.analysis.enhanced",
    "hin": "cubenoc.sim.analysis.hierarchical",
    "safety": "cubenoc.sim.analysis.safety",
    "metacube": "cubenoc.sim.analysis.metacube",
    "pdn": "cubenoc.sim.analysis.pdn",
}

#: other sub-commands: name -> module providing ``add_arguments(parser)`` and ``run(args) -> int``
COMMANDS = {
    "generate": "cubenoc.generate",
    "bench": "cubenoc.bench",
    "simulate": "cubenoc.simulate",
    "build": "cubenoc.build",
    "synth-report": "cubenoc.synth_report",
    "prove": "cubenoc.prove",
    "demo": "cubenoc.demo",
}


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own errors: one line, exit 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def _available(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def _summary(module: str) -> str:
    """The first line of a module's docstring, read from its source without importing it (start-up:
    ``cubenoc simulate`` imports only what it runs, issue 17)."""
    import ast
    try:
        with open(importlib.util.find_spec(module).origin, encoding="utf-8") as fh:
            doc = ast.get_docstring(ast.parse(fh.read())) or ""
    except (OSError, SyntaxError, AttributeError):
        return ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with ``only`` (a sub-command name) the other sub-commands' modules are not
    imported (their parsers are left empty: only their one-line help is shown)."""
    parser = _Parser(prog="cubenoc", description="Router generator, model and analysis for hypercube-family networks.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    analyze = sub.add_parser("analyze", help="topology metrics and the papers' tables for one family")
    fam = analyze.add_subparsers(dest="family", required=True, parser_class=_Parser)
    for family, module in ANALYSES.items():
        if only not in (None, "analyze") or not _available(module):
            continue
        mod = importlib.import_module(module)
        p = fam.add_parser(family, help=(mod.__doc__ or "").strip().splitlines()[0])
        p.set_defaults(family_name=family)
        mod.add_arguments(p)
        p.add_argument("--json", action="store_true", help="print the results as JSON")
        p.add_argument("--plot", metavar="FILE.png", help="write a plot of the results")
        p.set_defaults(handler=_run_analysis(mod))

    for name, module in COMMANDS.items():
        if not _available(module):
            continue
        if only is not None and name != only:
            sub.add_parser(name, help=_summary(module))
            continue
        mod = importlib.import_module(module)
        p = sub.add_parser(name, help=(mod.__doc__ or "").strip().splitlines()[0])
        mod.add_arguments(p)
        p.set_defaults(handler=mod.run)
    return parser


def _run_analysis(mod):
    def handler(args) -> int:
        result = mod.analyze(args)
        if args.plot:
            if result.plot is None:
                raise CubenocError(f"analyze {args.family_name} has no plot for these options")
            result.plot(args.plot)
        if args.json:
            print(json.dumps(result.data, indent=2, default=_jsonable))
        else:
            print(result.text)
            if args.plot:
                print(f"plot written to {args.plot}")
        return 0
    return handler


def _jsonable(obj):
    try:
        import numpy as np
        if isinstance(obj, np.integer):
            return int(obj)
        if isinstance(obj, np.floating):
            return float(obj)
        if isinstance(obj, np.ndarray):
            return obj.tolist()
    except ImportError:  # pragma: no cover
        pass
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    raise TypeError(f"not JSON serialisable: {obj!r}")


def main(argv: list[str] | None = None) -> int:
    words = [a for a in (sys.argv[1:] if argv is None else argv) if not a.startswith("-")]
    command = words[0] if words and (words[0] in COMMANDS or words[0] == "analyze") else ""
    parser = build_parser(only=command)       # "": no command given, only the one-line helps
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except CubenocError as exc:
        print(f"cubenoc: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("cubenoc: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
