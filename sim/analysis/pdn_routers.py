"""Parhami & Rakov's ``H^2`` collectives (perfect difference networks, Sec. 4, last paragraph) run on the
generated routers: the cycle-accurate model (sim/model, the reference the Verilog is held to) of the
``H^2`` network with dimension-order routing and the product broadcast in the fork ROMs.

* all-to-all broadcast: every node injects one 1-flit broadcast packet at cycle 0; the routers fork it
  (row broadcast, each copy starting its column broadcast: :class:`~..broadcast.pdn.ProductPDNBroadcast`).
* complete exchange: every node injects ``N - 1`` 1-flit unicast packets, released at cycle 0, in rounds:
  in round ``j`` every node sends to the node at coordinate offset ``j`` (a permutation of the nodes).

Cycles are counted from the injection handshakes (the first at cycle 0) to the last ejection handshake.
Lower bound of both, the router's port model: a node's local output ejects at most one flit per cycle
and receives ``N - 1`` packets, the first no earlier than cycle 2 (one hop: zero-load latency h + 1), so
the last no earlier than cycle ``N``; in the exchange the local input also takes one flit per cycle, so a
node's last packet is accepted no earlier than cycle ``N - 2``.
"""
from __future__ import annotations

from ..broadcast.fork import BROADCAST_DEST, broadcast_algorithm_for
from ..model.check import delivery_problems
from ..model.network import NetworkModel
from ..model.stimulus import Stimulus, StimulusBuilder
from ..router_config import RouterConfig
from ..routing.pdn import DimensionOrderPDNRouting
from ..topology.pdn import PerfectDifferenceNetwork, ProductPDN
from ..network_plan import plan_of


def h2_network(pds) -> ProductPDN:
    return ProductPDN([pds, pds])


def all_to_all_stimulus(topo: ProductPDN) -> Stimulus:
    """Every node: one 1-flit broadcast packet, released at cycle 0."""
    b = StimulusBuilder(topo.num_nodes, seed=7)
    for v in topo.nodes():
        b.packet(v, BROADCAST_DEST, 1, 0)
    return b.build()


def exchange_offsets(topo: ProductPDN) -> list[list[int]]:
    """The rounds of the complete exchange: every nonzero coordinate offset, dimension 0 fastest."""
    n0, n1 = topo.radix
    return [[j % n0, j // n0] for j in range(1, n0 * n1)]


def complete_exchange_stimulus(topo: ProductPDN) -> Stimulus:
    """Every node: one 1-flit packet to every other node, all released at cycle 0; round ``j`` (the
    ``j``-th packet of every node) goes to the node at offset ``exchange_offsets[j]``."""
    b = StimulusBuilder(topo.num_nodes, seed=8)
    for v in topo.nodes():
        x = topo.coords(v)
        for off in exchange_offsets(topo):
            b.packet(v, topo.node_of([(c + o) % r for c, o, r in zip(x, off, topo.radix)]), 1, 0)
    return b.build()


def _measure(res) -> dict:
    s = res.stimulus
    problems = delivery_problems(res)
    start = int(res.accept_cycle.min())
    return {"cycles": int(res.eject_cycle.max()) - start if res.drained else None,
            "last_accept": int(res.accept_cycle.max()) - start,
            "ejections": int(res.tr_flit.size), "packets": int(s.num_packets),
            "exactly_once": res.drained and not problems, "problems": problems}


def run_all_to_all(pds) -> dict:
    topo = h2_network(pds)
    routing = DimensionOrderPDNRouting(topo)
    model = NetworkModel(plan_of(topo, routing, RouterConfig(broadcast=broadcast_algorithm_for(topo))))
    return _measure(model.run(all_to_all_stimulus(topo)))


def run_complete_exchange(pds) -> dict:
    topo = h2_network(pds)
    model = NetworkModel(plan_of(topo, DimensionOrderPDNRouting(topo)))
    return _measure(model.run(complete_exchange_stimulus(topo)))


def h2_on_routers(pds, schedule_rows: list[dict]) -> list[dict]:
    """Both collectives on the model, beside the replayed schedules (``schedule_rows``: the rows of
    :func:`.pdn_claims.power_collectives`) and the paper's counts."""
    h = PerfectDifferenceNetwork(pds)
    d, n = h.delta, h.n
    big_n = n * n
    diameter = 2 * int(h.distances_from(0).max())
    sched = {r["collective"]: r["steps"] for r in schedule_rows}
    a2a, cx = run_all_to_all(pds), run_complete_exchange(pds)
    rows = []
    ok = a2a["exactly_once"] and a2a["ejections"] == big_n * (big_n - 1)
    rows.append({
        "collective": "all-to-all broadcast (fork ROMs)", **a2a, "lower_bound": big_n, "complete": ok,
        "schedule_steps": [sched["all-to-all broadcast"], sched["all-to-all broadcast, rows and columns overlapped"],
                           sched["all-to-all broadcast, second leg split between the dimensions"]],
        "paper": [(n + 1) * d * d, n * d * d], "paper_formula": "(n+1) delta^2, n delta^2",
        "verdict": (("meets the bound n^2: every local output ejects one copy per cycle from cycle 2"
                     if a2a["cycles"] == big_n else f"{a2a['cycles'] - big_n} cycles above the bound n^2")
                    + f"; the paper's {(n + 1) * d * d} and {n * d * d} are below n^2 - 1 = {big_n - 1}, the copies a "
                      "node receives through its one local output")
        if ok else "NOT complete"})
    ok = cx["exactly_once"] and cx["ejections"] == big_n * (big_n - 1)
    rows.append({
        "collective": "complete exchange (unicast, round j: offset j)", **cx, "lower_bound": big_n, "complete": ok,
        "schedule_steps": [sched["complete exchange"], sched["complete exchange (pipelined Algorithm 5)"]],
        "paper": [2 * n * n], "paper_formula": "2 n^2",
        "verdict": (f"{cx['cycles'] - big_n} above the bound n^2"
                    + (f" = last injection (cycle n^2 - 2, the sources never stall) + the diameter {diameter} + 1"
                       if cx["last_accept"] == big_n - 2 and cx["cycles"] == big_n - 2 + diameter + 1 else "")
                    + f"; below the paper's 2n^2 = {2 * n * n} steps: the routers send on every port at once")
        if ok else "NOT complete"})
    return rows
