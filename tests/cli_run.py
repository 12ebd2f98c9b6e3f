"""Running ``cubenoc`` in the test's process with a time limit (the bad-input tests share it)."""
from __future__ import annotations

import signal
import time

from cubenoc.cli import main


def run_cli(argv, capsys, limit: int = 10):
    """(exit status, stdout, non-empty stderr lines, seconds) of ``cubenoc argv``, stopped after ``limit`` s."""
    def too_slow(*_):
        raise TimeoutError(f"`cubenoc {' '.join(argv)}` still running after {limit} s")
    old = signal.signal(signal.SIGALRM, too_slow)
    signal.alarm(limit)
    t0 = time.monotonic()
    try:
        status = main(list(argv))
    except SystemExit as exc:
        status = exc.code
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    out = capsys.readouterr()
    return status, out.out, [x for x in out.err.splitlines() if x.strip()], time.monotonic() - t0
