# amaranth: UnusedElaboratable=no
"""RTL pieces of the adaptive router (docs/router.md, "Adaptive selection and run-time faults"): the
candidate units equal ``routing.selection_candidates`` on every header a packet presents (the
node-generic PDN unit for every node), the fault ports and ``discarded`` exist only on adaptive /
fault-aware routers, and a router without a selection is the router it was before."""
from __future__ import annotations

from amaranth import Fragment

from cubenoc.sim.router_config import RouterConfig
from cubenoc.rtl.formal.route import unit_mismatches
from cubenoc.rtl.network_top import Network
from cubenoc.rtl.route.candidates import CandidateUnit, PDNCandidateUnit, candidate_unit
from cubenoc.rtl.router import Router
from cubenoc.sim.routing.hierarchical import BalancedHierarchicalRouting
from cubenoc.sim.routing.pdn import AdaptivePDNRouting
from cubenoc.sim.topology.hierarchical import hierarchical_from_spec
from cubenoc.sim.topology.pdn import PerfectDifferenceNetwork
from cubenoc.sim.network_plan import plan_of


def _presented(routing):
    """Per node, the route words a head can carry there (walking every candidate from every pair)."""
    topo, layout = routing.topology, routing.layout
    seen = {v: set() for v in topo.nodes()}
    for s in topo.nodes():
        for d in topo.nodes():
            frontier = [(s, layout.pack(routing.inject(s, d)))]
            while frontier:
                v, w = frontier.pop()
                if w in seen[v]:
                    continue
                seen[v].add(w)
                for h in routing.selection_candidates(v, layout.unpack(w)):
                    if h.port != topo.local_port(v):
                        frontier.append((topo.neighbor(v, h.port)[0], layout.pack(h.header)))
    return seen


def _check(routing, nodes, unit_of):
    layout, words = routing.layout, _presented(routing)
    V = routing.num_vcs

    def want(v, w):
        return [(h.port, layout.pack(h.header), h.vc if V > 1 else 0)
                for h in routing.selection_candidates(v, layout.unpack(w))]

    def read(ctx, unit):
        got = [(ctx.get(unit.port0), ctx.get(unit.new0.as_value()), ctx.get(unit.vc0) if V > 1 else 0)]
        if ctx.get(unit.has1):
            got.append((ctx.get(unit.port1), ctx.get(unit.new1.as_value()), ctx.get(unit.vc1) if V > 1 else 0))
        return got
    checked, bad = unit_mismatches(nodes, unit_of, None, lambda v: sorted(words[v]),
                                   lambda ctx, unit, w: ctx.set(unit.route.as_value(), w), read, want)
    assert checked > 0 and not bad, bad[:5]


def test_pdn_candidate_unit_is_node_generic_and_exact():
    for pds in ((0, 1, 3), (0, 1, 3, 9)):
        t = PerfectDifferenceNetwork(pds)
        routing = AdaptivePDNRouting(t, selection="availability")
        u = candidate_unit(routing, 0)
        assert isinstance(u, PDNCandidateUnit)
        Fragment.get(u, None)                       # it elaborates (and so is used)
        _check(routing, [list(t.nodes())], lambda v: candidate_unit(routing, v))
    # with static faults the candidates depend on the node: the per-node ROM
    t = PerfectDifferenceNetwork((0, 1, 3))
    ft = AdaptivePDNRouting(t, faulty_links=[(0, 1)], selection="availability")
    u = candidate_unit(ft, 0)
    assert type(u) is CandidateUnit
    Fragment.get(u, None)
    _check(ft, [[v] for v in t.nodes()], lambda v: candidate_unit(ft, v))


def test_hierarchical_candidate_rom_is_exact():
    topo = hierarchical_from_spec("bh:2", "bh:1")
    routing = BalancedHierarchicalRouting(topo, selection="least_used")
    _check(routing, [[v] for v in topo.nodes()], lambda v: candidate_unit(routing, v))


def test_fault_ports_only_on_adaptive_routers():
    t = PerfectDifferenceNetwork((0, 1, 3))
    plain = Router(plan_of(t, AdaptivePDNRouting(t)), 0)
    assert not plain.candidate_stage and "link_fault" not in plain.signature.members
    assert "discarded" not in plain.signature.members
    ad = Router(plan_of(t, AdaptivePDNRouting(t, selection="availability")), 0)
    assert ad.candidate_stage and {"link_fault", "node_fault", "discarded"} <= set(ad.signature.members)
    assert len(ad.link_fault) == t.num_ports(0)
    # the oblivious router with fault inputs only
    from cubenoc.sim.routing.pdn import ObliviousPDNRouting
    ob = Router(plan_of(t, ObliviousPDNRouting(t), RouterConfig(faults=True)), 0)
    again = Router(plan_of(t, AdaptivePDNRouting(t)), 0)
    assert ob.candidate_stage and plain.shape_key == again.shape_key
    # one router module for every node of the fault-free PDN, also when adaptive
    net = Network(plan_of(t, AdaptivePDNRouting(t, selection="availability")), structural=True, flat=True)
    assert len(set(net.module_names)) == 1 and net.candidate_stage
    assert len(net.link_fault) == 7 * t.num_ports(0) and len(net.discarded) == 7 * 16
