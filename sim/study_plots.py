"""Tables and plots of the papers' simulation studies (:mod:`.sim_studies`): the paper's curve (its
formula, or the values it quotes) beside ours (the cycle-accurate model), every curve labelled."""
from __future__ import annotations

import math

from .analysis.hierarchical_figures import figure_11
from .plotting import pyplot

_HIN = ["network", "alpha", "offered", "R_paper", "Q_paper", "R_ours_kleinrock", "Q_model", "Q_sim",
        "sim_network_latency", "source_wait", "saturated"]

#: the table columns of each study
COLUMNS = {
    "density": ["k", "g", "TD_s", "eq6_TD_s", "TD_r", "eq7_TD_r", "TD_r_max", "TD_r_max_formula",
                "util_skip_max", "util_regular_max"],
    "fig8a": _HIN, "fig9a": _HIN,
    "fig8b": ["network", "d", "log2N", "R_paper_own_lambda", "offered", "R_paper", "Q_paper", "Q_model", "Q_sim",
              "sim_network_latency", "saturated"],
    "fig9b": ["network", "d", "log2N", "mu_CL", "mu_NCL_paper", "R_paper_own_lambda", "offered", "Q_paper",
              "Q_model", "Q_sim", "sim_network_latency", "saturated"],
    "fig11-d6": _HIN + ["replication", "LR_paper", "LR_sim"],
    "fig11": ["network", "replication", "offered", "Q_paper", "Q_model", "Q_sim", "saturated", "LR_paper", "LR_sim",
              "LR_paper_D15"],
    "fig11-d15": ["network", "replication", "offered", "R_paper", "Q_paper", "Q_model", "max_util_ours",
                  "sim_network_latency", "sim_zero_load", "Q_sim", "saturated", "LR_paper", "LR_kleinrock", "LR_sim"],
    "fig12-scaled": _HIN + ["routing"],
    "hin-levels": ["network", "levels", "traffic", "L", "P", "P_routed", "R", "LP_ratio", "LR_ratio", "offered",
                   "sim_hops", "sim_network_latency", "sim_link_util_max", "saturated"],
    "fig12": ["network", "alpha", "routing", "offered", "R_paper", "R_paper_quoted", "Q_paper_units",
              "Q_paper_quoted", "Q_sim_units", "R_sim_units", "source_wait", "saturated"],
}


def _finite(v):
    return v if v is not None and math.isfinite(v) else math.nan


def _series(key_rows, x, y):
    pts = sorted((r[x], _finite(r[y])) for r in key_rows)
    return [p[0] for p in pts], [p[1] for p in pts]


def _group(rows, by):
    out: dict = {}
    for r in rows:
        out.setdefault(tuple(r[b] for b in by), []).append(r)
    return out


def _density(ax, rows: list[dict], name: str) -> None:
    """Tzeng and Wei: traffic densities TD_s and TD_r against k, the paper's equations beside ours."""
    for g, rs in _group(rows, ["g"]).items():
        ax.plot(*_series(rs, "k", "eq6_TD_s"), "-", label=f"TD_s eq. (6), g = {g[0]:g} (paper)")
        ax.plot(*_series(rs, "k", "TD_s"), "o--", label=f"TD_s simulated, g = {g[0]:g}")
        ax.plot(*_series(rs, "k", "eq7_TD_r"), "-", label=f"TD_r eq. (7), g = {g[0]:g} (paper)")
        ax.plot(*_series(rs, "k", "TD_r"), "s--", label=f"TD_r simulated, g = {g[0]:g}")
    ax.set_xlabel("k")
    ax.set_ylabel("traffic density (messages per link per unit time)")


def _queueing(ax, rs, x: str, paper: str | None, label: str) -> None:
    """The three queueing delays of the hierarchical studies against ``x``: the paper's formula (labelled
    ``paper``; none when None), M/M/1 on our routes, simulated."""
    if paper:
        ax.plot(*_series(rs, x, "Q_paper"), "-", label=paper)
    ax.plot(*_series(rs, x, "Q_model"), ":", label=f"{label}: M/M/1 on our routes + ports")
    ax.plot(*_series(rs, x, "Q_sim"), "o--", label=f"{label}: simulated")


def _alpha_curves(ax, rows: list[dict], name: str) -> None:
    """Queueing delay against locality alpha (Dandamudi and Eager Figs. 8a, 9a; Fig. 12 scaled)."""
    keys = ["network", "routing"] if name == "fig12-scaled" else ["network"]
    for key, rs in _group(rows, keys).items():
        paper = f"{key[0]}: paper, M/M/1 formula" if name != "fig12-scaled" or key[1] == "ecube" else None
        _queueing(ax, rs, "alpha", paper, " ".join(map(str, key)))
    ax.set_xlabel("alpha (locality)")
    ax.set_ylabel("queueing delay (cycles)")


def _size_curves(ax, rows: list[dict], name: str) -> None:
    """Queueing delay against network size (Figs. 8b, 9b), the paper's R on the right axis."""
    ax2 = ax.twinx()
    for key, rs in _group(rows, ["d"]).items():
        _queueing(ax, rs, "log2N", f"d = {key[0]}: paper's formula at our lambda", f"d = {key[0]}")
        ax2.plot(*_series(rs, "log2N", "R_paper_own_lambda"), "x-." if key[0] == 3 else "+-.", color="grey",
                 label=f"d = {key[0]}: paper, R at lambda = 1 (right axis, time units)")
    ax.set_xlabel("log2 N")
    ax.set_ylabel("queueing delay (cycles)")
    ax2.set_ylabel("paper's R at its own lambda (time units)")
    ax2.legend(loc="lower right", fontsize=7)


