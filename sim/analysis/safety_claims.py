"""Wu, directed safety levels: the claims of Secs. 1-4 outside Table 1 and Figure 5 -- the safety level
against the exact r-level (the largest k for which a node is an r-node of every subcube of dimension
<= k through it), Lemma 1a (the round at which a node settles), Lemma 3a (at most three distinct
directed safety levels), and the rounds and messages of the level computations against the stated
bounds. docs/papers/safety.md explains them.
"""
from __future__ import annotations

import itertools

import numpy as np

from ..safety import MODELS, compute, decide, initial_levels, reference, sample_faults, sl_round
from ..safety_opt import r_levels, r_nodes
from .report import table

#: rounds of the decision process the paper states (Lemma 1a and Secs. 3.1-3.3)
ROUND_BOUND = {"SL1": lambda n: n - 1, "SL2": lambda n: n - 2, "DSL1": lambda n: n - 2, "DSL2": lambda n: n - 3}


def r_level_check(n: int = 6, faults=(2, 4, 6, 8), trials: int = 40, seed: int = 1) -> list[dict]:
    """SL(1) against the exact r-level under node faults (the safety-level property: level l means a
    spanning incomplete binomial tree in every m-subcube, m <= l, through the node), and GSL = n of
    DSL(2) against the exact r-node test under mixed faults."""
    rng = np.random.default_rng(seed)
    rows = []
    for f in faults:
        NF, LF = sample_faults(rng, n, f, "node", trials)
        rl = r_levels(NF, LF)
        sl = compute(NF, LF, "SL1").gsl
        alive = ~NF
        NFm, LFm = sample_faults(rng, n, f, "mixed", trials)
        safe = compute(NFm, LFm, "DSL2").gsl == n
        rows.append({"n": n, "faults": f, "trials": trials,
                     "sl_le_r_level": bool((sl <= rl).all()),
                     "sl_equals_r_level": float((sl == rl)[alive].mean()),
                     "mean_sl": float(sl[alive].mean()), "mean_r_level": float(rl[alive].mean()),
                     "gsl_safe_are_r_nodes": bool((~safe | r_nodes(NFm, LFm)).all())})
    return rows


def lemma_3a(n_max: int = 7) -> list[dict]:
    """Every nondescending sequence of n relevant levels (values 0..n-1): the n directed levels, each the
    decision over the sequence with one element left out, take how many distinct values?"""
    rows = []
    for n in range(3, n_max + 1):
        worst, count = 0, 0
        for d in (1, 2):
            ref = reference(n - 1, d)
            for seq in itertools.combinations_with_replacement(range(n), n):
                vals = {decide(seq[:k] + seq[k + 1:], ref, n - 1) for k in range(n)}
                worst = max(worst, len(vals))
                count += 1
        rows.append({"n": n, "sequences": count, "most_distinct": worst, "paper": 3,
                     "verdict": "holds" if worst <= 3 else "FAILS"})
    return rows


def settled_distinct(n: int = 6, trials: int = 30, seed: int = 4) -> dict:
    """Distinct values in the settled DSL(1) / DSL(2) vectors of non-faulty nodes, random mixed faults
    1..2n (assigned elements included)."""
    rng = np.random.default_rng(seed)
    worst = {}
    for m in ("DSL1", "DSL2"):
        w = 0
        for f in range(1, 2 * n + 1):
            NF, LF = sample_faults(rng, n, f, "mixed", trials)
            v = np.sort(compute(NF, LF, m).level, axis=-1)
            distinct = 1 + (np.diff(v, axis=-1) != 0).sum(-1)
            w = max(w, int(distinct[~NF].max()))
        worst[m] = w
    return {"n": n, "trials_per_f": trials, "most_distinct": worst}


