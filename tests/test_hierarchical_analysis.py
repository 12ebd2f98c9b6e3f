"""Hierarchical network analysis (Dandamudi and Eager): eqs 1-21 against the explicit graph, the paper's quoted numbers, and the CLI."""
import json
import math

import numpy as np
import pytest

from cubenoc.cli import main
from cubenoc.sim.analysis import hierarchical_formulas as hf
from cubenoc.sim.analysis import hierarchical_figures as hfig
from cubenoc.sim.analysis import hierarchical_measure as hm
from cubenoc.sim.routing.hierarchical import HierarchicalRouting
from cubenoc.sim.topology import Hypercube

SMALL = [(2, 4), (2, 8), (3, 4), (3, 8), (2, 24)]   # (d, K); K = 24 only exists for BH/BR, BH/CC, BH/CCC


@pytest.mark.parametrize("d,k", SMALL)
def test_link_cost_formulas_match_the_graph(d, k):
    D = d + math.log2(k)
    for code in hm.networks_for(hf.CODES, d, k):
        topo = hm.build(code, d, k)
        assert topo.num_links == hf.l_hin(code, d, k)
        dc = hf.level2_size(code, k) if code == "BH/CCC" else None
        if k & (k - 1) == 0:
            assert hf.l_hin_paper(code, D, d, dc) == topo.num_links
    if k & (k - 1) == 0:
        assert hm.build(None, d, k).num_links == hf.l_bh(D)


def test_distance_formulas_eqs_3_4_8():
    for D in range(2, 9):
        for d in range(1, D):
            assert hf.p_bh_intra(d) == d / 2
            assert hf.p_bh_inter_sum(D, d) == pytest.approx(hf.p_bh_inter(D, d))
            for a in (0.0, 0.3, 1.0):
                assert hf.p_bhbh_closed(a, D, d) == pytest.approx(hf.p_hin("BH/BH", a, d, 2 ** (D - d)))


@pytest.mark.parametrize("d,k", [(2, 4), (3, 8), (2, 8)])
def test_distance_formulas_match_bfs_and_routing(d, k):
    """Eqs (5), (8), (10), (12) are exact: BFS on the explicit graph and routed lengths agree (BH/CCC with
    D_c = 2 does not: eq. (14)'s CCC term is 2.0, the CCC(2) mean distance is 16/7)."""
    bh_intra, bh_inter = hm.explicit_distance(hm.build(None, d, k), 2 ** d)
    D = d + math.log2(k)
    assert bh_intra == pytest.approx(d / 2) and bh_inter == pytest.approx(hf.p_bh_inter(D, d))
    for code in hm.networks_for(hf.CODES, d, k):
        topo = hm.build(code, d, k)
        intra, inter = hm.explicit_distance(topo, 2 ** d)
        r_intra, r_inter = hm.routed_distance(HierarchicalRouting(topo), 2 ** d)
        assert (r_intra, r_inter) == pytest.approx((intra, inter))
        assert intra == pytest.approx(d / 2)
        if code == "BH/CCC":
            assert inter == pytest.approx(d + 16 / 7) and hf.p_level2(code, k) == 2.0
        else:
            assert inter == pytest.approx(d + hf.p_level2(code, k))


def test_ccc_term_of_eq_14_is_not_the_mean_distance():
    t = hfig.ccc_distance_table(range(2, 6))
    assert t[4]["bfs_with_self"] == pytest.approx(t[4]["formula"])       # D_c = 2, 4: the with-self mean
    assert t[2]["bfs_with_self"] == pytest.approx(t[2]["formula"])
    assert t[3]["bfs"] != pytest.approx(t[3]["formula"], abs=0.01)
    assert t[5]["bfs"] < t[5]["formula"] - 0.1
    assert all(v["routed"] >= v["bfs"] for v in t.values())


@pytest.mark.parametrize("code", ["BH/BH", "BH/BR", "BH/CC", None])
def test_queueing_formulas_match_kleinrock_on_the_graph(code):
    """Eqs (15), (18)-(20) are exact under the paper's model: per-hop uniform choice among shortest-path
    ports, M/M/1 per half-duplex link, evaluated on the explicit graph (d = 3, K = 8)."""
    d, k = 3, 8
    loads = hm.random_routing_loads(code, d, k)
    for alpha, mu_cl, mu_ncl in ((0.6, 1.5, 3.0), (0.9, 3.0, 3.0), (0.3, 3.0, 6.0)):
        if code is None:
            formula = hf.r_bh(alpha, 6, d, 1.0, mu_cl, mu_cl)
            mu_ncl = mu_cl
        else:
            formula = hf.queueing(code, alpha, d, k, 1.0, mu_cl, mu_ncl)["R"]
        got = hm.kleinrock(loads, alpha, 1.0, mu_cl, mu_ncl, 64)["R"]
        assert got == pytest.approx(formula, rel=1e-9) or (math.isinf(got) and math.isinf(formula))


