"""Every command-line option, defined once (docs/cli.md "One vocabulary").

An :class:`Option` holds an option's name, type, default, legal values, help, the TOML table a config file
sets it in (cubenoc/config.py) and, for the router options, the network spec key and config field it sets
(sim/router_config.py ``SPEC_KEYS`` is made from them). Commands add options with :func:`add`; the family
flags (``--n --k --set ...``) are made from the catalog's keys (sim/catalog.py ``FAMILIES``). A command
may give an option its own default, a list form (``nargs``) or a subset of its words; never another type or
meaning. Each registered option notes on the parsed arguments which flag set it, so :func:`contradictions`
refuses two different values for one option in one line, for every command alike.

Old spellings stay as aliases: they work and say, on stderr, what replaced them.
"""
from __future__ import annotations

import argparse
import sys

from .errors import CubenocError, at_least
from .option import FORMATS, Option, ROUTER_OPTIONS, SYNTH_GOALS
from .outputs import say
from .sim.catalog import FAMILIES

#: the FPGA parts a command synthesises for (boards/synth.py ``TARGETS``), and the other names every command
#: that takes an FPGA target accepts: the family of a part we measure one of
FPGA_PARTS = ("up5k", "ecp5-25f", "gowin")
TARGET_ALIASES = {"ecp5": "ecp5-25f", "ice40": "up5k"}


def fpga_target(name: str) -> str:
    """An FPGA target as every command takes it (``--target``, ``--targets``): a part or an alias; the part."""
    if name in FPGA_PARTS:
        return name
    if name in TARGET_ALIASES:
        return TARGET_ALIASES[name]
    raise argparse.ArgumentTypeError(f"unknown FPGA target {name!r}: one of "
                                     f"{', '.join(sorted(set(FPGA_PARTS) | set(TARGET_ALIASES)))}"
                                     + (" (generic is the router for no FPGA: generate --target generic)"
                                        if name == "generic" else ""))


def router_target(name: str) -> str:
    """``generate --target``: an FPGA target (:func:`fpga_target`) or ``generic``, the router for no FPGA."""
    return name if name == "generic" else fpga_target(name)


OPTIONS: dict[str, Option] = {o.name: o for o in (
    *ROUTER_OPTIONS,
    # ---- the network ----------------------------------------------------------------------------------------
    Option("network", "a network as a catalog spec (docs/networks.md); the same as the positional NETWORK",
           metavar="SPEC"),
    Option("family", "a family name", ("hypercube", "enhanced", "metacube", "pdn", "hin")),
    Option("size", "sizes of the chosen families, a shorthand for catalog specs (hypercube: n; pdn: delta; "
           "metacube: k,m; hin: level1/level2)"),
    # ---- traffic and run --------------------------------------------------------------------------------------
    Option("traffic", "traffic pattern (docs/simulator.md)", default="uniform", table="traffic"),
    Option("rate", "offered load, flits/node/cycle", float, metavar="RATE", table="traffic", aliases=("loads",)),
    Option("sweep", "offered loads START:STOP:STEP, e.g. 0.05:0.95:0.05", metavar="START:STOP:STEP",
           table="traffic"),
    Option("length", "packet length in flits: L, uniform:A:B or exp:MEAN[:MAX]", str, metavar="L",
           table="traffic", aliases=("packet-len",)),
    Option("g", "--traffic locality: p_l proportional to g^-l (Tzeng and Wei)", float, table="traffic"),
    Option("alpha", "--traffic alpha: the probability that a destination is in the source's own cluster "
           "(Dandamudi and Eager)", float, table="traffic"),
    Option("warmup", "warm-up cycles", at_least(0), table="run"),
    Option("measure", "measurement window cycles", at_least(1), table="run"),
    Option("drain", "most drain cycles (0: no drain, the window's accepted load without latency)", at_least(0),
           table="run"),
    Option("window", "measurement window in cycles", at_least(1), table="run"),
    Option("seed", "random seed (the same seed gives the same result)", at_least(0), table="run"),
    Option("cycles", "simulated cycles per run", at_least(1), table="run"),
    Option("repeat", "runs per point, the best counts", at_least(1), table="run"),
    Option("limit", "only the first N networks (a quick run)", at_least(1), metavar="N"),
    Option("jobs", "runs in parallel", at_least(1), metavar="N"),
    Option("timeout", "seconds each tool run may take", at_least(1), metavar="SECONDS"),
    # ---- FPGA tools ---------------------------------------------------------------------------------------
    Option("target", "the FPGA the Verilog is for: up5k (ice40), ecp5-25f (ecp5), gowin; its measured best "
           "router is the default (docs/router.md \"Router options\"; default generic: every feature, nothing "
           "FPGA-specific)", router_target, metavar="TARGET"),
    Option("targets", "FPGA targets: up5k (ice40), ecp5-25f (ecp5), gowin", fpga_target, metavar="TARGET"),
    Option("synth", "what yosys optimises for: speed, balanced or area", SYNTH_GOALS),
    Option("toolchain", "yowasp: the PyPI tools in this venv; system: yosys/nextpnr on PATH", ("yowasp", "system"),
           default="yowasp"),
    # ---- output ---------------------------------------------------------------------------------------------
    Option("quiet", "print only errors and the output asked for (no progress, no notes)", "flag",
           aliases=("no-progress",)),
    Option("json", "print the results as JSON", "flag", table="output"),
    Option("format", "print a Markdown table, the rows as JSON, or CSV", FORMATS, default="md", table="output"),
    Option("csv", "write the results as CSV", metavar="FILE.csv", table="output"),
    Option("plot", "write a plot", metavar="FILE.png", table="output"),
    Option("report", "write one self-contained HTML page of the run: the network drawn with its link loads, the "
           "latency and accepted-load curves, per-source figures, the configuration (docs/simulator.md \"The HTML "
           "report\")", metavar="FILE.html", table="output"),
    Option("report-load", "the offered load whose link loads --report draws (default: the highest load below "
           "saturation)", float, metavar="RATE", table="output"),
    Option("write", "publish: write the results beside the page (PAGE's folder/results/) and render its block",
           metavar="PAGE.md", table="output"),
    Option("write-anynet", "write the network as a BookSim anynet file, one line per router (docs/anynet.md)",
           metavar="FILE.anynet", table="output"),
    Option("out", "output folder", metavar="DIR", table="output", short="-o"),
    Option("build-dir", "parent folder of the builds", metavar="DIR", table="output"),
    Option("work-dir", "tool runs, logs and caches", metavar="DIR", table="output"),
    Option("config", "take options from a TOML file; the command line wins (docs/config.md, examples/)",
           metavar="FILE.toml"),
)}


