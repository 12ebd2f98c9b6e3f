"""The one renderer of the benchmarks: rows (dicts) as Markdown, JSON or CSV, and the writer of a docs
page's marked block (each benchmark owns the block between its two markers in docs/performance.md and
leaves the rest of the page alone)."""
from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

from ..errors import CubenocError

FORMATS = ("md", "json", "csv")


def render(rows: list[dict], columns: dict[str, str] | None = None, fmt: str = "md") -> str:
    """``rows`` as a Markdown table (``columns``: key -> heading, in order), JSON (every key) or CSV."""
    if fmt not in FORMATS:
        raise CubenocError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if fmt == "json":
        return json.dumps(rows, indent=2, default=str)
    columns = columns or {k: k for k in (rows[0] if rows else {})}
    if fmt == "csv":
        out = io.StringIO()
        w = csv.DictWriter(out, fieldnames=list(columns), extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        return out.getvalue().rstrip("\n")
    lines = ["| " + " | ".join(columns.values()) + " |", "|" + "---|" * len(columns)]
    for r in rows:
        lines.append("| " + " | ".join("-" if r.get(k) is None else _cell(r[k]) for k in columns) + " |")
    return "\n".join(lines)


def _cell(v) -> str:
    return f"{v:.3f}" if isinstance(v, float) else str(v)


def add_format_argument(p) -> None:
    p.add_argument("--format", choices=FORMATS, default="md", help="output as a Markdown table (default), JSON or CSV")


def add_target_arguments(ap, block: str) -> None:
    """``--targets`` and ``--write`` of the benchmarks that synthesise for both FPGA families."""
    ap.add_argument("--targets", nargs="+", default=["ice40", "ecp5"], choices=["ice40", "ecp5"],
                    help="yosys synthesis targets (default ice40 ecp5)")
    ap.add_argument("--write", metavar="PAGE.md", help=f"rewrite the {block} block of this page")
    ap.add_argument("--limit", type=int, default=None, metavar="N", help="only the first N networks (a quick run)")


def target_table(rows: list[dict], key: tuple, head: list[str], lutram: bool = False) -> list[str]:
    """Markdown rows, one per ``key`` fields of the rows, with the iCE40 and ECP5 counts side by side
    (``key`` values are printed as given: quote them in the rows if needed)."""
    by: dict = {}
    for r in rows:
        by.setdefault(tuple(r[f] for f in key), {})[r["target"]] = r
    cols = ["iCE40 SB_LUT4", "SB_DFF*", "ECP5 LUT4", "TRELLIS_FF"] + (["DPR16X4"] if lutram else [])
    lines = ["| " + " | ".join(head + cols) + " |", "|" + "---|" * (len(head) + len(cols))]
    for k, rs in by.items():
        i, e = rs.get("ice40"), rs.get("ecp5")
        cells = [i and i["lut4"], i and i["ff"], e and e["lut4"], e and e["ff"]] + ([e and e["lutram"]] if lutram else [])
        lines.append("| " + " | ".join([str(x) for x in k] + ["-" if c is None else str(c) for c in cells]) + " |")
    return lines


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


def publish(text: str, page, begin: str, end: str) -> None:
    """Print a benchmark's text and, when ``page`` is given, put it between its markers there."""
    print(text)
    if page:
        replace_section(page, begin, end, text)
        print(f"written to {page}", file=sys.stderr)
