"""Metacube MC(k, m) (Li, Peng and Chu): Tables 1-2, routing vs BFS, broadcast time, deadlock and VCs.

``cubenoc analyze metacube`` prints Table 1 (sizes), Table 2 (degree, diameter, cost, average distance,
bisection, links) by the paper's formulas and by computation (BFS, explicit cuts), the routed path
lengths of Sec. 4.1 (full and shortest variants) against BFS, the Sec. 4.2 broadcast time against
Theorem 3, and the VC counts that make the routing deadlock-free. ``--route SRC DST`` prints one routed
path, one node per line in the paper's notation (``--shortest`` for the variant).
"""
from __future__ import annotations

from functools import lru_cache, partial

import numpy as np

from cubenoc.errors import CubenocError, require_int
from cubenoc.options import Option, add

from ..broadcast.metacube import broadcast_schedule, theorem3_steps
from ..deadlock import check_deadlock
from ..plotting import pyplot
from ..routing.metacube import MetacubeRouting, class_level_cycle, class_paths, minimal_vcs
from ..topology.metacube import Metacube
from . import metacube_compare
from .metacube_compare import mc_diameter, mc_size
from .report import AnalysisResult, table

#: Table 1 as printed: links per node 3..8 -> nodes ("-" where MC(k, m) would need m < 1)
PAPER_TABLE1 = {
    "hypercube": [8, 16, 32, 64, 128, 265],
    1: [32, 128, 512, 2048, 8192, 32768],
    2: [64, 1024, 16384, 2 ** 18, 2 ** 22, 2 ** 26],
    3: [None, 2048, 2 ** 19, 2 ** 27, 2 ** 35, 2 ** 43],
    4: [None, None, 2 ** 20, 2 ** 36, 2 ** 52, 2 ** 68],
}
LINKS = list(range(3, 9))


def table1() -> dict:
    """Table 1 by formula: MC(k, m) with m + k links has 2**(m 2**k + k) nodes; Q_d has 2**d."""
    rows = {"hypercube": [2 ** d for d in LINKS]}
    for k in range(1, 5):
        rows[k] = [mc_size(k, d - k) if d - k >= 1 else None for d in LINKS]
    return rows


