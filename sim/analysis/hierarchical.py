"""``cubenoc analyze hin`` (Dandamudi and Eager, hierarchical interconnection networks): options, text, JSON, plots.

The paper's formulas are in :mod:`.hierarchical_formulas`, the explicit-graph measurements and the
figure data in :mod:`.hierarchical_measure`; docs/papers/hierarchical.md compares them with the paper.
"""
from __future__ import annotations

import math

from cubenoc.errors import CubenocError, require_int
from cubenoc.options import add

from ..plotting import pyplot
from ..topology.hierarchical import hierarchical_from_spec, network_from_spec, paper_code
from ..topology.hypercube import Hypercube
from .hierarchical_formulas import LEVEL2_OF, exists, level2_size
from .hierarchical_figures import (ccc_distance_table, figure_10, figure_11, figure_6, figure_7, figure_static_alpha,
                                   figure_static_size, sec_ivb, table_i, table_ii)
from .hierarchical_measure import EXPLICIT_MAX_NODES, row, row_levels
from .report import AnalysisResult, log_axis, table

FIGURES = ("2", "3", "4", "5", "6", "7", "10", "11", "12", "table1", "table2", "ccc")


def add_arguments(parser) -> None:
    parser.add_argument("--level1", default="bh:4", help="cluster network, bh:d (default bh:4: 16-node clusters)")
    parser.add_argument("--level2", default="bh,br,cc,ccc",
                        help="comma list of level-2 families bh, br, cc, ccc, each optionally :SIZE "
                             "(bh:6 = BH(6), ccc:4 = CCC(4)); without a size it follows --nodes")
    add(parser, "level3", help="a level-3 network bh, br, cc or ccc:SIZE joining the level-2 interface nodes (then "
                               "every level below the top has its :SIZE; the top's may follow --nodes); prints L, P "
                               "and R per level, by formula and with --explicit on the graph")
    parser.add_argument("--level4", default=None, help="a level-4 network, as --level3")
    parser.add_argument("--nodes", type=int, default=1024, help="total nodes N (default 1024)")
    add(parser, "alpha", default=0.8)
    parser.add_argument("--lam", type=float, default=1.0, help="message rate per node")
    parser.add_argument("--mu-cl", type=float, default=3.0, help="service rate of cluster links")
    parser.add_argument("--mu-ncl", type=float, default=None, help="service rate of level-2 links (default mu-cl)")
    parser.add_argument("--replication", type=int, default=1,
                        help="parallel level-2 links i: mu_NCL = i mu_CL and i times the level-2 link cost")
    parser.add_argument("--explicit", action="store_true",
                        help=f"also compute on the explicit graph (N <= {EXPLICIT_MAX_NODES})")
    parser.add_argument("--figure", default=None, choices=FIGURES, help="print the data of a figure/table")


def _check(args) -> tuple[int, int, list[tuple[str, int]]]:
    l1 = network_from_spec(args.level1, level="level1")
    if not isinstance(l1, Hypercube):
        raise CubenocError(f"the analysis covers BH clusters only (--level1 bh:d), got {args.level1!r}")
    d = l1.n
    _check_rates(args)
    nets = []
    for spec in str(args.level2).split(","):
        fam, _, size = spec.strip().lower().partition(":")
        if fam not in LEVEL2_OF:
            raise CubenocError(f"level2 must be a comma list of bh, br, cc, ccc (optionally :SIZE), got {spec!r}")
        if size:
            k = network_from_spec(spec).num_nodes
        else:
            n_nodes = require_int(args.nodes, "nodes", 4, 1 << 20)
            if n_nodes % (2 ** d):
                raise CubenocError(f"nodes must be a multiple of the cluster size {2 ** d}, got {n_nodes}")
            k = n_nodes // 2 ** d
            if not exists(LEVEL2_OF[fam], k) and "," not in str(args.level2):
                level2_size(LEVEL2_OF[fam], k)   # raises the family's own message
        nets.append((LEVEL2_OF[fam], k))
    if len({k for _, k in nets}) > 1:
        raise CubenocError("all level-2 networks must have the same number of clusters: "
                           + ", ".join(f"{c}: K={k}" for c, k in nets))
    k = nets[0][1]
    if args.explicit and k * 2 ** d > EXPLICIT_MAX_NODES:
        raise CubenocError(f"--explicit computes on the explicit graph of at most {EXPLICIT_MAX_NODES} nodes, "
                           f"these networks have {k * 2 ** d}: drop --explicit or give --nodes {EXPLICIT_MAX_NODES} "
                           f"or fewer")
    if k < 2 or k & (k - 1):
        # the BH reference (and eqs 1-5) need N = 2^D
        raise CubenocError(f"the BH reference needs a power-of-two number of clusters, got K={k}")
    return d, k, [(c, kk) for c, kk in nets if exists(c, kk)]


