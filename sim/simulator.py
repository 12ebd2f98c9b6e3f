"""The network simulator: BookSim-style measurements on the cycle-accurate model.

One load point (:func:`simulate_point`) runs the model of :mod:`cubenoc.sim.model` (the one the cocotb
scoreboard holds the Verilog to) under Bernoulli traffic from :mod:`cubenoc.sim.traffic`:

1. **warm-up** (``warmup`` cycles): traffic flows, nothing is measured;
2. **measurement window** (``measure`` cycles): packets *created* in the window are the measured set;
   accepted throughput = flits ejected in the window / (N x window);
3. **drain** (at most ``drain`` cycles): traffic keeps flowing at the same rate (as in BookSim) until
   every measured packet has been delivered; a measured packet still undelivered then is a failure.
   ``drain = 0`` asks for no drain: the window's accepted load and link figures, no latency (a measured
   packet may still be in flight), not a saturation.

**Saturation detector.** The model is run in chunks of ``chunk`` cycles; after each one the source
backlog (flits created but not yet accepted by the source interfaces: the unbounded source queues) is
counted. The point is declared saturated, and the run stops at once, when

* the backlog exceeds ``max_backlog`` flits per node on average (a queue that no stable operating point
  at this load produces), or
* during the measurement window the backlog grows faster than ``growth`` x offered load per node per
  cycle (a stable queue does not grow on average) while holding more than ``min_backlog`` flits/node, or
* a drain (of one cycle or more) ends with measured packets undelivered.

The message says which rule fired with the numbers (offered vs the rate the sources could inject).

**Per-source figures** (``per_source``, on for ``--traffic hotspot``): accepted throughput of each source
(its flits ejected in the window / window, flits/cycle) and their min, max and max/min over the sources
that created packets. Fairness is measured at saturation, so with ``per_source`` a saturated point still
runs to the end of the window (no drain) and reports these figures beside the saturation message.

Results per point: mean / 50/95/99th percentile packet latency (creation to tail ejection, source
queueing included, BookSim's ``plat``), network latency (head accepted to tail ejected), accepted and
measured offered throughput, mean hop count, and per-channel utilisation (flits per cycle on each
directed link). Channel loads are counted by walking each delivered packet's route through the model's
own route tables (deterministic routing: exactly the channels its flits crossed), for packets
delivered in the window.
"""
from __future__ import annotations

import csv
import json
import math
import socket
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path

from tqdm import tqdm

from cubenoc.errors import CubenocError, require_int

from .analysis.report import log_axis, table
from .catalog import FAMILIES, GRAMMAR as SPEC_HELP, NetworkSpec
from .compile_watch import CompileWatch
from .load_point import PointResult, SimConfig, run_point, stream_span, why_empty
from .model.anynet import anynet_model
from .model.ecube import ecube_model
from .model.network import NetworkModel
from .model.stream import StreamRun, hist_percentile, walk_routes  # noqa: F401 (walk_routes re-exported: channel loads of known routes)
from .network_plan import plan_of
from .plotting import pyplot
from .router_config import RouterConfig
from .symmetric_tables import symmetric_model, symmetry_of
from .traffic import BernoulliSource, LengthDist, Recorder, TraceSource, check_rate, make_pattern


# ---- networks: the catalog (sim/catalog.py) ------------------------------------------------------------
def build_network(spec) -> tuple:
    """``spec`` (a catalog spec string or :class:`NetworkSpec`) -> (topology, routing function, label)."""
    ns = NetworkSpec.parse(spec)
    if ns.broadcast:
        raise CubenocError(f"{ns}: the simulator's traffic is unicast; broadcast=1 is for generate and build")
    if ns.router_fields().get("interface") == "axis":
        raise CubenocError(f"{ns}: simulate models the routers' native ports; leave out interface=axis (the AXI4-Stream "
                           "interface adds a header flit and three cycles per frame, docs/ip.md; its cycle-accurate "
                           "check is the kit of generate --interface axis --testbench)")
    topo, routing = ns.build("model")
    return topo, routing, ns.label(topo)


