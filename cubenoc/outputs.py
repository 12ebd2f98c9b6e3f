"""Output paths are checked before the work starts (a long run must not end in an unwritable path); notes
to the user go through :func:`say`, which ``--quiet`` silences (every command takes it, cubenoc/cli.py)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from .errors import CubenocError


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
    and it can be written (:func:`writable_file`). Checked before the run, not when the plot is drawn."""
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
    every :data:`LOG_EVERY` seconds another that it still runs (nothing when ``quiet``)."""

    LOG_EVERY = 30

    def __init__(self, what: str, quiet: bool = False):
        self.what, self.quiet, self.doing = what, quiet or QUIET, what

    def __enter__(self):
        import sys
        import threading
        import time

        from tqdm import tqdm
        self.log = not self.quiet and not sys.stderr.isatty()
        self.start = time.monotonic()
        if self.log:
            print(f"cubenoc: {self.what} ...", file=sys.stderr, flush=True)
        self.bar = tqdm(desc=self.what, bar_format="{desc}: {elapsed}", file=sys.stderr,
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
        import sys
        import time
        while not self.stop.wait(1.0):
            self.bar.refresh()
            spent = time.monotonic() - self.start
            if self.log and int(spent) % self.LOG_EVERY == 0:
                print(f"cubenoc: {self.doing}: still running, {spent:.0f} s", file=sys.stderr, flush=True)

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        self.bar.close()
        return False


# ---- reading: every input file is text, checked before it is parsed -------------------------------------
def read_text(path, what: str = "") -> str:
    """The text of the input file ``path`` (``what``: the option that named it, e.g. ``--config``), as UTF-8.
    A file that cannot be read, or that holds a NUL byte or bytes that are not UTF-8 (a binary file, a file
    in another encoding), is a one-line :class:`CubenocError` naming the file and the line:
    ``--trace t.csv line 3: not a text file (byte 0xff at column 7 is not UTF-8)``."""
    where = f"{what} {path}" if what else str(path)
    p = Path(path)
    if p.is_dir():
        raise CubenocError(f"{where}: is a folder, expected a file")
    import codecs
    chunks, size, nul, bad = [], 0, -1, None
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:                      # in chunks, stopping at the first NUL or non-UTF-8 byte: a device such as
        with open(p, "rb") as f:                          # /dev/zero never ends, but its first byte is refused
            while nul < 0 and bad is None and (chunk := f.read(1 << 20)):
                nul = chunk.find(b"\0")
                nul = size + nul if nul >= 0 else -1
                try:
                    decoder.decode(chunk)
                except UnicodeDecodeError as exc:
                    bad = size + exc.start
                chunks.append(chunk)
                size += len(chunk)
    except OSError as exc:
        raise CubenocError(f"{where}: cannot read it ({exc.strerror or exc})") from None
    data = b"".join(chunks)
    if nul < 0 and bad is None:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:                 # a sequence cut off at the end of the file
            bad = exc.start
    if nul >= 0 and (bad is None or nul < bad):
        line, col = _line_col(data, nul)
        raise CubenocError(f"{where} line {line}: not a text file (a NUL byte at column {col})")
    if bad is not None:
        line, col = _line_col(data, bad)
        raise CubenocError(f"{where} line {line}: not a text file (byte 0x{data[bad]:02x} at column {col} is not "
                           f"UTF-8)")
    return text[1:] if text.startswith("\ufeff") else text


def _line_col(data: bytes, at: int) -> tuple[int, int]:
    """1-based line and column of byte ``at``."""
    return data.count(b"\n", 0, at) + 1, at - (data.rfind(b"\n", 0, at) + 1) + 1


# ---- writing: outputs whole or absent ----------------------------------------------------------------------
#: the suffix of an output being written (renamed to its name when whole); a trace reader refuses such a file
PARTIAL = ".partial"
#: the temporary files being written now: removed by cubenoc/interrupt.py when Ctrl-C ends the process
LIVE: set = set()


class atomic_write:
    """``with atomic_write(path, option) as tmp:`` write the output to ``tmp``, a temporary name in the same
    folder (``STEM.<random>.partial.SUFFIX``: a writer that reads the format from the suffix, such as
    matplotlib, still finds it); on success it is renamed to ``path`` in one step, on any error or
    interrupt it is removed, so ``path`` is either the whole new file or what it was before. ``tmp`` is a
    :class:`~pathlib.Path` (hand it to a writer that takes a file name: matplotlib, ``np.savetxt``); a
    write that fails (a full disk, ``/dev/full``) is a :class:`CubenocError` naming ``path``. A path that
    is not a regular file (``/dev/null``, ``/dev/stdout``) is written in place: there is nothing to rename."""

    def __init__(self, path, option: str = ""):
        self.path, self.option = Path(path), option

    def __enter__(self) -> Path:
        import tempfile
        self.direct = self.path.exists() and not self.path.is_file()      # a device, a pipe
        if self.direct:
            self.tmp = self.path
            return self.tmp
        folder = self.path.parent if str(self.path.parent) else Path(".")
        try:
            fd, name = tempfile.mkstemp(prefix=f"{self.path.stem}.", suffix=PARTIAL + self.path.suffix, dir=folder)
        except OSError as exc:
            raise self._error(exc) from None
        os.close(fd)
        self.tmp = Path(name)
        LIVE.add(self.tmp)
        return self.tmp

    def _error(self, exc: OSError) -> CubenocError:
        where = f"{self.option} {self.path}" if self.option else str(self.path)
        return CubenocError(f"{where}: cannot write it ({exc.strerror or exc})")

    def __exit__(self, kind, exc, tb):
        if self.direct:
            if isinstance(exc, OSError):
                raise self._error(exc) from None
            return False
        LIVE.discard(self.tmp)
        if kind is None:
            try:
                mode = 0o666 & ~_umask()
                os.chmod(self.tmp, mode)               # mkstemp makes 0600; an output is like any other file
                os.replace(self.tmp, self.path)
                return False
            except OSError as err:
                exc = err
        self.tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise self._error(exc) from None
        return False


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_file(path, text: str, option: str = "") -> Path:
    """Write ``text`` to ``path`` whole or not at all (:class:`atomic_write`)."""
    with atomic_write(path, option) as tmp:
        with open(tmp, "w") as fh:
            fh.write(text)
    return Path(path)


# ---- a folder a command writes into again: its manifest -------------------------------------------------
#: (no .json suffix: a folder's *.json are the designs' port maps)
MANIFEST = ".cubenoc-manifest"


def clean_stale(folder, written, command: str, key: str = "") -> list[Path]:
    """After ``command`` wrote the files ``written`` into ``folder`` for ``key`` (generate: the top module,
    so several designs can share a folder): remove the files the previous run of that key wrote there
    (listed in ``folder/.cubenoc-manifest``, JSON) that this run did not write, say so in one note, and list
    this run's files in the manifest. Only files the manifest lists are ever removed. Returns them."""
    import json
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
