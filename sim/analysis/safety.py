"""Safety levels in injured hypercubes (Wu): SL(1), SL(2), DSL(1), DSL(2), Opt per node; Table 1; Figure 5.

``cubenoc analyze safety --n 4 --faulty-nodes 0000,1101 --faulty-links 1000-1010`` prints every node's
levels under the four models and whether it is an r-node (Opt). Addresses are the paper's
``u_0 u_1 ... u_{n-1}`` (character k = dimension k). ``--figure 1|2a|2b`` loads the recovered fault sets of
Figures 1 and 2 and compares with the paper's Table 1; ``--recover`` reruns the search that recovers
Figure 2. ``--fault-counts 1..9 --mix node|link|mixed --trials N`` runs the Figure 5 experiment.
"""
from __future__ import annotations

import sys

import numpy as np
from tqdm import tqdm

from cubenoc.errors import CubenocError, at_least, require_int
from cubenoc.options import Option, add

from ..plotting import pyplot
from ..safety import FaultSet, MAX_N, MODELS, OPT_MAX_N, compute, format_address, parse_address, sample_faults
from ..safety_opt import r_nodes
from . import safety_claims
from .report import AnalysisResult, table

# ---- the paper's data (Wu Sec. 3.2, 3.5, Table 1) ---------------------------------------------------
_T1_NODES = ("0000 0001 0010 0011 0100 0101 0110 0111 1000 1001 1010 1011 1100 1101 1110 1111").split()


def _t1(dsl: str, adsl: str, gsl: str) -> dict:
    out = {}
    for node, a, b, c in zip(_T1_NODES, dsl.split(), adsl.split(), gsl.split()):
        out[node] = (tuple(map(int, a.split(","))), None if b == "-" else tuple(map(int, b.split(","))), int(c))
    return out


#: Table 1 as printed: {node: (DSL (s_0..s_3), ADSL or None for '-', GSL)}. The caption is garbled; by
#: content (a) is DSL(1) (= DSL(2)) of Fig. 2(a), (b) is DSL(1) of Fig. 2(b), (c) is DSL(2) of Fig. 2(b).
TABLE1 = {
    "a": _t1("0,0,0,0 3,3,2,3 1,1,1,1 3,3,3,3 1,2,2,1 3,1,3,1 0,0,0,0 0,0,0,0 "
             "0,0,0,0 1,3,1,3 0,0,0,0 2,3,3,3 1,2,1,2 0,0,0,0 2,2,1,1 3,1,3,1",
             "- 0,3,3,3 0,0,0,0 0,1,3,3 0,0,2,2 0,0,2,2 - - - 0,0,3,3 - 0,3,3,3 0,0,2,2 - 0,0,2,2 0,0,2,3",
             "0 4 1 4 1 1 0 0 0 1 0 4 1 0 1 1"),
    "b": _t1("0,0,0,0 3,3,2,3 1,1,1,1 3,3,3,3 1,2,2,1 3,1,3,1 0,0,0,0 0,0,0,0 "
             "0,0,0,0 1,3,1,3 0,0,0,0 2,3,3,3 1,1,1,1 0,0,0,0 0,0,0,0 1,1,1,1",
             "- 0,3,3,3 0,0,0,0 0,1,3,3 0,0,1,1 0,0,2,2 - - - 0,0,3,3 - 0,1,3,3 0,0,0,2 - - 0,0,0,3",
             "0 4 1 4 1 1 0 0 0 1 0 4 1 0 0 1"),
    "c": _t1("0,0,0,0 3,3,3,3 3,1,3,1 3,3,3,3 3,3,3,2 3,3,3,3 0,0,0,3 0,0,0,3 "
             "0,0,3,0 3,3,3,3 0,0,0,0 3,3,3,3 1,3,3,1 0,0,0,0 0,3,0,0 3,2,3,3",
             "- 0,3,3,3 - 3,3,3,3 0,3,3,3 0,3,3,3 - - - 0,3,3,3 - 0,3,3,3 - - - 0,3,3,3",
             "0 4 1 4 4 4 0 0 0 4 0 4 1 0 0 4"),
}
TABLE1_MODEL = {"a": ("2a", "DSL1"), "b": ("2b", "DSL1"), "c": ("2b", "DSL2")}
#: Sec. 3.2: SL(2) of the nodes of Fig. 2(b) "from 0 to 15" (the address string read as a binary number)
SL2_FIG2B = (0, 4, 1, 4, 2, 4, 0, 0, 0, 4, 0, 4, 1, 0, 0, 2)

