"""HINs of three and more levels (Dandamudi and Eager, Sec. II-C's general structure): the network against
an independent construction, routes against networkx BFS, the deadlock checker with the up-hop VCs, the
generalised formulas against the explicit graph, and the command line."""
import itertools
import json
import math

import networkx as nx
import numpy as np
import pytest

from cubenoc.cli import main
from cubenoc.sim.analysis import hierarchical_formulas as hf
from cubenoc.sim.analysis import hierarchical_measure as hm
from cubenoc.sim.analysis import interface_trips as it
from cubenoc.sim.catalog import NetworkSpec
from cubenoc.sim.deadlock import channel_dependency_graph, check_deadlock
from cubenoc.sim.routing.hierarchical import BalancedHierarchicalRouting, HierarchicalRouting
from cubenoc.sim.routing.level2 import Level2Routing
from cubenoc.sim.topology import CompleteGraph, CubeConnectedCycles, Hierarchical, Hypercube, Ring


def cube_hin_graph(dims):
    """BH(d_1)/BH(d_2)/... built from Sec. II-C's words alone: the address is the levels' bits, level 1
    lowest; a level-l link flips one of level l's bits between two nodes whose lower levels' bits are all 0
    (the interface nodes of the level below)."""
    g = nx.MultiGraph()
    total = sum(dims)
    g.add_nodes_from(range(2 ** total))
    lo = 0
    for d in dims:
        for v in range(2 ** total):
            if v & ((1 << lo) - 1) == 0:                  # an interface node of every level below
                for b in range(lo, lo + d):
                    if not v >> b & 1:
                        g.add_edge(v, v | 1 << b)
        lo += d
    return g


@pytest.mark.parametrize("dims", [(1, 1, 1), (2, 1, 2), (2, 2, 2), (1, 2, 1, 1)])
def test_cube_hin_is_the_papers_structure(dims):
    t = Hierarchical(*(Hypercube(d) for d in dims))
    t.validate()
    ours = nx.MultiGraph()
    ours.add_nodes_from(t.nodes())
    ours.add_edges_from((u, v) for u, _, v, _ in t.links())
    ref = cube_hin_graph(dims)
    assert sorted(map(sorted, ours.edges())) == sorted(map(sorted, ref.edges()))
    # a node carrying level-l ports has all lower positions 0: N / (n_1 ... n_(l-1)) of them
    for lv in range(2, len(dims) + 1):
        carriers = [v for v in t.nodes() if t.top_level(v) >= lv]
        assert len(carriers) == 2 ** (sum(dims) - sum(dims[:lv - 1]))


def test_addresses_ports_and_names():
    t = Hierarchical(Hypercube(2), Ring(3), Hypercube(1), replication=2)
    assert t.num_nodes == 24 and t.spec == "BH(2)/BR(3)/BH(1)x2" and t.name == "hin_bh2_br3_bh1_r2"
    v = t.parse_node("1.2.01")
    assert t.positions(v) == (1, 2, 1) and t.format_node(v) == "1.2.01" and t.node_at((1, 2, 1)) == v
    top = t.parse_node("1.0.00")                             # level-3 interface: 2 + 2*2 + 2*1 ports
    assert t.num_ports(top) == 8 and t.top_level(top) == 3
    assert [t.port_name(top, p) for p in range(9)] == ["dim0", "dim1", "l2.cw.0", "l2.cw.1", "l2.ccw.0",
                                                        "l2.ccw.1", "l3.dim0.0", "l3.dim0.1", "local"]
    assert t.neighbor(top, 7) == (t.parse_node("0.0.00"), 7)
    assert t.num_ports(t.parse_node("1.1.00")) == 6 and t.num_ports(t.parse_node("1.1.10")) == 2


# ---- routing ------------------------------------------------------------------------------------------
DEEP = [(Hypercube(1), Hypercube(2), Hypercube(1)), (Hypercube(2), Ring(3), Hypercube(1)),
        (CompleteGraph(3), CompleteGraph(3), Ring(4)), (Hypercube(1), Hypercube(1), Hypercube(1), Hypercube(1)),
        (Hypercube(1), CubeConnectedCycles(2), Hypercube(1))]


