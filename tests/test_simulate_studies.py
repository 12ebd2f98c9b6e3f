"""The papers' studies on the model: Tzeng and Wei eqs (6)-(7) per link class, Dandamudi and Eager queueing validation."""
import pytest

from cubenoc.sim import sim_studies as St
from cubenoc.sim.analysis import enhanced_formulas as E
from cubenoc.sim.analysis import hierarchical_formulas as H
from cubenoc.sim.simulator import SimConfig, simulate_point


@pytest.mark.parametrize("k,g", [(0, 2.0), (1, 1.0), (2, 2.0)])
def test_measured_traffic_density_matches_eqs_6_7(k, g):
    r = St.enhanced_density(6, k, g, 0.1, SimConfig(warmup=300, measure=3000, drain=2000))
    assert r["TD_s"] == pytest.approx(r["eq6_TD_s"], rel=0.04)
    assert r["TD_r"] == pytest.approx(r["eq7_TD_r"], rel=0.02)
    assert r["TD_r_max"] == pytest.approx(r["TD_r_max_formula"], rel=0.04)


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_the_skip_is_never_the_bottleneck(k):
    """Tzeng and Wei's claim, measured: under uniform traffic up to high load the busiest skip channel carries
    no more than the busiest regular channel (k = 0: equal by symmetry, up to noise)."""
    for rate in (0.2, 0.5):
        r = St.enhanced_density(6, k, 1.0, rate, SimConfig(warmup=300, measure=3000, drain=3000))
        assert not r["saturated"]
        assert r["util_skip_max"] <= r["util_regular_max"] * (1.05 if k == 0 else 1.0)
        if k:
            assert r["TD_s"] < r["TD_r"]
    # and by the formulas for every n <= 12 and k, g in {1, 2, 4}
    for n in range(3, 13):
        for kk in range(0, n - 1):
            for gg in (1.0, 2.0, 4.0):
                assert E.td_skip(n, kk, gg) <= E.td_regular_max(n, kk, gg) + 1e-12


def test_hin_alpha_traffic_mean_distance_is_the_papers_P():
    """The alpha traffic on BH(6) and BH(3)/BH(3): measured mean hops = eq. (5) / eq. (8)."""
    for spec, P in (("hypercube:n=6", H.p_bh(0.7, 6, 3)), ("hin:d=3,level2=bh,size=3", H.p_hin("BH/BH", 0.7, 3, 8))):
        cfg = SimConfig(warmup=200, measure=4000, drain=2000, traffic="alpha",
                        traffic_args={"alpha": 0.7, "cluster_size": 8})
        assert simulate_point(spec, 0.1, cfg).hops_mean == pytest.approx(P, rel=0.02)


def test_fig_8_queueing_validation_bh():
    """Fig. 8 mapped onto cycles: the M/M/1 waits (Kleinrock, on our routes) plus the ejection port's
    Pollaczek-Khinchine wait predict the simulated queueing delay of BH(6) within 15 %; the paper's R
    equals Kleinrock on our e-cube routes for BH (the loads are uniform)."""
    r = St.hin_delay(None, 3, 8, 0.8, 0.375, 0.75, 0.75, warmup=1000, measure=10000)
    assert r["R_paper"] == pytest.approx(r["R_ours_kleinrock"], rel=1e-9)
    assert not r["saturated"]
    assert r["Q_sim"] == pytest.approx(r["Q_model"], rel=0.15)
    assert r["source_wait"] == pytest.approx(St.port_wait(r["offered"], 8, 64), rel=0.15)


def test_study_command_says_it_runs_and_explains_its_columns(monkeypatch, capsys):
    """``simulate --study 12`` says on stderr that it runs (it takes minutes) and prints a legend under its wide
    table (the study itself replaced by one row here)."""
    import cubenoc.sim.sim_studies as St
    from cubenoc.cli import main
    row = {"network": "BH/BH", "alpha": 0.5, "offered": 0.17, "R_paper": 30.0, "Q_paper": 5.0,
           "R_ours_kleinrock": 31.0, "Q_model": 6.0, "Q_sim": 6.5, "sim_network_latency": 20.0, "source_wait": 1.0,
           "saturated": False, "routing": "least_used"}
    monkeypatch.setattr(St, "hin_routing", lambda: [row])
    assert main(["simulate", "--study", "12"]) == 0
    out = capsys.readouterr()
    assert "simulate --study 12: the paper's points on the model" in out.err
    assert "columns:" in out.out
    assert "  Q_sim: simulated network latency minus the simulated zero-load latency" in out.out


def test_study_shows_the_point_it_runs(monkeypatch):
    """A study's points take minutes each at the paper's sizes: ``simulate --study`` shows the one now
    running beside the elapsed time (``on_point`` feeds the CLI's status line; cleared afterwards)."""
    from cubenoc.cli import main
    from cubenoc.outputs import working
    seen = []

    def study():
        St.on_point("stand-in")
        seen.append(St.on_point.__self__.bar.desc)
        return []
    monkeypatch.setattr(St, "hin_routing", study)
    assert main(["simulate", "--study", "fig12-scaled", "--quiet"]) == 0
    assert seen == ["simulate --study fig12-scaled [stand-in]"] and St.on_point is None
    with working("x", quiet=True) as w:
        St.on_point = w.status
        try:
            St.hin_delay("BH/BH", 2, 2, 0.8, 0.3, 1.5, 3.0, warmup=50, measure=200, zero_measure=200)
        finally:
            St.on_point = None
        assert w.bar.desc == "x [hin:level1=bh:2,level2=bh:1,r=2, alpha 0.8, lam 0.3]"
