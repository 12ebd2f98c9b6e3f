"""Simulate a network on the cycle-accurate model: latency/throughput vs offered load (docs/simulator.md);
the command's options are in cubenoc/simulate_options.py.

``cubenoc simulate enhanced --n 6 --k 0 --traffic uniform --sweep 0.05:0.95:0.05 --plot lat.png``
``cubenoc simulate --compare enhanced:n=6,k=0 hypercube:n=6 pdn:set=0,1,3,9 --sweep 0.1:0.9:0.1 --plot cmp.png``
``cubenoc simulate --bench-speed``: deprecated, moved to ``cubenoc bench sim-speed`` (cubenoc/bench/sim_speed.py)
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from html import escape
from pathlib import Path

from cubenoc.sim import sim_studies as St, simulator as S
from cubenoc.sim.analysis.report import table
from cubenoc.sim.catalog import NetworkSpec
from cubenoc.sim.report_page import table_html
from cubenoc.sim.study_plots import COLUMNS, plot_study
from cubenoc.sim.traffic import LengthDist, make_pattern, trace_span

from .bench import sim_speed
from .errors import CubenocError
from .estimate import check_run, run_estimate
from .html_report import preload, write_report
from .netargs import router_config
from .outputs import atomic_write, plot_file, report_file, say, working, writable_file
from .simulate_options import DEFAULT_WINDOW, spec_from_args


def run(args) -> int:
    if args.bench_speed:
        return _bench_speed(args)
    if args.write:
        raise CubenocError("--write FILE.md only goes with --bench-speed (now `cubenoc bench sim-speed --write`); "
                           "a run's results: --csv, --json, --plot")
    if args.study:
        if args.network or args.compare:
            raise CubenocError(f"--study {args.study} runs the paper's own networks: drop "
                               f"{args.network or '--compare'} (or run the network without --study)")
        return _study(args)
    specs = list(args.compare or [])
    if args.network:
        specs.insert(0, spec_from_args(args))
    if not specs:
        raise CubenocError("give a network family (e.g. `simulate enhanced --n 6 --k 0`) or --compare SPEC ...")
    if args.trace and (args.sweep or args.rate is not None):
        raise CubenocError("--trace replays the file's own load: drop --rate/--sweep")
    writable_file(args.csv, "--csv")
    plot_file(args.plot, "--plot")
    report_file(args.report, "--report")
    if args.report_load is not None and not args.report:
        raise CubenocError("--report-load RATE chooses the load --report FILE.html draws: give --report too")
    writable_file(args.record, "--record")
    if args.sweep is not None:
        loads = S.parse_sweep(args.sweep)
    else:
        loads = [args.rate if args.rate is not None else 0.1]
    if args.report_load is not None and not any(abs(x - args.report_load) < 1e-9 for x in loads):
        raise CubenocError(f"--report-load {args.report_load:g} is not one of the run's loads "
                           f"({', '.join(f'{x:g}' for x in loads)})")
    targs = traffic_options(args)
    warmup, measure, trace = args.warmup, args.measure, None
    if args.trace:                               # the window is the trace's unless --warmup/--measure say
        _check_trace_size(args.trace)
        trace = trace_span(args.trace)
        if not _given(args, "warmup"):
            warmup = 0
        if not _given(args, "measure"):
            measure = max(1, trace.last_cycle + 1 - warmup)
    cfg = S.SimConfig(warmup=warmup, measure=measure, drain=args.drain, seed=args.seed,
                      length=args.length, traffic=args.traffic, traffic_args=targs,
                      per_source=args.per_source or args.traffic == "hotspot",
                      router=router_config(args), detail=bool(args.report)).check()
    for s in specs:                              # bad traffic/network input: one error before any work
        router_config(args, NetworkSpec.parse(s))          # a spec key and a flag that disagree
        make_pattern(cfg.traffic, S.model_for(s, cfg.router)[0].topology, **targs)
    _check_run(specs, loads, cfg, trace)
    if args.report:
        preload()
    dask = args.scheduler or (True if args.dask else None)
    results = S.sweep(specs, loads, cfg, progress=not args.quiet and not args.json, dask=dask,
                      stop_at_saturation=not args.no_stop, jobs=args.jobs, trace=args.trace, record=args.record)
    csv_path = args.csv or (str(Path(args.plot).with_suffix(".csv")) if args.plot else None)
    if args.json:
        print(S.to_json(results))
    else:
        print(S.text_table(results))
    said = sys.stderr if args.json else sys.stdout        # with --json, stdout is only the JSON
    if csv_path:
        with atomic_write(csv_path, "--csv") as tmp:
            S.write_csv(results, tmp)
        say(f"CSV written to {csv_path}", file=said)
    if args.plot:
        with atomic_write(args.plot, "--plot") as tmp:
            S.plot_latency(results, tmp, f"{cfg.traffic} traffic, packet length {cfg.length}, "
                                         f"{cfg.router.fifo_depth}-flit buffers", fmt=Path(args.plot).suffix[1:])
        say(f"plot written to {args.plot}", file=said)
    if args.report:
        _write_report(args, specs, loads, cfg, results)
    return 0


def _check_run(specs, loads, cfg, trace) -> None:
    """Hours or gigabytes: the run refused before it starts, with the figure (cubenoc/estimate.py)."""
    cycles = cfg.warmup + cfg.measure + cfg.drain
    seconds = memory = 0.0
    for s in specs:
        nodes = S.model_for(s, cfg.router)[0].num_nodes
        if trace is not None:
            t, m = run_estimate(nodes, cycles, trace.total_flits, held_flits=trace.packets + trace.total_flits / 16)
        else:
            flits = sum(loads) * nodes * cycles
            t, m = run_estimate(nodes, cycles * len(loads), flits, held_flits=LengthDist.parse(cfg.length).max)
        seconds, memory = seconds + t, max(memory, m)
    check_run(f"simulate: {len(specs)} network(s) x {len(loads) if trace is None else 1} point(s) of "
              f"{cycles:,} cycles", seconds, memory,
              "--warmup/--measure/--drain (or the trace's cycles)" if trace is not None else
              "--warmup/--measure/--drain or the number of --sweep points")


def _write_report(args, specs, loads, cfg, results) -> None:
    """``--report FILE.html`` (sim/report_page.py): the page of this run, written whole or not at all."""
    models = {}
    for s in specs:
        model, label = S.model_for(s, cfg.router)
        models[label] = model.topology
    config = {"networks": list(dict.fromkeys(p.spec for p in results)), "loads": None if args.trace else loads,
              **asdict(cfg), "router": cfg.router.as_dict(), "trace": args.trace}   # (a trace: its own load)
    write_report(args, results, models, config=config, title=f"cubenoc simulate: {', '.join(models)}",
                 load=args.report_load, to_stderr=bool(args.json))


def _given(args, dest: str) -> bool:
    """Whether the option ``dest`` was chosen (typed, or a value other than its default, e.g. from --config)."""
    flag = "--" + dest.replace("_", "-")
    typed = any(a == flag or a.startswith(flag + "=") for a in getattr(args, "_argv", ()))
    return typed or getattr(args, dest) != DEFAULT_WINDOW[dest]


def _check_trace_size(path) -> None:
    """A trace file is read whole: one much larger than the machine's memory is refused before it is read."""
    try:
        size = Path(path).stat().st_size
    except OSError:
        return                                   # (the reader says why it cannot read it)
    check_run(f"--trace {path} ({size / 2**20:,.0f} MB)", 0.0, size * 12, "the trace's size (split it)")