#: The recovered figures (``--recover`` / tests/test_safety_paper.py re-derive Figure 2 by search).
FIGURES = {
    "1": FaultSet.parse(3, "000,010,110"),
    "2a": FaultSet.parse(4, "0000,0110,0111,1000,1010,1101"),
    "2b": FaultSet.parse(4, "0000,1101", "0110-0111,1000-1010,1010-1110"),
}


# ---- recovering Figure 2 ---------------------------------------------------------------------------------
def _mismatches(lv, T: dict) -> np.ndarray:
    """Per batch row: Table-1 entries (DSL vector, GSL) that differ."""
    out = np.zeros(lv.level.shape[0], np.int64)
    for s, (dsl, _adsl, gsl) in T.items():
        v = parse_address(s, 4)
        out += (lv.level[:, v] != np.array(dsl)).any(-1)
        out += lv.gsl[:, v] != gsl
    return out


def recover_figure2() -> dict:
    """Search fault sets of the 4-cube for those whose levels match Table 1 and the SL(2) list.

    Stage 1: DSL(1) depends only on F1 = faulty nodes + ends of faulty links; try all 2^16 sets F1
    against Table 1(a) and 1(b) (DSL vectors and GSL). Stage 2: every split of the best F1 into faulty
    nodes N and faulty links L (links with both ends in F1, N + ends(L) = F1), scored by SL(2) against
    the quoted list (Fig. 2(b)) and DSL(2) against Table 1(c); for Fig. 2(a) by the caption (node faults
    only) and 'SL(2) = SL(1), DSL(2) = DSL(1)' (Sec. 3.2, 3.5; compared as safety / global levels, since
    the directed vectors of 0010 differ - see docs/papers/safety.md)."""
    n, N = 4, 16
    masks = np.arange(1 << N)
    NF = ((masks[:, None] >> np.arange(N)) & 1).astype(bool)
    d1 = compute(NF, np.zeros((1 << N, N, n), bool), "DSL1")
    out = {}
    for fig, key in (("2a", "a"), ("2b", "b")):
        mis = _mismatches(d1, TABLE1[key])
        best = int(mis.min())
        winners = np.flatnonzero(mis == best)
        f1 = [v for v in range(N) if winners[0] >> v & 1]
        edges = [(u, d) for u in f1 for d in range(n) if not u >> d & 1 and (u ^ (1 << d)) in f1]
        cands = []
        for nm in range(1 << len(f1)):
            nodes = [f1[i] for i in range(len(f1)) if nm >> i & 1]
            for lm in range(1 << len(edges)):
                links = [edges[i] for i in range(len(edges)) if lm >> i & 1]
                ends = set(nodes) | {u for u, _ in links} | {u ^ (1 << d) for u, d in links}
                if ends == set(f1):
                    cands.append(FaultSet.build(n, nodes, links))
        nf = np.stack([c.arrays()[0] for c in cands])
        lf = np.stack([c.arrays()[1] for c in cands])
        sl1, sl2 = compute(nf, lf, "SL1"), compute(nf, lf, "SL2")
        dsl1, dsl2 = compute(nf, lf, "DSL1"), compute(nf, lf, "DSL2")
        if fig == "2b":
            want = np.array([SL2_FIG2B[int(format_address(v, n), 2)] for v in range(N)])
            score = (sl2.gsl != want).sum(1) + _mismatches(dsl2, TABLE1["c"])
        else:
            score = ((sl2.gsl != sl1.gsl).any(1) | (dsl2.gsl != dsl1.gsl).any(1)).astype(np.int64)
            score += np.array([len(c.links) > 0 for c in cands])   # caption: "node faults"
        sbest = int(score.min())
        sols = [cands[i] for i in np.flatnonzero(score == sbest)]
        out[fig] = {"stage1_best_mismatches": best, "stage1_matches": len(winners),
                    "F1": [format_address(v, n) for v in f1], "stage2_candidates": len(cands),
                    "stage2_best_mismatches": sbest, "solutions": sols}
    return out


