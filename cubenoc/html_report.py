"""``--report FILE.html`` of any command (simulate, its studies, demo, bench throughput): the page of
sim/report_page.py with the command line as typed and the tool versions, written whole or not at all."""
from __future__ import annotations

import shlex
import sys
import threading

from .outputs import atomic_write, say
from .provenance import provenance
from .sim.plotting import pyplot
from .sim.report_page import report_html


def preload() -> None:
    """Import the report's modules (matplotlib: about a second) in the background while the run goes, so that
    the page is written within moments of the run's end."""
    threading.Thread(target=pyplot, daemon=True).start()


def write_report(args, points, models, *, config: dict, title: str, to_stderr: bool = False, **page) -> None:
    """Write ``args.report``: the page of ``points`` (PointResults) on ``models`` (label -> topology), with
    ``config`` (the resolved configuration) and ``page`` (report_html's other keywords); then say where
    (on stderr when stdout carries JSON or CSV: ``to_stderr``)."""
    html = report_html(points, models, command="cubenoc " + shlex.join(getattr(args, "_argv", ())), config=config,
                       provenance=provenance(), title=title, **page)
    with atomic_write(args.report, "--report") as tmp:
        tmp.write_text(html, encoding="utf-8")
    say(f"report written to {args.report}", file=sys.stderr if to_stderr else sys.stdout)
