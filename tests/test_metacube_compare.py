"""Li, Peng & Chu, metacube, Sec. 1: MC against CCC, HCN, RH and the Origin2000 fat hypercube; the
comparison networks' published formulas against BFS, and the paper's sentences against ours."""
from cubenoc.cli import main
from cubenoc.sim.analysis import metacube_compare as C


def test_comparison_formulas_match_bfs():
    for r in C.explicit_checks():
        assert r["nodes"] == r["formula_nodes"], r
        if r["formula_diameter"] is not None:
            assert r["diameter"] == r["formula_diameter"], r
    rows = {r["network"]: r for r in C.explicit_checks()}
    assert rows["HCN(4,4)"]["degree"] == 5 and rows["RH(4,2)"]["degree"] == 5
    assert rows["Origin2000 (routers)"]["degree"] == 6     # 3 cube links + 1 CrayLink + 2 node links


def test_equal_degree_sizes():
    rows = {r["degree"]: r for r in C.equal_degree()}
    assert C.mc_size(2, 3) == 16384 and C.mc_size(3, 3) == 2 ** 27        # the paper's two examples
    assert rows[5]["HCN_nodes"] == 256 < 16384                               # "much larger than HCN"
    # the largest RH at d links, RH(d-1, d-1), has 2^(d-1 + 2^(d-1)) nodes, as many as MC(d-1, 1)
    for d, r in rows.items():
        assert r["RH_nodes"] == 2 ** (d - 1 + 2 ** (d - 1)) == C.mc_size(d - 1, 1) == r["MC_nodes"]


def test_paper_sentences():
    claims = {r["claim"]: r for r in C.paper_claims()}
    assert claims["Origin2000: 1024 = 2^5 x 2^3 x 4 processors, 8 CrayRouters, 256 routers of 6 links"]["verdict"] == "holds"
    assert C.hcn_diameter(4) / 8 == 0.75 and C.hcn_diameter(32) / 64 < 0.7
    assert C.mc_diameter(2, 1) == C.ccc_diameter(4) == 8


def test_cli_compare(capsys):
    assert main(["analyze", "metacube", "--peers"]) == 0
    assert "Origin2000" in capsys.readouterr().out
