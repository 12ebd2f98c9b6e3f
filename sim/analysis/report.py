"""What an analysis returns to the CLI: JSON-able data, a text report, and optionally a plot."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass
class AnalysisResult:
    data: dict
    text: str
    plot: Callable[[str], None] | None = None


def table(rows: list[list], header: list[str]) -> str:
    """A plain fixed-width text table."""
    cells = [[str(h) for h in header]] + [[_fmt(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _fmt(c) -> str:
    if isinstance(c, float):
        return f"{c:.4f}"
    return str(c)