def lemma_1a(n: int = 7, faults=(3, 6, 9), trials: int = 40, seed: int = 2) -> dict:
    """SL(1) round by round: at round k exactly the nodes whose final level is k change, to k."""
    rng = np.random.default_rng(seed)
    ok = True
    for f in faults:
        NF, LF = sample_faults(rng, n, f, "node", trials)
        cur = initial_levels(NF, LF, "SL1")
        fixed = cur < 1
        final = compute(NF, LF, "SL1").gsl
        for k in range(1, n + 1):
            new = sl_round(cur, fixed, n, 1)
            changed = new != cur
            ok &= bool((new[changed] == k).all())                      # they change to k ...
            ok &= bool((changed == ((final == k) & (cur != k) & ~fixed)).all())   # ... and only they
            cur = new
    return {"n": n, "faults": list(faults), "trials": trials, "holds": ok}


def complexity(ns=(5, 6, 7, 8), trials: int = 60, seed: int = 3) -> list[dict]:
    """Rounds until no level changes (worst and mean over random fault sets of 1..2n mixed faults)
    against the paper's bound, and the messages of the worst run: every node sends its level(s) to its n
    neighbours each round (a DSL message carries n levels; one more exchange for the adjustment)."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in ns:
        N = 1 << n
        batches = [sample_faults(rng, n, f, mix, trials) for f in range(1, 2 * n + 1) for mix in ("node", "mixed")]
        few = [sample_faults(rng, n, f, "node", trials) for f in range(1, n)]
        for m in MODELS:
            worst = max(int(compute(NF, LF, m).rounds.max()) for NF, LF in batches)
            mean_few = float(np.mean([compute(NF, LF, m).rounds.mean() for NF, LF in few]))
            bound = ROUND_BOUND[m](n)
            extra = 1 if m.startswith("DSL") else 0
            rows.append({"n": n, "model": m, "worst_rounds": worst, "paper_bound": bound,
                         "mean_rounds_fewer_than_n_faults": mean_few,
                         "messages_worst": (worst + extra) * N * n,
                         "levels_per_message": n if m.startswith("DSL") else 1,
                         "verdict": "holds" if worst <= bound else "FAILS"})
    return rows


def r_node_capture(ns=(4, 5, 6, 7, 8, 9), trials: int = 40, seed: int = 5) -> list[dict]:
    """Sec. 1, citing Wu's safety-level paper: "the safety level model can capture over 99% of r-nodes for
    n (< 10)-cubes with k (< n) faulty nodes": the safe nodes (SL = n) over the exact r-nodes, random node
    faults 1..n-1 (``trials`` sets each)."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in ns:
        safe_r = r_total = 0
        worst = (2.0, 0)
        for f in range(1, n):
            NF, LF = sample_faults(rng, n, f, "node", trials)
            r = r_nodes(NF, LF)
            safe = compute(NF, LF, "SL1").gsl == n
            assert not (safe & ~r).any()                  # a safe node is an r-node (the embedding property)
            share = (safe & r).sum() / max(1, r.sum())
            worst = min(worst, (share, f))
            safe_r, r_total = safe_r + int((safe & r).sum()), r_total + int(r.sum())
        rows.append({"n": n, "faults": f"1..{n - 1}", "trials_per_f": trials, "captured": safe_r / r_total,
                     "worst_captured": float(worst[0]), "worst_faults": worst[1],
                     "verdict": "holds" if safe_r / r_total > 0.99 else "FAILS"})
    return rows


