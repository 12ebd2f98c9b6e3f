"""The network simulator (issue 6): BookSim-style measurements on the cycle-accurate model.

One load point (:func:`simulate_point`) runs the model of :mod:`cubenoc.sim.model` (the one the cocotb
scoreboard holds the Verilog to) under Bernoulli traffic from :mod:`cubenoc.sim.traffic`:

1. **warm-up** (``warmup`` cycles): traffic flows, nothing is measured;
2. **measurement window** (``measure`` cycles): packets *created* in the window are the measured set;
   accepted throughput = flits ejected in the window / (N x window);
3. **drain** (at most ``drain`` cycles): traffic keeps flowing at the same rate (as in BookSim) until
   every measured packet has been delivered; a measured packet still undelivered then is a failure.

**Saturation detector.** The model is run in chunks of ``chunk`` cycles; after each one the source
backlog (flits created but not yet accepted by the source interfaces: the unbounded source queues) is
counted. The point is declared saturated, and the run stops at once, when

* the backlog exceeds ``max_backlog`` flits per node on average (a queue that no stable operating point
  at this load produces), or
* during the measurement window the backlog grows faster than ``growth`` x offered load per node per
  cycle (a stable queue does not grow on average) while holding more than ``min_backlog`` flits/node, or
* the drain ends with measured packets undelivered.

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

import json
import math
from dataclasses import asdict, dataclass, field
from functools import lru_cache

import numpy as np

from cubenoc.errors import CubenocError, require_int

from .traffic import LengthDist, check_rate, generate, make_pattern

from .catalog import FAMILIES, GRAMMAR as SPEC_HELP, NetworkSpec


# ---- networks: the catalog (sim/catalog.py) ------------------------------------------------------------
def build_network(spec) -> tuple:
    """``spec`` (a catalog spec string or :class:`NetworkSpec`) -> (topology, routing function, label)."""
    ns = NetworkSpec.parse(spec)
    if ns.broadcast:
        raise CubenocError(f"{ns}: the simulator's traffic is unicast; broadcast=1 is for generate and build")
    topo, routing = ns.build("model")
    return topo, routing, ns.label(topo)


@lru_cache(maxsize=8)
def _model(spec: str, depth: int, arbitration: str = "round-robin"):
    from .model.network import NetworkModel
    from .symmetric_tables import symmetric_model, symmetry_of
    topo, routing, label = build_network(spec)
    ns = NetworkSpec.parse(spec)
    queues, pipeline = ns.queues, ns.pipeline
    if queues != "fifo" or pipeline:            # per-output queues, pipelined (docs/router.md): the plain tables
        return NetworkModel(topo, routing, depth=depth, queues=queues, pipeline=pipeline), label
    if symmetry_of(topo, routing) is not None:  # same model, one table row per orbit (tests hold them equal)
        model = symmetric_model(topo, routing, depth)
        model.arbitration = arbitration
        return model, label
    return NetworkModel(topo, routing, depth=depth, arbitration=arbitration), label


def model_for(spec: str, depth: int = 4, arbitration: str = "round-robin"):
    """The (cached) :class:`NetworkModel` of a spec and its label."""
    from .routing.fairness import check_arbitration
    return _model(str(NetworkSpec.parse(spec)), require_int(depth, "depth", 1, 1 << 16), check_arbitration(arbitration))


# ---- one load point ------------------------------------------------------------------------------------
@dataclass
class SimConfig:
    warmup: int = 1000
    measure: int = 5000
    drain: int = 5000
    chunk: int = 250
    seed: int = 1
    depth: int = 4
    length: str = "1"
    traffic: str = "uniform"
    traffic_args: dict = field(default_factory=dict)   # g, alpha, cluster_size, hotspot, fraction
    max_backlog: float = 200.0     # flits per node in the source queues: saturated beyond this
    min_backlog: float = 10.0      # ... and the growth rule needs at least this much
    growth: float = 0.02           # backlog growth (flits/node/cycle) as a fraction of the offered load
    per_source: bool = False       # per-source accepted throughput; a saturated point runs the whole window
    arbitration: str = "round-robin"   # or "fair" (docs/router.md "Arbitration")

    def check(self) -> "SimConfig":
        require_int(self.warmup, "warmup", 0)
        require_int(self.measure, "measure", 1)
        require_int(self.drain, "drain", 0)
        require_int(self.chunk, "chunk", 1)
        LengthDist.parse(self.length)
        from .routing.fairness import check_arbitration
        check_arbitration(self.arbitration)
        return self


@dataclass
class PointResult:
    network: str
    traffic: str
    length: str
    offered: float                 # requested flits/node/cycle
    offered_measured: float        # flits created in the window / (N x window)
    accepted: float                # flits ejected in the window / (N x window)
    saturated: bool
    message: str
    packets: int = 0               # measured packets delivered
    latency_mean: float = math.nan
    latency_p50: float = math.nan
    latency_p95: float = math.nan
    latency_p99: float = math.nan
    network_latency_mean: float = math.nan
    hops_mean: float = math.nan
    link_util_mean: float = math.nan
    link_util_max: float = math.nan
    cycles: int = 0
    util_by_port: list = field(default_factory=list)      # mean channel utilisation per port number
    util_max_by_port: list = field(default_factory=list)
    arbitration: str = "round-robin"
    source_accepted_min: float = math.nan     # per_source: flits/cycle over the sources that sent
    source_accepted_max: float = math.nan
    source_max_over_min: float = math.nan     # inf when a source got nothing through
    source_accepted: list = field(default_factory=list)   # per node (flits/cycle; None: sent nothing)

    def row(self) -> dict:
        d = asdict(self)
        d.pop("util_by_port")
        d.pop("util_max_by_port")
        d.pop("source_accepted")
        return d


def source_backlog(sim) -> int:
    """Flits created (released) by the current cycle but not yet accepted by the source interfaces."""
    s = sim.stim
    N = s.num_nodes
    key = _release_key(sim)
    released = np.searchsorted(key, np.arange(N, dtype=np.int64) * (1 << 32) + sim.cycle - 1, side="right")
    return int((released - s.node_start[:-1]).sum() - (sim.src_ptr - s.node_start[:-1]).sum())


def _release_key(sim):
    key = getattr(sim, "_cubenoc_release_key", None)
    if key is None:
        s = sim.stim
        node = np.repeat(np.arange(s.num_nodes, dtype=np.int64), np.diff(s.node_start))
        key = node * (1 << 32) + s.release          # sorted: grouped by node, release non-decreasing
        sim._cubenoc_release_key = key
    return key


def walk_routes(model, src_first_words: np.ndarray, src: np.ndarray):
    """Follow each packet's route through the model's tables: (hop count per packet, channel index per
    traversal, packet index per traversal). Deterministic routing: these are the channels it crossed."""
    tb = model.tables
    P = tb.max_ports
    node = src.astype(np.int64).copy()
    word = src_first_words.astype(np.int64).copy()
    idx = np.arange(src.shape[0], dtype=np.int64)
    hops = np.zeros(src.shape[0], dtype=np.int64)
    chans, owners = [], []
    for _ in range(4 * tb.num_nodes + 4):
        if idx.size == 0:
            break
        e = tb.lookup(node, word)
        if (e < 0).any():
            raise CubenocError("a route word the routing function does not define (model tables)")
        ch = node * P + (e & 0xFF)
        nxt = tb.link[ch]
        go = nxt >= 0
        chans.append(ch[go])
        owners.append(idx[go])
        hops[idx[go]] += 1
        node, word, idx = nxt[go] // P, e[go] >> 8, idx[go]
    if idx.size:
        raise CubenocError("routes that never eject (routing loop in the model tables)")
    cat = (lambda xs: np.concatenate(xs) if xs else np.zeros(0, dtype=np.int64))
    return hops, cat(chans), cat(owners)


def simulate_point(spec: str, rate: float, cfg: SimConfig | None = None) -> PointResult:
    """Warm-up, measurement window and drain at ``rate`` flits/node/cycle on network ``spec``."""
    cfg = (cfg or SimConfig()).check()
    rate = check_rate(rate)
    lengths = LengthDist.parse(cfg.length)
    model, label = model_for(spec, cfg.depth, cfg.arbitration)
    topo = model.topology
    N = topo.num_nodes
    pattern = make_pattern(cfg.traffic, topo, **cfg.traffic_args)
    W, M = cfg.warmup, cfg.measure
    stim = generate(N, pattern, rate, lengths, W + M + cfg.drain, cfg.seed)
    sim = model.start(stim)
    res = PointResult(label, cfg.traffic, str(lengths), rate, math.nan, math.nan, False, "ok",
                      arbitration=cfg.arbitration)

    # measured packets: created in [W, W + M)
    meas = np.nonzero((stim.pkt_release >= W) & (stim.pkt_release < W + M))[0]
    last = stim.pkt_first[meas] + stim.pkt_len[meas] - 1
    res.offered_measured = float(stim.pkt_len[meas].sum()) / (N * M)
    hist = []                                   # (cycle, backlog) during the window
    sent_at_w = None                            # per-link flit counters when the window opens
    full = None                                 # per_source: the first saturation message (run on)
    while sim.cycle < W + M:
        if sim.cycle == W:
            sent_at_w = sim.link_flits.copy()
        sim.advance(min(cfg.chunk, (W if sim.cycle < W else W + M) - sim.cycle))
        if full is not None:
            continue
        b = source_backlog(sim)
        msg = None
        if b > cfg.max_backlog * N:
            msg = (f"source queues hold {b / N:.0f} flits/node at cycle {sim.cycle} (limit {cfg.max_backlog:g}): "
                   f"offered {rate:g} flits/node/cycle is beyond saturation")
        if sim.cycle > W:
            hist.append((sim.cycle, b))
        if msg is None and len(hist) >= 8:
            c = np.array(hist, dtype=float)
            slope = np.polyfit(c[:, 0], c[:, 1], 1)[0] / N
            if slope > cfg.growth * rate and b > cfg.min_backlog * N:
                msg = (f"source queues grow by {slope:.3f} flits/node/cycle ({b / N:.0f} flits/node at cycle "
                       f"{sim.cycle}): offered {rate:g} exceeds what the network accepts (about {rate - slope:.3f})")
        if msg is not None:
            if not cfg.per_source:
                return _saturated(res, sim, msg)
            full = msg
    if cfg.per_source:
        _per_source(res, sim, W, M)
        if full is not None:
            res.accepted = float(((sim.eject_cycle >= W) & (sim.eject_cycle < W + M)).sum()) / (N * M)
            return _saturated(res, sim, full)
    util = (sim.link_flits - (sent_at_w if sent_at_w is not None else 0)) / M   # flits/cycle per link, window
    # drain: until every measured packet is delivered
    deadline = W + M + cfg.drain
    while True:
        if last.size == 0 or (sim.eject_cycle[last] >= 0).all():
            break
        if sim.cycle >= deadline:
            left = int((sim.eject_cycle[last] < 0).sum())
            return _saturated(res, sim, f"{left} of {last.size} measured packets still undelivered after a "
                                        f"drain of {cfg.drain} cycles: offered {rate:g} is at or beyond saturation")
        sim.advance(min(cfg.chunk, deadline - sim.cycle))
    res.cycles = sim.cycle
    ej = sim.eject_cycle
    res.accepted = float(((ej >= W) & (ej < W + M)).sum()) / (N * M)
    if meas.size:
        lat = ej[last] - stim.pkt_release[meas]
        res.packets = int(meas.size)
        res.latency_mean = float(lat.mean())
        res.latency_p50, res.latency_p95, res.latency_p99 = (float(x) for x in np.percentile(lat, [50, 95, 99]))
        res.network_latency_mean = float((ej[last] - sim.accept_cycle[stim.pkt_first[meas]]).mean())
        if getattr(model.routing, "selection", None) is None:   # deterministic: the routes are known
            hops, _, _ = walk_routes(model, sim.s_route[stim.pkt_first[meas]], stim.pkt_src[meas])
            res.hops_mean = float(hops.mean())
        else:       # adaptive: link crossings per delivered flit in the window (flit-weighted)
            delivered = int(((ej >= W) & (ej < W + M)).sum())
            res.hops_mean = float(util.sum() * M / delivered) if delivered else math.nan
    # channel utilisation: flits that crossed each link in the window (the kernel's counters)
    tb = model.tables
    exists = tb.link >= 0
    res.link_util_mean = float(util[exists].mean()) if exists.any() else 0.0
    res.link_util_max = float(util[exists].max()) if exists.any() else 0.0
    port = np.arange(N * tb.max_ports) % tb.max_ports
    for p in range(tb.max_ports - 1):
        sel = exists & (port == p)
        res.util_by_port.append(float(util[sel].mean()) if sel.any() else 0.0)
        res.util_max_by_port.append(float(util[sel].max()) if sel.any() else 0.0)
    return res


def _per_source(res: PointResult, sim, W: int, M: int) -> None:
    """Accepted throughput per source over the window [W, W + M) (flits/cycle), min/max over senders."""
    s = sim.stim
    N = s.num_nodes
    src = np.repeat(np.arange(N, dtype=np.int64), np.diff(s.node_start))
    ej = sim.eject_cycle
    got = np.bincount(src[(ej >= W) & (ej < W + M)], minlength=N) / M
    sent = np.bincount(s.pkt_src, minlength=N) > 0
    res.source_accepted = [float(g) if ok else None for g, ok in zip(got, sent)]
    if sent.any():
        lo, hi = float(got[sent].min()), float(got[sent].max())
        res.source_accepted_min, res.source_accepted_max = lo, hi
        res.source_max_over_min = hi / lo if lo > 0 else math.inf


def _saturated(res: PointResult, sim, message: str) -> PointResult:
    res.saturated = True
    res.message = message
    res.cycles = sim.cycle
    return res


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


def _point_task(spec, rate, cfg_dict):
    """A picklable unit of work for Dask workers."""
    return simulate_point(spec, rate, SimConfig(**cfg_dict))


def sweep(specs: list[str], loads: list[float], cfg: SimConfig | None = None, progress: bool = True,
          dask: str | bool | None = None, stop_at_saturation: bool = True) -> list[PointResult]:
    """Every network in ``specs`` at every offered load. Sequentially (a tqdm bar), a network's sweep
    stops at its first saturated point; with ``dask`` (True: a local cluster, or a scheduler address)
    all points run as tasks and the points past a network's first saturated one are dropped."""
    cfg = (cfg or SimConfig()).check()
    for s in specs:
        model_for(s, cfg.depth, cfg.arbitration)   # bad specs fail here, before any work is scheduled
    loads = [check_rate(r) for r in loads]
    if dask:
        results = _sweep_dask(specs, loads, cfg, dask, progress)
    else:
        from tqdm import tqdm
        results = []
        bar = tqdm(total=len(specs) * len(loads), disable=not progress, unit="point", desc="simulate")
        for s in specs:
            for r in loads:
                bar.set_postfix_str(f"{model_for(s, cfg.depth, cfg.arbitration)[1]} @ {r:g}")
                p = simulate_point(s, r, cfg)
                results.append(p)
                bar.update(1)
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


