"""The one renderer of the benchmarks: rows (dicts) as Markdown, JSON or CSV, and the writer of a docs
page's marked block (each benchmark owns the block between its two markers in docs/performance.md and
leaves the rest of the page alone).

Every benchmark builds :class:`Table` s (its rows, a column map, the Markdown above and below the table,
the page block it belongs to) and hands them to :func:`publish`: ``--format md`` (default) prints the
Markdown, ``json`` the rows, ``csv`` the columns; ``--write PAGE`` puts the Markdown in the page's block
whatever ``--format`` prints (docs/cli.md)."""
from __future__ import annotations

import csv
import io
import json
import math
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import CubenocError, at_least

FORMATS = ("md", "json", "csv")


def render(rows: list[dict], columns: dict | None = None, fmt: str = "md") -> str:
    """``rows`` as a Markdown table, JSON (every key) or CSV. ``columns``: key -> heading, or key ->
    (heading, cell) where ``cell(row) -> str`` makes the Markdown cell; in CSV such a column holds the
    row's own value when it has a plain one under ``key``, else the Markdown cell."""
    if fmt not in FORMATS:
        raise CubenocError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if fmt == "json":
        return json.dumps(rows, indent=2, default=str)
    columns = {k: v if isinstance(v, tuple) else (v, None)
               for k, v in (columns or {k: k for k in (rows[0] if rows else {})}).items()}
    if fmt == "csv":
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(list(columns))
        for r in rows:
            w.writerow([_csv_cell(r, k, cell) for k, (_h, cell) in columns.items()])
        return out.getvalue().rstrip("\n")
    lines = ["| " + " | ".join(h for h, _ in columns.values()) + " |", "|" + "---|" * len(columns)]
    for r in rows:
        lines.append("| " + " | ".join(cell(r) if cell else ("-" if r.get(k) is None else _cell(r[k]))
                                       for k, (_h, cell) in columns.items()) + " |")
    return "\n".join(lines)


def _cell(v) -> str:
    return f"{v:.3f}" if isinstance(v, float) else str(v)


def _csv_cell(row: dict, key: str, cell):
    v = row.get(key)
    if cell is None or (key in row and not isinstance(v, (list, dict, tuple))):
        return "" if v is None else v
    return cell(row)


def trunc3(x: float) -> str:
    """Three decimals, truncated (a figure is never rounded up)."""
    return f"{math.floor(x * 1000) / 1000:.3f}"


@dataclass
class Table:
    """One table of a benchmark: ``rows`` (what JSON and CSV print), ``columns`` (:func:`render`), the
    Markdown ``before`` and ``after`` it, the page block ``marks`` (begin, end) ``--write`` replaces
    (tables with the same marks share the block, in order), and ``name`` (its key when a run prints
    several tables as JSON)."""
    rows: list[dict]
    columns: dict
    before: str = ""
    after: str = ""
    marks: tuple[str, str] | None = None
    name: str = "rows"

    def markdown(self) -> str:
        return "\n\n".join(p for p in (self.before, render(self.rows, self.columns, "md"), self.after) if p)


def add_format_argument(p, json_alias: bool = False) -> None:
    p.add_argument("--format", choices=FORMATS, default="md",
                   help="print a Markdown table (default), the rows as JSON, or CSV")
    if json_alias:
        p.add_argument("--json", dest="format", action="store_const", const="json", help="the same as --format json")


def add_output_arguments(p, block: str | None = None, json_alias: bool = False) -> None:
    """The shared ``--format`` (``--json`` its alias where a command had it) and ``--write PAGE``."""
    add_format_argument(p, json_alias)
    if block:
        p.add_argument("--write", metavar="PAGE.md", help=f"also replace the {block} block of this page with the "
                       "Markdown (docs/performance.md), whatever --format prints")


