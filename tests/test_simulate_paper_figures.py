"""Dandamudi & Eager's simulated figures at the paper's parameters (delay against N, Figs. 11-12), on the
cycle-accurate model at a small size: the queueing analysis beside the simulation, the paper's curve beside
ours in the plot, and the study list."""
import math

import pytest

from cubenoc.cli import main
from cubenoc.sim import sim_studies as St
from cubenoc.sim.analysis import hierarchical_formulas as H
from cubenoc.sim.analysis import hierarchical_measure as HM
from cubenoc.sim.simulator import build_network
from cubenoc.sim.study_plots import plot_study

SHORT = {"warmup": 300, "measure": 1500}


def test_fig_8b_delay_against_n_small():
    rows = St.figure_8b(sizes=(5,), ds=(2,), **SHORT)
    r = rows[0]
    assert not r["saturated"] and r["network"] == "BH(5)"
    # the paper's curve at its own lambda = 1, mu = 1: Kleinrock's formula on the explicit BH(5)
    _topo, routing, _ = build_network("hypercube:n=5")
    loads = HM.routed_loads(routing, 4)
    assert r["R_paper_own_lambda"] == pytest.approx(HM.kleinrock(loads, 0.8, 1.0, 1.0, 1.0, 32)["R"], rel=1e-9)
    assert r["Q_sim"] == pytest.approx(r["Q_model"], rel=0.3)


def test_fig_11_paper_knee_and_fig_12_quoted_values():
    # the paper's D = 15 LR ratios have their knee at mu_NCL = 2 mu_CL (Sec. IV-A), as the text says
    lr = [H.lr_ratio("BH/BH", 0.8, 4, 2 ** 11, 1.0, 3.0, i * 3.0, replication=i) for i in (1, 2, 3, 4)]
    assert min(range(4), key=lambda i: lr[i]) == 1
    rows = St.figure_12(alphas=(0.8,), sizes=((2, 2),), routings=("ecube",), **SHORT)
    r = rows[0]
    assert r["network"] == "BH(2)/BH(1)" and r["R_paper_quoted"] is None and not r["saturated"]
    assert r["Q_sim_units"] == pytest.approx(r["Q_sim"] / r["T"]) and r["T"] == 12
    assert St.PAPER_FIG12[(0.5, "random")] == 15.2


def test_study_plot_and_list(tmp_path, capsys):
    rows = St.figure_8b(sizes=(5,), ds=(2,), **SHORT)
    path = tmp_path / "f.png"
    plot_study("fig8b", rows, str(path))
    assert path.stat().st_size > 10000
    assert main(["simulate", "--study", "list"]) == 0
    out = capsys.readouterr().out
    for name in ("fig8b", "fig9b", "fig11", "fig11-d15", "fig12", "density"):
        assert name in out
    assert main(["simulate", "--study", "fig99"]) == 2
    assert capsys.readouterr().err.startswith("cubenoc: error: unknown study")
    assert not math.isnan(rows[0]["Q_sim"])


@pytest.mark.slow
def test_fig_11_at_d15_runs_on_the_symmetric_tables():
    """Fig. 11 at the paper's D = 15: the 32,768-node BH(4)/BH(11) model is built from one route row per
    node position (16 rows; the generic table would need 32,768 x 2^16 entries) -- the study itself
    (`--study fig11-d15`, about 4 min) is run here at D = 6 with the same code."""
    from cubenoc.sim.router_config import RouterConfig
    from cubenoc.sim.simulator import model_for
    model, _ = model_for("hin:d=4,level2=bh,size=11,r=2", RouterConfig(fifo_depth=64))
    assert model.num_nodes == 2 ** 15 and model.tables.route.shape[0] == 16
    nports = model.tables.nports
    assert sorted(set(nports.tolist())) == [5, 5 + 2 * 11]      # 4 cube ports + local; interface + 11 x 2 lanes
    assert (nports == 27).sum() == 2 ** 11                        # one interface node per cluster

    rows = St.figure_11_d15(ratios=(1, 2, 4), D=6, up_to=4, warmup=200, measure=1000, zero_measure=1000)
    assert [r["network"] for r in rows] == ["BH(4)/BH(2)"] * 4 and [r["replication"] for r in rows] == [1, 2, 3, 4]
    assert [r["simulated"] for r in rows] == [True, True, False, True] and rows[2]["LR_sim"] is None
    # Kleinrock on our routes (from the 16 orbit representatives, every lane count split from the one-lane
    # walk) is the every-pair walk's of each network
    for r in rows:
        _t, routing, _ = build_network(f"hin:level1=bh:4,level2=bh:2,r={r['replication']}")
        every = HM.kleinrock(HM.routed_loads(routing, 16), 0.8, 1.0, 3.0, 3.0, 64)["R"]
        assert r["R_ours_kleinrock"] == pytest.approx(every * r["T"], rel=1e-12)
        assert math.isfinite(r["Q_model"]) and r["Q_model"] > 0
        assert not r["saturated"]
        assert r["LR_paper"] == pytest.approx(H.lr_ratio("BH/BH", 0.8, 4, 4, 1.0, 3.0, 3.0 * r["replication"],
                                                         replication=r["replication"]))
    # link counts by hand: 4 clusters of BH(4) (32 links each) + 2 x 4 / 2 = 4 level-2 edges per lane
    links = {1: 4 * 32 + 4, 2: 4 * 32 + 8}
    a, b = rows[:2]
    assert a["LR_sim"] / b["LR_sim"] == pytest.approx(
        links[1] * a["sim_network_latency"] / (links[2] * b["sim_network_latency"]))
    assert 0.5 < b["LR_sim"] < 2