def safe_neighbour(exhaustive=(2, 3, 4, 5), sampled=(6, 7, 8), trials: int = 300, seed: int = 6) -> list[dict]:
    """Sec. 2 (Wu, citing his safety-level paper): an unsafe source starts the broadcast from a safe
    neighbour, "such a neighbor always exists as long as the number of node faults is less than n": every
    non-faulty unsafe node (SL) has a safe neighbour, for every set of fewer than n faulty nodes
    (``exhaustive`` cubes) or random sets (``sampled``)."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in (*exhaustive, *sampled):
        N = 1 << n
        if n in exhaustive:
            sets = [c for f in range(n) for c in itertools.combinations(range(N), f)]
            NF = np.zeros((len(sets), N), bool)
            for b, c in enumerate(sets):
                NF[b, list(c)] = True
            LF = np.zeros((len(sets), N, n), bool)
        else:
            parts = [sample_faults(rng, n, f, "node", trials) for f in range(1, n)]
            NF, LF = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
        safe = compute(NF, LF, "SL1").gsl == n
        nbr = np.arange(N)[:, None] ^ (1 << np.arange(n))[None, :]
        has = safe[:, nbr].any(-1)                        # [B, N]: some neighbour is safe
        unsafe = ~NF & ~safe
        rows.append({"n": n, "fault_sets": len(NF), "how": "every set" if n in exhaustive else "random",
                     "unsafe_nodes": int(unsafe.sum()), "without_safe_neighbour": int((unsafe & ~has).sum()),
                     "verdict": "holds" if not (unsafe & ~has).any() else "FAILS"})
    return rows


def claims(n: int = 6) -> dict:
    return {"r_level": r_level_check(n), "lemma_1a": lemma_1a(), "lemma_3a": lemma_3a(),
            "lemma_3a_settled": settled_distinct(), "complexity": complexity(), "r_node_capture": r_node_capture(),
            "safe_neighbour": safe_neighbour()}


def text(data: dict) -> str:
    lines = ["Safety level against the exact r-level (largest k: an r-node of every subcube of dimension <= k):",
             table([[r["n"], r["faults"], r["trials"], "yes" if r["sl_le_r_level"] else "NO",
                     f"{100 * r['sl_equals_r_level']:.1f} %", f"{r['mean_sl']:.3f}", f"{r['mean_r_level']:.3f}",
                     "yes" if r["gsl_safe_are_r_nodes"] else "NO"] for r in data["r_level"]],
                   ["n", "faults", "trials", "SL <= r-level", "SL = r-level", "mean SL", "mean r-level",
                    "GSL(DSL2)=n -> r-node"])]
    l1 = data["lemma_1a"]
    lines.append(f"Lemma 1a (round k: exactly the k-safe nodes change, to k), {l1['n']}-cube, faults {l1['faults']}: "
                 f"{'holds' if l1['holds'] else 'FAILS'}")
    lines += ["", "Lemma 3a (at most three distinct directed safety levels per node), every sequence of neighbour levels:",
              table([[r["n"], r["sequences"], r["most_distinct"], r["paper"], r["verdict"]] for r in data["lemma_3a"]],
                    ["n", "sequences (d=1,2)", "most distinct", "paper", "verdict"])]
    st = data["lemma_3a_settled"]
    lines.append(f"  settled vectors, {st['n']}-cube, random mixed faults 1..{2 * st['n']}: most distinct "
                 + ", ".join(f"{m} {v}" for m, v in st["most_distinct"].items()))
    lines += ["", "Rounds and messages of the level computation (random node and mixed faults, 1..2n):",
              table([[r["n"], r["model"], r["worst_rounds"], r["paper_bound"], f"{r['mean_rounds_fewer_than_n_faults']:.2f}",
                      r["messages_worst"], r["levels_per_message"], r["verdict"]] for r in data["complexity"]],
                    ["n", "model", "worst rounds", "paper bound", "mean rounds (f < n)", "messages (worst)",
                     "levels/message", "verdict"])]
    lines += ["", "Sec. 1 (Wu's safety-level paper): safe nodes capture over 99 % of the r-nodes for n < 10, fewer than "
              "n node faults (exact r-nodes):",
              table([[r["n"], r["faults"], r["trials_per_f"], f"{100 * r['captured']:.2f} %",
                      f"{100 * r['worst_captured']:.2f} % ({r['worst_faults']} faults)", r["verdict"]]
                     for r in data["r_node_capture"]],
                    ["n", "node faults", "sets per count", "captured", "worst count", "verdict"]),
              "", "Sec. 2: an unsafe node has a safe neighbour while fewer than n nodes are faulty:",
              table([[r["n"], r["fault_sets"], r["how"], r["unsafe_nodes"], r["without_safe_neighbour"], r["verdict"]]
                     for r in data["safe_neighbour"]],
                    ["n", "fault sets", "which", "unsafe nodes", "without a safe neighbour", "verdict"])]
    return "\n".join(lines)