@pytest.mark.parametrize("spec", ["hin:level1=bh:2,level2=bh:3", "hin:level1=bh:3,level2=bh:3,r=2",
                                  "hypercube:n=5"])
def test_symmetric_routed_loads_equal_every_pair(spec):
    """Walking only the orbit representatives of the sources (the model's XOR symmetry) gives every
    channel's load exactly as walking every pair does, on the same routing."""
    from cubenoc.sim.simulator import build_network
    topo, routing, _ = build_network(spec)
    n = 4 if spec.startswith("hypercube") else topo.cluster_size
    a, b = hm.routed_loads(routing, n), hm.routed_loads(routing, n, symmetric=True)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    np.testing.assert_array_equal(a[2].u, b[2].u)
    assert a[1].max() > a[1][a[1] > 0].min()        # not a uniform load: the orbits differ


@pytest.mark.parametrize("spec,n", [("hin:level1=bh:2,level2=ccc:2", 4), ("hin:level1=bh:3,level2=bh:3", 8)])
def test_lanes_split_from_one_lane_equal_the_walk_with_lanes(spec, n):
    """A message takes lane (source's x) mod r, so the r-lane loads follow from the one-lane walk: the same
    multiset of loads on the cluster and on the level-2 channels, and the same Kleinrock delay."""
    from cubenoc.sim.simulator import build_network
    one = hm.routed_loads(build_network(spec)[1], n)
    for lanes in (2, 3, 5):
        topo, routing, _ = build_network(f"{spec},r={lanes}")
        walked, split = hm.routed_loads(routing, n), hm.split_lanes(one, n, lanes)
        for k in (0, 1):
            for level2 in (False, True):
                np.testing.assert_allclose(np.sort(walked[k][walked[2].ncl == level2]),
                                           np.sort(split[k][split[2].ncl == level2]), rtol=1e-12)
        a = hm.kleinrock(walked, 0.8, 0.5, 3.0, 3.0, topo.num_nodes)
        assert hm.kleinrock(split, 0.8, 0.5, 3.0, 3.0, topo.num_nodes) == pytest.approx(a, rel=1e-12)


def test_symmetric_routed_loads_refuse_without_a_symmetry():
    from cubenoc.errors import CubenocError
    from cubenoc.sim.routing.hierarchical import BalancedHierarchicalRouting, LeastUsedSelector
    from cubenoc.sim.topology.hierarchical import Hierarchical, Ring
    br = Hierarchical(Hypercube(2), Ring(4))
    with pytest.raises(CubenocError, match="no translation symmetry"):
        hm.routed_loads(HierarchicalRouting(br), 4, symmetric=True)
    bb = Hierarchical(Hypercube(2), Hypercube(2))
    with pytest.raises(CubenocError, match="no translation symmetry"):
        hm.routed_loads(BalancedHierarchicalRouting(bb), 4, LeastUsedSelector().select, symmetric=True)
    with pytest.raises(CubenocError, match="no select"):
        hm.routed_loads(HierarchicalRouting(bb), 4, LeastUsedSelector().select, symmetric=True)


def test_ccc_level2_load_is_not_uniform():
    """Eq. (21) spreads the level-2 load evenly; on CCC(2) the cube links carry more, so the explicit
    graph saturates where the formula does not (alpha = 0.8, mu = 3, d = 4)."""
    f = hf.queueing("BH/CCC", 0.8, 4, 8, 1.0, 3.0, 3.0)
    assert f["util_NCL"] < 0.75 and math.isfinite(f["R"])
    got = hm.kleinrock(hm.random_routing_loads("BH/CCC", 4, 8), 0.8, 1.0, 3.0, 3.0, 128)
    assert got["max_util_NCL"] > 1.0 and math.isinf(got["R"])



