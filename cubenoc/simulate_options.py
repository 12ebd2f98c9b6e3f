"""``cubenoc simulate``'s options (its run: cubenoc/simulate.py, imported when it runs, so that ``simulate
--help`` loads no model; docs/decisions/lazy-imports.md)."""
from __future__ import annotations

from cubenoc.sim.catalog import GRAMMAR as SPEC_HELP
from cubenoc.sim.traffic import PATTERNS

from .netargs import add_family_flags, add_router_flags, spec_from_args as from_args, with_router_flags
from .options import add


def add_arguments(p) -> None:
    p.add_argument("network", nargs="?", metavar="NETWORK",
                   help="a network spec (enhanced:n=6,k=0, pdn:set=0,1,3,9, a preset such as q60) or a family "
                        "name with the flags below (or use --compare); docs/networks.md")
    add_family_flags(p, title="network flags (with a FAMILY name; the defaults are the 64-node networks: "
                     + "; ".join(f"{f} {' '.join(f'--{k} {v}' for k, v in d.items())}" for f, d in DEFAULTS.items())
                     + ")")
    add_router_flags(p, only=("depth", "queues", "pipeline", "arbitration", "loopback"))
    p.add_argument("--compare", nargs="+", metavar="SPEC", help=f"several networks on one chart: {SPEC_HELP}")
    t = p.add_argument_group("traffic")
    add(t, "traffic", note=f"one of {', '.join(PATTERNS)}")
    add(t, "g", note="(default 2)")
    add(t, "alpha", note="(default 0.8)")
    t.add_argument("--cluster-size", type=int, help="--traffic alpha: cluster size when the network is not "
                   "hierarchical")
    t.add_argument("--hotspot", type=int, default=None, help="--traffic hotspot: the hotspot node (default 0)")
    t.add_argument("--hotspot-fraction", type=float, default=None,
                   help="--traffic hotspot: share of packets to the hotspot (default 0.1; 1: all-to-one, the hotspot "
                        "itself sends nothing)")
    add(t, "length", default="1")
    loads = p.add_mutually_exclusive_group()
    add(loads, "rate", note="(one point; default 0.1)")
    add(loads, "sweep")
    m = p.add_argument_group("method")
    add(m, "warmup", default=DEFAULT_WINDOW["warmup"], note="(default 1000; with --trace 0)")
    add(m, "measure", default=DEFAULT_WINDOW["measure"], note="(default 5000; with --trace, up to the trace's last packet)")
    add(m, "drain", default=5000)
    add(m, "seed", default=1, note="of the traffic")
    m.add_argument("--per-source", action="store_true",
                   help="per-source accepted throughput (min, max, max/min), also past saturation "
                        "(on with --traffic hotspot)")
    m.add_argument("--no-stop", action="store_true", help="keep sweeping past the first saturated load")
    o = p.add_argument_group("output")
    add(o, "plot", note="(latency vs load; a CSV is written beside it)")
    add(o, "csv")
    add(o, "report")
    add(o, "report-load")
    add(o, "json")
    add(o, "quiet")
    d = p.add_argument_group("distributed")
    t.add_argument("--trace", metavar="FILE.csv", help="replay a packet trace instead of synthetic traffic "
                   "(CSV: cycle,source,destination,length; docs/simulator.md)")
    t.add_argument("--record", metavar="FILE.csv", help="write every packet of the run to a trace (one run)")
    add(d, "jobs", help="run the points on a local Dask cluster of N workers")
    d.add_argument("--dask", action="store_true", help="run the points on a local Dask cluster (default size)")
    d.add_argument("--scheduler", metavar="ADDR", help="run the points on this Dask scheduler (tcp://host:8786)")
    p.add_argument("--bench-speed", action="store_true",
                   help="deprecated: moved to `cubenoc bench sim-speed` (this runs that)")
    add(p, "write", help="with --bench-speed: update that section of FILE.md")
    p.add_argument("--study", metavar="NAME",
                   help="a paper's study on the model (`--study list` lists them; --plot draws the paper's curve "
                        "beside ours)")


#: the network a bare family name simulates (the 64-node networks of docs/simulator.md)
DEFAULTS = {"hypercube": {"n": 6}, "enhanced": {"n": 6, "k": 0}, "pdn": {"set": "0,1,3,9"},
            "metacube": {"k": 1, "m": 3}, "hin": {"level1": "bh:3", "level2": "bh:3"}}


def spec_from_args(args) -> str:
    """The catalog spec of NETWORK (a spec, a preset, or a family name with the flags over :data:`DEFAULTS`)."""
    fam = str(args.network).lower()
    defaults = dict(DEFAULTS.get(fam, {}))
    if fam == "pdn" and any(getattr(args, k, None) is not None for k in ("set", "delta", "product")):
        defaults = {}
    spec = from_args(args.network, args, **defaults)
    return str(with_router_flags(spec, args))


#: the method options' defaults, which a trace replaces: its own span
DEFAULT_WINDOW = {"warmup": 1000, "measure": 5000}