#: ``bench throughput --routers``: the router kinds it compares (``--queues``: its old name)
ROUTER_KINDS = Option("routers", "routers compared: one FIFO per input (fifo), per-output queues (voq), the "
                      "pipelined router (pipe, 2 cycles/hop)", ("fifo", "voq", "pipe"), aliases=("queues",))


def fixed_lengths(values) -> list[int]:
    """``--length`` where only fixed packet lengths are measured (the benchmarks): each value an integer >= 1."""
    out = []
    for v in values if isinstance(values, (list, tuple)) else [values]:
        try:
            out.append(int(str(v)))
        except ValueError:
            out.append(0)
        if out[-1] < 1:
            raise CubenocError(f"--length: the benchmarks measure fixed packet lengths, a whole number of flits >= 1, "
                               f"got {v!r}")
    return out


def router_options() -> list[Option]:
    """The options that set a RouterConfig field (and their spec keys)."""
    return list(ROUTER_OPTIONS)


#: catalog key -> its flag, where they differ (sim/catalog.py FAMILIES)
FAMILY_FLAG = {"r": "replication", "zero_free": "zero-free"}


def family_options() -> list[Option]:
    """``--n --k --m --set ...``: one option per catalog key of the families (sim/catalog.py ``FAMILIES``),
    help from the catalog's text for each family that takes it."""
    keys: dict[str, list] = {}
    for fam, table in FAMILIES.items():
        for key, (kind, _, text) in table.items():
            keys.setdefault(key, []).append((fam, kind, text))
    out = []
    for key, uses in keys.items():
        kinds = {k if not isinstance(k, tuple) else "words" for _, k, _ in uses}
        kind = next(iter(kinds)) if len(kinds) == 1 else "str"
        kind = {"int": int, "bool": "flag", "str": str, "words": str}[kind]
        text = "; ".join(f"{fam}: {t}" + (f" ({', '.join(k)})" if isinstance(k, tuple) else "") for fam, k, t in uses)
        out.append(Option(FAMILY_FLAG.get(key, key), text, kind, spec=key))
    return out


def _family_option(name: str) -> Option:
    return next(o for o in family_options() if o.name == name)