def test_fig_6_ccc_finite_at_alpha_08_by_formula_only():
    """Fig. 6's network (d = 3, K = 64, D_c = 4, lam = 1, mu = 3): eq. (21) gives a finite BH/CCC delay at
    alpha = 0.8 (where the paper starts its curve); with the paper's random routing on the explicit graph a
    level-2 link is saturated there and the delay is finite only at 0.85 (docs/papers/hierarchical.md)."""
    loads = hm.random_routing_loads("BH/CCC", 3, 64)
    assert math.isinf(hf.queueing("BH/CCC", 0.75, 3, 64, 1.0, 3.0, 3.0)["R"])
    assert math.isfinite(hf.queueing("BH/CCC", 0.8, 3, 64, 1.0, 3.0, 3.0)["R"])
    at_08 = hm.kleinrock(loads, 0.8, 1.0, 3.0, 3.0, 512)
    assert at_08["max_util_NCL"] >= 1.0 and math.isinf(at_08["R"])
    assert math.isfinite(hm.kleinrock(loads, 0.85, 1.0, 3.0, 3.0, 512)["R"])

    def finite(code, alpha, explicit):
        if explicit:
            return math.isfinite(hm.kleinrock(hm.random_routing_loads(code, 3, 64), alpha, 1.0, 3.0, 3.0, 512)["R"])
        return math.isfinite(hf.queueing(code, alpha, 3, 64, 1.0, 3.0, 3.0)["R"])
    # the saturation points to 1e-4: BH/BH, BH/BR (and BH/CC, never) the same by formula and on the graph
    for code, a in (("BH/BH", 0.2617), ("BH/BR", 0.9538), ("BH/CCC", 0.8154)):
        assert finite(code, a + 1e-4, True) and not finite(code, a, True)
        assert finite(code, a, False) == (code == "BH/CCC") and finite(code, a + 1e-4, False)
    assert finite("BH/CC", 0.0, True) and finite("BH/CC", 0.0, False)

def test_p_j_accounts_for_every_outbound_message():
    for d in range(1, 8):
        for j in range(1, d + 1):
            # each source at distance >= j crosses exactly one j-level link on its way out
            total = hf.p_j(d, j) * hf.links_at_level(d, j) * 2 ** d
            assert total == pytest.approx(sum(math.comb(d, m) for m in range(j, d + 1)))


def test_paper_claims_static():
    # N = 1024, n = 16: BH/BH LP ratio < 1 even at alpha = 0 (Sec. III-A5)
    assert hf.lp_ratio("BH/BH", 0.0, 4, 64) < 1
    # as alpha -> 1, BH/BR and BH/CCC beat BH/BH (fewer level-2 links)
    lp1 = {c: hf.lp_ratio(c, 1.0, 4, 64) for c in hf.CODES}
    assert lp1["BH/BR"] < lp1["BH/BH"] and lp1["BH/CCC"] < lp1["BH/BH"]
    # for a wide range of alpha BH/BH is best
    for a in (0.0, 0.2, 0.4, 0.6, 0.8):
        assert min(hf.CODES, key=lambda c: hf.lp_ratio(c, a, 4, 64)) == "BH/BH"


def test_paper_claims_queueing():
    """Fig. 6 (BH/CCC saturates below alpha = 0.8, BH/BR at every alpha shown), Fig. 11 (knees at
    mu_NCL = 2 mu_CL for BH/BH, 8 mu_CL for BH/CCC), Sec. IV-B (94 % and 82 % on the interface links,
    delays 15.2 and 5.3 of the simulation)."""
    six = hfig.figure_6()["series"]
    ccc = {p["alpha"]: p["R"] for p in six["BH/CCC(D_c=4)"]}
    assert math.isinf(ccc[0.75]) and math.isfinite(ccc[0.8])
    assert all(math.isinf(p["R"]) for p in six["BH/BR"] if p["alpha"] < 0.95)
    f11 = hfig.figure_11()
    assert f11["BH/BH"]["knee"] == 2 and f11["BH/CCC"]["knee"] == 8
    ivb = hfig.sec_ivb(explicit=False)
    for a, (util, r_sim, _) in hf.SEC_IVB.items():
        assert round(ivb[a]["util_CL_1"], 2) == util
        assert ivb[a]["R_formula"] == pytest.approx(r_sim, abs=0.05)


def test_table_ii():
    for n, v in hfig.table_ii().items():
        assert v["counted"] == pytest.approx(v["formula"])
        assert round(v["formula"], 2) == round(v["paper"], 2)