#: traffic option -> (the pattern it applies to, its default, make_pattern's keyword)
TRAFFIC_OPTIONS = {"g": ("locality", 2.0, "g"), "alpha": ("alpha", 0.8, "alpha"),
                   "cluster_size": ("alpha", None, "cluster_size"),
                   "hotspot": ("hotspot", 0, "hotspot"), "hotspot_fraction": ("hotspot", 0.1, "fraction")}


def traffic_options(args) -> dict:
    """make_pattern's keywords from the traffic options; one given for another pattern is an error, not
    silently ignored."""
    wrong = [f"--{k.replace('_', '-')} (for --traffic {pat})" for k, (pat, _, _) in TRAFFIC_OPTIONS.items()
             if getattr(args, k, None) is not None and pat != str(args.traffic).lower()]
    if wrong:
        raise CubenocError(f"--traffic {args.traffic} does not use {', '.join(wrong)}")
    return {kw: default if getattr(args, k, None) is None else getattr(args, k)
            for k, (_, default, kw) in TRAFFIC_OPTIONS.items()}


def _bench_speed(args) -> int:
    """The deprecated ``simulate --bench-speed [--write PAGE]``: says where it moved and runs it there."""
    writable_file(args.write, "--write")
    print("cubenoc: `simulate --bench-speed` moved to `cubenoc bench sim-speed`; running that", file=sys.stderr)
    p = argparse.ArgumentParser(prog="cubenoc bench sim-speed")
    sim_speed.add_arguments(p)
    return sim_speed.run(p.parse_args([*(["--write", args.write] if args.write else []),
                                       *(["--quiet"] if args.quiet else []), *(["--json"] if args.json else [])]))