@lru_cache(maxsize=8)
def _model(spec: str, config: RouterConfig):
    topo, routing, label = build_network(spec)
    plan = plan_of(topo, routing, config)
    if config.queues != "fifo" or config.pipeline:   # per-output queues, pipelined (docs/router.md): the plain tables
        return NetworkModel(plan), label
    if type(routing).__name__ == "EcubeRouting":   # from the addresses, up to 2^20 nodes (sim/model/ecube.py)
        return ecube_model(plan), label
    if type(routing).__name__ == "MinimalTableRouting":   # from its tables with numpy (sim/model/anynet.py)
        return anynet_model(plan), label
    if symmetry_of(topo, routing) is not None:  # same model, one table row per orbit (tests hold them equal)
        return symmetric_model(plan), label
    return NetworkModel(plan), label


def release_models() -> None:
    """Drop the cached network models: up to 8 are kept, and a 32,768-node HIN's route tables are
    0.2-3 GB (the BH/CCC rows of `--study fig11-d15` call this after each point)."""
    _model.cache_clear()


def model_for(spec: str, config: RouterConfig | None = None):
    """The (cached) :class:`NetworkModel` of a spec and its label; the spec's router keys (``depth=2``,
    ``queues=voq`` ...) over ``config``."""
    ns = NetworkSpec.parse(spec)
    return _model(str(ns), ns.router_config(config or RouterConfig()))


# ---- one load point ------------------------------------------------------------------------------------


def simulate_point(spec: str, rate: float | None, cfg: SimConfig | None = None, trace: str | None = None,
                   record: str | None = None, span: int | None = None, progress: bool = False) -> PointResult:
    """Warm-up, measurement window and drain at ``rate`` flits/node/cycle on network ``spec``; with
    ``trace`` the packets of that CSV file instead (docs/simulator.md "Trace-driven traffic"), with
    ``record`` every packet offered is also written to that file. The run is streamed
    (:class:`~.model.stream.StreamRun`): traffic is generated ``span`` cycles at a time. ``progress``: a
    tqdm bar over the simulated node-cycles when the point is long (over 10^8 of them)."""
    cfg = (cfg or SimConfig()).check()
    lengths = LengthDist.parse(cfg.length)
    model, label = model_for(spec, cfg.router)
    topo = model.topology
    N = topo.num_nodes
    W, M = cfg.warmup, cfg.measure
    if trace is not None:
        source = TraceSource(trace, N)
        rate = source.total_flits / (N * (source.last_cycle + 1))   # the trace's mean offered load
        traffic, length_label = f"trace:{Path(trace).name}", "trace"
    else:
        rate = check_rate(rate)
        source = BernoulliSource(N, make_pattern(cfg.traffic, topo, **cfg.traffic_args), rate, lengths, cfg.seed)
        traffic, length_label = cfg.traffic, str(lengths)
    if record is not None:
        source = Recorder(source, record)
    whole = False
    try:
        with tqdm(total=W + M, unit="cycle", desc=label, leave=False,
                  disable=not progress or N * (W + M) < 1e8) as bar:
            res = run_point(model, label, source, rate, traffic, length_label, cfg,
                             span or stream_span(N, rate), hist_percentile, StreamRun, bar)
            res.spec = str(NetworkSpec.parse(spec).with_config(model.config))    # the network and routers run
            if res.message == "ok" and res.packets == 0 and not res.saturated:
                res.message = why_empty(res, cfg, source if trace is not None else None, trace)
            whole = True
            return res
    finally:
        if record is not None:                  # the record is renamed to its name only when the run ended
            source.close(whole=whole)


# ---- sweeps ----------------------------------------------------------------------------------------------
def parse_sweep(text: str) -> list[float]:
    """``0.05:0.95:0.05`` -> [0.05, 0.10, ..., 0.95] (inclusive of the end, rounded to the step)."""
    try:
        a, b, s = (float(x) for x in str(text).split(":"))
    except ValueError:
        raise CubenocError(f"--sweep must be START:STOP:STEP (e.g. 0.05:0.95:0.05), got {text!r}") from None
    if s <= 0 or b < a:
        raise CubenocError(f"--sweep needs STEP > 0 and STOP >= START, got {text!r}")
    n = int(math.floor((b - a) / s + 1e-9)) + 1
    digits = max(0, -int(math.floor(math.log10(s))) + 2)
    loads = [round(a + i * s, digits) for i in range(n)]
    for r in loads:
        check_rate(r)
    return loads