def test_cli_table_and_json(capsys):
    assert main(["analyze", "hin", "--nodes", "128", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    nets = {r["network"]: r for r in data["networks"]}
    assert nets["BH/BH"]["L"] == 268 and nets["BH(7)"]["L"] == 448
    assert nets["BH/BR"]["R"] is None                     # saturated -> null
    assert main(["analyze", "hin", "--level1", "bh:2", "--level2", "ccc:2", "--explicit"]) == 0
    out = capsys.readouterr().out
    assert "BH/CCC(D_c=2)" in out and "P_bfs" in out


def test_cli_figure_and_plot(tmp_path, capsys):
    assert main(["analyze", "hin", "--figure", "11"]) == 0
    assert "BH/CCC: smallest LR ratio at mu_NCL = 8 mu_CL" in capsys.readouterr().out
    png = tmp_path / "f.png"
    assert main(["analyze", "hin", "--nodes", "128", "--plot", str(png)]) == 0
    assert png.stat().st_size > 1000


@pytest.mark.parametrize("argv,msg", [
    (["--level2", "torus"], "level2 must be a comma list"),
    (["--level2", "ccc", "--nodes", "256"], "no CCC has 16 nodes"),
    (["--nodes", "100"], "multiple of the cluster size 16"),
    (["--alpha", "1.5"], "alpha must be in 0..1"),
    (["--level1", "br:4"], "level1 must be one of bh, cc"),
    (["--replication", "2", "--mu-ncl", "5"], "either --replication"),
    (["--level2", "br:6", "--level1", "bh:2"], "power-of-two number of clusters"),
])
def test_cli_bad_input_exits_2(argv, msg, capsys):
    assert main(["analyze", "hin", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and msg in err[0]


def test_reference_is_the_bh():
    assert isinstance(hm.build(None, 3, 8), Hypercube) and hm.build(None, 3, 8).n == 6


def test_the_saturation_footnote_only_when_a_row_saturates(capsys):
    """``R = inf`` is explained under the table only when some R is infinite."""
    from cubenoc.cli import main
    assert main(["analyze", "hin", "--level2", "bh"]) == 0
    out = capsys.readouterr().out
    assert " inf " not in out and "R = inf" not in out
    assert main(["analyze", "hin", "--level2", "br"]) == 0
    out = capsys.readouterr().out
    assert "inf" in out.split("R = inf")[0] and "R = inf: some link saturated" in out


def test_the_flat_reference_says_it_has_no_level_2_links(capsys):
    from cubenoc.cli import main
    assert main(["analyze", "hin", "--level2", "bh", "--mu-ncl", "6"]) == 0
    out = capsys.readouterr().out
    assert "BH(10): the flat reference has no level-2 links; all its links serve at mu_CL = 3.0" in out
    assert main(["analyze", "hin", "--level2", "bh"]) == 0
    assert "flat reference" not in capsys.readouterr().out


def test_enhanced_figure_titles_name_the_measure(capsys):
    from cubenoc.cli import main
    for fig, measure in ((6, "minimum D_mean"), (7, "minimum TD_r"), (8, "minimum TD_r")):
        assert main(["analyze", "enhanced", "--figure", str(fig)]) == 0
        assert capsys.readouterr().out.splitlines()[0].startswith(f"Fig. {fig}: {measure}")


@pytest.mark.parametrize("iface", [0, 3, 5, 6])
def test_the_path_length_formula_holds_whatever_node_is_the_interface(iface):
    """Eq. (7)'s P (Dandamudi and Eager) does not depend on which node of a BH(d) cluster is its interface
    node: on explicit BH(3)/BH(2) graphs with the level-2 links at node ``iface`` of every cluster, the BFS
    mean distances within and between clusters give the formula's P for every alpha."""
    import networkx as nx

    from cubenoc.sim.analysis.hierarchical_formulas import p_hin
    d, m = 3, 2
    g = nx.Graph()
    for c in range(2 ** m):
        g.add_edges_from(((c, v), (c, v ^ 1 << i)) for v in range(2 ** d) for i in range(d))
        g.add_edges_from(((c, iface), (c ^ 1 << j, iface)) for j in range(m))
    dist = dict(nx.all_pairs_shortest_path_length(g))
    nodes = list(g)
    intra = [dist[a][b] for a in nodes for b in nodes if a[0] == b[0]]
    inter = [dist[a][b] for a in nodes for b in nodes if a[0] != b[0]]
    for alpha in (0.0, 0.5, 0.8, 1.0):
        p = alpha * sum(intra) / len(intra) + (1 - alpha) * sum(inter) / len(inter)
        assert p == pytest.approx(p_hin("BH/BH", alpha, d, 2 ** m))
