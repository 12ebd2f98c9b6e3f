"""The compile notice of a simulator sweep (sim/simulator.py, docs/simulator.md "Start-up"): numba compiles
one of the model's cycle loops on the first run of each kernel shape; the progress bar says so instead of
standing still."""
from __future__ import annotations

import sys
import threading
import time

from tqdm import tqdm

from .model import kernel


class CompileWatch:
    """While a sweep runs: every second, the progress bar says what is going on, so no step is silent. When
    numba compiles one of the model's cycle loops (the first run of a kernel shape, whatever the on-disk
    cache holds for other shapes: about 13 s of CPU, docs/simulator.md "Start-up") it says so, once on its
    own line and then with the seconds on the bar; :meth:`compiled` tells the caller to leave that time out
    of the ETA."""

    def __init__(self, bar):
        self.bar, self.what, self._compiled, self._said = bar, "", False, False
        self._stop = None

    def __enter__(self):
        if self.bar is not None:
            self._stop = threading.Event()
            threading.Thread(target=self._tick, daemon=True).start()
        return self

    def __exit__(self, *exc):
        if self._stop is not None:
            self._stop.set()

    def point(self, what: str) -> None:
        self.what = what
        if self.bar is not None:
            self.bar.set_postfix_str(what)

    def compiled(self) -> bool:
        """Whether a compile ran since the last call."""
        done, self._compiled = self._compiled, False
        return done

    def _tick(self) -> None:
        loops = [getattr(kernel, n) for n in dir(kernel) if n.startswith("run_")]
        start = None
        while not self._stop.wait(1.0):
            if any(getattr(d, "_compiling_counter", False) for d in loops):
                start = start or time.monotonic()
                self._compiled = True
                if not self._said:
                    self._said = True
                    tqdm.write("simulate: compiling the model's cycle loop for this kind of network (once per kind: "
                               "about 13 s of CPU; later runs reuse it)", file=sys.stderr)
                self.bar.set_postfix_str(f"{self.what}: compiling the cycle loop, {time.monotonic() - start:.0f} s")
            else:
                if start is not None:
                    start = None
                    self.bar.set_postfix_str(self.what)
                self.bar.refresh()                  # the elapsed time moves: never silent
