"""The families' route-compute and injection units (rtl/route/pdn.py, metacube.py,
hierarchical.py) in gates against the Python routing functions, exhaustively (amaranth.sim):
every (node, header) pair that any packet of any (source, destination) pair presents to a router, and
every (source, destination) injection. Port, new header and VC must equal ``routing.route``."""
from __future__ import annotations

import pytest

from cubenoc.rtl.formal.route import route_unit_mismatches
from cubenoc.rtl.route import RomRTL, rtl_for
from cubenoc.rtl.route.hierarchical import HierarchicalRTL
from cubenoc.rtl.route.metacube import MetacubeRTL
from cubenoc.rtl.route.pdn import (AdaptivePDNRTL, BipartitePDNRTL, DimensionOrderPDNRTL,
                                   ObliviousPDNRTL)
from cubenoc.sim.routing.hierarchical import BalancedHierarchicalRouting, HierarchicalRouting
from cubenoc.sim.routing.metacube import MetacubeRouting
from cubenoc.sim.routing.pdn import (AdaptivePDNRouting, BipartitePDNRouting, DimensionOrderPDNRouting,
                                     ObliviousPDNRouting)
from cubenoc.sim.topology.hierarchical import hierarchical_from_spec
from cubenoc.sim.topology.metacube import Metacube
from cubenoc.sim.topology.pdn import BipartitePDN, PerfectDifferenceNetwork, ProductPDN


def check_units(routing, adapter_cls):
    assert type(rtl_for(routing)) is adapter_cls
    checked, bad = route_unit_mismatches(routing)
    assert checked > routing.topology.num_nodes
    assert not bad, bad[:5]


PDN_SETS = ["0,1,3", "0,1,3,9", "0,1,4,14,16", "0,1,3,8,12,18", "1,2,4", "3,4,6"]


@pytest.mark.parametrize("pds", PDN_SETS)
def test_pdn_oblivious(pds):
    topo = PerfectDifferenceNetwork(pds)
    routing = ObliviousPDNRouting(topo)
    assert len(routing.rom()) == topo.n - 1
    check_units(routing, ObliviousPDNRTL)


def test_pdn_degenerate_chords_get_hop_vcs():
    """{3,4,6} mod 7: +3 == -4 and +4 == -3, two ports unconnected; Algorithm 1 then needs the hop VC."""
    topo = PerfectDifferenceNetwork("3,4,6")
    assert sum(topo.port_connected) == 4
    routing = ObliviousPDNRouting(topo)
    assert routing.num_vcs == 2 and routing.hop_vcs
    # no route ever leaves on an unconnected port (checked by the unit test above through route())
    for v in topo.nodes():
        for d in topo.nodes():
            if d != v:
                assert topo.port_connected[routing.route(v, routing.inject(v, d)).port]


@pytest.mark.parametrize("pds,prefer", [("0,1,3", "forward"), ("0,1,3,9", "backward")])
def test_pdn_adaptive_preferred_candidate(pds, prefer):
    check_units(AdaptivePDNRouting(PerfectDifferenceNetwork(pds), prefer=prefer), AdaptivePDNRTL)


def test_pdn_adaptive_with_faults_is_per_node():
    topo = PerfectDifferenceNetwork("0,1,3,9")
    routing = AdaptivePDNRouting(topo, faulty_links=[(0, 1), (4, 7)])
    assert not rtl_for(routing).node_generic
    check_units(routing, AdaptivePDNRTL)


@pytest.mark.parametrize("sets", [["0,1,3", "0,1,3"], ["0,1,3,9", "0,1,3"]])
def test_pdn_dimension_order(sets):
    check_units(DimensionOrderPDNRouting(ProductPDN(sets)), DimensionOrderPDNRTL)


def test_pdn_bipartite():
    check_units(BipartitePDNRouting(BipartitePDN("0,1,3,9")), BipartitePDNRTL)


@pytest.mark.parametrize("k,m,shortest", [(1, 1, False), (1, 2, False), (2, 1, False), (1, 1, True),
                                          (1, 2, True), (2, 1, True)])
def test_metacube(k, m, shortest):
    check_units(MetacubeRouting(Metacube(k, m), shortest=shortest), MetacubeRTL)


def test_metacube_one_vc_variant():
    check_units(MetacubeRouting(Metacube(1, 2), vcs=False), MetacubeRTL)


HIN = [("bh:3", "bh:2", 1), ("bh:2", "cc:4", 1), ("bh:2", "br:6", 1), ("bh:2", "ccc:2", 1),
       ("cc:3", "bh:2", 1), ("cc:5", "ccc:2", 1), ("bh:2", "br:4", 2), ("bh:3", "cc:3", 3)]


@pytest.mark.parametrize("l1,l2,r", HIN, ids=[f"{a}_{b}_r{r}" for a, b, r in HIN])
def test_hierarchical(l1, l2, r):
    check_units(HierarchicalRouting(hierarchical_from_spec(l1, l2, replication=r)), HierarchicalRTL)


def test_hierarchical_balanced():
    check_units(BalancedHierarchicalRouting(hierarchical_from_spec("bh:3", "bh:2")), HierarchicalRTL)


#: three and four levels: gates (BH, CC), ROMs with the up-hop VCs below the top (BR, CCC), a ROM on
#: top, positions that are not bit fields (BR(3), CC(3)), replicas above level 1
HIN_DEEP = [("bh:1", "bh:2", "bh:2"), ("bh:1", "br:3", "bh:1"), ("bh:1", "ccc:2", "br:3"), ("cc:3", "cc:3", "bh:1"),
            ("bh:1", "bh:1", "ccc:2", "bh:1"), ("bh:2", "br:4", "cc:3")]


@pytest.mark.parametrize("levels", HIN_DEEP, ids="_".join)
@pytest.mark.parametrize("r", [1, 2])
def test_hierarchical_three_and_four_levels(levels, r):
    check_units(HierarchicalRouting(hierarchical_from_spec(*levels, replication=r)), HierarchicalRTL)


def test_rom_fallback_still_reachable():
    """A routing class without an adapter still gets the ROM (the registry is by class)."""
    from cubenoc.sim.routing.level2 import Level2Routing
    from cubenoc.sim.topology.hierarchical import Ring
    assert isinstance(rtl_for(Level2Routing(Ring(5))), RomRTL)
