"""Numbers the papers' pages quote are held to the computation that produces them: a page that says a
figure and a command that prints another fail here (docs/papers/*.md)."""
from __future__ import annotations

from pathlib import Path

import pytest

PAPERS = Path(__file__).resolve().parents[1] / "docs" / "papers"


def _page(name: str) -> str:
    return " ".join((PAPERS / name).read_text().split())         # one line: quotes may wrap


def test_fig_12_formula_delays():
    """Dandamudi and Eager, Fig. 12 (BH(3)/BH(3), mu_CL = 1.5, mu_NCL = 3, lam = 1): the formula's queueing
    delay Q = R - R(lam -> 0) in time units at alpha = 0.5 / 0.6, and the paper's own 15.2 / 5.3 less R(0)."""
    from cubenoc.sim.analysis import hierarchical_formulas as H
    from cubenoc.sim.sim_studies import PAPER_FIG12
    q, quoted = [], []
    for alpha in (0.5, 0.6):
        r0 = H.queueing("BH/BH", alpha, 3, 8, 1e-12, 1.5, 3.0)["R"]
        q.append(H.queueing("BH/BH", alpha, 3, 8, 1.0, 1.5, 3.0)["R"] - r0)
        quoted.append(PAPER_FIG12[alpha, "random"] - r0)
    page = _page("hierarchical.md")
    assert f"{q[0]:.2f} / {q[1]:.2f}" in page and f"({quoted[0]:.2f} / {quoted[1]:.2f}, `Q_paper_quoted`)" in page
    assert "to 0.03 unit" in page and round(max(abs(a - b) for a, b in zip(q, quoted)), 2) == 0.03


def test_metacube_deadlock_cycle_lengths():
    """Li, Peng and Chu: the one-VC cycle lengths the checker reports, for the full and the shortest variant."""
    from cubenoc.sim.analysis.metacube import deadlock_summary
    rows = deadlock_summary()["checker"]
    length = {(r["k"], r["m"]): {x["cycle_length"] for x in rows if (x["k"], x["m"]) == (r["k"], r["m"])
                                 and x["num_vcs"] == 1} for r in rows}
    assert all(len(v) == 1 for v in length.values())           # both variants alike
    quote = (f"length {min(length[1, 1])} on MC(1,1), {min(length[1, 2])} on MC(1,2) and {min(length[2, 1])} on "
             "MC(2,1), for the full and the shortest variant alike")
    assert quote in _page("metacube.md")


def test_pdn_bit_reversal_orders():
    from cubenoc.sim.broadcast.pdn_product import orders_in_m_rounds
    (g4, t4, ex4), (g5, t5, _) = orders_in_m_rounds(4), orders_in_m_rounds(5)
    assert (f"{g4} of the {t4} orders for m = 4 (e.g. {', '.join(map(str, ex4))}) and {g5} of the {t5} for m = 5"
            in _page("pdn.md"))


def test_safety_capture_and_safe_neighbour():
    """Wu, the claims cited from his safety-level paper, as docs/papers/safety.md quotes them."""
    from cubenoc.sim.analysis.safety_claims import r_node_capture, safe_neighbour
    rows = r_node_capture()
    lo, hi = min(r["captured"] for r in rows), max(r["captured"] for r in rows)
    worst = min(rows, key=lambda r: r["worst_captured"])
    page = _page("safety.md")
    assert f"{100 * lo:.1f}-{100 * hi:.2f} % over all counts" in page
    assert f"the lowest is {100 * worst['worst_captured']:.1f} % (n = {worst['n']}, {worst['worst_faults']} faults)" in page
    n5 = next(r for r in safe_neighbour() if r["n"] == 5)
    assert f"({n5['fault_sets']:,} sets at n = 5)" in page and n5["verdict"] == "holds"


@pytest.mark.slow
def test_fig_8b_model_to_simulation_gap():
    """Dandamudi and Eager, Fig. 8(b) on the model (a few seconds): the gaps docs/papers/hierarchical.md quotes."""
    from cubenoc.sim import sim_studies as St
    rows = St.figure_8b()
    gap = {(r["d"], r["log2N"]): r["Q_sim"] - r["Q_model"] for r in rows}
    page = _page("hierarchical.md")
    assert max(abs(gap[3, 5]), abs(gap[3, 6])) <= 0.3 and "within 0.3 cycle" in page
    assert f"0.01 at 32 nodes, {gap[2, 6]:.2f} at 64" in page and abs(gap[2, 5]) <= 0.015
    assert f"falls {gap[3, 8]:.1f} cycles" in page