def table2_formulas(k: int, m: int) -> dict:
    """Table 2, general row MC(k, m), and the paper's rows in n for k = 1, 2 (n = m 2**k + k)."""
    h, n = 2 ** k, m * 2 ** k + k
    out = {"n": n, "degree": m + k, "diameter": mc_diameter(k, m), "cost": mc_diameter(k, m) * (m + k),
           "avg_distance_bound": m * h / 2 + h, "bisection": 2 ** (m * h) // 2,
           "links": 2 ** n * (m + k) // 2}
    if k == 1:   # the dual-cube row: exact average distance (Li & Peng 2000)
        out["row_in_n"] = {"degree": (n - 1) / 2 + 1, "diameter": n + 1, "cost": (n + 1) ** 2 / 2,
                           "avg_distance": n / 2 + 1 - 1 / 2 ** ((n - 1) / 2), "bisection": 2 ** n / 4,
                           "links": 2 ** n * (n + 1) / 4}
    if k == 2:
        out["row_in_n"] = {"degree": (n - 2) / 4 + 2, "diameter": n + 2, "cost": n * n / 4 + 2 * n + 3,
                           "avg_distance": n / 2 + 3, "bisection": 2 ** n / 8, "links": 2 ** n * (n + 6) / 8}
    return out


def bit_cut(topo: Metacube, field: int = 0, bit: int = 0) -> int:
    """Edges across the cut by one address bit of one field (a balanced cut): only the cube-edges of
    class ``field`` on that bit cross it, 2**(n-k)/2 of them -- the paper's bisection count."""
    mask = 1 << (topo.m * field + bit)
    return sum(1 for u, _p, v, _q in topo.links() if (u ^ v) & mask)


@lru_cache(maxsize=None)
def _class_hops(k: int, shortest: bool) -> np.ndarray:
    """Cross hops of the class walk by (source class, destination class, mask of fields to correct)."""
    h = 2 ** k
    out = np.zeros((h, h, 2 ** h), dtype=np.int64)
    topo = Metacube(k, 1)
    r = MetacubeRouting(topo, shortest=shortest, vcs=False)
    for cs in range(h):
        for ct in range(h):
            p = class_paths(k)[cs ^ ct]
            if not shortest:
                out[cs, ct, :] = len(p) - 1
                continue
            for mask in range(2 ** h):
                out[cs, ct, mask] = len(r._walk(cs, ct, mask)) - 1
    return out


def routed_lengths(topo: Metacube, src: int, shortest: bool) -> np.ndarray:
    """Hops of the routed path from ``src`` to every node: the field corrections sum_i d_i plus the
    cross hops of the class walk (tests check this equals walking :class:`MetacubeRouting` hop by hop)."""
    nodes = np.arange(topo.num_nodes, dtype=np.int64)
    x = nodes ^ src
    fmask = (1 << topo.m) - 1
    dsum = np.zeros_like(nodes)
    need = np.zeros_like(nodes)
    for i in range(topo.h):
        f = (x >> (topo.m * i)) & fmask
        dsum += np.array([bin(v).count("1") for v in range(fmask + 1)])[f]
        need |= (f != 0).astype(np.int64) << i
    ct = nodes >> topo.field_bits
    lengths = dsum + _class_hops(topo.k, shortest)[topo.node_class(src), ct, need]
    lengths[src] = 0
    return lengths


def measure(topo: Metacube) -> dict:
    """BFS distances against both routings from one source per class (fields 0). Node 0 represents
    every node for BFS (vertex-transitive); routes depend only on the source class and the XOR of the
    fields, so these sources cover every pair."""
    out = {"nodes": topo.num_nodes}
    bfs = [topo.distances_from(topo.make_node(c, [0] * topo.h)) for c in range(topo.h)]
    out["bfs_diameter"] = int(bfs[0].max())
    out["bfs_mean"] = float(bfs[0].mean())                 # zero distance included, as the paper
    out["bfs_mean_distinct"] = float(bfs[0].sum() / (topo.num_nodes - 1))
    for name, sh in (("whp", False), ("skip", True)):
        ls = [routed_lengths(topo, topo.make_node(c, [0] * topo.h), sh) for c in range(topo.h)]
        excess = [ln - b for ln, b in zip(ls, bfs)]
        nodes = np.arange(topo.num_nodes)        # the n-cube's shortest path: the addresses' Hamming distance
        ham = [np.array([bin(x).count("1") for x in (nodes ^ topo.make_node(c, [0] * topo.h))]) for c in range(topo.h)]
        out[name] = {"mean": float(np.mean(ls)), "worst": int(np.max(ls)),
                     "worst_over_hamming": int(max(np.max(ln - h) for ln, h in zip(ls, ham))),
                     "worst_excess": int(np.max(excess)), "mean_excess": float(np.mean(excess)),
                     "shortest_fraction": float(np.mean([np.mean(e == 0) for e in excess]))}
    return out


def deadlock_summary(real_sizes=((1, 1), (1, 2), (2, 1))) -> dict:
    """Class-level (every m) VC counts and 1-VC cycles; the full checker on small networks."""
    out = {"class_level": [], "checker": []}
    for k in (1, 2, 3):
        for sh in (False, True):
            out["class_level"].append({"k": k, "variant": "skip" if sh else "whp",
                                       "one_vc_cyclic": class_level_cycle(k, 2, sh, 1) is not None,
                                       "num_vcs": minimal_vcs(k, sh)})
    for k, m in real_sizes:
        topo = Metacube(k, m)
        for sh in (False, True):
            for vcs in (False, True):
                rep = check_deadlock(MetacubeRouting(topo, shortest=sh, vcs=vcs))
                out["checker"].append({"k": k, "m": m, "routing": rep.routing, "num_vcs": rep.num_vcs,
                                       "deadlock_free": rep.deadlock_free, "channels": rep.channels,
                                       "dependencies": rep.dependencies,
                                       "cycle_length": len(rep.cycle) if rep.cycle else 0})
    return out


def add_arguments(parser) -> None:
    parser.add_argument("--k", type=int, help="class bits (1..4); with --m: analyse MC(k, m) only")
    parser.add_argument("--m", type=int, help="cluster dimension (>= 1)")
    parser.add_argument("--route", nargs=2, metavar=("SRC", "DST"),
                        help="print the routed path, e.g. 00,000,000,000,000 00,001,110,101,011")
    parser.add_argument("--shortest", action="store_true", help="with --route: the variant that skips "
                        "classes with nothing to correct")
    parser.add_argument("--max-nodes", type=int, default=2 ** 14,
                        help="largest network measured by BFS/routing/broadcast (default 16384)")
    parser.add_argument("--no-deadlock", action="store_true", help="skip the deadlock checks")
    add(parser, "peers", option=Option("peers", "Sec. 1: MC against its peers CCC, HCN, RH and the Origin2000 fat "
                                       "hypercube (degree, nodes, diameter; formulas and BFS)", "flag",
                                       aliases=("compare",)))


def _sizes(args) -> list[tuple[int, int]]:
    if (args.k is None) != (args.m is None):
        raise CubenocError("give both --k and --m, or neither (then every MC(k, m) up to --max-nodes)")
    if args.k is not None:
        Metacube(args.k, args.m)          # validates
        return [(args.k, args.m)]
    return [(k, m) for k in (1, 2, 3) for m in range(1, 8) if m * 2 ** k + k <= args.max_nodes.bit_length() - 1]


def _route(args) -> AnalysisResult:
    if args.k is None or args.m is None:
        raise CubenocError("--route needs --k and --m")
    topo = Metacube(args.k, args.m)
    src, dst = (topo.parse_node(a) for a in args.route)
    r = MetacubeRouting(topo, shortest=args.shortest)
    path = r.path(src, dst)
    nodes = [topo.format_node(v) for v in path]
    data = {"k": topo.k, "m": topo.m, "routing": r.name, "path": nodes, "hops": len(path) - 1,
            "bfs_distance": int(topo.distances_from(src)[dst]) if topo.num_nodes <= args.max_nodes else None}
    bfs = data["bfs_distance"]
    head = (f"MC({topo.k}, {topo.m}), {r.name} routing: {nodes[0]} -> {nodes[-1]}, {data['hops']} hops"
            + (f" (BFS distance {bfs})" if bfs is not None else ""))
    return AnalysisResult(data, "\n".join([head, *(f"{i:>4}  {v}" for i, v in enumerate(nodes))]))


def analyze(args) -> AnalysisResult:
    require_int(args.max_nodes, "--max-nodes", 8, 2 ** 20)
    if args.peers:
        data = metacube_compare.compare()
        return AnalysisResult(data, metacube_compare.text(data))
    if args.route:
        return _route(args)
    sizes = _sizes(args)
    data: dict = {"table1": {"links_per_node": LINKS, "paper": {str(k): v for k, v in PAPER_TABLE1.items()},
                             "ours": {str(k): v for k, v in table1().items()}}}
    lines = ["Table 1: nodes by links per node (paper / ours; * = differs)"]
    t1 = table1()
    rows = []
    for key in ["hypercube", 1, 2, 3, 4]:
        label = "hypercube" if key == "hypercube" else f"MC({key},m)"
        rows.append([label] + [_cell(p, o) for p, o in zip(PAPER_TABLE1[key], t1[key])])
    lines += [table(rows, ["links"] + [str(d) for d in LINKS]), ""]

    t2, meas, bc = _measured(sizes, args.max_nodes)
    data["table2"], data["routing"], data["broadcast"] = t2, meas, bc

    lines.append("Table 2: MC(k, m) by formula (paper) and by computation (BFS; bisection = one-bit cut)")
    rows = []
    for r in t2:
        rows.append([f"MC({r['k']},{r['m']})", r["n"], r["degree"], f"{r['diameter']}/{r.get('bfs_diameter', '-')}",
                     r["cost"], f"{r['avg_distance_bound']:.4g}/{_fmt(r.get('bfs_avg_distance'))}",
                     f"{r['bisection']}/{r.get('bit_cut', '-')}", f"{r['links']}/{r.get('links_counted', '-')}"])
    lines += [table(rows, ["network", "n", "degree", "diameter", "cost", "avg dist bound/BFS",
                           "bisection", "links"]), ""]
    if meas:
        lines += _routing_text(meas, bc)
    if not args.no_deadlock:
        dl = deadlock_summary()
        data["deadlock"] = dl
        lines += _deadlock_text(dl)

    plot = partial(_plot, meas=meas) if meas else None
    return AnalysisResult(data, "\n".join(lines), plot)


def _measured(sizes, max_nodes: int) -> tuple[list, list, list]:
    """Table 2's rows (formulas, and BFS, bisection and links up to ``max_nodes``), the routing measurements
    and the broadcast schedules (Sec. 4.2) of each MC(k, m)."""
    t2, meas, bc = [], [], []
    for k, m in sizes:
        topo = Metacube(k, m)
        f = table2_formulas(k, m)
        row = {"k": k, "m": m, **f}
        if topo.num_nodes <= max_nodes:
            mm = measure(topo)
            row.update({"bfs_diameter": mm["bfs_diameter"], "bfs_avg_distance": mm["bfs_mean"],
                        "bit_cut": bit_cut(topo), "links_counted": topo.num_links})
            meas.append({"k": k, "m": m, **mm})
            sched = broadcast_schedule(topo, 0)
            literal = broadcast_schedule(topo, 0, dedupe=False)
            got = sched.receipts(topo.num_nodes)
            bc.append({"k": k, "m": m, "theorem3": theorem3_steps(k, m), "steps": sched.num_steps,
                       "every_node_once": min(got) == max(got) == 1, "messages": sched.messages,
                       "literal_duplicates": sum(literal.receipts(topo.num_nodes)) - topo.num_nodes,
                       "log2_nodes": topo.n})
        t2.append(row)
    return t2, meas, bc


def _routing_text(meas, bc) -> list[str]:
    """Routing (Sec. 4.1) against BFS, the k <= 3 bound, and broadcast against Theorem 3."""
    lines = ["Routing (Sec. 4.1) vs BFS, all pairs (zero distance included in means):"]
    rows = [[f"MC({x['k']},{x['m']})", x["bfs_mean"], x["whp"]["mean"], x["skip"]["mean"], x["bfs_diameter"],
             x["whp"]["worst"], x["skip"]["worst"], x["whp"]["worst_excess"], x["skip"]["worst_excess"],
             x["whp"]["shortest_fraction"], x["skip"]["shortest_fraction"]] for x in meas]
    lines += [table(rows, ["network", "BFS mean", "whp mean", "skip mean", "BFS worst", "whp worst",
                           "skip worst", "whp max excess", "skip max excess", "whp shortest",
                           "skip shortest"]), ""]
    over = [(x["k"], max(x["whp"]["worst_over_hamming"], x["skip"]["worst_over_hamming"])) for x in meas]
    lines += ["Sec. 4.1, k <= 3: a route is at most the n-cube's shortest path (the Hamming distance of the "
              "addresses) + 8: longest excess over it " + ", ".join(
                  f"MC({x['k']},{x['m']}) whp {x['whp']['worst_over_hamming']} / skip "
                  f"{x['skip']['worst_over_hamming']}" for x in meas)
              + (": holds" if all(e <= 8 for k, e in over if k <= 3) else ": FAILS"), ""]
    lines.append("Broadcast (Sec. 4.2, one-port) vs Theorem 3 (m+1)2^k + k - 1:")
    rows = [[f"MC({b['k']},{b['m']})", b["theorem3"], b["steps"], b["every_node_once"], b["messages"],
             b["literal_duplicates"], b["log2_nodes"]] for b in bc]
    lines += [table(rows, ["network", "Theorem 3", "steps", "each node once", "messages",
                           "duplicates as printed", "log2 N (lower bound)"]), ""]
    return lines


def _deadlock_text(dl) -> list[str]:
    """The class-level dependency graph and the checker's verdicts."""
    lines = []
    lines.append("Deadlock: class-level dependency graph (valid for every m); VC = descents in Gray rank")
    lines.append(table([[x["k"], x["variant"], x["one_vc_cyclic"], x["num_vcs"]] for x in dl["class_level"]],
                       ["k", "variant", "1 VC cyclic", "VCs needed"]))
    lines.append(table([[f"MC({x['k']},{x['m']})", x["routing"], x["deadlock_free"], x["cycle_length"],
                         x["dependencies"]] for x in dl["checker"]],
                       ["network", "routing", "acyclic", "cycle length", "dependencies"]))
    return lines


def _plot(path, meas) -> None:
    """Routing against BFS distance: mean and worst hops per network."""
    plt = pyplot()
    labels = [f"MC({x['k']},{x['m']})" for x in meas]
    xs = np.arange(len(meas))
    fig, ax = plt.subplots(figsize=(max(6, len(meas)), 4))
    for key, name, mk in (("bfs", "BFS", "o"), ("whp", "weak Hamiltonian path", "s"),
                          ("skip", "skipping idle classes", "^")):
        mean = [x["bfs_mean"] if key == "bfs" else x[key]["mean"] for x in meas]
        worst = [x["bfs_diameter"] if key == "bfs" else x[key]["worst"] for x in meas]
        ax.plot(xs, mean, marker=mk, label=f"{name} mean")
        ax.plot(xs, worst, marker=mk, linestyle="--", label=f"{name} worst")
    ax.set_xticks(xs, labels, rotation=45)
    ax.set_ylabel("hops")
    ax.set_title("Metacube routing vs BFS distance")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _cell(paper, ours) -> str:
    if paper is None and ours is None:
        return "-"
    p = "-" if paper is None else _big(paper)
    o = "-" if ours is None else _big(ours)
    return o if paper == ours else f"{p}/{o}*"


def _big(v: int) -> str:
    return str(v) if v < 100000 else f"2^{v.bit_length() - 1}"


def _fmt(v) -> str:
    return "-" if v is None else f"{v:.4f}"
