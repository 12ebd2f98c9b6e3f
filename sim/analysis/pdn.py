"""``cubenoc analyze pdn`` (Parhami and Rakov, perfect difference networks): options, text, JSON, plot.

The paper's formulas and printed Table 1 are in :mod:`.pdn_formulas`, the computations on the explicit
graphs in :mod:`.pdn_measure`; docs/papers/pdn.md compares them.
"""
from __future__ import annotations

from cubenoc.errors import CubenocError, require_int

from ..plotting import pyplot
from ..topology.pdn import PerfectDifferenceNetwork, parse_pds, registry_set, zero_free
from . import pdn_claims
from .pdn_claims import MAX_COLLECTIVE_N
from .pdn_measure import product_properties, product_sizes, properties, table1, table2
from .report import AnalysisResult, log_axis, table


def add_arguments(parser) -> None:
    parser.add_argument("--set", metavar="S", help="a perfect difference set, e.g. 0,1,3,9 (0-free sets allowed)")
    parser.add_argument("--delta", type=int, help="use the registry's normal-form set of this order (default 3)")
    parser.add_argument("--zero-free", action="store_true", help="analyse the 0-free PDN of the set plus 1 (Definition 4)")
    parser.add_argument("--product", metavar="D1,D0", help="also analyse the product of registry PDNs of these orders "
                        "(written order H_(q-1),...,H_0), e.g. 2,2 for the 7x7 2-D PDN")
    parser.add_argument("--exact-limit", type=int, default=16,
                        help="exhaustive fault sets and exact bisection up to this many nodes (default 16)")
    parser.add_argument("--samples", type=int, default=200, help="random fault sets above --exact-limit (default 200)")
    parser.add_argument("--collectives", action="store_true",
                        help="the H^2 all-to-all broadcast and complete exchange, bit reversal and H^2 sorting, "
                             f"replayed step by step next to the paper's counts, and the H^2 collectives run on the routers' "
                             f"cycle-accurate model (n <= {MAX_COLLECTIVE_N})")
    parser.add_argument("--claims", action="store_true",
                        help="the VLSI layout, the bipartite PDN as a 2n-node network, edge vs node faults and the "
                             "normal-form sets, next to the paper's claims")


def _select_set(args) -> tuple[int, ...]:
    if args.set is not None and args.delta is not None:
        raise CubenocError("give either --set or --delta, not both")
    if args.set is not None:
        pds = parse_pds(args.set)
    else:
        pds = registry_set(require_int(args.delta if args.delta is not None else 3, "delta", 1, 32))
    return zero_free(pds) if args.zero_free else pds


def analyze(args) -> AnalysisResult:
    pds = _select_set(args)
    topo = PerfectDifferenceNetwork(pds)
    exact = require_int(args.exact_limit, "--exact-limit", 1, 22)
    props = properties(topo, exact, require_int(args.samples, "--samples", 1, 100000))
    t1 = table1()
    data = {"network": props, "table1": t1, "sec2_product_sizes": product_sizes()}
    if topo.delta >= 2 and not topo.zero_free:
        data["table2"] = table2(topo.delta, exact)
    if args.collectives or args.claims:
        if topo.zero_free:
            raise CubenocError("--collectives and --claims take a basic PDN (a set containing 0), not --zero-free")
        if args.collectives:
            if topo.n > MAX_COLLECTIVE_N:
                raise CubenocError(f"--collectives replays schedules on H^2: n must be <= {MAX_COLLECTIVE_N}, got {topo.n}")
            data["collectives"] = pdn_claims.collectives(pds)
        if args.claims:
            if topo.n > 31:
                raise CubenocError(f"--claims searches fault sets exhaustively: n must be <= 31, got {topo.n}")
            data["claims"] = pdn_claims.claims(pds)
    if "table2" in data:
        data["table2"]["bisection_verdicts"] = pdn_claims.table2_bisection_verdicts(data["table2"])
    if args.product:
        try:
            orders = [int(t) for t in args.product.split(",")]
        except ValueError:
            raise CubenocError(f"--product takes comma-separated orders like 2,2, got {args.product!r}") from None
        data["product"] = product_properties(orders)
    return AnalysisResult(data, _text(data), lambda path: _plot(t1, path))


def _yn(b) -> str:
    return "yes" if b else "NO"