def _fig11_d15(ax, rows: list[dict], name: str) -> None:
    """Both networks' LR ratio against the level-2 lanes: the paper's whole curves, ours where the model runs."""
    paper = figure_11()
    for key, rs in _group(rows, ["network"]).items():
        code = "BH/CCC" if "CCC" in key[0] else "BH/BH"
        pts = paper[code]["points"]
        line, = ax.plot([p["ratio"] for p in pts], [_finite(p["LR_ratio"]) for p in pts], "-",
                        label=f"{code}: paper's Fig. 11 (eqs 18, 21; knee at {paper[code]['knee']})")
        ax.plot(*_series(rs, "replication", "LR_kleinrock"), ":", color=line.get_color(),
                label=f"{key[0]}: M/M/1 on our routes")
        ax.plot(*_series(rs, "replication", "LR_sim"), "o--", color=line.get_color(), label=f"{key[0]}: simulated")
        sat = [r["replication"] for r in rs if r.get("saturated")]
        if sat:                      # saturated points: a marker at the top of the axes
            ax.plot(sat, [0.97 if code == "BH/BH" else 0.93] * len(sat), "x", color=line.get_color(),
                    transform=ax.get_xaxis_transform(), clip_on=False, label=f"{key[0]}: saturated (top)")
    ax.set_xlabel("mu_NCL / mu_CL (level-2 lanes)")
    ax.set_ylabel("LR ratio")
    ax.set_yscale("log")


def _fig11(ax, rows: list[dict], name: str) -> None:
    """The LR ratio against the level-2 lanes at this size (Fig. 11)."""
    ax.plot(*_series(rows, "replication", "LR_paper"), "-", label="paper's formula (eq. 18) at this size")
    line, = ax.plot(*_series(rows, "replication", "LR_sim"), "o--", label="simulated")
    sat = [r["replication"] for r in rows if r.get("saturated")]
    if sat:                          # saturated points: a marker at the top of the axes
        ax.plot(sat, [0.97] * len(sat), "x", color=line.get_color(), transform=ax.get_xaxis_transform(),
                clip_on=False, label="simulated: saturated (top)")
    if name == "fig11":
        ax.plot(*_series(rows, "replication", "LR_paper_D15"), "s-", label="paper's formula at D = 15 (Fig. 11)")
    ax.set_xlabel("mu_NCL / mu_CL (level-2 lanes)")
    ax.set_ylabel("LR ratio")


def _fig12(ax, rows: list[dict], name: str) -> None:
    """Queueing delay against alpha, random and improved routing, beside the paper's simulated points (Fig. 12)."""
    for key, rs in _group(rows, ["network"]).items():
        ec = [r for r in rs if r["routing"] == "ecube"]
        ax.plot(*_series(ec, "alpha", "Q_paper_units"), "-", label=f"{key[0]}: paper, random routing (eq. 18)")
        for rt, mark in (("ecube", "o--"), ("least_used", "s--")):
            line, = ax.plot(*_series([r for r in rs if r["routing"] == rt], "alpha", "Q_sim_units"), mark,
                            label=f"{key[0]}: simulated, {rt.replace('_', ' ')}")
            sat = [r["alpha"] for r in rs if r["routing"] == rt and r["saturated"]]
            if sat:                  # saturated points: a marker at the top of the axes
                ax.plot(sat, [0.97 - 0.03 * len(ax.lines) % 0.3] * len(sat), mark[0], color=line.get_color(),
                        mfc="none", transform=ax.get_xaxis_transform(), clip_on=False,
                        label=f"{key[0]}: {rt.replace('_', ' ')} saturated (top)")
        for rt, mark in (("ecube", "kx"), ("least_used", "k+")):
            pts = [(r["alpha"], r["Q_paper_quoted"]) for r in rs if r["routing"] == rt and r["Q_paper_quoted"]]
            if pts:
                ax.plot(*zip(*pts), mark, markersize=10,
                        label=f"{key[0]}: paper's simulated, {'random' if rt == 'ecube' else 'improved'}")
    ax.set_xlabel("alpha (locality)")
    ax.set_ylabel("queueing delay (time units)")
    ax.set_yscale("log")


def _hin_levels(ax, rows: list[dict], name: str) -> None:
    """What each network costs (links) against what it delivers (latency)."""
    for key, rs in _group(rows, ["traffic"]).items():
        ax.plot([r["L"] for r in rs], [_finite(r["sim_network_latency"]) for r in rs], "o", label=key[0])
        for r in rs:
            ax.annotate(r["network"], (r["L"], _finite(r["sim_network_latency"])), fontsize=7)
    ax.set_xlabel("links L")
    ax.set_ylabel("simulated network latency (cycles; saturated points left out)")


#: study -> its plot's curves
DRAW = {"density": _density, "fig8a": _alpha_curves, "fig9a": _alpha_curves, "fig12-scaled": _alpha_curves,
        "fig8b": _size_curves, "fig9b": _size_curves, "fig11-d15": _fig11_d15, "fig11": _fig11, "fig11-d6": _fig11,
        "fig12": _fig12, "hin-levels": _hin_levels}


def plot_study(name: str, rows: list[dict], path: str) -> None:
    """Study ``name``'s plot (:data:`DRAW`) of its table ``rows``, written to ``path``."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 5))
    if name in DRAW:
        DRAW[name](ax, rows, name)
    ax.set_title(f"cubenoc simulate --study {name}")
    ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
