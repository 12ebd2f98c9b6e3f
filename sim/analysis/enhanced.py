"""``cubenoc analyze enhanced`` / ``analyze hypercube`` (Tzeng and Wei, enhanced hypercubes): options, text,
JSON, plots.

The paper's closed forms and printed tables are in :mod:`.enhanced_formulas`, the direct computation on
the network and the table/figure data in :mod:`.enhanced_measure`; docs/papers/enhanced.md compares them.
"""
from __future__ import annotations

import math

from cubenoc.errors import CubenocError
from cubenoc.options import add

from ..plotting import pyplot
from . import enhanced_claims
from .enhanced_formulas import (COSTS_LOWER_FIT, COSTS_LOWER_TEXT, COSTS_UPPER, MAX_N, MEASURES, PAPER_SIZES, TABLE_I,
                                TABLE_II, alpha0, check_g, check_k, check_n, k_opt)
from .enhanced_measure import CHECK_MAX_N, FIGURES, enhanced_row, figure_data, hypercube_row, table_i, table_ii
from .report import AnalysisResult, table


def add_arguments(parser) -> None:
    parser.add_argument("--n", type=int, default=10, help=f"cube dimension (2..{MAX_N}; BFS and traversal "
                        f"counting up to {CHECK_MAX_N}, formulas only beyond)")
    if parser.get_default("family_name") != "hypercube":       # (the plain cube has no k)
        parser.add_argument("--k", type=int, default=None, help="enhanced: only this k (0..n-2); default every k")
    add(parser, "g", default=1.0, help="locality: p_l = g p_{l+1} (1 = uniform; Tzeng and Wei)")
    parser.add_argument("--cost", default="10:1:1", metavar="PE:NL:CC",
                        help="unit costs C_pe:C_nl:C_cc of eq. (8) for eta (default 10:1:1, Table II upper half)")
    parser.add_argument("--table", type=int, default=None, help="reproduce Table 1 or 2 next to the printed values")
    parser.add_argument("--figure", type=int, default=None, help=f"data of Fig. {', '.join(map(str, FIGURES))}")
    parser.add_argument("--no-check", action="store_true", help="formulas only (skip BFS and traversal counting)")
    parser.add_argument("--claims", action="store_true", help="Secs. IV-VII's claims: diameter x degree, the "
                        "recommended k, broadcast with few ports per step, the text's binomials (n up to --n)")


def _parse_costs(text: str) -> tuple[float, float, float]:
    try:
        vals = tuple(float(x) for x in str(text).split(":"))
    except ValueError:
        vals = ()
    if len(vals) != 3 or any(not math.isfinite(v) or v < 0 for v in vals):
        raise CubenocError(f"--cost must be three non-negative numbers C_pe:C_nl:C_cc, e.g. 10:1:1, got {text!r}")
    return vals


def analyze(args) -> AnalysisResult:
    family = getattr(args, "family_name", "enhanced")
    if args.table is not None:
        if args.table not in (1, 2):
            raise CubenocError(f"--table must be 1 or 2, got {args.table}")
        return _table_result(args.table)
    if args.figure is not None:
        return _figure_result(figure_data(args.figure))
    if args.claims:
        data = enhanced_claims.claims(max(4, check_n(args.n, 2)))
        return AnalysisResult(data, enhanced_claims.text(data))
    g = check_g(args.g)
    check = not args.no_check
    if family == "hypercube":
        n = check_n(args.n, 1)
        return _hypercube_result(n, g, check)
    n = check_n(args.n, 2)
    costs = _parse_costs(args.cost)
    ks = [check_k(n, args.k)] if args.k is not None else list(range(n - 1))
    return _enhanced_result(n, g, ks, costs, check)


def _f(x, digits=4):
    return "-" if x is None else (f"{x:.{digits}f}" if isinstance(x, float) else str(x))