# ---- per-node report ---------------------------------------------------------------------------------------
def node_report(faults: FaultSet, opt: bool = True) -> dict:
    nf, lf = faults.arrays()
    lv = {m: compute(nf, lf, m) for m in MODELS}
    rn = r_nodes(nf, lf)[0] if opt else None
    rows = []
    for v in range(1 << faults.n):
        row = {"node": format_address(v, faults.n), "faulty": bool(nf[v]), "link_faults": int(lf[v].sum()),
               "SL1": int(lv["SL1"].gsl[0, v]), "SL2": int(lv["SL2"].gsl[0, v])}
        for m in ("DSL1", "DSL2"):
            row[m] = [int(x) for x in lv[m].level[0, v]]
            row[f"ADSL{m[-1]}"] = [int(x) for x in lv[m].adsl[0, v]]
            row[f"GSL{m[-1]}"] = int(lv[m].gsl[0, v])
        row["Opt"] = None if rn is None else bool(rn[v])
        rows.append(row)
    return {"n": faults.n, "faults": faults.describe(), "nodes": rows,
            "rounds": {m: int(lv[m].rounds[0]) for m in MODELS},
            "safe": {m: int(lv[m].safe.sum()) for m in MODELS},
            "r_nodes": None if rn is None else int(rn.sum())}


def _vec(v) -> str:
    return ",".join(map(str, v))


def _node_text(rep: dict, paper: dict | None) -> str:
    hdr = ["node", "SL1", "SL2", "DSL1", "ADSL1", "GSL1", "DSL2", "ADSL2", "GSL2", "Opt"]
    rows = []
    for r in rep["nodes"]:
        rows.append([r["node"] + ("*" if r["faulty"] else ("~" if r["link_faults"] else "")),
                     r["SL1"], r["SL2"], _vec(r["DSL1"]), _vec(r["ADSL1"]) if max(r["DSL1"]) else "-",
                     r["GSL1"], _vec(r["DSL2"]), "-" if min(r["DSL2"]) < 2 else _vec(r["ADSL2"]), r["GSL2"],
                     "-" if r["Opt"] is None else ("yes" if r["Opt"] else "no")])
    text = [f"{rep['n']}-cube, {rep['faults']}  (* faulty node, ~ end of a faulty link; "
            f"addresses u_0..u_{rep['n'] - 1}, dimension 0 first)", table(rows, hdr),
            "safe nodes: " + ", ".join(f"{m} {rep['safe'][m]}" for m in MODELS)
            + (f", r-nodes (Opt) {rep['r_nodes']}" if rep["r_nodes"] is not None else ""),
            "rounds to settle: " + ", ".join(f"{m} {rep['rounds'][m]}" for m in MODELS)
            + f" (paper's bounds {rep['n'] - 1}, {rep['n'] - 2}, {rep['n'] - 2}, {rep['n'] - 3})"]
    if paper:
        text.append("")
        text.append(paper["text"])
    return "\n".join(text)


def compare_table1(fig: str, rep: dict) -> dict:
    """Our DSL/ADSL/GSL against Table 1 for Fig. 2(a)/(b): the entries that differ."""
    diffs = []
    for key, (f, model) in TABLE1_MODEL.items():
        if f != fig:
            continue
        d = model[-1]
        for r in rep["nodes"]:
            dsl, adsl, gsl = TABLE1[key][r["node"]]
            ours = (tuple(r[model]), None if adsl is None else tuple(r[f"ADSL{d}"]), r[f"GSL{d}"])
            if ours != (dsl, adsl, gsl):
                diffs.append({"table": key, "model": model, "node": r["node"], "paper": [dsl, adsl, gsl],
                              "ours": list(ours), "Opt": r["Opt"]})
    lines = [f"Table 1 vs ours for Figure {fig}: {len(diffs)} node rows differ"]
    for x in diffs:
        p, o = x["paper"], x["ours"]
        lines.append(f"  ({x['table']}) {x['model']} {x['node']}: paper DSL {_vec(p[0])} ADSL "
                     f"{_vec(p[1]) if p[1] else '-'} GSL {p[2]}; ours DSL {_vec(o[0])} ADSL "
                     f"{_vec(o[1]) if o[1] else '-'} GSL {o[2]}; r-node: {x['Opt']}")
    if fig == "2b":
        ours = [rep["nodes"][parse_address(format(i, "04b"), 4)]["SL2"] for i in range(16)]
        lines.append(f"SL(2) nodes 0..15: paper {list(SL2_FIG2B)}, ours {ours}")
    return {"diffs": diffs, "text": "\n".join(lines)}