def test_fig_11_d15_bh_ccc_rows_small():
    """The BH/CCC rows of `--study fig11-d15` at D = 7 (BH(4)/CCC(2), 128 nodes, the same code): the
    paper's eq. (21) LR beside the simulated one, the links by hand, and saturation where Kleinrock on our
    routes puts a channel at or beyond its capacity. The D = 15 tables (128 route rows: node position x
    cycle position) are built too."""
    from cubenoc.sim.router_config import RouterConfig
    from cubenoc.sim.simulator import model_for
    model, _ = model_for("hin:level1=bh:4,level2=ccc:8,r=1", RouterConfig(fifo_depth=64))
    assert model.num_nodes == 2 ** 15 and model.tables.route.shape[0] == 16 * 8
    assert sorted(set(model.tables.nports.tolist())) == [5, 4 + 3 + 1] and model.routing.num_vcs == 3

    rows = St.figure_11_d15(ratios=(1,), D=7, ccc_ratios=(1, 2, 3), up_to=3, warmup=200, measure=1000, zero_measure=1000)
    ccc = [r for r in rows if r["network"] == "BH(4)/CCC(2)"]
    assert [r["replication"] for r in ccc] == [1, 2, 3] and rows[0]["network"] == "BH(4)/BH(3)"
    for r in ccc:
        i = r["replication"]
        assert r["L"] == 8 * 32 + 12 * i                     # 8 clusters of BH(4); CCC(2): 12 links per lane
        assert r["LR_paper"] == pytest.approx(H.lr_ratio("BH/CCC", 0.8, 4, 8, 1.0, 3.0, 3.0 * i, replication=i))
        if r["max_util_ours"] >= 1:
            assert r["saturated"] and math.isinf(r["LR_kleinrock"])
        if not r["saturated"]:
            assert math.isfinite(r["LR_sim"]) and r["max_util_ours"] < 1
    # one lane: the sweep's busiest level-2 channel is beyond capacity on our routes (the paper's eq. 21
    # spreads the level-2 load evenly and stays finite); two lanes bring it below capacity, and it drains
    assert ccc[0]["max_util_ours"] > 1 and math.isfinite(ccc[0]["LR_paper"])
    assert ccc[1]["max_util_ours"] < 1 and not ccc[1]["saturated"] and math.isfinite(ccc[1]["LR_kleinrock"])


def test_fig_11_d15_plot_has_both_networks(tmp_path):
    rows = [{"network": net, "replication": i, "LR_sim": 0.5 + i / 10, "LR_kleinrock": 0.4 + i / 10,
             "saturated": i == 1} for net in ("BH(4)/BH(11)", "BH(4)/CCC(8)") for i in (1, 2, 3)]
    path = tmp_path / "f.png"
    plot_study("fig11-d15", rows, str(path))
    assert path.stat().st_size > 10000


@pytest.mark.slow
def test_fig_11_d15_knee_holds_in_simulation():
    """The BH/BH half of `--study fig11-d15` (32,768 nodes, about 4 min): the paper's knee (Sec. IV-A: the LR ratio
    is smallest at mu_NCL = 2 mu_CL) on the model -- one lane saturates or costs more, three and four cost
    more than two."""
    rows = {r["replication"]: r for r in St.figure_11_d15(ccc_ratios=())}
    two = rows[2]["LR_sim"]
    assert not rows[2]["saturated"] and math.isfinite(two)
    assert rows[1]["saturated"] or rows[1]["LR_sim"] > two
    assert rows[3]["LR_sim"] > two and rows[4]["LR_sim"] > two
    # and in the paper's own M/M/1 model on our routes (Kleinrock, from the 16 orbit representatives)
    assert min(rows, key=lambda i: rows[i]["LR_kleinrock"]) == 2


@pytest.mark.slow
def test_fig_11_d15_bh_ccc_saturates_where_our_routes_overload_and_drains_at_16_lanes():
    """BH(4)/CCC(8) at D = 15 with 6 and 16 lanes (about 10 min, 7 GB): the interface router has 4 + 3i + 1
    ports of 3 VCs, 69 and 159 (port, VC) pairs, two and three of the model's request words. With 6 lanes
    (the 16 sources of a cluster split 3/3/3/3/2/2) the busiest lane is beyond capacity on the
    sweep-then-return routes although the paper's eq. (21) is finite, and the model saturates; with 16 (one
    source a lane) every channel is below capacity and the model drains."""
    six, sixteen = St.figure_11_d15(ratios=(), ccc_ratios=(6, 16), up_to=0)
    assert [r["replication"] for r in (six, sixteen)] == [6, 16] and six["network"] == "BH(4)/CCC(8)"
    assert math.isfinite(six["LR_paper"]) and six["max_util_ours"] > 1 and math.isinf(six["LR_kleinrock"])
    assert six["saturated"]
    assert sixteen["max_util_ours"] < 1 and not sixteen["saturated"]
    assert math.isfinite(sixteen["LR_sim"]) and sixteen["sim_network_latency"] > sixteen["sim_zero_load"]
