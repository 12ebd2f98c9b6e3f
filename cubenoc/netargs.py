"""The network arguments every command shares: a catalog spec (``pdn:set=0,1,3,9``, a preset name) or a
family name with the family flags as a shorthand for the same spec (sim/catalog.py, docs/networks.md)."""
from __future__ import annotations

import argparse

from .errors import CubenocError


def add_family_flags(p: argparse.ArgumentParser, title: str = "network flags (with a FAMILY name)") -> None:
    """``--n --k --m --set ...``: each flag sets the catalog key of the same name."""
    g = p.add_argument_group(title)
    g.add_argument("--n", type=int, default=None, help="hypercube/enhanced: cube dimension")
    g.add_argument("--k", type=int, default=None, help="enhanced: skip parameter 0..n-2; metacube: class bits k")
    g.add_argument("--m", type=int, default=None, help="metacube: cluster dimension m")
    g.add_argument("--shortest", action="store_true", default=None,
                   help="metacube: skip classes with nothing to correct")
    g.add_argument("--set", metavar="S", default=None, help="pdn: a perfect difference set, e.g. 0,1,3,9 "
                   "(0-free sets allowed)")
    g.add_argument("--delta", type=int, default=None, help="pdn: the registry's normal-form set of this order")
    g.add_argument("--zero-free", action="store_true", default=None,
                   help="pdn: the 0-free PDN of the set plus 1 (Definition 4)")
    g.add_argument("--product", metavar="D1,D0", default=None,
                   help="pdn: product of registry PDNs of these orders (dimension-order routing), e.g. 2,2")
    g.add_argument("--bipartite", action="store_true", default=None, help="pdn: the bipartite host/switch form")
    g.add_argument("--routing", default=None, help="pdn: oblivious (Algorithm 1, default), adaptive (Algorithm 2, "
                   "preferred candidate) or availability (Algorithm 2 selected at run time); hin: ecube (default), "
                   "balanced (Sec. IV-B, fixed pick) or least_used (run-time selection)")
    g.add_argument("--prefer", choices=("forward", "backward"), default=None,
                   help="pdn adaptive: the preferred first chord (default forward)")
    g.add_argument("--level1", default=None, help="hin: cluster network bh:d or cc:n (default bh:3)")
    g.add_argument("--level2", default=None, help="hin: level-2 network bh, br, cc or ccc, optionally :SIZE "
                   "(default bh:2); without a size it follows --nodes")
    g.add_argument("--nodes", type=int, default=None, help="hin: total nodes (sizes level 2 when it has no :SIZE)")
    g.add_argument("--replication", type=int, default=None, help="hin: parallel level-2 links per level-2 edge")
    g.add_argument("--d", type=int, default=None, help=argparse.SUPPRESS)     # older hin flags: --level1 bh:D
    g.add_argument("--size", default=None, help=argparse.SUPPRESS)           # and --level2 FAMILY:SIZE


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
    from .sim.catalog import FAMILIES, NetworkSpec
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
              "level1", "level2", "nodes", "replication", "d", "size")


def _known(fam: str) -> set:
    from .sim.catalog import FAMILIES, ROUTER_KEYS
    return set(FAMILIES[fam]) | set(ROUTER_KEYS) | ({"d", "size"} if fam == "hin" else set())


def check_flags_apply(spec, args) -> None:
    """A family flag the spec's family does not take is an error (``generate hypercube --m 2``)."""
    from .sim.catalog import FAMILIES
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
    import sys

    from .sim.network_plan import plan_seconds
    est = plan_seconds(topology, routing, verilog)
    what = f"{spec}: {topology.num_nodes:,} nodes"
    if est > REFUSE_ESTIMATE:
        raise CubenocError(f"{what}; {command} would take about {_duration(est)} here (every source/destination "
                           f"pair is walked{', every router elaborated' if verilog else ''}); it takes networks "
                           f"up to about an hour's work (the 4,096-node 12-cube)")
    if est > SAY_ESTIMATE:
        print(f"cubenoc {command}: {what}, expect about {_duration(est)} (a rough estimate from the size)",
              file=sys.stderr, flush=True)
    return est


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} minutes"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.0f} hours"
    return f"{seconds / 86400:.0f} days"


# ---- router flags: the one map from a command's flags onto RouterConfig (sim/router_config.py) -------------
#: flag dest -> the config field it sets
ROUTER_FLAGS = {"payload": "payload_width", "depth": "fifo_depth", "queues": "queues", "pipeline": "pipeline",
                "broadcast": "broadcast", "faults": "faults", "arbitration": "arbitration",
                "fifo_memory": "fifo_memory", "counters": "counters", "loopback": "loopback",
                "interface": "interface"}      # --interface: generate's own flag (the top's ports)


