"""Input files read as text, outputs written whole or absent: the helpers every part of cubenoc uses (the
library packages too: sim/traffic.py reads traces with them). cubenoc/outputs.py re-exports them."""
from __future__ import annotations

import codecs
import os
import sys
import tempfile
from importlib.resources import files
from pathlib import Path

from .errors import CubenocError


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


# ---- the examples installed with cubenoc ------------------------------------------------------------------
def examples_folder() -> Path:
    """The folder of the example files installed with cubenoc (examples/ of the source tree)."""
    return Path(str(files("cubenoc.examples")))


def example_or_path(path, suffix: str, option: str) -> Path:
    """``path`` if it exists (relative to the current folder); else, when it names an example
    (``examples/q4.anynet``, ``q4.anynet`` or ``q4`` for ``suffix`` ``.anynet``), the example installed with
    cubenoc, said on stderr (``option`` names what read it)."""
    p = Path(path)
    if p.exists() or str(p.parent) not in (".", "examples"):
        return p
    example = examples_folder() / (p.name if p.suffix == suffix else p.name + suffix)
    if not example.is_file():
        return p
    if (option, str(path)) not in SAID:                  # once per command (cubenoc/cli.py clears it)
        SAID.add((option, str(path)))
        print(f"cubenoc: {option} {path}: reading the example installed with cubenoc, {example}", file=sys.stderr)
    return example


#: the examples said so far in this command
SAID: set = set()


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