def _text(data) -> str:
    p = data["network"]
    d = p["delta"]
    kind = "0-free PDN" if p["zero_free"] else "basic PDN"
    lines = [f"{kind} on {{{','.join(map(str, p['set']))}}}: delta = {d}, n = {p['nodes']}", ""]
    rows = [
        ["nodes", p["nodes"], f"delta^2+delta+1 = {d * d + d + 1}"],
        ["ports (degree)", f"{p['ports']} ({p['degree']} connected)",
         f"2delta = {2 * d}" if not p["zero_free"] else f"2delta+2 = {2 * d + 2}"],
        ["links", p["links"], f"delta*n = {d * p['nodes']}" if not p["zero_free"] else ""],
        ["diameter", p["diameter"], "2"],
        ["avg distance (distinct pairs)", p["avg_distance"], f"2delta/(delta+1) = {p['paper_avg_distance']:.4f}"],
        ["avg distance (incl. self)", p["avg_distance_incl_self"], f"2delta^2/n = {p['paper_avg_distance_sec2']:.4f} (Sec. 2)"],
        ["bisection width", p["bisection"] if p["bisection"] is not None else "n/a (raise --exact-limit)",
         f">= {p['bisection_bound_table2']:g} (Table 2), >= {p['bisection_bound_text']} (Sec. 3)"],
        ["connectivity", p["fault_diameter"]["connectivity"], "2delta"],
    ]
    if p["unconnected_ports"]:
        rows.append(["degenerate (unconnected) ports", " ".join(p["unconnected_ports"]), "-"])
    lines.append(table(rows, ["property", "ours", "paper"]))
    lines += _theorems_text(p)
    if "collective" in p:
        lines += ["", _collective_table(p["collective"])]
    if "table2" in data:
        lines += _table2_text(data["table2"])
    lines += pdn_claims.text(data)
    lines += _table1_text(data)
    return "\n".join(lines)


def _theorems_text(p) -> list[str]:
    """Algorithm 1's routes, the deadlock check and Theorems 1 and 3-5 of one PDN."""
    d = p["delta"]
    a1 = p["algorithm1"]
    lines = ["", f"Algorithm 1 (ROM of {p['rom_entries']} x {p['rom_port_bits']}-bit ports; paper's table "
             f"{p['paper_table_bits']} bits): mean {a1['mean_hops']:.4f} hops, max {a1['max_hops']}, "
             f"shortest for all {a1['pairs']} pairs: {_yn(a1['all_shortest'])}",
             f"Theorem 1 channel load (all pairs, Algorithm 1): min {p['theorem1_channel_load']['min']}, "
             f"max {p['theorem1_channel_load']['max']} (paper: exactly delta = {d})"]
    dl = p["deadlock"]
    lines.append("Deadlock: " + "; ".join(f"{k} ({v['vcs']} VC) {'acyclic' if v['acyclic'] else 'CYCLIC'}"
                                           for k, v in dl.items()))
    sf = p["single_fault"]
    lines.append(f"One link removed: diameter {sf['link']}; one node removed: {sf['node']}")
    if "theorem3_zero_free" in p:
        z = p["theorem3_zero_free"]
        lines.append(f"Theorem 3, 0-free set {{{','.join(map(str, z['set']))}}} (degree {z['degree']}"
                     f"{', degenerate chords' if z['degenerate_chords'] else ''}): diameter after one link "
                     f"{z['link']}, after one node {z['node']} (paper: 2)")
    fd = p["fault_diameter"]
    lines.append(f"Theorem 4: fault diameter with <= {fd['max_faults']} faulty nodes = {fd['fault_diameter']} "
                 f"({'all' if fd['exhaustive'] else 'random'} {fd['fault_sets']} fault sets"
                 f"{'' if fd['exhaustive'] else ', a lower bound'}; worst {fd['worst_faults']}) (paper: <= 4)")
    t5 = p["theorem5"]
    lines.append(f"Theorem 5: chords coprime to n: {t5['coprime_chords']} -> {t5['hamiltonian_cycles']} Hamiltonian "
                 f"cycles, edge-disjoint: {_yn(t5['edge_disjoint'])}; Hamiltonian with up to "
                 f"{t5['tolerated_link_faults']} link faults")
    return lines