def add_router_flags(p: argparse.ArgumentParser, only: tuple | None = None, title: str = "router") -> None:
    """The router flags (every one defaults to the target's router, sim/router_config.py ``TARGETS``);
    ``only``: the flag dests this command takes."""
    g = p.add_argument_group(title, "each flag overrides one field of the target's default router "
                             "(docs/router.md \"Router options\")")
    want = set(ROUTER_FLAGS if only is None else only)
    add = {
        "payload": lambda: g.add_argument("--payload", type=int, default=None,
                                          help="payload width W in bits, 16..1024 (default 32)"),
        "depth": lambda: g.add_argument("--depth", type=int, default=None, help="input FIFO depth in flits "
                                        "(default 4)"),
        "queues": lambda: g.add_argument("--queues", choices=("fifo", "voq"), default=None,
                                         help="one FIFO per input (per VC; default) or per-output queues chosen by "
                                              "lookahead routing (docs/router.md, VOQ)"),
        "pipeline": lambda: g.add_argument("--pipeline", action="store_true", default=None,
                                           help="the pipelined router: two registered stages per hop, 2 cycles/hop, "
                                                "for clock speed (docs/router.md)"),
        "broadcast": lambda: g.add_argument("--broadcast", action="store_true", default=None,
                                            help="routers fork broadcasts (dest 0xFFFF): Algorithm B/D "
                                                 "(hypercube/enhanced), Algorithm 3 (pdn); not metacube, whose "
                                                 "broadcast needs VCs (docs/router.md)"),
        "faults": lambda: g.add_argument("--faults", action="store_true", default=None,
                                         help="link_fault/node_fault inputs and discarded counters (run-time "
                                              "faults); always on with a run-time selection"),
        "arbitration": lambda: g.add_argument("--arbitration", choices=("round-robin", "fair"), default=None,
                                              help="output arbiters: round-robin (default) or fair (weighted by the "
                                                   "sources behind each input; docs/router.md \"Arbitration\")"),
        "fifo_memory": lambda: g.add_argument("--fifo-memory", action=_OnceBool, default=None,
                                              help="FIFO storage behind the head register as memory arrays, which "
                                                   "FPGA tools map to distributed RAM (docs/router.md \"Input FIFO\")"),
        "loopback": lambda: g.add_argument("--loopback", action=_OnceBool, default=None,
                                           help="the local->local turn; without it a packet addressed to its own "
                                                "node is dropped at its source and counted in dropped "
                                                "(docs/router.md \"Loopback\")"),
    }
    for dest in ROUTER_FLAGS:
        if dest in want and dest in add:
            add[dest]()
    if "counters" in want:
        g.add_argument("--counters", choices=("on", "off", "dsp"), default=None, action=_OnceAction,
                       help="the four 16-bit status counters: in flip-flops (on), not built (off: the status "
                            "outputs read 0) or in the iCE40's DSP blocks (dsp)")
        g.add_argument("--no-counters", dest="counters", action=_OnceAction, nargs=0, const="off",
                       help="--counters off")
        g.add_argument("--dsp-counters", dest="counters", action=_OnceAction, nargs=0, const="dsp",
                       help="--counters dsp")


def _note(namespace, dest: str, option_string: str, value) -> None:
    """Record that ``option_string`` set ``dest`` to ``value``: :func:`router_config` refuses two values."""
    given = dict(getattr(namespace, "_flags_given", {}))
    given[dest] = given.get(dest, []) + [(option_string, value)]
    namespace._flags_given = given


class _OnceAction(argparse.Action):
    """``--counters X`` / ``--no-counters`` / ``--dsp-counters``: the value, noted for :func:`router_config`."""

    def __call__(self, parser, namespace, values, option_string=None):
        value = self.const if self.nargs == 0 else values
        _note(namespace, self.dest, option_string, value)
        setattr(namespace, self.dest, value)


class _OnceBool(argparse.BooleanOptionalAction):
    """``--loopback`` / ``--no-loopback``: the value, noted for :func:`router_config`."""

    def __call__(self, parser, namespace, values, option_string=None):
        _note(namespace, self.dest, option_string, not option_string.startswith("--no-"))
        super().__call__(parser, namespace, values, option_string)


def router_config(args, spec=None, base=None, routing=None, only: tuple | None = None):
    """The router a command builds: ``base`` (its target's default, sim/router_config.py ``TARGETS``; None:
    the generic router), then the router keys of ``spec``, then the command's router flags (``only``: the
    flag dests :func:`add_router_flags` gave it, where another option shares a name); a default field that
    refuses what the user asked for (or ``routing``) gives way (``with_options``)."""
    from .sim.router_config import RouterConfig, field_value, with_options
    for dest, flags in getattr(args, "_flags_given", {}).items():     # contradictory flags, one rule for all
        if len({v for _, v in flags}) > 1:
            words = dict.fromkeys(o if o.startswith("--no-") or o.startswith("--dsp") else f"{o} {v}"
                                  if not isinstance(v, bool) else o for o, v in flags)
            raise CubenocError(f"give one of {' or '.join(words)}, not both")
    changes = dict(spec.router_fields()) if spec is not None else {}
    for dest, name in ROUTER_FLAGS.items():
        v = getattr(args, dest, None) if only is None or dest in only else None
        if v is not None:
            v = field_value(dest, v)
            if name in changes and changes[name] != v:       # docs/config.md "Precedence"
                raise CubenocError(f"the network {spec} sets {name} = {changes[name]!r} and the flag "
                                   f"--{dest.replace('_', '-')} asks for {v!r}: give one of them")
            changes[name] = v
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