def _point_task(spec, rate, cfg_dict, trace=None):
    """A picklable unit of work for Dask workers."""
    router = cfg_dict["router"]               # asdict() made the nested config a dict
    cfg = SimConfig(**{**cfg_dict, "router": RouterConfig(**router) if isinstance(router, dict) else router})
    return simulate_point(spec, rate, cfg, trace=trace)


def sweep(specs: list[str], loads: list[float], cfg: SimConfig | None = None, progress: bool = True,
          dask: str | bool | None = None, stop_at_saturation: bool = True, jobs: int | None = None,
          trace: str | None = None, record: str | None = None) -> list[PointResult]:
    """Every network in ``specs`` at every offered load (``trace``: the file's packets instead, one point
    per network; ``record``: write the one point's packets). Sequentially (a tqdm bar), a network's sweep
    stops at its first saturated point; on Dask (``jobs``: a local cluster of that many worker processes;
    ``dask``: True for a local cluster of the default size, or a scheduler address) all points run as
    tasks and the points past a network's first saturated one are dropped."""
    cfg = (cfg or SimConfig()).check()
    for s in specs:
        model_for(s, cfg.router)   # bad specs fail here, before any work is scheduled
    loads = [None] if trace is not None else [check_rate(r) for r in loads]
    if trace is not None:                          # a malformed trace fails here, before any progress bar
        for n in sorted({model_for(s, cfg.router)[0].num_nodes for s in specs}):
            TraceSource(trace, n)
    if record is not None and len(specs) * len(loads) != 1:
        raise CubenocError(f"--record writes the packets of one run: give one network and one --rate, "
                           f"got {len(specs)} network(s) x {len(loads)} load(s)")
    if jobs is not None:
        dask = dask if isinstance(dask, str) else int(require_int(jobs, "--jobs", 1, 256))
    if dask:
        if record is not None:
            raise CubenocError("--record runs in this process: drop --jobs/--dask/--scheduler")
        results = _sweep_dask(specs, loads, cfg, dask, progress, trace)
    else:

        results = []
        # smoothing=0: the ETA is the mean over the points since the last compile
        bar = tqdm(total=len(specs) * len(loads), disable=not progress, unit="point", desc="simulate", smoothing=0)
        with CompileWatch(bar if progress else None) as watch:
            for s in specs:
                for r in loads:
                    watch.point(f"{model_for(s, cfg.router)[1]} @ {r if r is not None else 'trace'}")
                    p = simulate_point(s, r, cfg, trace=trace, record=record, progress=progress)
                    results.append(p)
                    bar.update(1)
                    if watch.compiled():               # the ETA from here on, without the compile
                        bar.initial, bar.start_t = bar.n, bar._time()
                    if p.saturated and stop_at_saturation:
                        bar.update(len(loads) - loads.index(r) - 1)
                        break
        bar.close()
        return results
    if not stop_at_saturation:
        return results
    out, done = [], set()
    for p in results:
        if p.network in done:
            continue
        out.append(p)
        if p.saturated:
            done.add(p.network)
    return out


#: seconds to wait for a --scheduler to answer (Dask's own default is 30)
SCHEDULER_TIMEOUT = 10


def _connect(Client, address: str):
    """A Dask client of the scheduler at ``address``; a one-line error for an address Dask cannot parse or a
    scheduler that does not answer in ``SCHEDULER_TIMEOUT`` seconds."""
    from distributed.comm import get_address_host_port, parse_address
    try:
        if parse_address(address)[0] != "inproc":      # the syntax before any Client: after Clients that had
            host, port = get_address_host_port(address)  # failed on a bad address, one more could not start its loop
            if parse_address(address)[0] == "tcp":      # nothing listening: said at once (Dask retries 10 s)
                socket.create_connection((host, port), timeout=SCHEDULER_TIMEOUT).close()
        return Client(address, timeout=SCHEDULER_TIMEOUT)
    except (OSError, ValueError, TypeError) as exc:
        raise CubenocError(f"--scheduler {address}: cannot reach a Dask scheduler there ({exc}); "
                           f"give its address as tcp://HOST:PORT (dask-scheduler prints it)") from None


