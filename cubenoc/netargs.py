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
