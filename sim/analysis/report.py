"""What an analysis returns to the CLI: JSON-able data, a text report, and optionally a plot."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from ..plotting import pyplot



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
    if c is None:           # a value the row does not have (a point not simulated)
        return "-"
    if isinstance(c, float):
        return f"{c:.4f}"
    return str(c)


def log_axis(ax, which: str = "y", base: float = 10) -> None:
    """A logarithmic ``which`` axis of ``ax`` whose ticks read as plain numbers (4, 20, 500; not 4x10^0), the
    minor ticks labelled at 2 and 5 times a power of ten when the axis spans less than two decades."""
    plt = pyplot()
    (ax.set_yscale if which == "y" else ax.set_xscale)("log", base=base)
    axis = ax.yaxis if which == "y" else ax.xaxis
    axis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))

    def minor(v, _):
        lo, hi = (ax.get_ylim() if which == "y" else ax.get_xlim())
        if v <= 0 or lo <= 0 or hi / lo >= 100:
            return ""
        lead = round(v / 10 ** math.floor(math.log10(v)), 6)
        return f"{v:g}" if lead in (2, 5) else ""
    axis.set_minor_formatter(plt.FuncFormatter(minor) if base == 10 else plt.NullFormatter())