# ---- Figure 5 ---------------------------------------------------------------------------------------------
def _parse_range(text: str, lo: int, hi: int) -> list[int]:
    out = []
    for part in str(text).split(","):
        part = part.strip()
        if ".." in part:
            a, b = part.split("..", 1)
            a, b = require_int(a, "--fault-counts start"), require_int(b, "--fault-counts end")
            out.extend(range(a, b + 1))
        elif part:
            out.append(require_int(part, "--fault-counts"))
    if not out:
        raise CubenocError("--fault-counts needs a number or a range like 1..9")
    for f in out:
        if not lo <= f <= hi:
            raise CubenocError(f"too many faults: --fault-counts must be in {lo}..{hi} (half the nodes) for this cube, got {f}")
    return out


def figure5(n: int, faults: list[int], mixes: list[str], trials: int, seed: int, opt: bool,
            progress: bool = True) -> dict:
    rng = np.random.default_rng(seed)
    opt_batch = max(1, (1 << 21) // (4 ** n))
    results = {}
    work = len(mixes) * len(faults) * trials
    with tqdm(total=work, desc=f"Figure 5, {n}-cube", unit="trial", file=sys.stderr,
              disable=not progress) as bar:
        for mix in mixes:
            rows = []
            for f in faults:
                NF, LF = sample_faults(rng, n, f, mix, trials)
                alive = (~NF).sum()
                row = {"f": f}
                for m in MODELS:
                    lv = compute(NF, LF, m)
                    row[m] = 100.0 * lv.safe.sum() / alive
                    row[f"rounds_{m}"] = int(lv.rounds.max())
                if opt:
                    cnt = 0
                    for s in range(0, trials, opt_batch):
                        cnt += int(r_nodes(NF[s:s + opt_batch], LF[s:s + opt_batch]).sum())
                        bar.update(min(opt_batch, trials - s))
                    row["Opt"] = 100.0 * cnt / alive
                else:
                    row["Opt"] = None
                    bar.update(trials)
                rows.append(row)
            results[mix] = rows
    return results


def _figure5_text(n, res, trials, opt) -> str:
    out = []
    for mix, rows in res.items():
        out.append(f"Figure 5, {n}-cube, {mix} faults, {trials} trials per point: % of non-faulty nodes that are safe")
        hdr = ["f"] + list(MODELS) + ["Opt"]
        out.append(table([[r["f"]] + [r[m] for m in MODELS] + [r["Opt"] if r["Opt"] is not None else "-"]
                          for r in rows], hdr))
        out.append("max rounds to settle: " + ", ".join(
            f"{m} {max(r[f'rounds_{m}'] for r in rows)}" for m in MODELS))
        out.append("")
    if not opt:
        out.append(f"Opt (exact r-node DP, O(4^n n) per fault set) is run for n <= {OPT_MAX_N} only")
    return "\n".join(out).rstrip()


def _figure5_plot(n, res):
    def plot(path: str) -> None:
        plt = pyplot()
        fig, axes = plt.subplots(1, len(res), figsize=(5 * len(res), 4), squeeze=False)
        for ax, (mix, rows) in zip(axes[0], res.items()):
            fs = [r["f"] for r in rows]
            for m, style in zip(list(MODELS) + ["Opt"], ["o-", "s-", "^-", "v-", "k--"]):
                ys = [r[m] for r in rows]
                if None not in ys:
                    ax.plot(fs, ys, style, label=m.replace("1", "(1)").replace("2", "(2)"))
            ax.set_title(f"{n}-cube, {mix} faults")
            ax.set_xlabel("number of faults")
            ax.set_ylabel("% safe nodes")
            ax.grid(alpha=0.3)
            ax.legend()
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)
    return plot


