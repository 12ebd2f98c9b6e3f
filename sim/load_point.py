"""One load point of the network simulator (sim/simulator.py, docs/simulator.md): its configuration
(:class:`SimConfig`), its result (:class:`PointResult`) and the run itself (:func:`run_point`: the warm-up,
the measurement window with its saturation checks, the drain, then latencies and channel utilisation).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from cubenoc.errors import CubenocError, require_int

from .router_config import RouterConfig
from .traffic import LengthDist


@dataclass
class SimConfig:
    warmup: int = 1000
    measure: int = 5000
    drain: int = 5000
    chunk: int = 250
    seed: int = 1
    length: str = "1"
    traffic: str = "uniform"
    traffic_args: dict = field(default_factory=dict)   # g, alpha, cluster_size, hotspot, fraction
    max_backlog: float = 200.0     # flits per node in the source queues: saturated beyond this
    min_backlog: float = 10.0      # ... and the growth rule needs at least this much
    growth: float = 0.02           # backlog growth (flits/node/cycle) as a fraction of the offered load
    per_source: bool = False       # per-source accepted throughput; a saturated point runs the whole window
    detail: bool = False           # the result keeps per-channel utilisation and per-source throughput and
                                   # latency (the HTML report's figures); the run itself is the same
    router: RouterConfig = field(default_factory=RouterConfig)   # FIFO depth, arbitration ... (docs/router.md)

    def check(self) -> "SimConfig":
        require_int(self.warmup, "warmup", 0)
        require_int(self.measure, "measure", 1)
        require_int(self.drain, "drain", 0)
        require_int(self.chunk, "chunk", 1)
        require_int(self.seed, "seed", 0, 2**32 - 1)
        LengthDist.parse(self.length)
        if not isinstance(self.router, RouterConfig):
            raise CubenocError(f"SimConfig.router must be a RouterConfig, got {self.router!r}")
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
    router: RouterConfig = field(default_factory=RouterConfig)   # the routers of the run
    source_accepted_min: float = math.nan     # per_source: flits/cycle over the sources that sent
    source_accepted_max: float = math.nan
    source_max_over_min: float = math.nan     # inf when a source got nothing through
    source_accepted: list = field(default_factory=list)   # per node (flits/cycle; None: sent nothing)
    spec: str = ""                 # the network with every router option that differs from the generic router
    # SimConfig.detail (points that drained): channel_util[v][p] = flits/cycle out of port p of node v in the
    # window (None: the port has no link); per source, its measured packets delivered and their mean latency
    channel_util: list = field(default_factory=list)
    source_packets: list = field(default_factory=list)
    source_latency: list = field(default_factory=list)   # cycles (None: no measured packet from that source)

    def as_dict(self) -> dict:
        """Every field; the router as its arbitration and its description in words, and (JSON) every field
        of the resolved router configuration."""
        d = asdict(self)
        d["router_config"] = self.router.as_dict()
        d["arbitration"], d["router"] = self.router.arbitration, self.router.describe()
        return d

    def row(self) -> dict:
        """A CSV row: the scalar fields (the router as ``spec`` and its description)."""
        d = self.as_dict()
        d.pop("router_config")
        d.pop("util_by_port")
        d.pop("util_max_by_port")
        for k in ("source_accepted", "channel_util", "source_packets", "source_latency"):
            d.pop(k)
        return d


def run_point(model, label, source, rate, traffic, length_label, cfg, span, hist_percentile, StreamRun, bar):
    N = model.num_nodes
    W, M = cfg.warmup, cfg.measure
    deterministic = not model.adaptive   # the routes are known
    sim = StreamRun(model, source, span, (W, W + M), per_source=cfg.per_source or cfg.detail, hops=deterministic)
    res = PointResult(label, traffic, length_label, rate, math.nan, math.nan, False, "ok", router=model.config)
    fit = [0, 0.0, 0.0, 0.0, 0.0]               # (cycle, backlog) in the window: n, means, co-moments
    sent_at_w = None                            # per-link flit counters when the window opens
    full = None                                 # per_source: the first saturation message (run on)
    while sim.cycle < W + M:
        if sim.cycle == W:
            sent_at_w = sim.link_flits.copy()
        t = sim.cycle
        sim.advance(min(cfg.chunk, (W if sim.cycle < W else W + M) - sim.cycle))
        bar.update(sim.cycle - t)
        if full is not None:
            continue
        msg = _backlog_check(sim, fit, N, rate, cfg)
        if msg is not None:
            if not cfg.per_source:
                return _saturated(res, sim, msg, _loads_so_far(sim, model, cfg, sent_at_w))
            full = msg
    res.offered_measured = sim.created_flits / (N * M)
    if cfg.per_source:
        sim.harvest()                            # the window's ejections so far
        _per_source(res, sim, M)
        if full is not None:
            res.accepted = sim.ejected / (N * M)
            return _saturated(res, sim, full, _loads_so_far(sim, model, cfg, sent_at_w))
    util = (sim.link_flits - (sent_at_w if sent_at_w is not None else 0)) / M   # flits/cycle per link, window
    # drain: until every measured packet is delivered
    deadline = W + M + cfg.drain
    while not sim.all_delivered:
        if sim.cycle >= deadline:
            left = sim.created - sim.delivered
            res.accepted = sim.ejected / (N * M)        # the window is complete: its accepted load is known
            if cfg.drain > 0:
                return _saturated(res, sim, f"{left} of {sim.created} measured packets still undelivered after "
                                            f"a drain of {cfg.drain} cycles: offered {rate:g} is at or beyond "
                                            f"saturation", (model, util) if cfg.detail else None)
            res.message = (f"no drain (--drain 0): {left} of {sim.created} measured packets were still in the "
                           f"network when the window closed, so no latency is reported (--drain CYCLES for it)")
            break
        sim.advance(min(cfg.chunk, deadline - sim.cycle))
    res.cycles = sim.cycle
    res.accepted = sim.ejected / (N * M)
    if sim.created:
        _latencies(res, sim, util, M, deterministic, hist_percentile)
    _link_utilisation(res, model.tables, util, N)
    if cfg.detail:
        _detail(res, sim, model, util, M)
    return res


def _backlog_check(sim, fit: list, N: int, rate: float, cfg) -> str | None:
    """Why the point is saturated, from the source queues' backlog now: above ``cfg.max_backlog`` flits/node,
    or growing (the least-squares slope over the window, ``fit`` updated in O(1): Welford); None if not."""
    b = sim.backlog()
    msg = None
    if b > cfg.max_backlog * N:
        msg = (f"source queues hold {b / N:.0f} flits/node at cycle {sim.cycle} (limit {cfg.max_backlog:g}): "
               f"offered {rate:g} flits/node/cycle is beyond saturation")
    if sim.cycle > cfg.warmup:
        x, y = float(sim.cycle), float(b)
        fit[0] += 1
        dx = x - fit[1]
        fit[1] += dx / fit[0]
        fit[2] += (y - fit[2]) / fit[0]
        fit[3] += dx * (y - fit[2])
        fit[4] += dx * (x - fit[1])
    if msg is None and fit[0] >= 8:
        slope = fit[3] / fit[4] / N
        if slope > cfg.growth * rate and b > cfg.min_backlog * N:
            msg = (f"source queues grow by {slope:.3f} flits/node/cycle ({b / N:.0f} flits/node at cycle "
                   f"{sim.cycle}): offered {rate:g} exceeds what the network accepts (about {rate - slope:.3f})")
    return msg


def _latencies(res: PointResult, sim, util, M: int, deterministic: bool, hist_percentile) -> None:
    """The measured packets' latencies (when every one was delivered) and hops."""
    if sim.delivered == sim.created:            # every measured packet: their latency
        res.packets = sim.created
        res.latency_mean = float((sim.hist * np.arange(sim.hist.size)).sum() / sim.created)
        res.latency_p50, res.latency_p95, res.latency_p99 = (hist_percentile(sim.hist, q) for q in (50, 95, 99))
        res.network_latency_mean = sim.net_sum / sim.created
    if deterministic:
        res.hops_mean = sim.hops_sum / sim.created
    else:       # adaptive: link crossings per delivered flit in the window (flit-weighted)
        res.hops_mean = float(util.sum() * M / sim.ejected) if sim.ejected else math.nan


