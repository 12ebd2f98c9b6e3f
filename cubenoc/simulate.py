"""Simulate a network on the cycle-accurate model: latency/throughput vs offered load (docs/simulator.md).

``cubenoc simulate enhanced --n 6 --k 0 --traffic uniform --sweep 0.05:0.95:0.05 --plot lat.png``
``cubenoc simulate --compare enhanced:n=6,k=0 hypercube:n=6 pdn:set=0,1,3,9 --sweep 0.1:0.9:0.1 --plot cmp.png``
``cubenoc simulate --bench-speed``: deprecated, moved to ``cubenoc bench sim-speed`` (cubenoc/bench/sim_speed.py)
"""
from __future__ import annotations

import sys
from pathlib import Path

from .errors import CubenocError


def add_arguments(p) -> None:
    from cubenoc.sim.catalog import GRAMMAR as SPEC_HELP
    from cubenoc.sim.traffic import PATTERNS

    from .netargs import add_family_flags, add_router_flags
    p.add_argument("network", nargs="?", metavar="NETWORK",
                   help="a network spec (enhanced:n=6,k=0, pdn:set=0,1,3,9, a preset such as q60) or a family "
                        "name with the flags below (or use --compare); docs/networks.md")
    add_family_flags(p)
    add_router_flags(p, only=("depth", "queues", "pipeline", "arbitration", "loopback"))
    p.add_argument("--compare", nargs="+", metavar="SPEC", help=f"several networks on one chart: {SPEC_HELP}")
    t = p.add_argument_group("traffic")
    t.add_argument("--traffic", default="uniform", help=f"one of {', '.join(PATTERNS)} (default uniform)")
    t.add_argument("--g", type=float, default=2.0, help="locality: p_l proportional to g^-l (Tzeng & Wei; default 2)")
    t.add_argument("--alpha", type=float, default=0.8, help="alpha: intracluster probability (Dandamudi & Eager; default 0.8)")
    t.add_argument("--cluster-size", type=int, help="alpha: cluster size when the network is not hierarchical")
    t.add_argument("--hotspot", type=int, default=0, help="hotspot node (default 0)")
    t.add_argument("--hotspot-fraction", type=float, default=0.1,
                   help="share of packets to the hotspot (1: all-to-one, the hotspot itself sends nothing)")
    t.add_argument("--length", default="1", help="packet length: L, uniform:A:B, exp:MEAN[:MAX] (default 1)")
    loads = p.add_mutually_exclusive_group()
    loads.add_argument("--rate", type=float, help="one offered load, flits/node/cycle")
    loads.add_argument("--sweep", metavar="START:STOP:STEP", help="offered loads, e.g. 0.05:0.95:0.05")
    m = p.add_argument_group("method")
    m.add_argument("--warmup", type=int, default=1000, help="warm-up cycles (default 1000)")
    m.add_argument("--measure", type=int, default=5000, help="measurement window cycles (default 5000)")
    m.add_argument("--drain", type=int, default=5000, help="most drain cycles (default 5000; 0: no drain, the "
                   "window's accepted load without latency)")
    m.add_argument("--seed", type=int, default=1, help="random seed of the traffic (default 1); the same seed "
                   "gives the same result")
    m.add_argument("--per-source", action="store_true",
                   help="per-source accepted throughput (min, max, max/min), also past saturation "
                        "(on with --traffic hotspot)")
    m.add_argument("--no-stop", action="store_true", help="keep sweeping past the first saturated load")
    o = p.add_argument_group("output")
    o.add_argument("--plot", metavar="FILE.png", help="latency-vs-load plot (a CSV is written beside it)")
    o.add_argument("--csv", metavar="FILE.csv", help="results as CSV")
    o.add_argument("--json", action="store_true", help="print the results as JSON")
    o.add_argument("--quiet", action="store_true", help="no progress bar")
    d = p.add_argument_group("distributed")
    t.add_argument("--trace", metavar="FILE.csv", help="replay a packet trace instead of synthetic traffic "
                   "(CSV: cycle,source,destination,length; docs/simulator.md)")
    t.add_argument("--record", metavar="FILE.csv", help="write every packet of the run to a trace (one run)")
    d.add_argument("--jobs", type=int, metavar="N", help="run the points on a local Dask cluster of N workers")
    d.add_argument("--dask", action="store_true", help="run the points on a local Dask cluster (default size)")
    d.add_argument("--scheduler", metavar="ADDR", help="run the points on this Dask scheduler (tcp://host:8786)")
    p.add_argument("--bench-speed", action="store_true",
                   help="deprecated: moved to `cubenoc bench sim-speed` (this runs that)")
    p.add_argument("--write", metavar="FILE.md", help="with --bench-speed: update that section of FILE.md")
    p.add_argument("--study", metavar="NAME",
                   help="a paper's study on the model (`--study list` lists them; --plot draws the paper's curve "
                        "beside ours)")


#: the network a bare family name simulates (the 64-node networks of docs/simulator.md)
DEFAULTS = {"hypercube": {"n": 6}, "enhanced": {"n": 6, "k": 0}, "pdn": {"set": "0,1,3,9"},
            "metacube": {"k": 1, "m": 3}, "hin": {"level1": "bh:3", "level2": "bh:3"}}


