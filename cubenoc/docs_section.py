"""Rewrite one marked block of a docs page: each benchmark owns the block between its two markers in
docs/performance.md and leaves the rest of the page alone."""
from __future__ import annotations

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