# ---- CLI ---------------------------------------------------------------------------------------------------
def add_arguments(p) -> None:
    p.add_argument("--n", default=None, help="cube dimension (default 4; 9 with --fault-counts)")
    p.add_argument("--faulty-nodes", default="", help="comma-separated addresses u_0..u_{n-1}, e.g. 0011,0100")
    p.add_argument("--faulty-links", default="", help="comma-separated links ADDR-ADDR, e.g. 0000-0001")
    p.add_argument("--figure", choices=sorted(FIGURES), help="the paper's Figure 1, 2(a) or 2(b) (recovered fault sets)")
    p.add_argument("--recover", action="store_true", help="re-run the search recovering Figure 2 from Table 1")
    add(p, "fault-counts", option=Option("fault-counts", "Figure 5: numbers of faults, e.g. 1..9 or 1,3,5",
                                         aliases=("faults",)))
    p.add_argument("--mix", default="node,link,mixed", help="Figure 5: node, link, mixed (comma-separated)")
    p.add_argument("--trials", type=at_least(1), default=None,
                   help="Figure 5: random fault sets per point (default 100)")
    add(p, "seed", default=None, note="(Figure 5; default 1)")
    p.add_argument("--no-opt", action="store_true", help="skip the exact r-node (Opt) computation")
    p.add_argument("--claims", action="store_true", help="the safety level against the exact r-level, Lemmas 1a "
                   "and 3a, rounds and messages of the level computation against the paper's bounds [~30 s]")


def analyze(args) -> AnalysisResult:
    explicit = bool(args.faulty_nodes or args.faulty_links)
    modes = sum([explicit, args.figure is not None, args.fault_counts is not None, bool(args.recover),
                 bool(args.claims)])
    if modes > 1:
        raise CubenocError("use one of --faulty-nodes/--faulty-links, --figure, --recover, --fault-counts or --claims")
    figure5_only = [f for f, given in (("--trials", args.trials is not None), ("--seed", args.seed is not None),
                                       ("--mix", args.mix != "node,link,mixed"), ("--no-opt", args.no_opt))
                    if given]
    if figure5_only and args.fault_counts is None:
        raise CubenocError(f"{' and '.join(figure5_only)} go with Figure 5 (--fault-counts 1..9); without it they "
                           "would be ignored")
    if args.claims:
        data = safety_claims.claims(require_int(args.n if args.n is not None else 6, "n", 3, 8))
        return AnalysisResult(data, safety_claims.text(data))
    if args.recover:
        rec = recover_figure2()
        data, text = {}, []
        for fig, r in rec.items():
            sols = [s.describe() for s in r["solutions"]]
            data[fig] = {k: v for k, v in r.items() if k != "solutions"} | {"solutions": sols}
            text.append(f"Figure {fig}: stage 1 (all 2^16 sets F1, DSL(1) vs Table 1): {r['stage1_matches']} "
                        f"set(s) with {r['stage1_best_mismatches']} mismatching entries, F1 = {','.join(r['F1'])}; "
                        f"stage 2: {r['stage2_candidates']} node/link splits, best {r['stage2_best_mismatches']} "
                        f"mismatches, {len(sols)} solution(s): " + " | ".join(sols))
        return AnalysisResult(data, "\n".join(text))
    if args.fault_counts is not None:
        n = require_int(args.n if args.n is not None else 9, "n", 3, MAX_N)
        faults = _parse_range(args.fault_counts, 0, 1 << (n - 1))
        mixes = [m.strip() for m in str(args.mix).split(",") if m.strip()]
        for m in mixes:
            if m not in ("node", "link", "mixed"):
                raise CubenocError(f"--mix must be node, link or mixed (comma-separated), got {m!r}")
        trials = require_int(100 if args.trials is None else args.trials, "--trials", 1, 100000)
        seed = 1 if args.seed is None else args.seed
        opt = not args.no_opt and n <= OPT_MAX_N
        res = figure5(n, faults, mixes, trials, seed, opt)
        data = {"n": n, "trials": trials, "seed": seed, "opt": opt, "results": res}
        return AnalysisResult(data, _figure5_text(n, res, trials, opt), _figure5_plot(n, res))
    if args.figure is not None:
        faults = FIGURES[args.figure]
        if args.n is not None and require_int(args.n, "n") != faults.n:
            raise CubenocError(f"Figure {args.figure} is a {faults.n}-cube, got --n {args.n}")
    else:
        n = require_int(args.n if args.n is not None else 4, "n", 2, MAX_N)
        faults = FaultSet.parse(n, args.faulty_nodes, args.faulty_links)
    if args.plot:
        raise CubenocError("--plot needs the Figure 5 experiment (--fault-counts)")
    rep = node_report(faults, opt=not args.no_opt and faults.n <= OPT_MAX_N)
    paper = compare_table1(args.figure, rep) if args.figure in ("2a", "2b") else None
    if paper:
        rep["table1_diffs"] = paper["diffs"]
    return AnalysisResult(rep, _node_text(rep, paper))
