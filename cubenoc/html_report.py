"""``--report FILE.html`` of any command (simulate, its studies, demo, bench throughput): the page of
sim/report_page.py with the command line as typed and the tool versions, written whole or not at all."""
from __future__ import annotations

import shlex
import sys
import threading

from .outputs import atomic_write, say


def preload() -> None:
    """Import the report's modules (matplotlib: about a second) in the background while the run goes, so that
    the page is written within moments of the run's end."""
    def load():
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot  # noqa: F401

        import cubenoc.sim.report_page  # noqa: F401
    threading.Thread(target=load, daemon=True).start()


def write_report(args, points, models, *, config: dict, title: str, to_stderr: bool = False, **page) -> None:
    """Write ``args.report``: the page of ``points`` (PointResults) on ``models`` (label -> topology), with
    ``config`` (the resolved configuration) and ``page`` (report_html's other keywords); then say where
    (on stderr when stdout carries JSON or CSV: ``to_stderr``)."""
    from cubenoc.sim.report_page import report_html

    from .bench.render import provenance
    html = report_html(points, models, command="cubenoc " + shlex.join(getattr(args, "_argv", ())), config=config,
                       provenance=provenance(), title=title, **page)
    with atomic_write(args.report, "--report") as tmp:
        tmp.write_text(html, encoding="utf-8")
    say(f"report written to {args.report}", file=sys.stderr if to_stderr else sys.stdout)
