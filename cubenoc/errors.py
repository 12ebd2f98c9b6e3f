"""The exception types of the CLI contract (docs/cli.md).

:class:`CubenocError` is bad input: the message says what is allowed, e.g. ``k must be in 0..n-2 for an
n-cube, got 5``; the CLI prints it on one line without a traceback and exits with status 2.
:class:`ToolError` is an external tool (yosys, nextpnr, SymbiYosys, Verilator) that failed: exit status 3.
"""

import argparse
import importlib.util


class CubenocError(ValueError):
    """Bad parameters, malformed packets, out-of-range addresses, unsupported boards."""


class ToolError(RuntimeError):
    """An external tool failed or did not finish; the message names it and its log."""


def require(condition: bool, message: str) -> None:
    """Raise :class:`CubenocError` with ``message`` unless ``condition`` holds."""
    if not condition:
        raise CubenocError(message)


def require_int(value, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """Check that ``value`` is an int within ``lo..hi`` (inclusive) and return it."""
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            if isinstance(value, str) and value.strip().lstrip("-").isdigit():
                value = int(value)
            else:
                raise TypeError
        except TypeError:
            raise CubenocError(f"{name} must be an integer, got {value!r}") from None
    if lo is not None and hi is not None and not lo <= value <= hi:
        raise CubenocError(f"{name} must be in {lo}..{hi}, got {value}")
    if lo is not None and value < lo:
        raise CubenocError(f"{name} must be at least {lo}, got {value}")
    if hi is not None and value > hi:
        raise CubenocError(f"{name} must be at most {hi}, got {value}")
    return value


def at_least(lo: int):
    """An argparse ``type`` for an integer option of at least ``lo`` (``--limit``, ``--window``, ``--jobs``,
    ``--seed``): a smaller value is refused while the command line is parsed, before any work, in one line
    (``argument --limit: must be at least 1, got -1``)."""
    def parse(text: str) -> int:
        try:
            return require_int(text, "value", lo)
        except CubenocError:
            raise argparse.ArgumentTypeError(f"must be an integer of at least {lo}, got {text!r}") from None
    parse.__name__ = f"integer >= {lo}"
    parse.minimum = lo                      # what cubenoc/config.py checks a TOML value against
    return parse


def require_modules(extra: str, *modules: str) -> None:
    """Before a command prints or does anything: each of ``modules`` is installed, else the
    :class:`ModuleNotFoundError` that cubenoc/cli.py turns into one line naming ``extra``."""
    for name in modules:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            exc = ModuleNotFoundError(f"No module named {name!r}", name=name)
            exc.cubenoc_extra = extra
            raise exc
