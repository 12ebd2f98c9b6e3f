"""The one renderer of the benchmarks and the keeper of their results: rows (dicts) as Markdown, JSON or
CSV; every run's tables written as a results file (JSON: the typed rows and the column map of cell
templates their Markdown is rendered from (:func:`fill`), or, for columns made by code, the cells; the
command, tool versions, date and machine); a docs page's marked blocks rendered from those files.

Every benchmark builds :class:`Table` s (its rows, a column map, the Markdown above and below the table,
the page block it belongs to) and hands them to :func:`publish`: ``--format md`` (default) prints the
Markdown, ``json`` the rows, ``csv`` the columns. Each run also writes one results file per page block
(``build/results/BLOCK.json``); ``--write PAGE`` writes them beside the page instead
(``docs/results/BLOCK.json``) and renders the page's blocks from them. ``cubenoc bench --render [--check]``
renders (or checks) every page block from ``docs/results/`` (:func:`render_results`), so a table on a
page is always what its results file holds (docs/performance.md)."""
from __future__ import annotations

import csv
import io
import json
import math
import re
import string
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import CubenocError, at_least
from ..outputs import read_text, say, write_file
from ..provenance import provenance
from .arguments import (add_format_argument, add_output_arguments, add_target_arguments,  # noqa: F401 (re-exported)
                        command, yosys_families)

FORMATS = ("md", "json", "csv")


def render(rows: list[dict], columns: dict | None = None, fmt: str = "md") -> str:
    """``rows`` as a Markdown table, JSON (every key) or CSV. ``columns``: key -> heading, or key ->
    (heading, cell) where the cell is ``cell(row) -> str`` or a template (:func:`fill`) making the Markdown
    cell; in CSV such a column holds the row's own value when it has a plain one under ``key``, else the
    Markdown cell."""
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
    return grid(*cells(rows, columns))


def cells(rows: list[dict], columns: dict) -> tuple[list[str], list[list[str]]]:
    """The headings and the Markdown cells of ``rows`` under ``columns`` (key -> (heading, cell or None))."""
    columns = {k: v if isinstance(v, tuple) else (v, None) for k, v in columns.items()}
    return ([h for h, _ in columns.values()],
            [[_make_cell(r, k, cell) for k, (_h, cell) in columns.items()] for r in rows])


def _make_cell(row: dict, key: str, cell) -> str:
    if callable(cell):
        return cell(row)
    if cell is not None:
        return fill(cell, row)
    return "-" if row.get(key) is None else _cell(row[key])


class _Template(string.Formatter):
    def format_field(self, value, spec):
        if spec == "?":
            return ""
        if isinstance(value, list):
            return ", ".join(format(v, spec) for v in value)
        return format(value, spec)


_TEMPLATE = _Template()


def fill(template: str | list, row: dict) -> str:
    """A Markdown cell from a row: ``template`` is a format string over the row's fields (``"{lut4:,} /
    {ff}"``), or a list of them, the first whose every field the row has (not None, not False) making the
    cell; none: ``-``. ``{flag:?}`` prints nothing (the alternative needs ``flag``); a list value prints
    its items in the field's format, separated by commas."""
    for alt in [template] if isinstance(template, str) else template:
        if all(row.get(f) is not None and row.get(f) is not False for f in template_fields(alt)):
            return _TEMPLATE.format(alt, **row)
    return "-"


def template_fields(template: str) -> list[str]:
    """The row fields a template (one alternative of :func:`fill`) reads."""
    return [f for _t, f, _s, _c in _TEMPLATE.parse(template) if f]


