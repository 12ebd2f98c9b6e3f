"""The network arguments every command shares: a catalog spec (``pdn:set=0,1,3,9``, a preset name) or a
family name with the family flags as a shorthand for the same spec (sim/catalog.py, docs/networks.md)."""
from __future__ import annotations

import argparse
import sys

from .errors import CubenocError
from .options import Option, add, contradictions, family_options, given, router_options
from .sim.catalog import FAMILIES, NetworkSpec, ROUTER_KEYS
from .sim.network_plan import plan_seconds
from .sim.router_config import RouterConfig, field_value, with_options


def add_family_flags(p: argparse.ArgumentParser, title: str = "network flags (with a FAMILY name)") -> None:
    """``--n --k --m --set ...``: each flag sets the catalog key of the same name (cubenoc/options.py
    ``family_options``, made from sim/catalog.py ``FAMILIES``)."""
    g = p.add_argument_group(title)
    for o in family_options():
        add(g, o.name, option=o)
    # older hin flags, hidden: --level1 bh:D and --level2 FAMILY:SIZE replaced them
    add(g, "d", option=Option("d", "", int), hidden=True)
    g.add_argument("--size", dest="size", default=None, help=argparse.SUPPRESS)


def one_network(positional, option):
    """The network a command was given as its positional NETWORK or as ``--network`` (the same thing, two
    spellings; lists for synth-report, prove and bench); both at once is an error."""
    if positional and option:
        raise CubenocError(f"give the network as NETWORK or as --network, not both ({_words(positional)} and "
                           f"--network {_words(option)})")
    return positional or option


def _words(v) -> str:
    return " ".join(v) if isinstance(v, (list, tuple)) else str(v)


def with_router_flags(spec, args):
    """``spec`` with the command's router flags (--queues voq, --pipeline, --broadcast) added to its options."""
    over = {"queues": getattr(args, "queues", "fifo"), "pipeline": getattr(args, "pipeline", False),
            "broadcast": getattr(args, "broadcast", False)}
    over = {k: v for k, v in over.items() if v not in (None, False, "fifo")}
    return spec.replace(**over) if over else spec


def spec_from_args(family: str, args, **defaults):
    """A :class:`NetworkSpec` from a positional ``family`` that is a spec, a preset or a family name (then
    the family flags, over ``defaults``, give its parameters)."""
    name = str(family).strip()
    if name.lower() not in FAMILIES:
        flags = [f"--{k.replace('_', '-')}" for k in _FLAG_KEYS if getattr(args, k, None) not in (None, False)]
        if flags:
            raise CubenocError(f"give the network either as a spec ({name}) or as a family name with flags "
                               f"({' '.join(flags)}), not both")
        return NetworkSpec.parse(name)
    fam = name.lower()
    if getattr(args, "d", None) is not None or getattr(args, "size", None) is not None:
        defaults = defaults | {"d": getattr(args, "d", None), "size": getattr(args, "size", None)}
    spec = NetworkSpec.from_flags(fam, args, **{k: v for k, v in defaults.items() if k in _known(fam)})
    check_flags_apply(spec, args)
    return spec


_FLAG_KEYS = ("n", "k", "m", "shortest", "set", "delta", "zero_free", "product", "bipartite", "routing", "prefer",
              "level1", "level2", "level3", "nodes", "replication", "d", "size", "file")


def _known(fam: str) -> set:
    return set(FAMILIES[fam]) | set(ROUTER_KEYS) | ({"d", "size"} if fam == "hin" else set())


def check_flags_apply(spec, args) -> None:
    """A family flag the spec's family does not take is an error (``generate hypercube --m 2``)."""
    keys = set(FAMILIES[spec.family]) | ({"replication", "d", "size"} if spec.family == "hin" else set())
    wrong = [k for k in _FLAG_KEYS if getattr(args, k, None) not in (None, False) and k not in keys]
    if wrong:
        def who(k):
            k = {"replication": "r", "d": "level1", "size": "level2"}.get(k, k)
            return " and ".join(f for f, keys in FAMILIES.items() if k in keys)
        raise CubenocError(f"{spec.family} does not take " + "; ".join(
            f"--{k.replace('_', '-')} (it applies to {who(k)})" for k in wrong))