def analyze(args) -> AnalysisResult:
    if args.figure:
        return _figure(args.figure)
    if args.level3 or getattr(args, "level4", None):
        return _levels(args)
    d, k, nets = _check(args)
    mu_ncl = args.mu_ncl if args.mu_ncl is not None else args.mu_cl * args.replication
    rows = [row(None, d, k, args.alpha, args.lam, args.mu_cl, args.mu_cl, explicit=args.explicit)]
    rows += [row(c, d, k, args.alpha, args.lam, args.mu_cl, mu_ncl, args.replication, explicit=args.explicit)
             for c, _ in nets]
    cols = ["network", "N", "K", "L", "P", "LP_ratio", "R", "LR_ratio"]
    extra = [c for c in ("L_count", "P_bfs", "P_routed", "R_explicit") if any(c in r for r in rows)]
    text = (f"Hierarchical networks, clusters BH({d}) (n = {2 ** d}), K = {k}, alpha = {args.alpha}, "
            f"lam = {args.lam}, mu_CL = {args.mu_cl}, mu_NCL = {mu_ncl}, level-2 replication {args.replication}\n"
            + table([[r.get(c, "") for c in cols + extra] for r in rows], cols + extra)
            + ("\nR = inf: some link saturated (utilisation >= 1)." if any(r.get("R") == math.inf for r in rows)
               else "")
            + (f"\n{rows[0]['network']}: the flat reference has no level-2 links; all its links serve at mu_CL = "
               f"{args.mu_cl} (mu_NCL = {mu_ncl} applies to the hierarchical rows)" if mu_ncl != args.mu_cl else ""))
    skipped = [LEVEL2_OF[f.split(':')[0]] for f in args.level2.split(",")
               if not exists(LEVEL2_OF[f.split(':')[0].strip().lower()], k)] if "," in args.level2 else []
    if skipped:
        text += f"\nno {', '.join(skipped)} network has K = {k} clusters (skipped)."
    data = {"d": d, "K": k, "alpha": args.alpha, "lam": args.lam, "mu_CL": args.mu_cl, "mu_NCL": mu_ncl,
            "replication": args.replication, "networks": [_json(r) for r in rows]}

    def plot(path: str) -> None:
        _plot_alpha(figure_static_alpha(d, k, explicit=False), path, f"N = {2 ** d * k}, K = {k}")
    return AnalysisResult(data, text, plot)