def spec_from_args(args) -> str:
    """The catalog spec of NETWORK (a spec, a preset, or a family name with the flags over :data:`DEFAULTS`)."""
    from .netargs import spec_from_args as from_args
    from .netargs import with_router_flags
    fam = str(args.network).lower()
    defaults = dict(DEFAULTS.get(fam, {}))
    if fam == "pdn" and any(getattr(args, k, None) is not None for k in ("set", "delta", "product")):
        defaults = {}
    spec = from_args(args.network, args, **defaults)
    return str(with_router_flags(spec, args))


def run(args) -> int:
    from cubenoc.sim import simulator as S

    from .netargs import router_config
    if args.bench_speed:
        return _bench_speed(args)
    if args.write:
        raise CubenocError("--write FILE.md only goes with --bench-speed (now `cubenoc bench sim-speed --write`); "
                           "a run's results: --csv, --json, --plot")
    if args.study:
        return _study(args)
    specs = list(args.compare or [])
    if args.network:
        specs.insert(0, spec_from_args(args))
    if not specs:
        raise CubenocError("give a network family (e.g. `simulate enhanced --n 6 --k 0`) or --compare SPEC ...")
    if args.trace and (args.sweep or args.rate is not None):
        raise CubenocError("--trace replays the file's own load: drop --rate/--sweep")
    from .outputs import writable_file
    writable_file(args.csv, "--csv")
    writable_file(args.plot, "--plot")
    writable_file(args.record, "--record")
    if args.sweep:
        loads = S.parse_sweep(args.sweep)
    else:
        loads = [args.rate if args.rate is not None else 0.1]
    targs = {"g": args.g, "alpha": args.alpha, "cluster_size": args.cluster_size, "hotspot": args.hotspot,
             "fraction": args.hotspot_fraction}
    cfg = S.SimConfig(warmup=args.warmup, measure=args.measure, drain=args.drain, seed=args.seed,
                      length=args.length, traffic=args.traffic, traffic_args=targs,
                      per_source=args.per_source or args.traffic == "hotspot",
                      router=router_config(args)).check()
    from cubenoc.sim.traffic import make_pattern
    for s in specs:                              # bad traffic/network input: one error before any work
        make_pattern(cfg.traffic, S.model_for(s, cfg.router)[0].topology, **targs)
    dask = args.scheduler or (True if args.dask else None)
    results = S.sweep(specs, loads, cfg, progress=not args.quiet and not args.json, dask=dask,
                      stop_at_saturation=not args.no_stop, jobs=args.jobs, trace=args.trace, record=args.record)
    csv_path = args.csv or (str(Path(args.plot).with_suffix(".csv")) if args.plot else None)
    if args.json:
        print(S.to_json(results))
    else:
        print(S.text_table(results))
    if csv_path:
        S.write_csv(results, csv_path)
        if not args.json:
            print(f"CSV written to {csv_path}")
    if args.plot:
        S.plot_latency(results, args.plot, f"{cfg.traffic} traffic, packet length {cfg.length}, "
                                           f"{cfg.router.fifo_depth}-flit buffers")
        if not args.json:
            print(f"plot written to {args.plot}")
    return 0


def _bench_speed(args) -> int:
    """The deprecated ``simulate --bench-speed [--write PAGE]``: says where it moved and runs it there."""
    import argparse

    from .bench import sim_speed
    from .outputs import writable_file
    writable_file(args.write, "--write")
    print("cubenoc: `simulate --bench-speed` moved to `cubenoc bench sim-speed`; running that", file=sys.stderr)
    p = argparse.ArgumentParser(prog="cubenoc bench sim-speed")
    sim_speed.add_arguments(p)
    return sim_speed.run(p.parse_args([*(["--write", args.write] if args.write else []),
                                       *(["--quiet"] if args.quiet else []), *(["--json"] if args.json else [])]))


def _study(args) -> int:
    import json
    from cubenoc.sim import sim_studies as St
    from cubenoc.sim.analysis.report import table
    from cubenoc.sim.study_plots import COLUMNS, plot_study
    name = St.STUDY_ALIASES.get(args.study, args.study)
    if name == "list":
        print(table([[k, v] for k, v in St.STUDIES.items()], ["study", "reproduces"]))
        print("earlier names: " + ", ".join(f"{a} = {b}" for a, b in St.STUDY_ALIASES.items()))
        return 0
    if name not in St.STUDIES:
        raise CubenocError(f"unknown study {args.study!r}; `cubenoc simulate --study list` lists "
                           f"{', '.join(St.STUDIES)}")
    from .outputs import writable_file
    writable_file(args.plot, "--plot")
    if name == "density":
        rows = [St.enhanced_density(args.n or 6, k, g, args.rate or 0.1)
                for k in range(0, (args.n or 6) - 2) for g in (1.0, 2.0)]
    else:
        rows = {"fig8a": St.figure_8, "fig8b": St.figure_8b, "fig9a": St.figure_9, "fig9b": St.figure_9b,
                "fig11-d6": St.hin_replication, "fig11": St.figure_11, "fig12-scaled": St.hin_routing,
                "fig12": St.figure_12}[name]()
    cols = COLUMNS[name]
    if args.json:
        print(json.dumps(rows, indent=2, default=float))
    else:
        print(table([[r.get(c) for c in cols] for r in rows], cols))
    if args.plot:
        plot_study(name, rows, args.plot)
        if not args.json:
            print(f"plot written to {args.plot}")
    return 0