@pytest.mark.parametrize("levels", DEEP, ids=lambda lv: "/".join(map(repr, lv)))
@pytest.mark.parametrize("cls", [HierarchicalRouting, BalancedHierarchicalRouting])
def test_routes_go_up_across_down_and_are_shortest(levels, cls):
    """Every route climbs to the lowest level holding both ends, crosses it and descends (the levels of
    its hops rise, peak at the highest differing position, fall), and is as short as networkx's BFS."""
    t = Hierarchical(*levels, replication=2)
    r = cls(t)
    g = nx.MultiGraph()
    g.add_edges_from((u, v) for u, _, v, _ in t.links())
    dist = dict(nx.all_pairs_shortest_path_length(g))
    for s, d in itertools.product(t.nodes(), repeat=2):
        path = r.path(s, d)
        assert path[-1] == d and len(path) - 1 == dist[s][d]
        ports = []
        node, hdr = s, r.inject(s, d)
        while node != d:
            hop = r.route(node, hdr)
            ports.append(t.port_level(node, hop.port))
            node, hdr = t.neighbor(node, hop.port)[0], hop.header
        top = max((lv for lv in range(1, len(levels) + 1) if t.positions(s)[lv - 1] != t.positions(d)[lv - 1]),
                  default=0)
        if ports:
            peak = ports.index(max(ports))
            assert max(ports) == top
            assert ports[:peak + 1] == sorted(ports[:peak + 1]) and ports[peak:] == sorted(ports[peak:], reverse=True)


def reaches_origin(rule_net) -> bool:
    """Whether the level rule's channel dependency graph has a chain from a channel out of node 0 to a
    channel into node 0."""
    r = Level2Routing(rule_net)
    cdg = channel_dependency_graph(r)
    g = nx.DiGraph(cdg.edges)
    g.add_nodes_from(cdg)
    out0 = [c for c in g if c[0] == 0]
    into0 = {c for c in g if rule_net.neighbor(c[0], c[1])[0] == 0}
    return any(into0 & (nx.descendants(g, c) | {c}) for c in out0)


@pytest.mark.parametrize("net,found", [(Hypercube(3), False), (CompleteGraph(4), False), (Ring(4), False),
                                       (Ring(5), True), (Ring(8), True), (CubeConnectedCycles(2), False),
                                       (CubeConnectedCycles(3), True)], ids=repr)
def test_returns_to_origin_is_what_the_checker_finds(net, found):
    """The flag is the family's: it holds wherever the checker finds such a chain (BR from 5 nodes, CCC from
    D_c = 3; BR(4) and CCC(2) are too small to have one, and take the up VCs all the same)."""
    from cubenoc.sim.routing.level2 import rule_for
    assert reaches_origin(net) == found
    assert rule_for(net).returns_to_origin >= found
    assert rule_for(net).returns_to_origin == isinstance(net, (Ring, CubeConnectedCycles))


DEADLOCK = [((Hypercube(2), Hypercube(2), Hypercube(2)), 1, False), ((Hypercube(1), Ring(5), Ring(4)), 4, True),
            ((Hypercube(1), CubeConnectedCycles(3), Hypercube(1)), 6, True),
            ((CompleteGraph(3), Ring(6), Hypercube(1)), 4, True),
            ((Hypercube(1), Hypercube(1), Ring(5), Hypercube(1)), 4, True)]


@pytest.mark.parametrize("levels,vcs,needs_up_vcs", DEADLOCK, ids=lambda x: repr(x))
def test_deadlock_free_with_the_up_vcs(levels, vcs, needs_up_vcs, monkeypatch):
    """Acyclic with the rules' VCs plus, below the top, BR's and CCC's up hops on VCs of their own; without
    those up VCs (the rules' own VCs kept) the checker finds a cycle through a higher level's link."""
    t = Hierarchical(*levels)
    for cls in (HierarchicalRouting, BalancedHierarchicalRouting):
        rep = check_deadlock(cls(t))
        assert rep.deadlock_free and rep.num_vcs == vcs, rep.describe()
    monkeypatch.setattr(HierarchicalRouting, "up_phase", lambda self, level: False)
    without = check_deadlock(HierarchicalRouting(t))
    assert without.deadlock_free != needs_up_vcs
    if needs_up_vcs:
        assert max(t.port_level(node, port) for node, port, _ in without.cycle) >= 3