def _levels(args) -> AnalysisResult:
    """A HIN of three or more levels: the formulas generalised (``hierarchical_formulas.p_levels``,
    ``queueing_levels``) beside BH(D), per level, and on the explicit graph with --explicit."""
    if args.level4 and not args.level3:
        raise CubenocError("--level4 needs --level3")
    specs = [args.level1, args.level2, args.level3] + ([args.level4] if args.level4 else [])
    if "," in args.level2:
        raise CubenocError(f"with --level3, --level2 is one network (bh, br, cc or ccc:SIZE), got {args.level2!r}")
    top_sized = ":" in specs[-1]
    topo = hierarchical_from_spec(*specs, num_nodes=None if top_sized else require_int(args.nodes, "nodes", 4, 1 << 16))
    if not isinstance(topo.level1, Hypercube):
        raise CubenocError(f"the analysis covers BH clusters only (--level1 bh:d), got {args.level1!r}")
    _check_rates(args)
    levels = tuple((paper_code(net), net.num_nodes) for net in topo.levels)
    mu_ncl = args.mu_ncl if args.mu_ncl is not None else args.mu_cl * args.replication
    if args.explicit and topo.num_nodes > EXPLICIT_MAX_NODES:
        raise CubenocError(f"--explicit computes on the explicit graph of at most {EXPLICIT_MAX_NODES} nodes, "
                           f"{topo.spec} has {topo.num_nodes}: drop --explicit")
    hin = row_levels(levels, args.alpha, args.lam, args.mu_cl, mu_ncl, args.replication, explicit=args.explicit)
    rows = [hin]
    N, n = topo.num_nodes, topo.cluster_size
    if N & (N - 1) == 0:
        rows.insert(0, row(None, n.bit_length() - 1, N // n, args.alpha, args.lam, args.mu_cl, args.mu_cl,
                           explicit=args.explicit))
    cols = ["network", "N", "K", "L", "P", "LP_ratio", "R", "LR_ratio"]
    extra = [c for c in ("L_count", "P_bfs", "P_routed", "R_explicit") if any(c in r for r in rows)]
    pcols = ["level", "network", "copies", "L", "P", "R", "max_util"]
    pextra = [c for c in ("L_count", "P_random", "R_explicit") if c in hin["per_level"][0]]
    text = (f"{topo.spec}: {N} nodes, clusters of {n} (K = {N // n}), alpha = {args.alpha}, lam = {args.lam}, "
            f"mu_CL = {args.mu_cl}, mu_NCL = {mu_ncl}, replication {args.replication} above level 1\n"
            + table([[r.get(c, "") for c in cols + extra] for r in rows], cols + extra)
            + "\n\nper level (L: its links; P, R: the hops and the delay it adds to the mean message):\n"
            + table([[p.get(c, "") for c in pcols + pextra] for p in hin["per_level"]], pcols + pextra)
            + ("\nR = inf: some link saturated (utilisation >= 1)." if any(r.get("R") == math.inf for r in rows)
               else "")
            + ("" if N & (N - 1) == 0 else f"\nno BH reference: N = {N} is not a power of two (no LP or LR ratio)"))
    data = {"levels": [list(x) for x in levels], "alpha": args.alpha, "lam": args.lam, "mu_CL": args.mu_cl,
            "mu_NCL": mu_ncl, "replication": args.replication, "networks": [_json(r) for r in rows]}
    return AnalysisResult(data, text, None)


def _check_rates(args) -> None:
    """alpha, lam, the mu's and the replication in range (one line each, exit 2)."""
    if not 0.0 <= args.alpha <= 1.0:
        raise CubenocError(f"alpha must be in 0..1, got {args.alpha}")
    for name in ("lam", "mu_cl"):
        if getattr(args, name) <= 0:
            raise CubenocError(f"{name.replace('_', '-')} must be positive, got {getattr(args, name)}")
    if args.mu_ncl is not None and args.mu_ncl <= 0:
        raise CubenocError(f"mu-ncl must be positive, got {args.mu_ncl}")
    require_int(args.replication, "replication", 1, 64)
    if args.replication > 1 and args.mu_ncl is not None:
        raise CubenocError("give either --replication (mu_NCL = i mu_CL) or --mu-ncl, not both")