#: what the studies' columns mean (sim/study_plots.py ``COLUMNS``), printed under the table where known
STUDY_LEGEND = {
    "alpha": "share of messages to the own cluster", "offered": "offered load, flits/node/cycle",
    "R_paper": "the paper's M/M/1 delay R, in cycles", "Q_paper": "its queueing part (R minus R at zero load)",
    "R_ours_kleinrock": "Kleinrock's R on this routing's channel loads",
    "Q_model": "Kleinrock's queueing part plus the source port's wait (the prediction of Q_sim)",
    "Q_sim": "simulated network latency minus the simulated zero-load latency",
    "sim_network_latency": "simulated injection-to-ejection latency, cycles",
    "source_wait": "simulated wait at the source", "saturated": "the point did not drain (its latency is a lower bound)",
    "replication": "parallel level-2 links", "sim_zero_load": "simulated zero-load network latency, cycles", "LR_paper": "the paper's link cost x delay", "LR_sim": "the same, simulated",
    "LR_kleinrock": "the same, Kleinrock's R on this routing's channel loads",
    "max_util_ours": "the busiest channel's utilisation on this routing (>= 1: the simulation saturates)",
    "routing": "hierarchical routing: e-cube, balanced or least used",
    "TD_s": "measured traffic density of the skip links", "TD_r": "measured traffic density of the regular links",
    "eq6_TD_s": "the paper's eq. (6)", "eq7_TD_r": "the paper's eq. (7)"}


def _study(args) -> int:
    name = St.STUDY_ALIASES.get(args.study, args.study)
    if name == "list":
        print(table([[k, v] for k, v in St.STUDIES.items()], ["study", "reproduces"]))
        print("earlier names: " + ", ".join(f"{a} = {b}" for a, b in St.STUDY_ALIASES.items()))
        return 0
    if name not in St.STUDIES:
        raise CubenocError(f"unknown study {args.study!r}; `cubenoc simulate --study list` lists "
                           f"{', '.join(St.STUDIES)}")
    plot_file(args.plot, "--plot")
    report_file(args.report, "--report")
    if args.report_load is not None:
        raise CubenocError("--report-load chooses a load of a sweep; a study's points are each drawn at their own load")
    if not args.json and not args.quiet:
        print(f"simulate --study {args.study}: the paper's points on the model, one after the other (minutes; "
              f"docs/papers/hierarchical.md gives each study's time)", file=sys.stderr, flush=True)
    with working(f"simulate --study {args.study}", args.quiet) as w:
        St.on_point = w.status                         # the point now running, beside the elapsed time
        St.keep_points = [] if args.report else None   # --report: each measured point with its link loads
        try:
            if name == "density":
                rows = [St.enhanced_density(args.n or 6, k, g, args.rate or 0.1)
                        for k in range(0, (args.n or 6) - 2) for g in (1.0, 2.0)]
            else:
                rows = {"fig8a": St.figure_8, "fig8b": St.figure_8b, "fig9a": St.figure_9, "fig9b": St.figure_9b,
                        "fig11-d6": St.hin_replication, "fig11": St.figure_11, "fig11-d15": St.figure_11_d15,
                        "fig12-scaled": St.hin_routing,
                        "fig12": St.figure_12, "hin-levels": St.hin_levels}[name]()
        finally:
            St.on_point = None
            kept, St.keep_points = St.keep_points, None
    cols = COLUMNS[name]
    if args.json:
        print(json.dumps(rows, indent=2, default=float))
    else:
        print(table([[r.get(c) for c in cols] for r in rows], cols))
        legend = [f"  {c}: {STUDY_LEGEND[c]}" for c in cols if c in STUDY_LEGEND]
        if legend:
            print("\ncolumns:\n" + "\n".join(legend))
        if name in St.STUDY_NOTES:
            print("\nnote: " + St.STUDY_NOTES[name])
    if args.plot:
        with atomic_write(args.plot, "--plot") as tmp:
            plot_study(name, rows, str(tmp))
        print(f"plot written to {args.plot}", file=sys.stderr if args.json else sys.stdout)
    if args.report:
        _study_report(args, name, rows, cols, kept)
    return 0


def _study_report(args, name: str, rows, cols, kept) -> None:
    """``--study NAME --report FILE.html``: each measured point drawn with its link loads, the study's table."""
    points = [p for p, _ in kept]
    models = {p.network: topo for p, topo in kept}
    extra = (f"<h2>The study's table</h2><p>{escape(St.STUDIES[name])}</p>"
             + table_html(cols, [[r.get(c) for c in cols] for r in rows]))
    write_report(args, points, models, config={"study": name, "reproduces": St.STUDIES[name]},
                 title=f"cubenoc simulate --study {args.study}", curves=False, extra=extra, to_stderr=bool(args.json),
                 notes=[f"{St.STUDIES[name]}: each measured point at its own load and traffic"])