def _link_utilisation(res: PointResult, tb, util, N: int) -> None:
    """Channel utilisation: flits that crossed each link in the window (the kernel's counters), overall and per
    port."""
    exists = tb.link >= 0
    on = util[exists]
    res.link_util_mean = float(on.mean()) if on.size else 0.0
    res.link_util_max = float(on.max()) if on.size else 0.0
    del on
    by_node, ex = util.reshape(N, tb.max_ports), exists.reshape(N, tb.max_ports)   # per port: one column
    for p in range(tb.max_ports - 1):
        col = by_node[:, p][ex[:, p]]
        res.util_by_port.append(float(col.mean()) if col.size else 0.0)
        res.util_max_by_port.append(float(col.max()) if col.size else 0.0)


def _per_source(res: PointResult, sim, M: int) -> None:
    """Accepted throughput per source over the window (flits/cycle), min/max over senders."""
    got = sim.src_ejected / M
    sent = sim.sent
    res.source_accepted = [float(g) if ok else None for g, ok in zip(got, sent)]
    if sent.any():
        lo, hi = float(got[sent].min()), float(got[sent].max())
        res.source_accepted_min, res.source_accepted_max = lo, hi
        res.source_max_over_min = hi / lo if lo > 0 else math.inf


#: SimConfig.detail keeps per-channel and per-source figures for networks of up to this many channels (N x
#: ports): Python lists of 2^20 floats are about 30 MB; a 2^20-node cube's 2^24 channels would be 0.5 GB
DETAIL_MAX_CHANNELS = 1 << 20