def _json(obj):
    if isinstance(obj, dict):
        return {str(k): _json(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_json(v) for v in obj]
    if isinstance(obj, float) and math.isinf(obj):
        return None
    return obj


def _figure(which: str) -> AnalysisResult:
    if which in ("2", "3"):
        d, k = 4, (8 if which == "2" else 64)
        data = figure_static_alpha(d, k)
        rows = [[net, p["alpha"], p["P"], p.get("P_bfs", ""), p.get("P_routed", ""), p["LP_ratio"]]
                for net, pts in data["series"].items() for p in pts]
        text = table(rows, ["network", "alpha", "P", "P_bfs", "P_routed", "LP_ratio"])
        plot = lambda path: _plot_alpha(data, path, f"Fig. {which}: N = {16 * k}, K = {k}")  # noqa: E731
    elif which in ("4", "5"):
        data = figure_static_size()
        rows = [[net, p["N"], p["L"], p["P"], p["LP_ratio"]] for net, pts in data["series"].items() for p in pts]
        text = table(rows, ["network", "N", "L", "P", "LP_ratio"])
        plot = lambda path: _plot_size(data, path, ("L",) if which == "5" else ("P", "LP_ratio"))  # noqa: E731
    elif which == "6":
        data = figure_6()
        rows = [[net, p["alpha"], p["R"], p["LR_ratio"], "" if p["util_NCL"] is None else p["util_NCL"]]
                for net, pts in data["series"].items() for p in pts]
        text = table(rows, ["network", "alpha", "R", "LR_ratio", "util_NCL"])
        plot = lambda path: _plot_xy(data["series"], "alpha", ("R", "LR_ratio"), path)  # noqa: E731
    elif which == "7":
        data = figure_7()
        rows = [[net, p["N"], p["replication"], p["R"], p["LR_ratio"]] for net, pts in data["series"].items() for p in pts]
        text = table(rows, ["network", "N", "i", "R", "LR_ratio"])
        plot = lambda path: _plot_xy(data["series"], "N", ("R", "LR_ratio"), path, logx=True)  # noqa: E731
    elif which == "10":
        data = figure_10()
        rows = [[code, v["mu_NCL/mu_CL"]] + v["util"] for code, v in data.items()]
        text = table(rows, ["network", "mu_NCL/mu_CL", "j=0 (NCL)"] + [f"j={j}" for j in range(1, 5)])
        plot = None
    elif which == "11":
        data = figure_11()
        rows = [[code, p["ratio"], p["LR_ratio"]] for code, v in data.items() for p in v["points"]]
        text = table(rows, ["network", "mu_NCL/mu_CL", "LR_ratio"]) + "\n" + "\n".join(
            f"{code}: smallest LR ratio at mu_NCL = {v['knee']} mu_CL" for code, v in data.items())
        plot = lambda path: _plot_xy({c: v["points"] for c, v in data.items()}, "ratio", ("LR_ratio",), path)  # noqa: E731
    elif which == "12":
        data = sec_ivb()
        cols = list(next(iter(data.values())).keys())
        text = table([[a] + [v[c] for c in cols] for a, v in data.items()], ["alpha"] + cols)
        plot = None
    elif which == "table1":
        data = table_i()
        text = table([[fam, v["order"][0], v["order"][1], r["N"], r["L"], r.get("L_count", ""), r["L/order"], r["P"],
                       r.get("P_bfs", ""), r["P/order"]] for fam, v in data.items() for r in v["rows"]],
                     ["network", "L order", "P order", "N", "L", "L_count", "L/order", "P", "P_bfs", "P/order"])
        plot = None
    elif which == "table2":
        data = table_ii()
        text = table([[n, v["paper"], v["formula"], v["counted"]] for n, v in data.items()],
                     ["n", "paper", "1-1/sqrt(n)", "counted (torus)"])
        plot = None
    else:
        data = ccc_distance_table()
        text = table([[dc, v["K"], v["formula"], v["bfs"], v["bfs_with_self"], v.get("routed", "")]
                      for dc, v in data.items()], ["D_c", "K", "eq. 14 term", "BFS", "BFS incl. self", "routed"])
        plot = None
    return AnalysisResult(_json(data), text, plot)


# ---- plots --------------------------------------------------------------------------------------------
def _plt():
    plt = pyplot()
    return plt


def _plot_alpha(data: dict, path: str, title: str) -> None:
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for net, pts in data["series"].items():
        a = [p["alpha"] for p in pts]
        axes[0].plot(a, [p["P"] for p in pts], marker="o", label=net)
        axes[1].plot(a, [p["LP_ratio"] for p in pts], marker="o", label=net)
    for ax, lab in zip(axes, ("average distance P", "LP ratio")):
        ax.set_xlabel("alpha"), ax.set_ylabel(lab), ax.grid(True)
    axes[0].legend()
    fig.suptitle(title)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


def _plot_size(data: dict, path: str, keys) -> None:
    _plot_xy(data["series"], "N", keys, path, logx=True)


def _plot_xy(series: dict, x: str, keys, path: str, logx: bool = False) -> None:
    plt = _plt()
    fig, axes = plt.subplots(1, len(keys), figsize=(5 * len(keys), 4), squeeze=False)
    for ax, key in zip(axes[0], keys):
        for net, pts in series.items():
            pts = [p for p in pts if p.get(key) is not None and not math.isinf(p[key])]
            ax.plot([p[x] for p in pts], [p[key] for p in pts], marker="o", label=net)
        ax.set_xlabel(x), ax.set_ylabel(key), ax.grid(True)
        if logx:
            log_axis(ax, "x", base=2)
    axes[0][0].legend()
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