def _sweep_dask(specs, loads, cfg, dask, progress, trace=None):
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise CubenocError("--dask/--scheduler need Dask distributed: pip install '.[dask]' in the cubenoc "
                           "folder") from None
    cfg_dict = asdict(cfg)
    if isinstance(dask, str):
        client, cluster = _connect(Client, dask), None
    else:       # dask is True (Dask's default size) or the number of worker processes (--jobs N)
        size = {} if dask is True else {"n_workers": int(dask)}
        cluster = LocalCluster(processes=True, threads_per_worker=1, dashboard_address=None, **size)
        client = Client(cluster)
    try:
        jobs = [(s, r) for s in specs for r in loads]
        futures = [client.submit(_point_task, s, r, cfg_dict, trace, pure=False) for s, r in jobs]
        if progress:
            for _ in tqdm(as_completed(futures), total=len(futures), unit="point", desc="simulate (dask)"):
                pass
        return client.gather(futures)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


# ---- output ------------------------------------------------------------------------------------------------
def write_csv(results: list[PointResult], path) -> None:
    rows = [p.row() for p in results]
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["network"])
        w.writeheader()
        w.writerows(rows)


def to_json(results: list[PointResult]) -> str:
    def clean(v):
        return None if isinstance(v, float) and not math.isfinite(v) else v
    return json.dumps([{k: clean(v) for k, v in p.as_dict().items()} for p in results], indent=2)


def plot_latency(results: list[PointResult], path, title: str = "", fmt: str | None = None) -> None:
    """Latency vs offered load, one line per network; a cross marks the first saturated load (``fmt``: the
    file format when ``path``'s suffix does not say, e.g. a temporary name)."""
    plt = pyplot()

    fig, ax = plt.subplots(figsize=(7, 4.5))
    nets = list(dict.fromkeys(p.network for p in results))
    for net in nets:
        pts = [p for p in results if p.network == net]
        ok = [p for p in pts if not p.saturated]
        line, = ax.plot([p.offered for p in ok], [p.latency_mean for p in ok], "o-", ms=3, label=net)
        sat = [p for p in pts if p.saturated]
        if sat:                 # labelled: lines of several networks may lie on top of each other
            ax.axvline(sat[0].offered, color=line.get_color(), ls=":", lw=1,
                       label=f"{net}: saturated at {sat[0].offered:g}")
    ax.set_xlabel("offered load (flits/node/cycle)")
    ax.set_ylabel("mean packet latency (cycles)")
    log_axis(ax, "y")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title or "latency vs offered load (dotted: first saturated load)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120, format=fmt or None)
    plt.close(fig)


def text_table(results: list[PointResult]) -> str:
    cell = lambda x, f: "-" if math.isnan(x) else format(x, f)        # (no drain: no latency)
    rows = []
    for p in results:
        if p.saturated:
            rows.append([p.network, f"{p.offered:g}", "saturated", "", "", "", "", ""])
        else:
            rows.append([p.network, f"{p.offered:g}", f"{p.accepted:.3f}", cell(p.latency_mean, ".2f"),
                         cell(p.latency_p99, ".0f"), cell(p.network_latency_mean, ".2f"), cell(p.hops_mean, ".2f"),
                         f"{p.link_util_max:.3f}"])
    out = table(rows, ["network", "offered", "accepted", "latency", "p99", "net latency", "hops", "max link util"])
    fair = [[p.network, f"{p.offered:g}", f"{p.accepted:.3f}", f"{p.source_accepted_min:.4f}",
             f"{p.source_accepted_max:.4f}", f"{p.source_max_over_min:.2f}"]
            for p in results if math.isfinite(p.source_accepted_max)]
    if fair:
        out += "\nper-source accepted throughput (flits/cycle, window):\n" + table(
            fair, ["network", "offered", "accepted", "min", "max", "max/min"])
    notes = [f"{p.network} @ {p.offered:g}: {p.message}" for p in results if p.saturated or p.message != "ok"]
    routers = {p.network: p.router for p in results if p.router is not None}    # what was modelled, said
    notes += [f"router of {net}: FIFO depth {r.fifo_depth}, W = {r.payload_width}"
              + "".join(f", {w}" for w in r.describe().split(", ") if not w.startswith(("depth", "W =", "the generic")))
              for net, r in routers.items()]
    return out + ("\n" + "\n".join(notes) if notes else "")