def _sweep_dask(specs, loads, cfg, dask, progress):
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise CubenocError("--dask/--scheduler need Dask distributed: pip install 'cubenoc[dask]'") from None
    cfg_dict = asdict(cfg)
    if isinstance(dask, str):
        client, cluster = Client(dask), None
    else:
        cluster = LocalCluster(processes=True, threads_per_worker=1, dashboard_address=None)
        client = Client(cluster)
    try:
        jobs = [(s, r) for s in specs for r in loads]
        futures = [client.submit(_point_task, s, r, cfg_dict, pure=False) for s, r in jobs]
        if progress:
            from tqdm import tqdm
            for _ in tqdm(as_completed(futures), total=len(futures), unit="point", desc="simulate (dask)"):
                pass
        return client.gather(futures)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


# ---- output ------------------------------------------------------------------------------------------------
def write_csv(results: list[PointResult], path) -> None:
    import csv
    rows = [p.row() for p in results]
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["network"])
        w.writeheader()
        w.writerows(rows)


def to_json(results: list[PointResult]) -> str:
    def clean(v):
        return None if isinstance(v, float) and not math.isfinite(v) else v
    return json.dumps([{k: clean(v) for k, v in asdict(p).items()} for p in results], indent=2)


def plot_latency(results: list[PointResult], path, title: str = "") -> None:
    """Latency vs offered load, one line per network; a cross marks the first saturated load."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    nets = list(dict.fromkeys(p.network for p in results))
    for net in nets:
        pts = [p for p in results if p.network == net]
        ok = [p for p in pts if not p.saturated]
        line, = ax.plot([p.offered for p in ok], [p.latency_mean for p in ok], "o-", ms=3, label=net)
        sat = [p for p in pts if p.saturated]
        if sat:
            ax.axvline(sat[0].offered, color=line.get_color(), ls=":", lw=1)
    ax.set_xlabel("offered load (flits/node/cycle)")
    ax.set_ylabel("mean packet latency (cycles)")
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title or "latency vs offered load (dotted: first saturated load)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def text_table(results: list[PointResult]) -> str:
    from .analysis.report import table
    rows = []
    for p in results:
        if p.saturated:
            rows.append([p.network, f"{p.offered:g}", "saturated", "", "", "", "", ""])
        else:
            rows.append([p.network, f"{p.offered:g}", f"{p.accepted:.3f}", f"{p.latency_mean:.2f}",
                         f"{p.latency_p99:.0f}", f"{p.network_latency_mean:.2f}", f"{p.hops_mean:.2f}",
                         f"{p.link_util_max:.3f}"])
    out = table(rows, ["network", "offered", "accepted", "latency", "p99", "net latency", "hops", "max link util"])
    fair = [[p.network, f"{p.offered:g}", f"{p.accepted:.3f}", f"{p.source_accepted_min:.4f}",
             f"{p.source_accepted_max:.4f}", f"{p.source_max_over_min:.2f}"]
            for p in results if math.isfinite(p.source_accepted_max)]
    if fair:
        out += "\nper-source accepted throughput (flits/cycle, window):\n" + table(
            fair, ["network", "offered", "accepted", "min", "max", "max/min"])
    notes = [f"{p.network} @ {p.offered:g}: {p.message}" for p in results if p.saturated]
    return out + ("\n" + "\n".join(notes) if notes else "")
