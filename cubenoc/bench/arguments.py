"""The command-line options every benchmark shares (``cubenoc bench NAME``; rendered by :mod:`.render`): the
output options (``--format``, ``--json``, ``--write PAGE``), the FPGA targets of the area benchmarks, and the
command a results table records (:func:`command`).
"""
from __future__ import annotations

import shlex

from ..errors import CubenocError
from ..options import OPTIONS, _CONST, add


def add_format_argument(p, json_alias: bool = False) -> None:
    """``--format`` and ``--json``, the same as ``--format json`` (two values for it are refused)."""
    add(p, "format")
    a = p.add_argument("--json", dest="format", action=_CONST, const="json", help="the same as --format json")
    a.old_names, a.registered = (), OPTIONS["format"].name


def add_output_arguments(p, block: str | None = None, json_alias: bool = False) -> None:
    """The shared ``--format`` (``--json`` its alias where a command had it) and ``--write PAGE``."""
    add_format_argument(p, json_alias)
    if block:
        add(p, "write", note=f"({block}), whatever --format prints")


def yosys_families(targets) -> tuple:
    """``--targets`` of the area benchmarks (FPGA target names as every command takes them) as the yosys
    families these benchmarks synthesise for (``ice40``, ``ecp5``)."""
    from ..boards.synth import TARGET_FAMILY           # [fpga]
    families = tuple(dict.fromkeys(TARGET_FAMILY[t] for t in targets))
    if set(families) - {"ice40", "ecp5"}:
        raise CubenocError(f"the area benchmarks synthesise for up5k and ecp5-25f, not {' '.join(targets)}")
    return families


def add_target_arguments(ap, block: str) -> None:
    """``--targets``, ``--limit`` and the output options of the benchmarks that synthesise for both FPGA families."""
    add(ap, "targets", nargs="+", default=["up5k", "ecp5-25f"], help="FPGA targets to synthesise for: up5k (ice40), "
        "ecp5-25f (ecp5)")
    add(ap, "limit")
    add_output_arguments(ap, block)


#: options that do not change a benchmark's figures (left out of the command a table records)
_NOT_RECORDED = {"help", "format", "write", "jobs", "quiet", "config", "report", "report_load"}


def command(args, keep=(), drop=()) -> str:
    """The ``cubenoc bench NAME ...`` a table records, from the parsed arguments: every option whose value
    differs from its built-in default (a ``--config`` value is shown as its option), plus those in ``keep``,
    in the parser's order (floats as ``%g``, other values quoted for the shell where needed)."""
    out = [f"cubenoc bench {args.bench}"]
    defaults = getattr(args.bench_parser, "built_in_defaults", {})
    for a in args.bench_parser._actions:
        if not a.option_strings or a.dest in _NOT_RECORDED or a.dest in drop:
            continue
        v = getattr(args, a.dest, None)
        if v is None or v is False or (v == defaults.get(a.dest, a.default) and a.dest not in keep):
            continue
        flag = f"--{a.registered}" if hasattr(a, "registered") else max(a.option_strings, key=len)
        if v is True:
            out.append(flag)
        else:
            out.append(" ".join([flag] + [f"{x:g}" if isinstance(x, float) else shlex.quote(str(x))
                                          for x in (v if isinstance(v, (list, tuple)) else [v])]))
    return " ".join(out)
