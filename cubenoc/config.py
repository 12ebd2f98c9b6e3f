"""``--config FILE.toml``: an experiment kept in a file (docs/config.md, examples/).

The file gives values to the command's own options; the command line still wins. Layout::

    networks = ["enhanced:n=6,k=0", "pdn:set=0,1,3,9"]   # catalog specs (docs/networks.md), or network = "..."
    [router]   depth = 4, queues = "fifo", pipeline = false, arbitration = "round-robin", payload = 32
    [traffic]  traffic = "uniform", length = "1", sweep = "0.05:0.6:0.05", rate = 0.2, hotspot = 0 ...
    [run]      warmup = 1000, measure = 5000, drain = 5000, seed = 1
    [output]   csv = "out.csv", plot = "out.png", json = false, out = "verilog/"
    [simulate] / [generate] / [bench] / [synth-report]: options of that command only

A key is an option's long name (``hotspot-fraction`` or ``hotspot_fraction``). In the shared tables a key
that the command does not have is skipped (one file can drive ``simulate`` and ``generate``); a key that no
command has, a key in a command's own table that the command does not have, or a value of the wrong type
is an error naming the key (exit 2).
"""
from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

from .errors import CubenocError
from .files import example_or_path, examples_folder
from .options import OPTIONS
from .outputs import read_text
from .sim.catalog import NetworkSpec

SHARED = ("router", "traffic", "run", "output")
COMMAND_TABLES = ("simulate", "generate", "bench", "synth-report")
#: options that stand for one another: one of them on the command line replaces the file's others (a file's
#: ``sweep`` does not outlive ``--rate 0.3``)
ALTERNATIVES = (("rate", "sweep", "trace"),)


def examples() -> Path:
    """The folder of the example files installed with cubenoc (examples/ of the source tree)."""
    return examples_folder()


def config_path(path) -> Path:
    """``path`` if it exists (relative to the current folder); else, when it names an example
    (``examples/compare.toml``, ``compare.toml`` or ``compare``), the example installed with cubenoc, said on
    stderr. Outputs the file names (``csv = "cmp.csv"``) still go to the current folder."""
    return example_or_path(path, ".toml", "--config")


def load(path) -> dict:
    path = config_path(path)
    if not path.is_file():
        names = ", ".join(sorted(p.stem for p in examples().glob("*.toml")))
        why = "is a folder" if path.is_dir() else "not a regular file" if path.exists() else "no such file"
        raise CubenocError(f"--config {path}: cannot read it ({why}); the examples installed with cubenoc: "
                           f"{names}")
    text = read_text(path, "--config")          # a binary file: the line, not a UnicodeDecodeError
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CubenocError(f"--config {path}: not valid TOML ({exc})") from None
    except RecursionError:                      # arrays or tables nested thousands deep
        raise CubenocError(f"--config {path}: not valid TOML (values nested too deeply)") from None
    unknown = sorted(set(data) - set(SHARED) - set(COMMAND_TABLES) - {"network", "networks"})
    if unknown:
        raise CubenocError(f"--config {path}: unknown key {unknown[0]!r} (top level: network, networks, "
                           f"[{'], ['.join(SHARED + COMMAND_TABLES)}])")
    for table in SHARED + COMMAND_TABLES:
        if table in data and not isinstance(data[table], dict):
            raise CubenocError(f"--config {path}: {table} must be a table ([{table}])")
    return data


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Long option name with underscores (and dest) -> action."""
    out = {}
    for a in parser._actions:
        if isinstance(a, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        names = [s.lstrip("-").replace("-", "_") for s in a.option_strings if s.startswith("--")] or [a.dest]
        for n in names:
            out[n] = a
        out.setdefault(a.dest, a)
    return out


def _check_value(path, where: str, key: str, action: argparse.Action, value):
    def bad(what):
        return CubenocError(f"--config {path}: {where}{key} must be {what}, got {value!r}")
    if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction, argparse.BooleanOptionalAction)):
        if not isinstance(value, bool):
            raise bad("true or false")
        negated = key.replace("-", "_").startswith("no_") and isinstance(action, argparse.BooleanOptionalAction)
        return value if isinstance(action, argparse._StoreTrueAction) and not negated or \
            isinstance(action, argparse.BooleanOptionalAction) and not negated else not value
    if action.nargs == 0:                      # a flag that stands for a value (--no-counters: counters off)
        if not isinstance(value, bool):
            raise bad("true or false")
        return action.const if value else None
    many = action.nargs in ("+", "*")
    values = value if isinstance(value, list) else [value]
    if isinstance(value, list) and not many:
        raise bad("one value, not a list")
    conv = []
    least = getattr(action.type, "minimum", None)           # cubenoc.errors.at_least
    integer = action.type is int or least is not None
    for v in values:
        if isinstance(v, (dict, list)):
            raise bad("a number or a string")
        if integer and (isinstance(v, bool) or not isinstance(v, int)):
            raise bad("an integer")
        if least is not None and v < least:
            raise bad(f"an integer of at least {least}")
        if action.type is float and (isinstance(v, bool) or not isinstance(v, (int, float))):
            raise bad("a number")
        v = float(v) if action.type is float else v if integer else str(v) if not isinstance(v, bool) else v
        if action.choices is not None and v not in action.choices:
            raise bad("one of " + ", ".join(map(str, action.choices)))
        conv.append(v)
    return conv if many else conv[0]


def _table_of(action) -> str | None:
    """The shared table a registered option lives in (cubenoc/options.py ``Option.table``)."""
    o = OPTIONS.get(getattr(action, "registered", None) or "")
    return o.table if o is not None else None


def apply(path, command: str, parser: argparse.ArgumentParser, all_options: set[str]) -> dict:
    """The defaults a config file gives ``command`` (whose parser is ``parser``); raises on a bad key."""
    data = load(path)
    opts = _options(parser)
    out = {}
    for table in SHARED + (command,):
        for key, value in data.get(table, {}).items():
            k = key.replace("-", "_")
            where = f"[{table}] "
            if k not in opts:
                if table == command or k not in all_options:
                    raise CubenocError(f"--config {path}: unknown key {where}{key} (not an option of "
                                       f"cubenoc {command}; see cubenoc {command} --help)")
                continue
            home = _table_of(opts[k])
            if table in SHARED and home is not None and home != table:
                raise CubenocError(f"--config {path}: {key} belongs in [{home}], not [{table}] (docs/config.md)")
            v = _check_value(path, where, key, opts[k], value)
            if v is not None:                  # (a value-flag set to false sets nothing)
                out[opts[k].dest] = v
    nets = data.get("networks", data.get("network"))
    if "network" in data and "networks" in data:
        raise CubenocError(f"--config {path}: give network or networks, not both")
    if nets is not None:
        nets = nets if isinstance(nets, list) else [nets]
        if not nets or not all(isinstance(n, str) for n in nets):
            raise CubenocError(f"--config {path}: networks must be a list of spec strings (docs/networks.md)")
        for n in nets:
            NetworkSpec.parse(n)            # a bad spec: its own one-line error
        if command == "simulate":
            out["network"], out["compare"] = nets[0], nets[1:] or None
        elif command == "generate":
            if len(nets) != 1:
                raise CubenocError(f"--config {path}: generate builds one network, the file names {len(nets)}")
            out["network"] = nets[0]
        elif "network" in opts:
            out[opts["network"].dest] = nets
    return out