def grid(headings: list[str], body: list[list[str]]) -> str:
    """A Markdown table of ``headings`` and rows of cells."""
    lines = ["| " + " | ".join(headings) + " |", "|" + "---|" * len(headings)]
    lines += ["| " + " | ".join(row) + " |" for row in body]
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
        return table_markdown(self.record())

    def record(self) -> dict:
        """The table as a results file holds it: its typed rows, the text around it and its column map
        (``[heading, template]`` pairs, from which its Markdown is rendered) when every column is a
        template; a column made by code is kept as the headings and cells it made."""
        columns = {k: v if isinstance(v, tuple) else (v, None) for k, v in self.columns.items()}
        templates = [cell if cell is not None else _plain(k, self.rows) for k, (_h, cell) in columns.items()]
        rec = {"name": self.name, "before": self.before, "after": self.after}
        if all(isinstance(cell, (str, list)) for cell in templates):
            rec["columns"] = [[h, cell] for (h, _c), cell in zip(columns.values(), templates)]
        else:
            rec["headings"], rec["cells"] = cells(self.rows, columns)
        return rec | {"rows": json.loads(json.dumps(self.rows, default=str))}


def _plain(key: str, rows: list[dict]) -> str | None:
    """A plain column as a template that renders it as :func:`cells` does, where one does."""
    kinds = {isinstance(r[key], float) for r in rows if r.get(key) is not None}
    return None if len(kinds) > 1 or not key.isidentifier() else f"{{{key}:.3f}}" if kinds == {True} else f"{{{key}}}"


def table_cells(t: dict) -> tuple[list[str], list[list[str]]]:
    """A results file's table as headings and Markdown cells: rendered from its rows by its column map, or
    the cells it kept."""
    if "columns" in t:
        return [h for h, _c in t["columns"]], [[fill(c, r) for _h, c in t["columns"]] for r in t["rows"]]
    return t["headings"], t["cells"]


def table_markdown(t: dict) -> str:
    """A results file's table as Markdown: the text before it, the table, the text after it."""
    return "\n\n".join(p for p in (t.get("before", ""), grid(*table_cells(t)), t.get("after", "")) if p)


def by_target(rows: list[dict], key: tuple) -> list[dict]:
    """One row per ``key`` fields of the rows (and what was measured: ``spec``, ``router_config``), with each
    target's counts beside each other (``ice40_lut4``, ``ecp5_ff``, ...; a target not run has none)."""
    by: dict = {}
    for r in rows:
        m = by.setdefault(tuple(r[f] for f in key), {f: r[f] for f in key} |
                          {f: r[f] for f in ("spec", "router_config") if f in r})
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
    page = read_text(path, "--write") if path.exists() else ""
    if (begin in page) != (end in page):
        raise CubenocError(f"{path} has only one of the markers {begin} / {end}; fix the page first")
    block = f"{begin}\n{text.rstrip(chr(10))}\n{end}"
    if begin in page:
        pre, rest = page.split(begin, 1)
        page = pre + block + rest.split(end, 1)[1]
    else:
        page = page.rstrip("\n") + "\n\n" + block + "\n"
    write_file(path, page, "--write")


def publish(tables, args, command_text: str | None = None) -> int:
    """Print ``tables`` (a :class:`Table` or a list) in ``args.format`` (None: nothing, for a command that
    prints its own listing), write their results files (one per page block) and, with ``args.write``,
    render the page's blocks from them."""
    tables = [tables] if isinstance(tables, Table) else list(tables)
    fmt = getattr(args, "format", "md")
    if fmt == "md":
        print("\n\n".join(t.markdown() for t in tables))
    elif fmt == "json":
        print(render(tables[0].rows, fmt="json") if len(tables) == 1
              else json.dumps({t.name: t.rows for t in tables}, indent=2, default=str))
    elif fmt == "csv":
        print("\n\n".join(render(t.rows, t.columns, "csv") for t in tables))
    page = getattr(args, "write", None)
    if page and any(t.marks is None for t in tables):
        raise CubenocError("this benchmark has no block to write")
    folder = Path(page).parent / RESULTS if page else Path("build") / RESULTS
    cmd = command_text or (command(args) if hasattr(args, "bench_parser") else "")
    for block in _blocks(tables, Path(page).name if page else None, cmd, getattr(args, "bench", "")):
        path = folder / f"{block['block']}.json"
        write_results(path, block)
        progress(f"results: {path}")
        if page:
            render_block(Path(page).parent, block)
    if page:
        progress(f"written to {page}")
    return 0