#: a command refuses a network whose estimated planning/elaboration time is above this (seconds), and says
#: the estimate on stderr when it is above :data:`SAY_ESTIMATE`
REFUSE_ESTIMATE, SAY_ESTIMATE = 3600.0, 30.0


def check_size(spec, topology, routing, command: str, verilog: bool = True) -> float:
    """Refuse, before any work, a network that would take more than an hour to plan (and elaborate, with
    ``verilog``), and say the estimate on stderr when it is long (sim/network_plan.py ``plan_seconds``)."""
    modules = own_router_modules(routing) if verilog else 0
    est = plan_seconds(topology, routing, verilog, modules)
    what = f"{spec}: {topology.num_nodes:,} nodes" + (", each router a module of its own" if modules else "")
    if est > REFUSE_ESTIMATE:
        raise CubenocError(f"{what}; {command} would take about {_duration(est)} here (every source/destination "
                           f"pair is walked{', every router elaborated' if verilog else ''}); it takes networks "
                           f"up to about an hour's work (the 4,096-node 12-cube)")
    if est > SAY_ESTIMATE:
        print(f"cubenoc {command}: {what}, expect about {_duration(est)} (a rough estimate from the size)",
              file=sys.stderr, flush=True)
    return est


def own_router_modules(routing) -> int:
    """How many routers are elaborated as a module of their own: every node's when the routing's RTL is not
    node-generic (rtl/route/base.py), else none (0 too without Amaranth: the command then says what to install)."""
    try:
        from .rtl.route import rtl_for
    except ImportError:
        return 0
    return 0 if rtl_for(routing).node_generic else routing.topology.num_nodes


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} minutes"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.0f} hours"
    return f"{seconds / 86400:.0f} days"


# ---- router flags: the one map from a command's flags onto RouterConfig (sim/router_config.py) -------------
#: flag dest -> the config field it sets (cubenoc/options.py, the router options)
def _router_flags() -> dict:
    return {o.dest: o.field for o in router_options()}


ROUTER_FLAGS = _router_flags()


def add_router_flags(p: argparse.ArgumentParser, only: tuple | None = None, title: str = "router") -> None:
    """The router flags (every one defaults to the target's router, sim/router_config.py ``TARGETS``);
    ``only``: the flag dests this command takes."""
    g = p.add_argument_group(title, "each flag overrides one field of the target's default router "
                             "(docs/router.md \"Router options\")")
    for o in router_options():
        if only is None or o.dest in only:
            add(g, o.name, default=None)


def router_config(args, spec=None, base=None, routing=None, only: tuple | None = None):
    """The router a command builds, by the one precedence (docs/config.md "Precedence"): ``base`` (the
    built-in default or its target's, sim/router_config.py ``TARGETS``; None: the generic router) < a config
    file's ``[router]`` value < the router keys of ``spec`` < the command's router flags; a spec key and a flag
    that disagree are refused in one line. ``only``: the flag dests the command has, where another option
    shares a name. A default field that refuses what the user asked for (or ``routing``) gives way
    (``with_options``)."""
    contradictions(args)
    spec_fields = dict(spec.router_fields()) if spec is not None else {}
    changes = {}
    for dest, name in ROUTER_FLAGS.items():
        v = getattr(args, dest, None) if only is None or dest in only else None
        if v is None:
            continue
        v = field_value(dest, v)
        if not given(args, dest):              # a config file's value: the spec's key wins over it
            changes[name] = v
        elif name in spec_fields and spec_fields[name] != v:
            raise CubenocError(f"the network {spec} sets {name} = {spec_fields[name]!r} and the flag "
                               f"--{dest.replace('_', '-')} asks for {v!r}: give one of them")
    changes |= spec_fields
    for dest, name in ROUTER_FLAGS.items():
        v = getattr(args, dest, None) if only is None or dest in only else None
        if v is not None and given(args, dest):
            changes[name] = field_value(dest, v)
    return with_options(base or RouterConfig(), changes, routing)


def router_flag_words(args) -> str:
    """The router flags a command was given, as they would be typed (for a results page's command line)."""
    out = ""
    for dest in ROUTER_FLAGS:
        v = getattr(args, dest, None)
        flag = "--" + dest.replace("_", "-")
        if v is None:
            continue
        if isinstance(v, bool):
            out += f" {flag}" if v else f" --no-{dest.replace('_', '-')}"
        else:
            out += f" {flag} {v}"
    return out