def add_target_arguments(ap, block: str) -> None:
    """``--targets``, ``--limit`` and the output options of the benchmarks that synthesise for both FPGA families."""
    ap.add_argument("--targets", nargs="+", default=["ice40", "ecp5"], choices=["ice40", "ecp5"],
                    help="yosys synthesis targets (default ice40 ecp5)")
    ap.add_argument("--limit", type=at_least(1), default=None, metavar="N", help="only the first N networks (a quick run)")
    add_output_arguments(ap, block)


#: options that do not change a benchmark's figures (left out of the command a table records)
_NOT_RECORDED = {"help", "format", "write", "jobs", "quiet", "config"}


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
        flag = max(a.option_strings, key=len)
        if v is True:
            out.append(flag)
        else:
            out.append(" ".join([flag] + [f"{x:g}" if isinstance(x, float) else shlex.quote(str(x))
                                          for x in (v if isinstance(v, (list, tuple)) else [v])]))
    return " ".join(out)


def by_target(rows: list[dict], key: tuple) -> list[dict]:
    """One row per ``key`` fields of the rows, with each target's counts beside each other
    (``ice40_lut4``, ``ecp5_ff``, ...; a target not run has none)."""
    by: dict = {}
    for r in rows:
        m = by.setdefault(tuple(r[f] for f in key), {f: r[f] for f in key})
        m.update({f"{r['target']}_{c}": r[c] for c in ("lut4", "ff", "lutram") if c in r})
    return list(by.values())


def target_columns(key_columns: dict, lutram: bool = False) -> dict:
    """The iCE40 and ECP5 columns of :func:`by_target` rows after ``key_columns``."""
    return key_columns | {"ice40_lut4": "iCE40 SB_LUT4", "ice40_ff": "SB_DFF*", "ecp5_lut4": "ECP5 LUT4",
                          "ecp5_ff": "TRELLIS_FF"} | ({"ecp5_lutram": "DPR16X4"} if lutram else {})


def code(key: str):
    """A Markdown cell in backquotes (``-`` stays bare)."""
    return lambda r: "-" if r.get(key) in (None, "-") else f"`{r[key]}`"


def replace_section(path, begin: str, end: str, text: str) -> None:
    """Put ``text`` between the markers ``begin`` and ``end`` of ``path``; a page without them gets the
    block appended, a page with only one of them is an error."""
    path = Path(path)
    page = path.read_text() if path.exists() else ""
    if (begin in page) != (end in page):
        raise CubenocError(f"{path} has only one of the markers {begin} / {end}; fix the page first")
    block = f"{begin}\n{text.rstrip(chr(10))}\n{end}"
    if begin in page:
        pre, rest = page.split(begin, 1)
        page = pre + block + rest.split(end, 1)[1]
    else:
        page = page.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(page)


def publish(tables, args) -> int:
    """Print ``tables`` (a :class:`Table` or a list) in ``args.format``; with ``args.write`` put their
    Markdown in the page's blocks (one block per distinct ``marks``)."""
    tables = [tables] if isinstance(tables, Table) else list(tables)
    fmt = getattr(args, "format", "md")
    if fmt == "md":
        print("\n\n".join(t.markdown() for t in tables))
    elif fmt == "json":
        print(render(tables[0].rows, fmt="json") if len(tables) == 1
              else json.dumps({t.name: t.rows for t in tables}, indent=2, default=str))
    else:
        print("\n\n".join(render(t.rows, t.columns, "csv") for t in tables))
    page = getattr(args, "write", None)
    if page:
        blocks: dict = {}
        for t in tables:
            if t.marks is None:
                raise CubenocError("this benchmark has no block to write")
            blocks.setdefault(t.marks, []).append(t.markdown())
        for (begin, end), parts in blocks.items():
            replace_section(page, begin, end, "\n\n".join(parts))
        print(f"written to {page}", file=sys.stderr)
    return 0


def progress(text: str) -> None:
    """A benchmark's progress line (stderr: stdout holds only the table, JSON or CSV)."""
    print(text, file=sys.stderr, flush=True)
