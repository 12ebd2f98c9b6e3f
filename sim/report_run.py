"""One whole model run (a :class:`~.model.result.ModelResult`: the demo's, a benchmark's load point) as a
point of the HTML report (sim/report_page.py): the figures :class:`~.simulator.PointResult` carries, over
the cycles ``[start, stop)`` of the run (default: all of it)."""
from __future__ import annotations

import math

import numpy as np

from .simulator import PointResult


def point_of_run(res, topo, label: str, *, offered: float, traffic: str, length: str, saturated: bool = False,
                 message: str = "ok", window: tuple[int, int] | None = None, channel_flits=None) -> PointResult:
    """The report's point of model run ``res`` on ``topo``: accepted load, latency and per-source figures of
    the flits ejected and the packets created in ``window`` (default the whole run), and each channel's
    flits/cycle from ``channel_flits`` (flits per output ``v * P + o`` in the window; default the run's
    :attr:`~.model.result.ModelResult.link_flits` over the whole run)."""
    s = res.stimulus
    N = topo.num_nodes
    t0, t1 = window if window is not None else (0, max(1, res.cycles))
    span = t1 - t0
    ej = res.eject_cycle
    flit_src = s.pkt_src[s.packet]
    got = (ej >= t0) & (ej < t1)
    per_src = np.bincount(flit_src[got], minlength=N)
    p = PointResult(label, traffic, length, offered, math.nan, float(got.sum()) / (N * span), saturated, message,
                    router=res.router, cycles=res.cycles)
    made = np.nonzero((s.pkt_release >= t0) & (s.pkt_release < t1) & (s.pkt_len > 0))[0]
    last = s.pkt_first[made] + s.pkt_len[made] - 1
    done = made[ej[last] >= 0]
    lat = res.packet_latency(done)
    p.packets = int(done.size)
    if done.size:
        p.latency_mean = float(lat.mean())
        p.latency_p50, p.latency_p95, p.latency_p99 = (float(np.percentile(lat, q)) for q in (50, 95, 99))
    sent = np.zeros(N, dtype=bool)
    sent[s.pkt_src] = True
    p.source_accepted = [float(g / span) if ok else None for g, ok in zip(per_src, sent)]
    p.source_packets = np.bincount(s.pkt_src[done], minlength=N).tolist()
    sums = np.bincount(s.pkt_src[done], weights=lat, minlength=N)
    p.source_latency = [float(x / n) if n else None for x, n in zip(sums, p.source_packets)]
    flits = res.link_flits if channel_flits is None else channel_flits
    P = flits.size // N
    util = flits / (res.cycles if channel_flits is None else span)
    p.channel_util = [[float(util[v * P + o]) if topo.neighbor(v, o) is not None else None
                       for o in range(topo.num_ports(v))] for v in range(N)]
    on = [x for row in p.channel_util for x in row if x is not None]
    p.link_util_mean, p.link_util_max = (float(np.mean(on)), float(max(on))) if on else (0.0, 0.0)
    return p