def registered_names() -> set[str]:
    """Every flag the registry defines (without dashes): options, family flags and the flags that stand for a value."""
    return set(OPTIONS) | {o.name for o in family_options()} | {f for o in OPTIONS.values() for f, _ in o.also}


# ---- adding options to a parser --------------------------------------------------------------------------
def _note(namespace, action, option_string: str, value) -> None:
    """Record that ``option_string`` set ``action.dest`` to ``value``, and how the user typed it
    (:func:`contradictions`, :func:`given`)."""
    seen = dict(getattr(namespace, "_flags_given", {}))
    typed = option_string if action.nargs == 0 else \
        f"{option_string} {' '.join(map(str, value)) if isinstance(value, list) else value}"
    seen[action.dest] = seen.get(action.dest, []) + [(typed, value)]
    namespace._flags_given = seen


def _noted(base):
    """``base`` (an argparse action class) that notes each use and says when an old spelling was used."""
    class Noted(base):
        def __call__(self, parser, namespace, values, option_string=None):
            if option_string in self.old_names:
                say(f"cubenoc: {option_string} is the old name of {self.option_strings[0]}", file=sys.stderr)
            super().__call__(parser, namespace, values, option_string)
            _note(namespace, self, option_string, getattr(namespace, self.dest))
    Noted.__name__ = f"Noted{base.__name__}"
    return Noted


_STORE, _TRUE, _CONST = (_noted(argparse._StoreAction), _noted(argparse._StoreTrueAction),
                         _noted(argparse._StoreConstAction))


class _Bool(argparse.BooleanOptionalAction):
    """``--x`` / ``--no-x``, noted."""

    old_names = ()

    def __call__(self, parser, namespace, values, option_string=None):
        super().__call__(parser, namespace, values, option_string)
        _note(namespace, self, option_string, getattr(namespace, self.dest))


_UNSET = object()


def add(p, name: str, *, default=_UNSET, nargs=None, const=None, choices=None, required=None, dest=None, note: str = "",
        help=None, hidden: bool = False, option: Option | None = None):
    """Add the registered option ``name`` to ``p`` (a parser or group): its own ``default``, a list form
    (``nargs``), a subset of its words (``choices``) and a ``note`` after its help are the command's; a
    ``help`` replaces the text where the command says more precisely what the option does here."""
    o = option or OPTIONS.get(name) or _family_option(name)
    d = o.default if default is _UNSET else default
    words = o.kind if isinstance(o.kind, tuple) else None
    if choices is not None:
        assert words is None or set(choices) <= set(words), (name, choices)
        words = tuple(choices)
    text = help or o.help
    text += f" {note}" if note else ""
    if d not in (None, False, _UNSET) and "default" not in text:
        shown = " ".join(map(str, d)) if isinstance(d, (list, tuple)) else d
        text += f" (default {shown})"
    kw = dict(dest=dest or o.dest, default=d, help=argparse.SUPPRESS if hidden else text)
    if required is not None:
        kw["required"] = required
    flags = [o.short] if o.short else []
    flags += [o.flag] + [f"--{a}" for a in o.aliases]
    if o.kind == "flag":
        act = p.add_argument(*flags, action=_TRUE, **kw)
    elif o.kind == "bool":
        act = p.add_argument(*flags, action=_Bool, **kw)
    else:
        kw.update(nargs=nargs, choices=words, metavar=o.metavar if words is None else None)
        if const is not None:
            kw["const"] = const
        if not isinstance(o.kind, tuple):
            kw["type"] = o.kind
        act = p.add_argument(*flags, action=_STORE, **kw)
    act.old_names = tuple(f"--{a}" for a in o.aliases)
    act.registered = o.name
    for flag, value in o.also:
        a = p.add_argument(f"--{flag}", dest=kw["dest"], action=_CONST, const=value, default=d,
                           help=argparse.SUPPRESS if hidden else f"{o.flag} {value}")
        a.old_names, a.registered = (), o.name
    return act


def given(args, dest: str) -> bool:
    """Whether the command line set ``dest`` (a config file's value is a default, not given)."""
    return dest in getattr(args, "_flags_given", {})


def contradictions(args) -> None:
    """Two different values for one option on one command line: refused in one line, every command alike."""
    for dest, uses in getattr(args, "_flags_given", {}).items():
        if len({repr(v) for _, v in uses}) > 1:
            raise CubenocError(f"give one of {' or '.join(dict.fromkeys(typed for typed, _ in uses))}, not both")