def _hypercube_result(n, g, check) -> AnalysisResult:
    row = hypercube_row(n, g, check)
    m = row["measured"]
    data = {"family": "hypercube", "n": n, "g": g, "alpha0": alpha0(n, g), **row}
    rows = [["diameter", row["diameter"], m and m["diameter"]],
            ["D_mean (eqs 1-2)", row["D_mean"], m and m["D_mean"]],
            ["TD (eq 7, TD_s=0)", row["TD"], m and m["TD_r"]],
            ["broadcast steps (Alg. B)", row["broadcast_steps"], m and m["broadcast_steps"]]]
    text = (f"Q_{n} (2^{n} nodes), g = {g:g}, alpha0 = {alpha0(n, g):.6g}\n"
            + table([[a, _f(b), _f(c)] for a, b, c in rows], ["measure", "formula", "BFS / Algorithm A"])
            + ("" if m else f"\n(measured values only for n <= {CHECK_MAX_N})"))
    return AnalysisResult(data, text, lambda path: _plot_figure(figure_data(1), path))


def _enhanced_result(n, g, ks, costs, check) -> AnalysisResult:
    rows = [enhanced_row(n, k, g, costs, check) for k in ks]
    reg = hypercube_row(n, g, check)
    kopt = {m: k_opt(n, g, m) for m in MEASURES}
    kopt["eta"] = kopt["D_mean"]
    data = {"family": "enhanced", "n": n, "g": g, "alpha0": alpha0(n, g), "costs": list(costs),
            "rows": rows, "regular": reg, "k_opt": kopt,
            "check_max_n": CHECK_MAX_N}
    head = ["k", "diam", "D_mean", "D_mean BFS", "TD_r", "TD_r count", "TD_r max", "TD_s", "TD_s count",
            "eta", "bcast"]
    body = []
    for r in rows:
        m = r["measured"] or {}
        body.append([r["k"], f"{r['diameter']}/{_f(m.get('diameter'))}", r["D_mean"], _f(m.get("D_mean")),
                     r["TD_r"], _f(m.get("TD_r")), r["TD_r_max"], r["TD_s"], _f(m.get("TD_s")), r["eta"],
                     f"{r['broadcast_steps']}/{_f(m.get('broadcast_steps'))}"])
    text = (f"Q(n, k) for n = {n}, g = {g:g} (alpha0 = {alpha0(n, g):.6g}); costs C_pe:C_nl:C_cc = "
            f"{':'.join(f'{c:g}' for c in costs)}\n"
            + table(body, head)
            + f"\nQ_{n}: diameter {n}, D_mean {reg['D_mean']:.4f}, TD {reg['TD']:.4f}, broadcast {n} steps"
            + "\ndiam and bcast: Theorem 2/3 value / BFS and Algorithm D run; 'count' = Algorithm C traversals"
            + ("" if rows[0]["measured"] else f"\n(measured values only for n <= {CHECK_MAX_N})")
            + "\nk_opt: " + ", ".join(f"{m} {k}" for m, k in kopt.items()))

    def plot(path):
        plt = pyplot()
        fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
        kk = [r["k"] for r in rows]
        a.plot(kk, [r["D_mean"] for r in rows], "o-", label="Q(n,k) eq. 5")
        a.axhline(reg["D_mean"], ls="--", c="gray", label=f"Q_{n}")
        a.set(xlabel="k", ylabel="D_mean", title=f"n={n}, g={g:g}")
        a.legend()
        b.plot(kk, [r["TD_r"] for r in rows], "o-", label="TD_r eq. 7")
        b.plot(kk, [r["TD_r_max"] for r in rows], "^:", label="TD_r max link")
        b.plot(kk, [r["TD_s"] for r in rows], "s-", label="TD_s eq. 6")
        b.axhline(reg["TD"], ls="--", c="gray", label=f"TD of Q_{n}")
        b.set(xlabel="k", ylabel="messages / link / unit time")
        b.legend()
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)
    return AnalysisResult(data, text, plot)