def _detail(res: PointResult, sim, model, util: np.ndarray, M: int, sources: bool = True) -> None:
    """SimConfig.detail: the per-channel figures of a point (``util``: flits/cycle per channel) and, with
    ``sources`` (a point that ran its window and drained), the per-source ones; none for a network of more
    than :data:`DETAIL_MAX_CHANNELS` channels."""
    tb, topo = model.tables, model.topology
    P = tb.max_ports
    if topo.num_nodes * P > DETAIL_MAX_CHANNELS:
        return
    res.channel_util = [[float(util[v * P + p]) if tb.link[v * P + p] >= 0 else None
                         for p in range(topo.num_ports(v))] for v in range(topo.num_nodes)]
    if not sources:
        return
    if not res.source_accepted:
        _per_source(res, sim, M)
    res.source_packets = sim.src_done.tolist()
    res.source_latency = [float(s / n) if n else None for s, n in zip(sim.src_lat_sum.tolist(), res.source_packets)]


def _loads_so_far(sim, model, cfg: SimConfig, sent_at_w):
    """SimConfig.detail of a point stopped as saturated in its window: ``(model, flits/cycle per channel over
    the cycles of the window it ran)`` (over the warm-up when it stopped there); None without detail."""
    if not cfg.detail:
        return None
    start = cfg.warmup if sent_at_w is not None else 0
    return model, (sim.link_flits - (sent_at_w if sent_at_w is not None else 0)) / max(1, sim.cycle - start)


def _saturated(res: PointResult, sim, message: str, loads=None) -> PointResult:
    """The point stopped as saturated; ``loads``: ``(model, flits/cycle per channel)`` of the cycles it ran
    (SimConfig.detail: where it saturates), kept without per-source figures."""
    res.saturated = True
    res.message = message
    res.cycles = sim.cycle
    if loads is not None:
        _detail(res, sim, loads[0], loads[1], 0, sources=False)
    return res


def stream_span(N: int, rate: float, window_flits: int = 1 << 18) -> int:
    """Cycles of traffic per window of a streamed run: about ``window_flits`` new flits."""
    return max(1, min(1 << 16, int(window_flits // max(1.0, N * rate))))



def why_empty(res: PointResult, cfg: SimConfig, trace_source, trace) -> str:
    """Why a point measured no packet (its accepted load 0 and no latency): said in the table and the JSON."""
    W, M = cfg.warmup, cfg.measure
    window = f"the measurement window (cycles {W:,}..{W + M - 1:,})"
    if trace_source is None:
        return (f"no packet was created in {window}: offered {res.offered:g} flits/node/cycle is too low for a "
                f"window this short (a larger --rate or --measure)")
    name = Path(trace).name
    if trace_source.packets == 0:
        return f"the trace {name} has no packets (only its header line): nothing to measure"
    before = trace_source.count_between(0, W)
    after = trace_source.packets - before - trace_source.count_between(W, W + M)
    parts = []
    if before:
        parts.append(f"{before:,} packet(s) before it, in the warm-up (from cycle {trace_source.first_cycle:,}: "
                     f"--warmup {trace_source.first_cycle} measures them)")
    if after:
        parts.append(f"{after:,} after it (from cycle {max(trace_source.first_cycle, W + M):,}, beyond the run: "
                     f"a longer --measure)")
    return f"no packet of the trace {name} falls in {window}: " + " and ".join(parts)