def _collective_table(c) -> str:
    """The collectives of Sec. 5 (Algorithms 3-6, Theorem 1's emulation) against the paper's step counts."""
    def row(label, key, note, steps="steps", paper="paper_steps"):
        return [label, c[key][steps], c[key][paper], note]
    return table([
        row("Alg. 3 broadcast, all-port", "alg3_all_port",
            f"{c['alg3_all_port']['messages']} messages, one copy each: {_yn(c['alg3_all_port']['exactly_once'])}"),
        row("Alg. 3 broadcast, single-port", "alg3_single_port",
            f"max receives/step {c['alg3_single_port']['max_receives']}"),
        row("Alg. 4 all-to-all broadcast", "alg4_all_to_all",
            f"1 send + 1 receive per node per step, complete: {_yn(c['alg4_all_to_all']['complete'])}"),
        row("Alg. 5 complete exchange", "alg5_complete_exchange",
            f"1 send + 1 receive per step, complete: {_yn(c['alg5_complete_exchange']['complete'])}"),
        row("Alg. 5 pipelined", "alg5_pipelined", f"needs {c['alg5_pipelined']['max_sends']} sends/step (1 fwd + 1 bwd)"),
        row("Alg. 6 shift (worst c)", "alg6_shift", f"1 step for c in {c['alg6_shift']['one_step']}",
            steps="max_steps", paper="paper_max_steps"),
        row("Thm 1 emulation of K_n (all-port)", "theorem1_emulation",
            f"<= {c['theorem1_emulation']['max_channel']} message/channel/step"),
    ], ["collective", "steps", "paper", "notes"])


def _table2_text(t2) -> list[str]:
    """Table 2: ours against the paper's formulas, and the bisection bounds."""
    nets = list(t2["ours"])
    rows = []
    for key in ("nodes", "degree", "links", "diameter", "avg_distance", "bisection"):
        rows.append([key] + [f"{_fmtv(t2['ours'][k].get(key))} | {_fmtv(t2['paper'][k][key])}" for k in nets])
    rows.append(["avg dist incl. self"] + [_fmtv(t2["ours"][k]["avg_distance_incl_self"]) for k in nets])
    lines = ["", f"Table 2 at delta = {t2['delta']} (ours | paper's formula; only hosts counted):",
             table(rows, ["parameter"] + nets)]
    lines.append("Table 2 bisection bounds against the exact bisection: " + "; ".join(
        f"{k} {v['ours']} {v['bound']}: {v['verdict']}" for k, v in t2["bisection_verdicts"].items()))
    return lines


def _table1_text(data) -> list[str]:
    """Table 1 (scalability), Sec. 2's power and product sizes, and a product PDN if measured."""
    rows = []
    for r in data["table1"]:
        rows.append([r["delta"], r["n"], f"{r['closest']:.3f}", f"{r['paper_closest']:.3f}", f"{r['next']:.3f}",
                     f"{r['paper_next']:.3f}", r.get("hypercube", ""),
                     f"{r['hc_closest']:.3f}" if "hc_closest" in r else "", f"{r['hc_next']:.3f}" if "hc_next" in r else ""])
    lines = ["", "Table 1 (scalability; ours next to the paper's):",
             table(rows, ["delta", "n", "closest", "paper", "next size", "paper", "cube", "closest", "next"])]
    ps = data["sec2_product_sizes"]
    lines.append(f"Sec. 2: power networks below {ps['limit']}: {ps['powers']}; products add {ps['new_sizes']} new sizes "
                 f"below {ps['limit']} (paper: 'some 34')")
    if "product" in data:
        q = data["product"]
        lines += ["", f"Product PDN {' x '.join('{' + ','.join(map(str, f)) + '}' for f in q['factors'])}: "
                  f"{q['nodes']} nodes, degree {q['degree']}, diameter {q['diameter']}, avg distance "
                  f"{q['avg_distance']:.4f} (incl. self {q['avg_distance_incl_self']:.4f} = sum of factors' "
                  f"{q['sum_factor_avg_incl_self']:.4f}); DOR shortest: {_yn(q['dor']['all_shortest'])}, "
                  f"Theorem 2 deadlock-free: {_yn(q['theorem2_acyclic'])}"]
    return lines


def _fmtv(v, digits: int = 4) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{digits}f}".rstrip("0").rstrip(".") if v != int(v) else str(int(v))
    return str(v)


def _plot(t1, path: str) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    ns = [r["n"] for r in t1]
    ax.plot(ns, [r["closest"] for r in t1], "o-", label="PDN closest")
    ax.plot(ns, [r["next"] for r in t1], "s-", label="PDN next size")
    hc = [r for r in t1 if "hypercube" in r]
    ax.plot([r["hypercube"] for r in hc], [r["hc_closest"] for r in hc], "o--", label="hypercube closest")
    ax.plot([r["hypercube"] for r in hc], [r["hc_next"] for r in hc], "s--", label="hypercube next size")
    log_axis(ax, "x")
    ax.set_xlabel("network size n")
    ax.set_ylabel("worst relative size difference")
    ax.set_title("PDN scalability (Parhami and Rakov Table 1)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
