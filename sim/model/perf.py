"""Performance figures of the router, measured on the cycle-accurate model (verified against the
Verilog by the cocotb scoreboard): zero-load latency and saturation throughput (the model's own speed:
sim/speed.py).
``cubenoc bench latency|throughput|model-speed`` prints them (cubenoc/bench/model.py, docs/performance.md).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..catalog import recorded
from ..network_plan import plan_of
from ..report_run import point_of_run
from ..router_config import RouterConfig
from .network import NetworkModel
from .stimulus import StimulusBuilder, bernoulli_traffic


@dataclass
class LatencyFigures:
    hops: np.ndarray          # distinct hop counts
    head_latency: np.ndarray  # mean head latency (injection to ejection handshake) per hop count
    tail_latency: np.ndarray  # mean tail latency of an L-flit packet per hop count
    per_hop: float            # least-squares slope: cycles per hop
    overhead: float           # intercept: fixed cycles (source FIFO)
    packet_len: int


def zero_load_latency(model: NetworkModel, packet_len: int = 4) -> LatencyFigures:
    """Every (source, destination) pair, one packet at a time in an empty network."""
    topo, routing = model.topology, model.routing
    n = topo.num_nodes
    b = StimulusBuilder(n, seed=0)
    gap = 2 * (topo.diameter() + packet_len + 4)
    hops = []
    j = 0
    for s in range(n):
        for d in range(n):
            b.packet(s, d, packet_len, release=j * gap)
            hops.append(routing.hops(s, d))
            j += 1
    res = model.run(b.build())
    stim = res.stimulus
    head = res.eject_cycle[stim.pkt_first] - res.accept_cycle[stim.pkt_first]
    tail = res.eject_cycle[stim.pkt_first + packet_len - 1] - res.accept_cycle[stim.pkt_first]
    hops = np.array(hops)
    hs = np.unique(hops)
    slope, icpt = np.polyfit(hops, head, 1)
    return LatencyFigures(hs, np.array([head[hops == h].mean() for h in hs]),
                          np.array([tail[hops == h].mean() for h in hs]), float(slope), float(icpt), packet_len)


@dataclass
class LoadPoint:
    offered: float            # flits/node/cycle offered (Bernoulli)
    accepted: float           # flits/node/cycle ejected in the measurement window
    latency: float            # mean packet latency (creation to tail ejection) of packets created in the window
    delivered_fraction: float # packets created in the window that were delivered by the end of the run
    report: object = None     # with ``report_label``: the point as the HTML report draws it (a PointResult)

    @property
    def saturated(self) -> bool:
        """Past saturation: the network accepts less than :data:`SATURATED_BELOW` of the offered load (its
        latency then grows with the run's length)."""
        return self.accepted < SATURATED_BELOW * self.offered


def load_point(model: NetworkModel, rate: float, packet_len: int, warmup: int = 2000, window: int = 10000,
               seed: int = 1, report_label: str | None = None) -> LoadPoint:
    """Bernoulli uniform-random traffic at ``rate`` flits/node/cycle: warm-up, measurement window, and a
    drain of at most ``window`` cycles more for latency (packets still queued then count as undelivered).
    ``report_label``: also the point as the HTML report draws it (its window's per-channel and per-source
    figures, sim/report_run.py), named so."""
    n = model.num_nodes
    cycles = warmup + window
    stim = bernoulli_traffic(n, rate, packet_len, cycles, seed)
    sim = model.start(stim)                # the run of model.run(stim, cycles + window), in three steps
    sim.advance(warmup)
    before = sim.link_flits.copy()
    sim.advance(window)
    channel_flits = sim.link_flits - before
    sim.advance(window)
    res = sim.result()
    ej = res.eject_cycle
    in_window = (ej >= warmup) & (ej < cycles)
    accepted = in_window.sum() / (n * window)
    k = np.nonzero((stim.pkt_release >= warmup) & (stim.pkt_release < cycles))[0]
    last = stim.pkt_first[k] + stim.pkt_len[k] - 1
    done = ej[last] >= 0
    lat = float((ej[last][done] - stim.pkt_release[k][done]).mean()) if done.any() else float("inf")
    point = LoadPoint(rate, float(accepted), lat, float(done.mean()) if k.size else 1.0)
    if report_label is not None:
        point.report = point_of_run(res, model.topology, report_label, offered=rate, traffic="uniform",
                                    length=str(packet_len), saturated=point.saturated,
                                    message="ok" if not point.saturated else
                                    f"accepts {point.accepted:.3f}, under {SATURATED_BELOW:.0%} of the offered load",
                                    window=(warmup, cycles), channel_flits=channel_flits)
    return point


#: a point is past saturation when it accepts less than this share of its offered load
SATURATED_BELOW = 0.95


def saturation_sweep(model: NetworkModel, packet_len: int, loads, **kw) -> list[LoadPoint]:
    return [load_point(model, r, packet_len, **kw) for r in loads]


def saturation_throughput(points: list[LoadPoint]) -> float:
    """The largest accepted throughput over the sweep (flits/node/cycle)."""
    return max(p.accepted for p in points)


#: router options (``queues``; ``pipe``: the pipelined router, docs/router.md) -> (label, the cocotb test that
#: verifies that option's Verilog against the model cycle by cycle); tests/test_model_voq.py checks that each
#: test exists and builds the option
ROUTER_OPTIONS = {"fifo": ("V=1 (RTL, verified)", "tests/test_cocotb_network.py"),
                  "voq": ("VOQ (RTL, verified)", "tests/test_cocotb_voq.py"),
                  "pipe": ("V=1 pipelined, 2 cycles/hop (RTL, verified)", "tests/test_cocotb_pipeline.py")}


def per_network(config, nets) -> list:
    """``config`` for each of ``nets``: one RouterConfig (or None) for all, or a list with one per network."""
    return list(config) if isinstance(config, (list, tuple)) else [config] * len(nets)


def throughput_rows(nets, packet_lens=(1, 4), loads=None, config=None, warmup: int = 2000,
                    window: int = 10000, queues=("fifo", "voq"), progress=None, specs=None,
                    reports: list | None = None) -> list[dict]:
    """One saturation sweep per (network, router option, packet length) of ``config``'s routers (the option
    ``queues``: fifo, voq or pipe, over it): dicts with the network, the option, whether its Verilog is
    verified against the model (and by which test), the packet length, the points (offered, accepted,
    latency, past saturation or not) and the saturation throughput, and what ran (``spec``: ``specs[i]`` the
    catalog spec of ``nets[i]``, if given; ``router_config``; ``config``: one, or one per network).
    ``progress(text)``: told before each sweep. ``reports``: a list that gets each sweep's points as the HTML
    report draws them (``(label, topology, [PointResult ...])``)."""
    loads = loads or [round(0.1 * i, 1) for i in range(1, 11)]
    rows = []
    for i, ((topo, routing), cfg) in enumerate(zip(nets, per_network(config, nets))):
        base = cfg or RouterConfig()
        depth = base.fifo_depth
        for q in queues:
            option = {"pipeline": True} if q == "pipe" else {"queues": q}
            model = NetworkModel(plan_of(topo, routing, base.replace(**option)))
            label, test = ROUTER_OPTIONS[q]
            for L in packet_lens:
                if progress is not None:
                    progress(f"throughput: {topo!r}, {label}, {L}-flit packets, {len(loads)} loads ...")
                name = f"{topo!r}, {label}, {L}-flit packets"
                pts = saturation_sweep(model, L, loads, warmup=warmup, window=window,
                                       report_label=name if reports is not None else None)
                if reports is not None:
                    reports.append((name, topo, [p.report for p in pts]))
                rows.append({"network": repr(topo), "queues": q, "router": label, "verified": True,
                             "verified_by": test, "depth": depth, "packet_len": L,
                             "points": [{"offered": p.offered, "accepted": p.accepted, "latency": p.latency,
                                         "saturated": p.saturated} for p in pts],
                             "saturation": saturation_throughput(pts),
                             **recorded(specs[i] if specs else None, model.config)})
    return rows
