"""The simulated figures of the papers' studies are what ``cubenoc simulate --study N`` prints: the
hierarchical-network page's Figs 8, 9 and 12 (docs/papers/hierarchical.md) and the traffic-density table
of docs/simulator.md: rows of each table are rerun at the page's size (the study's own
parameters) and every number of the row, and the ratios the text quotes, must equal the page's within 0.01
(the page rounds to two decimals). A figure that goes stale fails here."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from cubenoc.sim import sim_studies as St

PAGE = Path(__file__).resolve().parents[1] / "docs" / "papers" / "hierarchical.md"
TOL = 0.01


def page_table(figure: str) -> list[list[str]]:
    """The rows of the table that follows ``**Fig. <figure> (`` on the page."""
    text = PAGE.read_text()
    part = text.split(f"**Fig. {figure} (", 1)[1]
    lines = part[part.index("\n|"):].strip("\n").splitlines()
    rows = []
    for line in lines[2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


def row_for(rows, network_prefix: str | None, alpha: float, routing: str | None = None) -> list[str]:
    last = None
    for r in rows:
        if r[0]:
            last = r[0]
        if routing is None and last.startswith(network_prefix) and float(r[1]) == alpha:
            return r
        if routing is not None and float(r[0]) == alpha and r[1] == routing:
            return r
    raise AssertionError(f"no row {network_prefix or routing} alpha {alpha} on the page")


def close(page_cell: str, value: float) -> bool:
    return abs(float(page_cell) - value) <= TOL + 1e-9


@pytest.mark.parametrize("d,K,name,alpha", [(3, 8, "BH(6)", 0.5), (2, 2, "BH(3)", 1.0)])
def test_fig_8_rows_equal_the_study(d, K, name, alpha):
    r = St.figure_8(alphas=(alpha,))[0 if d == 3 else 1]
    row = row_for(page_table("8"), name, alpha)
    for cell, key in zip(row[2:], ("R_paper", "Q_paper", "Q_model", "Q_sim", "sim_network_latency", "source_wait")):
        assert close(cell, r[key]), (name, alpha, key, cell, r[key])


@pytest.mark.slow
def test_fig_9_and_12_rows_and_the_quoted_ratios_equal_the_study():
    """BH(3)/BH(3) at alpha 0.5 and 0.6 (the rows the text quotes): e-cube (Fig. 9 and Fig. 12) and the
    run-time least-used selection (Fig. 12); the text's "from X to Y cycles (ratio R" for both alphas."""
    text = PAGE.read_text()
    fig9, fig12 = page_table("9"), page_table("12")
    for alpha in (0.5, 0.6):
        ecube, least = St.hin_routing(alphas=(alpha,), routings=("ecube", "least_used"))
        row = row_for(fig9, "BH(3)/BH(3)", alpha)
        for cell, key in zip(row[2:], ("R_paper", "Q_paper", "Q_model", "Q_sim", "sim_network_latency",
                                       "max_util_ours", "source_wait")):
            assert close(cell, ecube[key]), ("Fig. 9", alpha, key, cell, ecube[key])
        for r, label in ((ecube, "e-cube"), (least, "least used (run time)")):
            row = row_for(fig12, None, alpha, label)
            for cell, key in zip(row[2:], ("Q_model", "Q_sim", "sim_network_latency", "source_wait")):
                assert close(cell.strip("*"), r[key]), ("Fig. 12", alpha, label, key, cell, r[key])
        quoted = f"{ecube['Q_sim']:.1f} to {least['Q_sim']:.1f} cycles (ratio {least['Q_sim'] / ecube['Q_sim']:.2f}" \
            if alpha == 0.5 else f"{ecube['Q_sim']:.1f} to {least['Q_sim']:.1f} ({least['Q_sim'] / ecube['Q_sim']:.2f}"
        assert quoted in re.sub(r"\s+", " ", text), quoted


def test_traffic_density_row_equals_the_study():
    """docs/simulator.md's traffic-density table (``cubenoc simulate --study density``), row k = 1, g = 2:
    Tzeng and Wei's eqs (6)-(7) and the measured densities, within 0.001 (the page rounds to three)."""
    page = (PAGE.parents[1] / "simulator.md").read_text()
    row = next(line for line in page.splitlines() if line.startswith("| k=1, g=2 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    figures = [float(x) for c in cells[1:4] for x in c.split(" / ")]
    r = St.enhanced_density(6, 1, 2.0, 0.1)
    values = [r[k] for k in ("TD_s", "eq6_TD_s", "TD_r", "eq7_TD_r", "TD_r_max", "TD_r_max_formula")]
    assert all(abs(f - v) <= 0.001 + 1e-9 for f, v in zip(figures, values)), (figures, values)


@pytest.mark.slow
def test_every_row_of_figs_8_9_and_12_equals_the_study():
    """All rows of the three tables (the fast tests above rerun the rows the text quotes): ~1 min."""
    names8 = {"Hypercube(n=6)": "BH(6)", "Hypercube(n=3)": "BH(3)"}
    for r in St.figure_8():
        row = row_for(page_table("8"), names8[r["network"]], r["alpha"])
        for cell, key in zip(row[2:], ("R_paper", "Q_paper", "Q_model", "Q_sim", "sim_network_latency", "source_wait")):
            assert close(cell, r[key]), ("Fig. 8", r["network"], r["alpha"], key)
    for r in St.figure_9():
        name = "BH(3)/BH(3)" if "level1=Hypercube(n=3)" in r["network"] else "BH(2)/BH(1)"
        row = row_for(page_table("9"), name, r["alpha"])
        for cell, key in zip(row[2:], ("R_paper", "Q_paper", "Q_model", "Q_sim", "sim_network_latency",
                                       "max_util_ours", "source_wait")):
            assert close(cell, r[key]), ("Fig. 9", name, r["alpha"], key)
    labels = {"ecube": "e-cube", "balanced": "balanced, fixed pick", "least_used": "least used (run time)"}
    for r in St.hin_routing():
        row = row_for(page_table("12"), None, r["alpha"], labels[r["routing"]])
        assert close(row[2], r["Q_model"])
        if r["saturated"]:
            assert row[3] == "saturated"
        else:
            for cell, key in zip(row[3:], ("Q_sim", "sim_network_latency", "source_wait")):
                assert close(cell.strip("*"), r[key]), ("Fig. 12", r["routing"], r["alpha"], key)