# ---- formulas against the explicit graph -------------------------------------------------------------------
SMALL = [(("BH", 2), ("BH", 2), ("BH", 2)), (("BH", 2), ("BH", 2), ("BR", 6)), (("BH", 4), ("BH", 2), ("CC", 3)),
         (("BH", 2), ("BH", 4), ("BH", 2), ("BH", 2)),
         # BR, CC below the top (odd and even rings, the two-node ring's parallel links, CC clusters)
         (("BH", 4), ("BR", 5), ("BH", 4)), (("BH", 2), ("BR", 6), ("CC", 3)), (("BH", 4), ("CC", 3), ("BH", 4)),
         (("CC", 3), ("BR", 4), ("BH", 2)), (("BH", 2), ("BR", 2), ("BH", 2))]


def finite_mu(levels) -> tuple[float, float]:
    """(mu_CL, mu_NCL): every link below saturation at every alpha tested (the busiest at alpha 0)."""
    q = hf.queueing_levels(levels, 0.0, 1.0, 1.0, 1.0)["levels"]
    return 4.0, math.ceil(1.25 * max(max(x["rates"]) for x in q[1:]))


@pytest.mark.parametrize("levels", SMALL, ids=hm.levels_name)
@pytest.mark.parametrize("alpha", [0.0, 0.55, 1.0])
def test_formulas_hold_on_the_explicit_graph(levels, alpha):
    """L = networkx's edge count; P = the locality-weighted networkx BFS mean (alpha in the level-1 cluster,
    self included, the rest uniform over the other clusters) and the routed mean, per level too; R =
    Kleinrock on the explicit random shortest-path loads, per level too, every link below saturation."""
    t = hm.build_levels(levels)
    n, N = levels[0][1], t.num_nodes
    g = nx.MultiGraph()
    g.add_edges_from((u, v) for u, _, v, _ in t.links())
    assert hf.l_levels(levels) == g.number_of_edges()
    dist = dict(nx.all_pairs_shortest_path_length(g))
    want = sum((alpha / n if s // n == d // n else (1 - alpha) / (N - n)) * dist[s][d]
               for s in range(N) for d in range(N)) / N
    assert hf.p_levels(levels, alpha) == pytest.approx(want, abs=1e-12)
    routing = HierarchicalRouting(t)
    per_level = np.zeros(len(levels))
    for s, d in itertools.product(range(N), repeat=2):
        w = alpha / n if s // n == d // n else (1 - alpha) / (N - n)
        node, hdr = s, routing.inject(s, d)
        while node != d:
            hop = routing.route(node, hdr)
            per_level[t.port_level(node, hop.port) - 1] += w / N
            node, hdr = t.neighbor(node, hop.port)[0], hop.header
    assert hf.p_per_level(levels, alpha) == pytest.approx(per_level, abs=1e-12)
    row = hm.row_levels(levels, alpha, 1.0, *finite_mu(levels))
    assert math.isfinite(row["R_explicit"]) and row["R"] == pytest.approx(row["R_explicit"], rel=1e-9)
    for p in row["per_level"]:
        assert p["R"] == pytest.approx(p["R_explicit"], rel=1e-9) and p["L"] == p["L_count"]


def trip_shares_by_networkx(net) -> list[float]:
    """Per channel (node, port), the share of one trip between a uniform node (self included) and node 0, up
    and down, a uniform choice among the shortest-path ports at every hop: networkx distances, pair by pair."""
    g = nx.Graph()
    g.add_edges_from((u, v) for u, _, v, _ in net.links())
    dist, k = dict(nx.all_pairs_shortest_path_length(g)), net.num_nodes
    load = {(u, p): 0.0 for u in net.nodes() for p in range(net.num_ports(u))}
    for src, dst in [(x, 0) for x in range(k)] + [(0, y) for y in range(1, k)]:
        mass = {src: 1 / k}
        for step in range(dist[src][dst], 0, -1):
            nxt = {}
            for u, m in mass.items():
                ports = [p for p in range(net.num_ports(u)) if dist[net.neighbor(u, p)[0]][dst] == step - 1]
                for p in ports:
                    load[u, p] += m / len(ports)
                    nxt[net.neighbor(u, p)[0]] = nxt.get(net.neighbor(u, p)[0], 0.0) + m / len(ports)
            mass = nxt
    return sorted(load.values())


@pytest.mark.parametrize("fam,k", [("BH", 2), ("BH", 8), ("BH", 32), ("BR", 2), ("BR", 3), ("BR", 4), ("BR", 7),
                                   ("BR", 8), ("CC", 2), ("CC", 5), ("CCC", 8), ("CCC", 24)])
def test_interface_trips_are_each_familys_share(fam, k):
    """Below the top, each channel's share of the node<->interface trips: BH's are eq. (16)'s p(j) on the
    j-level links; BR's, CC's closed forms and CCC's computed shares are networkx's per-hop uniform routing;
    the channels are the level's 2 L, and the shares add up to one trip each way (2 P^0)."""
    trips = it.interface_trips(fam, k)
    if fam == "BH":
        d = k.bit_length() - 1
        assert trips == tuple((2 * hf.links_at_level(d, j), hf.p_j(d, j)) for j in range(1, d + 1))
    want = trip_shares_by_networkx(hm.level_network(fam, k))
    got = sorted(s for c, s in trips for _ in range(c))
    assert got == pytest.approx(want, abs=1e-12)
    assert sum(c for c, _ in trips) == 2 * hf.level_links(fam, k)
    if fam != "CCC":                      # eq. (14)'s CCC term is not the CCC's distance (below)
        assert sum(c * s for c, s in trips) == pytest.approx(2 * hf.p_to_interface(fam, k), abs=1e-12)


@pytest.mark.parametrize("levels,rel_level,rel", [((("BH", 2), ("CCC", 8), ("BH", 2)), 0.08, 0.035),
                                                  ((("BH", 2), ("CCC", 24), ("BH", 2)), 0.006, 0.002)])
@pytest.mark.parametrize("alpha", [0.0, 0.55, 1.0])
def test_ccc_below_the_top_within_eq_14s_gap(levels, rel_level, rel, alpha):
    """A CCC below the top: its interface trips are exact (above), its across messages spread evenly over
    eq. (14)'s mean distance as eq. (21) does on top, so its level's R is off by that approximation only
    (measured at alpha 0, mu_NCL 11 and 31: the CCC(2) level -7.4 %, R -3.1 %; the CCC(3) level -0.5 %,
    R -0.16 %); the other levels' R are exact."""
    row = hm.row_levels(levels, alpha, 1.0, *finite_mu(levels))
    one, ccc, top = row["per_level"]
    assert math.isfinite(row["R_explicit"])
    for p in (one, top):
        assert p["R"] == pytest.approx(p["R_explicit"], rel=1e-9)
    assert ccc["R"] == pytest.approx(ccc["R_explicit"], rel=rel_level)
    assert row["R"] == pytest.approx(row["R_explicit"], rel=rel)
    assert (ccc["R"] == ccc["R_explicit"] == 0) == (alpha == 1.0)


@pytest.mark.parametrize("levels", [(("BH", 2), ("BR", 5), ("CC", 3)), (("CC", 3), ("BR", 5), ("BH", 2))])
def test_delay_is_the_routers_own_where_shortest_paths_are_unique(levels):
    """BH(1) or CC clusters, an odd ring, CC: one shortest path per pair, so the routers' routes are the
    model's and R is Kleinrock on the routed loads. (With ties, e.g. BR(6), the routers send a whole trip
    one way by node parity: BH(1)/BR(6)/CC(3) at alpha 0, mu 4/8 is 1.1288 routed against 1.0898.)"""
    t, mu = hm.build_levels(levels), finite_mu(levels)
    loads = hm.routed_loads(HierarchicalRouting(t), levels[0][1])
    for alpha in (0.0, 0.55):
        want = hm.kleinrock(loads, alpha, 1.0, *mu, t.num_nodes)["R"]
        assert math.isfinite(want) and hf.queueing_levels(levels, alpha, 1.0, *mu)["R"] == pytest.approx(want, rel=1e-9)


def test_br_below_the_top_simulated(capsys):
    """`cubenoc simulate` at alpha 0.55, 0.1 flits/node/cycle: the mean hop count is P (the routes do not depend
    on the load), and BH(2)/CC(5)/BH(2) is faster than BH(2)/BR(5)/BH(2) as R says."""
    sim, formula = {}, {}
    for fam in ("br", "cc"):
        assert main(["simulate", f"hin:level1=bh:2,level2={fam}:5,level3=bh:2", "--traffic", "alpha", "--alpha",
                     "0.55", "--rate", "0.1", "--warmup", "200", "--measure", "1000", "--json", "--quiet"]) == 0
        sim[fam] = json.loads(capsys.readouterr().out)[0]
        levels = (("BH", 4), (fam.upper(), 5), ("BH", 4))
        formula[fam] = hf.queueing_levels(levels, 0.55, 0.1, 1.0, 1.0)["R"]
        assert not sim[fam]["saturated"] and sim[fam]["hops_mean"] == pytest.approx(hf.p_levels(levels, 0.55), rel=0.03)
    assert formula["cc"] < formula["br"] and sim["cc"]["network_latency_mean"] < sim["br"]["network_latency_mean"]


def test_two_levels_are_the_papers_equations():
    """The general functions at two levels are eqs (6), (8), (18) as printed."""
    for d, m in ((3, 3), (4, 2), (2, 5)):
        D, levels = d + m, (("BH", 2 ** d), ("BH", 2 ** m))
        assert hf.l_levels(levels) == hf.l_hin_paper("BH/BH", D, d)
        assert hf.p_levels(levels, 0.7) == pytest.approx(hf.p_bhbh_closed(0.7, D, d), abs=1e-12)


def test_ccc_top_level_differs_from_bfs_as_eq_14_does():
    row = hm.row_levels((("BH", 2), ("BH", 2), ("CCC", 8)), 0.5, 1.0, 3.0, 3.0)
    assert row["P"] < row["P_bfs"]                     # eq. (14)'s term, 2.0 for D_c = 2, below the BFS 2.286


# ---- the command line --------------------------------------------------------------------------------------
def test_analyze_three_levels(capsys):
    assert main(["analyze", "hin", "--level1", "bh:2", "--level2", "bh:2", "--level3", "bh:2", "--explicit",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    ref, hin = data["networks"]
    assert ref["network"] == "BH(6)" and hin["network"] == "BH(2)/BH(2)/BH(2)"
    assert hin["L"] == hin["L_count"] == 84 and ref["L"] == 192
    assert hin["P"] == pytest.approx(hin["P_bfs"]) and hin["R"] == pytest.approx(hin["R_explicit"])
    assert [p["L"] for p in hin["per_level"]] == [64, 16, 4]
    assert main(["analyze", "hin", "--level1", "bh:1", "--level2", "bh:1", "--level3", "bh:1", "--level4",
                 "bh", "--nodes", "32"]) == 0
    assert "BH(1)/BH(1)/BH(1)/BH(2)" in capsys.readouterr().out


@pytest.mark.parametrize("argv,msg", [
    (["analyze", "hin", "--level1", "bh:1", "--level2", "ccc:9", "--level3", "bh:1"], "on the CCC, up to D_c = 8"),
    (["analyze", "hin", "--level1", "bh:2", "--level2", "bh,cc", "--level3", "bh:2"], "--level2 is one network"),
    (["analyze", "hin", "--level1", "bh:8", "--level2", "bh:8", "--level3", "bh:2"], "at most 65536 nodes"),
    (["analyze", "hin", "--level4", "bh:2"], "--level4 needs --level3"),
    (["generate", "hin:level1=bh:2,level2=bh:2,level4=bh:1"], "level4 is given but level3 is not"),
    (["generate", "hin:level1=bh:2,level2=bh:2,level3=torus:2"], "level3 must be one of bh, br, cc, ccc"),
    (["generate", "hin:level1=bh:2,level2=bh:2,level3=bh:2:"], "level3 size of bh must be an integer"),
    (["generate", "hin:level1=bh:6,level2=bh:6,level3=bh:6"], "at most 65536 nodes"),
    (["simulate", "hin:level1=bh:2,level2=bh,level3=bh:2"], "level2 'bh' needs a size"),
])
def test_bad_levels_are_one_line(argv, msg, capsys, tmp_path):
    assert main(argv + (["-o", str(tmp_path)] if argv[0] == "generate" else [])) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("cubenoc: error:") and msg in err[0]


def test_spec_levels_and_two_level_spec_unchanged():
    topo, routing = NetworkSpec.parse("hin:level1=bh:2,level2=bh:2,level3=bh:2").build()
    assert topo.sizes == (4, 4, 4) and routing.layout.names() == ["dest_node", "dest_cluster", "dest_l3"]
    two, r2 = NetworkSpec.parse("hin:level1=bh:3,level2=ccc:2,r=2").build()
    assert len(two.levels) == 2 and r2.layout.names() == ["dest_node", "dest_cluster", "l2_state", "lane"]
    assert NetworkSpec.parse("hin:level1=bh:2,level2=bh:1,level3=bh,nodes=32").short_label() == "BH(2)/BH(1)/BH (32)"


def test_study_hin_levels_small():
    """The study on 32 nodes: its link counts are networkx's, the simulated hop count the routed mean."""
    from cubenoc.sim import sim_studies as St
    nets = ((("BH", 2), ("BH", 2), ("BH", 8)), (("BH", 4), ("BH", 8)))
    rows = St.hin_levels(nets, alphas=(0.8,), rate=0.05, warmup=200, measure=1500)
    by = {r["network"]: r for r in rows}
    assert set(by) == {"BH(5)", "BH(1)/BH(1)/BH(3)", "BH(2)/BH(3)"}
    for levels in nets:
        g = nx.MultiGraph()
        g.add_edges_from((u, v) for u, _, v, _ in hm.build_levels(levels).links())
        r = by[hm.levels_name(levels)]
        assert r["L"] == g.number_of_edges()
        assert not r["saturated"] and r["sim_hops"] == pytest.approx(r["P_routed"], rel=0.06)
    assert math.isclose(by["BH(5)"]["L"], 80)


def test_the_pages_figures():
    """docs/papers/hierarchical.md quotes the three-level analyses (BH and BR below the top) and the hin-levels
    study as the commands print them."""
    from pathlib import Path

    from cubenoc.sim import sim_studies as St
    page = (Path(__file__).resolve().parents[1] / "docs" / "papers" / "hierarchical.md").read_text()
    for levels in ((("BH", 4), ("BH", 4), ("BH", 4)), (("BH", 2), ("BR", 8), ("BH", 4))):
        hin = hm.row_levels(levels, 0.8, 1.0, 3.0, 3.0)
        assert (f"| {hin['network']} | {hin['L']} | {hin['P']:.4f} | {hin['LP_ratio']:.4f} | {hin['R']:.4f} | "
                f"{hin['LR_ratio']:.4f} | {hin['P_bfs']:.4f} | {hin['R_explicit']:.4f} |") in page

    def f(v, fmt):
        return "inf" if v is not None and math.isinf(v) else format(v, fmt)
    for r in St.hin_levels():
        sim = ("- | saturated | -" if r["saturated"] else
               f"{r['sim_hops']:.2f} | {r['sim_network_latency']:.2f} | {r['sim_link_util_max']:.2f}")
        lp = "1" if r["levels"] == 1 else f(r["LP_ratio"], ".3f")
        lr = "1" if r["levels"] == 1 else f(r["LR_ratio"], ".3f")
        line = (f"| {r['network']} | {r['traffic']} | {r['L']} | {r['P']:.4f} | {f(r['R'], '.4f')} | {lp} | {lr} | "
                f"{sim} |")
        assert line in page, line