RESULTS = "results"


def block_name(marks: tuple[str, str] | None, bench: str = "") -> str:
    """The results file's name for a page block: its begin marker in words (``<!-- bench area: begin -->``
    -> ``bench-area``), or the benchmark's name for a table without a block."""
    if marks is None:
        return bench or "rows"
    words = re.sub(r"[^a-z0-9]+", "-", marks[0].lower()).strip("-")
    return re.sub(r"-?begin$", "", words)


def _blocks(tables: list[Table], page: str | None, cmd: str, bench: str) -> list[dict]:
    by: dict = {}
    for t in tables:
        by.setdefault(t.marks, []).append(t.record())
    return [{"block": block_name(marks, bench), "page": page, "marks": list(marks) if marks else None,
             "command": cmd, **provenance(), "tables": recs} for marks, recs in by.items()]


def write_results(path, block: dict) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_file(path, json.dumps(block, indent=1, default=str) + "\n", "results file")


def block_markdown(block: dict) -> str:
    """A results file's page block as Markdown (its tables in order)."""
    return "\n\n".join(table_markdown(t) for t in block["tables"])


def render_block(docs: Path, block: dict) -> None:
    replace_section(Path(docs) / block["page"], *block["marks"], block_markdown(block))


def render_results(docs, check: bool = False) -> list[str]:
    """Render every page block from the results files in ``docs/results/``; with ``check``, change nothing
    and return what differs (a page block that is not its results file's rendering, or is missing)."""
    docs = Path(docs)
    problems = []
    for path in sorted((docs / RESULTS).glob("*.json")):
        block = read_results(path)
        if not block.get("page") or not block.get("marks"):
            continue
        page = docs / block["page"]
        begin, end = block["marks"]
        text = read_text(page) if page.exists() else ""
        if not check:
            render_block(docs, block)
        elif begin not in text or end not in text:
            problems.append(f"{page}: no {begin} block for {path.name}")
        elif text.split(begin, 1)[1].split(end, 1)[0].strip("\n") != block_markdown(block).strip("\n"):
            problems.append(f"{page}: the {begin} block differs from {path} (edit the results, not the page, "
                            f"or rerun: {block.get('command') or 'its benchmark'})")
    return problems


def read_results(path) -> dict:
    """A results file (docs/results/*.json): text, JSON, an object with a page, its two marks and tables;
    anything else is a one-line error naming the file (and the line)."""
    try:
        block = json.loads(read_text(path, "results file"))
    except json.JSONDecodeError as exc:
        raise CubenocError(f"results file {path} line {exc.lineno}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise CubenocError(f"results file {path}: not valid JSON (values nested too deeply)") from None
    ok = isinstance(block, dict) and (not block.get("page") or (
        isinstance(block["page"], str) and isinstance(block.get("marks"), list) and len(block["marks"]) == 2
        and all(isinstance(m, str) for m in block["marks"]) and isinstance(block.get("tables"), list)
        and all(isinstance(t, dict) and _table_ok(t) for t in block["tables"])))
    if not ok:
        raise CubenocError(f"results file {path}: not a results file (an object with page, marks [begin, end] and "
                           f"tables of rows and columns [heading, template], or of headings and cells)")
    try:
        block_markdown(block)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
        raise CubenocError(f"results file {path}: a cell template does not fit its rows ({exc})") from None
    return block


def _table_ok(t: dict) -> bool:
    if "columns" in t:
        return (isinstance(t.get("rows"), list) and all(isinstance(r, dict) for r in t["rows"])
                and isinstance(t["columns"], list) and all(
                    isinstance(c, list) and len(c) == 2 and isinstance(c[0], str) and (
                        isinstance(c[1], str) or isinstance(c[1], list) and all(isinstance(a, str) for a in c[1]))
                    for c in t["columns"]))
    return "headings" in t and "cells" in t


def progress(text: str) -> None:
    """A benchmark's progress line (stderr: stdout holds only the table, JSON or CSV; none with --quiet)."""
    say(text, file=sys.stderr)
