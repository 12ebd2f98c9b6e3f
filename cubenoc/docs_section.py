"""Rewrite one marked block of a docs page: each benchmark owns the block between its two markers in
docs/performance.md and leaves the rest of the page alone."""
from __future__ import annotations

import sys
from pathlib import Path

from .errors import CubenocError


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


def table_main(argv, make_table, begin: str, end: str, default_ns=(4, 5, 6)) -> None:
    """``python -m ... [--write PAGE.md] [n ...]``: print ``make_table(ns)`` and, with ``--write``, put it
    between the markers of that page (the area benchmarks of rtl/safety.py and rtl/safety_broadcast.py)."""
    out = None
    if argv[:1] == ["--write"]:
        if len(argv) < 2:
            raise SystemExit("--write needs a page, e.g. --write docs/performance.md")
        out, argv = argv[1], argv[2:]
    try:
        ns = tuple(int(a) for a in argv) or default_ns
    except ValueError:
        raise SystemExit(f"cube dimensions must be integers, got {' '.join(argv)}")
    text = make_table(ns)
    print(text)
    if out:
        replace_section(out, begin, end, text)