def _table_result(which: int) -> AnalysisResult:
    if which == 1:
        t = table_i()
        rows = []
        for g, cols in t.items():
            for key in ("TD_r", "TD_s", "TD_r/TD"):
                rows.append([g, key] + [f"{c[key]:.3f} ({TABLE_I[g][key][i]:.2f})" for i, c in enumerate(cols)])
            rows.append([g, "k (k_opt D_mean)"] + [f"{c['k']} (TD_r: {c['k_opt_TD_r']})" for c in cols])
        text = ("Table I: traffic density at k = k_opt for D_mean; ours (paper's printed value)\n"
                + table(rows, ["g", "measure"] + [f"n={n}" for n in PAPER_SIZES]))
        data = {"table": 1, "ours": {str(g): v for g, v in t.items()},
                "paper": {str(g): v for g, v in TABLE_I.items()}}
    else:
        t = table_ii()
        rows = []
        for half, byg in t.items():
            for g, cols in byg.items():
                rows.append([half, g] + [
                    " / ".join(f"{c[v]:.3f}" for v in ("text", "fit") if v in c) + f" ({TABLE_II[half][g][i]:.2f})"
                    for i, c in enumerate(cols)])
        text = ("Table II: eta at k = k_opt for D_mean; ours (paper's printed value)\n"
                "upper: C_pe:C_nl:C_cc = 10:1:1; lower: 1000:10:1 as the text states / 100:10:1 (closer to the "
                "printed values; no single cost ratio gives them all)\n" + table(rows, ["half", "g"] + [f"n={n}" for n in PAPER_SIZES]))
        data = {"table": 2, "ours": {h: {str(g): v for g, v in byg.items()} for h, byg in t.items()},
                "paper": {h: {str(g): v for g, v in byg.items()} for h, byg in TABLE_II.items()},
                "costs": {"upper": COSTS_UPPER, "lower_text": COSTS_LOWER_TEXT, "lower_fit": COSTS_LOWER_FIT}}
    return AnalysisResult(data, text, None)


def _figure_result(fd: dict) -> AnalysisResult:
    lines = [f"Fig. {fd['figure']}: {fd.get('y', '')} versus {fd['x']}"]
    s = fd["series"]
    if fd["figure"] in (1, 5):
        head = ["g"] + list(s)
        rows = []
        for i, g in enumerate(fd["g"]):
            row = [g]
            for v in s.values():
                row.append(v[i] if isinstance(v, list) else f"{v['reduction'][i]:.4f} (k={v['k_opt'][i]})")
            rows.append(row)
        lines.append(table(rows, head))
    elif fd["figure"] == 4:
        for name, v in s.items():
            lines.append(f"{name}: " + " ".join(f"{k}:{d:.3f}" for k, d in zip(v["k"], v["D_mean"])))
    else:
        for name, v in s.items():
            lines.append(name)
            keys = [key for key in v if key != "k_opt"]
            rows = [[n, v["k_opt"][i]] + [v[key][i] for key in keys] for i, n in enumerate(fd["n"])]
            lines.append(table(rows, ["n", "k_opt"] + keys))
    return AnalysisResult(fd, "\n".join(lines), lambda path: _plot_figure(fd, path))


def _plot_figure(fd: dict, path: str) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    f, s = fd["figure"], fd["series"]
    if f == 1:
        for name, ys in s.items():
            ax.plot(fd["g"], ys, "o-", label=name)
    elif f == 4:
        for name, v in s.items():
            ax.plot(v["k"], v["D_mean"], "o-", label=name)
    elif f == 5:
        for name, v in s.items():
            ax.plot(fd["g"], v["reduction"], "o-", label=name)
    else:
        key = "D_mean_min" if f == 6 else "TD_r_min"
        for name, v in s.items():
            ax.plot(fd["n"], v[key], "o-", label=f"{key}, {name}")
            for x, y, k in zip(fd["n"], v[key], v["k_opt"]):
                ax.annotate(str(k), (x, y), textcoords="offset points", xytext=(0, 5), fontsize=7)
            others = ("D_mean_Qn",) if f == 6 else ("TD_s", "TD")
            for o in others:
                ax.plot(fd["n"], v[o], "--", label=f"{o}, {name}")
    ax.set(xlabel=fd["x"], ylabel=fd.get("y", key if f in (6, 7, 8) else ""), title=f"Tzeng and Wei, Fig. {f}")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
