"""Formal property 5: the RTL route and injection units equal the Python routing function, by
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
    def route_of(v, word):
        hop = routing.route(v, layout.unpack(word))
        return hop.port, layout.pack(hop.header), hop.vc

    def read_route(ctx, unit):
        return ctx.get(unit.port), ctx.get(unit.new_route.as_value()), ctx.get(unit.vc) if routing.num_vcs > 1 else 0
    checked, bad = unit_mismatches(groups.values(), adapter.route_unit, adapter.node_generic, lambda v: sorted(headers[v]),
                                   lambda ctx, unit, w: ctx.set(unit.route.as_value(), w), read_route, route_of)
    bad = [("route", v, layout.unpack(w), got, want) for v, w, got, want in bad]
    # injection
    src_groups = groups if adapter.node_generic else {v: [v] for v in endpoints}
    src_groups = [g for g in ([v for v in nodes if v in endpoints] for nodes in src_groups.values()) if g]
    n, wrong = unit_mismatches(src_groups, adapter.inject_unit, adapter.node_generic, lambda s: endpoints,
                               lambda ctx, unit, d: ctx.set(unit.dest, d),
                               lambda ctx, unit: ctx.get(unit.route.as_value()),
                               lambda s, d: layout.pack(routing.inject(s, d)))
    return checked + n, bad + [("inject", *x) for x in wrong]


def unit_mismatches(groups, make_unit, node_generic: bool | None, cases, drive, read, want) -> tuple[int, list]:
    """Each group of nodes shares one unit, ``make_unit(its first node)`` (a node-generic unit gets each
    node's ``node_id``; ``node_generic`` None: the unit's own ``node_generic`` says whether it is); for every
    node v and input x of ``cases(v)``: ``drive(ctx, unit, x)``, then
    ``read(ctx, unit)`` must equal ``want(v, x)``. Returns ``(checked, [(v, x, got, want)])``."""
    checked, bad = 0, []
    for nodes in groups:
        unit = make_unit(nodes[0])

        async def bench(ctx, unit=unit, nodes=nodes):
            nonlocal checked
            for v in nodes:
                if unit.node_generic if node_generic is None else node_generic:
                    ctx.set(unit.node_id, v)
                for x in cases(v):
                    drive(ctx, unit, x)
                    got, exp = read(ctx, unit), want(v, x)
                    checked += 1
                    if got != exp:
                        bad.append((v, x, got, exp))
        sim = Simulator(unit)
        sim.add_testbench(bench)
        sim.run()
    return checked, bad
