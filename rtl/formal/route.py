"""Issue 15 property 5: the RTL route and injection units equal the Python routing function, by
exhaustive simulation (amaranth.sim) over every (node, header) pair that any packet of any
(source, destination) pair presents to a router, and every (source, destination) injection: port, new
header and VC must equal ``routing.route``, the injected header ``routing.inject`` (docs/formal.md).
"""
from __future__ import annotations

from amaranth.sim import Simulator

from ...sim.routing.base import hop_limit
from ..route import rtl_for


def presented_headers(routing) -> dict[int, set[int]]:
    """node -> every packed header a head flit carries into that node's route unit."""
    topo, layout = routing.topology, routing.layout
    pairs = routing.pairs() if hasattr(routing, "pairs") else [(s, d) for s in topo.nodes() for d in topo.nodes()]
    seen: dict[int, set[int]] = {}
    for s, d in pairs:
        node, hdr = s, routing.inject(s, d)
        for _ in range(hop_limit(topo.num_nodes)):
            seen.setdefault(node, set()).add(layout.pack(hdr))
            hop = routing.route(node, hdr)
            if hop.port == topo.local_port(node):
                break
            node, hdr = topo.neighbor(node, hop.port)[0], hop.header
    return seen


def route_unit_mismatches(routing) -> tuple[int, list]:
    """``(headers checked, mismatches)`` of every route and injection unit of ``routing``'s network."""
    adapter = rtl_for(routing)
    topo, layout = routing.topology, routing.layout
    headers = presented_headers(routing)
    endpoints = sorted({s for s, _ in routing.pairs()}) if hasattr(routing, "pairs") else list(topo.nodes())
    bad = []
    # node-generic units: one per router shape kind is enough, node_id selects the node; else one per node
    groups: dict = {}
    for v in sorted(headers):
        key = (topo.local_port(v), getattr(topo, "is_host", lambda _v: True)(v)) if adapter.node_generic else v
        groups.setdefault(key, []).append(v)
    checked = 0
    for nodes in groups.values():
        unit = adapter.route_unit(nodes[0])

        async def bench(ctx, unit=unit, nodes=nodes):
            nonlocal checked
            for v in nodes:
                if adapter.node_generic:
                    ctx.set(unit.node_id, v)
                for word in sorted(headers[v]):
                    ctx.set(unit.route.as_value(), word)
                    hop = routing.route(v, layout.unpack(word))
                    got = (ctx.get(unit.port), ctx.get(unit.new_route.as_value()),
                           ctx.get(unit.vc) if routing.num_vcs > 1 else 0)
                    want = (hop.port, layout.pack(hop.header), hop.vc)
                    checked += 1
                    if got != want:
                        bad.append(("route", v, layout.unpack(word), got, want))
        sim = Simulator(unit)
        sim.add_testbench(bench)
        sim.run()
    # injection
    src_groups = groups if adapter.node_generic else {v: [v] for v in endpoints}
    for nodes in src_groups.values():
        nodes = [v for v in nodes if v in endpoints]
        if not nodes:
            continue
        unit = adapter.inject_unit(nodes[0])

        async def bench(ctx, unit=unit, nodes=nodes):
            nonlocal checked
            for s in nodes:
                if adapter.node_generic:
                    ctx.set(unit.node_id, s)
                for d in endpoints:
                    ctx.set(unit.dest, d)
                    want = layout.pack(routing.inject(s, d))
                    checked += 1
                    if ctx.get(unit.route.as_value()) != want:
                        bad.append(("inject", s, d, ctx.get(unit.route.as_value()), want))
        sim = Simulator(unit)
        sim.add_testbench(bench)
        sim.run()
    return checked, bad
