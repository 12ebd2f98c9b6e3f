"""What the safety-level hardware must show, from sim/safety.py: round by round after a restart, and the
settled levels; plus the fault-set enumerations and the cycle schedule the cocotb bench plays.

Keys are the hardware's output names (``sl1``, ``dsl1``, ``gsl1``, ``adsl1``, ``order1``, ...), arrays
``[B, N, fields]`` for a batch of B fault sets.
"""
from __future__ import annotations

from itertools import combinations

import numpy as np

from cubenoc.sim.safety import (LEVEL, adjust_vec, compute, decide_vec, dsl_round, initial_levels, reference,
                          sl_round)


def settle_bound(model: str, n: int) -> int:
    """Rounds to settle (the paper's bounds; the hardware keeps them from any earlier state)."""
    return max(0, {"SL1": n - 1, "SL2": n - 2, "DSL1": n - 2, "DSL2": n - 3}[model])


def clamp_start(model: str) -> int:
    """Right after a fault change every level min(., c) is already final, c = d; one more per cycle."""
    return int(model[-1])


def _keys(model: str, cur, init, n, d) -> dict:
    key = model.lower()
    if model.startswith("SL"):
        return {key: cur[..., None]}
    adsl, order = adjust_vec(cur)
    g = decide_vec(adsl, reference(n, d), n)
    if d == 1:
        gsl = np.where(init.max(-1) == 0, 0, g)
    else:
        fixed = init < 2
        gsl = np.where(fixed.any(-1), np.where(fixed, init, n).min(-1), g)
    return {key: cur, "gsl" + key[-1]: gsl.astype(LEVEL)[..., None], "adsl" + key[-1]: adsl, "order" + key[-1]: order}


def reference_rounds(NF, LF, model: str, rounds: int) -> list[dict]:
    """Python's rounds 0..rounds (round 0 = initial levels) with the adjustment and GSL of each round."""
    n = LF.shape[-1]
    d = int(model[-1])
    init = initial_levels(NF, LF, model)
    fixed = init < d
    step = sl_round if model.startswith("SL") else dsl_round
    cur, out = init, []
    for r in range(rounds + 1):
        if r:
            cur = step(cur, fixed, n, d)
        out.append(_keys(model, cur, init, n, d))
    return out


def reference_final(NF, LF, model: str) -> dict:
    """The settled levels from :func:`sim.safety.compute`."""
    res = compute(NF, LF, model)
    key = model.lower()
    if model.startswith("SL"):
        return {key: res.level[..., None]}
    d = key[-1]
    return {key: res.level, "gsl" + d: res.gsl[..., None], "adsl" + d: res.adsl, "order" + d: res.order}


# ---- fault sets ---------------------------------------------------------------------------------------------
def all_fault_sets(n: int, max_faults: int) -> tuple[np.ndarray, np.ndarray]:
    """Every set of up to ``max_faults`` faulty elements (nodes and links, mixed), the empty set first:
    ``NF [B, N]``, ``LF [B, N, n]`` (symmetric)."""
    N = 1 << n
    elements = [("node", v) for v in range(N)] + [("link", (v, k)) for v in range(N) for k in range(n) if not v >> k & 1]
    sets = [c for f in range(max_faults + 1) for c in combinations(range(len(elements)), f)]
    NF = np.zeros((len(sets), N), bool)
    LF = np.zeros((len(sets), N, n), bool)
    for b, c in enumerate(sets):
        for e in c:
            kind, x = elements[e]
            if kind == "node":
                NF[b, x] = True
            else:
                v, k = x
                LF[b, v, k] = LF[b, v ^ 1 << k, k] = True
    return NF, LF


def random_fault_sets(n: int, count: int, max_faults: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``count`` random sets, a third each node-only, link-only and mixed, 1..max_faults faults."""
    rng = np.random.default_rng(seed)
    N = 1 << n
    links = [(v, k) for v in range(N) for k in range(n) if not v >> k & 1]
    NF = np.zeros((count, N), bool)
    LF = np.zeros((count, N, n), bool)
    for b in range(count):
        f = int(rng.integers(1, max_faults + 1))
        kind = b % 3
        nodes = f if kind == 0 else (0 if kind == 1 else f - f // 2)
        NF[b, rng.choice(N, nodes, replace=False)] = True
        for i in rng.choice(len(links), f - nodes, replace=False):
            v, k = links[i]
            LF[b, v, k] = LF[b, v ^ 1 << k, k] = True
    return NF, LF


def fault_words(NF, LF) -> tuple[list[int], list[int]]:
    """The flat inputs: ``node_faulty`` bit v, ``link_faulty`` bit v*n+k."""
    B, N, n = LF.shape
    w_node = (NF.astype(object) * np.array([1 << v for v in range(N)], dtype=object)).sum(1)
    w_link = (LF.reshape(B, N * n).astype(object) * np.array([1 << i for i in range(N * n)], dtype=object)).sum(1)
    return [int(x) for x in w_node], [int(x) for x in w_link]


def schedule(NF, LF, samples: int) -> list[tuple[int, int, int, int]]:
    """Per fault set: ``samples`` cycles right after switching the faults on the settled network
    (continuous), then a restart (one reset cycle) and ``samples`` cycles of rounds 0..samples-1."""
    nodes, links = fault_words(NF, LF)
    segs = []
    for a, b in zip(nodes, links):
        segs += [(a, b, 0, samples), (a, b, 1, samples)]
    return segs


def check(obs: dict, NF, LF, models, samples: int) -> tuple[list[str], dict]:
    """Compare the bench's samples (``{output: [2*B*samples, N, fields]}``) with sim/safety.py.
    Returns (problems, {model: largest settle time seen in the continuous phases})."""
    B, N, n = LF.shape
    problems: list[str] = []
    settle = {}
    for model in models:
        ref = reference_rounds(NF, LF, model, samples - 1)
        fin = reference_final(NF, LF, model)
        bound = settle_bound(model, n)
        c0 = clamp_start(model)
        last_bad = np.zeros(B, int)
        for key in fin:
            hw = obs[key].reshape(B, 2, samples, N, -1)
            for r in range(samples):
                # after a restart: Python's round r exactly
                bad = np.argwhere((hw[:, 1, r] != ref[r][key]).any(-1))
                for b, v in bad[:3]:
                    problems.append(f"{key} restart round {r}, fault set {b}, node {v}: hw {hw[b, 1, r, v].tolist()} "
                                    f"python {ref[r][key][b, v].tolist()}")
                # continuous: levels clamped at r + d final already; everything final from the bound on
                diff = (hw[:, 0, r] != fin[key]).any(-1).any(-1)
                last_bad = np.where(diff, np.maximum(last_bad, r + 1), last_bad)
                if key == model.lower():
                    c = r + c0
                    badc = np.argwhere((np.minimum(hw[:, 0, r], c) != np.minimum(fin[key], c)).any(-1))
                    for b, v in badc[:3]:
                        problems.append(f"{key} continuous round {r}, fault set {b}, node {v}: hw "
                                        f"{hw[b, 0, r, v].tolist()} final {fin[key][b, v].tolist()} (clamp {c})")
            bad = np.argwhere(((hw[:, :, -1] != fin[key][:, None]).any(-1)).any(-1))
            for b, v in bad[:3]:
                problems.append(f"{key} not settled after {samples - 1} cycles, fault set {b}, node {v}")
        settle[model] = int(last_bad.max())
        if settle[model] > bound:
            problems.append(f"{model}: settled after {settle[model]} cycles, bound {bound}")
    return problems, settle
