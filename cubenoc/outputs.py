"""Output paths are checked before the work starts (a long run must not end in an unwritable path); notes
to the user go through :func:`say`, which ``--quiet`` silences (every command takes it, cubenoc/cli.py)."""
from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

from tqdm import tqdm

from .errors import CubenocError, require_modules


#: ``--quiet``: nothing but errors and the output asked for (set by cubenoc/cli.py)
QUIET = False


def quiet(on: bool = True) -> None:
    """``--quiet``: notes off, and every progress bar (tqdm reads ``TQDM_DISABLE``)."""
    global QUIET
    QUIET = bool(on)
    if on:
        os.environ["TQDM_DISABLE"] = "1"
    else:
        os.environ.pop("TQDM_DISABLE", None)


def say(*parts, file=None) -> None:
    """A note (what was written where, what runs now): printed unless ``--quiet``."""
    if not QUIET:
        print(*parts, file=file or sys.stdout, flush=True)


def writable_file(path, option: str) -> Path | None:
    """``path`` can be created or overwritten; its folder is made if missing. ``None`` passes through."""
    if path is None:
        return None
    _not_empty(path, option)
    p = Path(path)
    if p.is_dir():
        raise CubenocError(f"{option} {p}: is a folder, expected a file name")
    writable_dir(p.parent if str(p.parent) else Path("."), option, what=str(p))
    existed = p.exists()
    try:
        with open(p, "a"):
            pass
    except OSError as exc:
        raise CubenocError(f"{option} {p}: cannot write it ({exc.strerror or exc})") from None
    if not existed:
        p.unlink()
    return p


def plot_file(path, option: str = "--plot") -> Path | None:
    """``path`` for a matplotlib figure: its suffix names a format matplotlib writes (png, pdf, svg ...),
    and it can be written (:func:`writable_file`). Checked before the run, not when the plot is drawn.
    matplotlib is the ``[plot]`` extra: without it, the command is refused in one line naming it."""
    if path is None:
        return None
    from matplotlib.backend_bases import FigureCanvasBase
    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in formats:
        raise CubenocError(f"{option} {path}: the file name must end in a plot format: "
                           f"{', '.join('.' + f for f in sorted(formats))}"
                           + (f" (got .{suffix})" if suffix else " (it has no suffix)"))
    return writable_file(path, option)


def report_file(path, option: str = "--report") -> Path | None:
    """``path`` for an HTML page: it ends in .html or .htm and can be written (:func:`writable_file`)."""
    if path is None:
        return None
    require_modules("plot", "matplotlib")           # the page's pictures: refused before the run, not after
    suffix = Path(path).suffix.lower()
    if suffix not in (".html", ".htm"):
        raise CubenocError(f"{option} {path}: the file name must end in .html (an HTML page)"
                           + (f", got {suffix}" if suffix else ", it has no suffix"))
    return writable_file(path, option)


def _not_empty(path, option: str) -> None:
    """An empty path (``-o ''``) is refused: Path('') would quietly be the current folder."""
    if isinstance(path, str) and not path.strip():
        raise CubenocError(f"{option}: the path is empty; give a file or folder name (. for the current folder)")


def writable_dir(path, option: str, what: str | None = None) -> Path | None:
    """``path`` is (or can be made) a folder this process can write into."""
    if path is None:
        return None
    _not_empty(path, option)
    p = Path(path)
    try:
        p.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        f = next(q for q in [p, *p.parents] if q.exists() and not q.is_dir())
        raise CubenocError(f"{option} {what or p}: {f} is a file, not a folder") from None
    except OSError as exc:
        raise CubenocError(f"{option} {what or p}: cannot create the folder {p} ({exc.strerror or exc})") from None
    if not os.access(p, os.W_OK | os.X_OK):
        raise CubenocError(f"{option} {what or p}: the folder {p} is not writable")
    return p


class working:
    """``with working("nextpnr", quiet):`` shows that a long step is alive: its name and the seconds so far,
    refreshed every second on stderr; where stderr is not a terminal (a log), one line says what runs, and
    every :data:`LOG_EVERY` seconds another that it still runs (nothing when ``quiet``). ``after``: say
    nothing unless the step still runs after that many seconds (a step that is usually quick)."""

    LOG_EVERY = 30

    def __init__(self, what: str, quiet: bool = False, after: float = 0.0):
        self.what, self.quiet, self.doing, self.after = what, quiet or QUIET, what, after

    def __enter__(self):
        self.log = not self.quiet and not sys.stderr.isatty()
        self.start = time.monotonic()
        if self.log and not self.after:
            print(f"cubenoc: {self.what} ...", file=sys.stderr, flush=True)
        self.bar = tqdm(desc=self.what, bar_format="{desc}: {elapsed}", file=sys.stderr, delay=self.after,
                        disable=self.quiet or self.log or None, leave=False)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._tick, daemon=True)
        self.thread.start()
        return self

    def status(self, text: str) -> None:
        """Show ``text`` (the part now running) after the name."""
        self.doing = f"{self.what} [{text}]"
        self.bar.set_description_str(self.doing, refresh=False)

    def _tick(self):
        said = not self.after
        while not self.stop.wait(1.0):
            spent = time.monotonic() - self.start
            if spent >= self.after:
                self.bar.refresh()
            if self.log and not said and spent >= self.after:
                print(f"cubenoc: {self.doing} ... ({spent:.0f} s so far)", file=sys.stderr, flush=True)
                said = True
            elif self.log and int(spent) % self.LOG_EVERY == 0:
                print(f"cubenoc: {self.doing}: still running, {spent:.0f} s", file=sys.stderr, flush=True)

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        self.bar.close()
        return False


# ---- reading and writing files: cubenoc/files.py (the library packages use it too) ---------------------------
from .files import LIVE, PARTIAL, atomic_write, read_text, write_file  # noqa: E402,F401


# ---- a folder a command writes into again: its manifest -------------------------------------------------
#: (no .json suffix: a folder's *.json are the designs' port maps)
MANIFEST = ".cubenoc-manifest"


def clean_stale(folder, written, command: str, key: str = "") -> list[Path]:
    """After ``command`` wrote the files ``written`` into ``folder`` for ``key`` (generate: the top module,
    so several designs can share a folder): remove the files the previous run of that key wrote there
    (listed in ``folder/.cubenoc-manifest``, JSON) that this run did not write, say so in one note, and list
    this run's files in the manifest. Only files the manifest lists are ever removed. Returns them."""
    folder = Path(folder)
    manifest = folder / MANIFEST
    mine = sorted({os.path.relpath(Path(p), folder) for p in written})
    runs: dict = {}
    if manifest.is_file():
        try:
            runs = json.loads(read_text(manifest)).get("runs", {})
        except (CubenocError, ValueError, AttributeError, RecursionError):
            runs = {}                              # not ours to trust: remove nothing
    runs = runs if isinstance(runs, dict) else {}
    before = runs.get(key, [])
    removed = []
    for name in before if isinstance(before, list) else []:
        if not isinstance(name, str) or name in mine or os.path.isabs(name) or ".." in Path(name).parts \
                or name == MANIFEST:
            continue
        p = folder / name
        if p.is_file() or p.is_symlink():
            p.unlink()
            removed.append(p)
    runs[key] = mine
    write_file(manifest, json.dumps({"command": command, "runs": runs}, indent=1) + "\n")
    if removed:
        say(f"removed {len(removed)} file(s) that the previous `cubenoc {command}`{' of ' + key if key else ''} "
            f"wrote into {folder} and this run does not: {', '.join(p.name for p in removed)}")
    return removed
