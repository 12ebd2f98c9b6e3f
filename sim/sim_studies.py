"""The papers' simulation studies on the cycle-accurate model (docs/papers/hierarchical.md,
docs/simulator.md).

* :func:`enhanced_density`: measured traffic density per link class of Q(n, k) against eqs (6)-(7) of
  Tzeng & Wei (the skip vs the regular links).
* :func:`hin_delay`: Dandamudi & Eager's queueing validation (Figs 8-9): the paper's M/M/1 delay R (eqs 15, 18)
  against the model, with the M/M/1 parameters mapped onto cycles:

  - a link moves one flit per cycle; a message of mean length ``Lbar`` flits (exponential: geometric
    on 1, 2, ...) is served at ``1/Lbar`` messages per cycle, so ``mu_CL`` messages per paper time unit
    means one time unit is ``T = mu_CL * Lbar`` cycles;
  - ``lam`` messages per node per time unit is ``lam / T`` messages = ``lam / mu_CL`` flits per node
    per cycle (the offered load);
  - ``mu_NCL = i mu_CL`` is ``i`` replicated level-2 links (Dandamudi & Eager Sec. IV-A: the ratio *is* the
    number of parallel wires); a message uses lane ``source mod i``;
  - delays in time units times ``T`` are cycles.

  The paper's network is store-and-forward (a message is served whole on each hop: R(lam -> 0) =
  P / mu); the routers here are wormhole with 1 cycle per hop, and with ``depth`` >= the longest message
  they behave as virtual cut-through: zero-load latency h + L + ... instead of h L. So the comparison
  is of the *queueing* part: the paper's R minus its zero-load value, against the simulated network
  latency minus the simulated zero-load latency. The source queue (one injection port of one flit per
  cycle, which the paper's node does not have) is reported separately.
* :func:`hin_replication` (Fig. 11) and :func:`hin_routing` (Fig. 12) at scaled loads;
  :func:`figure_8b`, :func:`figure_9b` (delay against N), :func:`figure_11` (and :func:`figure_11_d15` at
  the paper's 32,768 nodes, BH/BH and BH/CCC) and :func:`figure_12` at the paper's own parameters where the
  model can run them. :data:`STUDIES` names them for
  ``cubenoc simulate --study``; :mod:`.study_plots` draws them.

Over 400 lines: every study shares the queueing helpers and the ``on_point`` progress hook, and the command
reads the studies from this module by name.
"""
from __future__ import annotations

import math

import numpy as np

from .analysis import enhanced_formulas as E, hierarchical_formulas as H, hierarchical_measure as HM
from .router_config import RouterConfig
from .routing.hierarchical import LeastUsedSelector
from .simulator import SimConfig, build_network, model_for, release_models as release, simulate_point
from .symmetric_tables import symmetry_of


# ---- Tzeng & Wei: traffic density per link class ---------------------------------------------------------
def enhanced_density(n: int, k: int, g: float = 1.0, rate: float = 0.1, cfg: SimConfig | None = None) -> dict:
    """Measured TD (messages per link per unit time, both directions, one message per node per unit
    time: Tzeng & Wei Sec. IV) of the skip and the regular links with 1-flit packets and the locality
    traffic ``p_l ~ g^-l``, against eqs (6)-(7)."""
    base = cfg or SimConfig(warmup=500, measure=4000, drain=2000)
    cfg = SimConfig(**{**base.__dict__, "traffic": "locality", "traffic_args": {"g": g}, "length": "1"})
    p = _measured(f"enhanced:n={n},k={k}", rate, cfg)
    msg_rate = p.accepted                         # 1-flit packets: flits = messages per node per cycle
    td = [2 * u / msg_rate for u in p.util_by_port]       # two channels per link
    return {"n": n, "k": k, "g": g, "rate": rate, "saturated": p.saturated,
            "TD_s": td[n], "TD_r": float(np.mean(td[:n])), "TD_r_max": float(max(td[:n])),
            "TD_per_dimension": td[:n],
            "eq6_TD_s": E.td_skip(n, k, g), "eq7_TD_r": E.td_regular(n, k, g),
            "TD_r_max_formula": E.td_regular_max(n, k, g),
            "util_skip_max": p.util_max_by_port[n], "util_regular_max": max(p.util_max_by_port[:n])}


# ---- Dandamudi & Eager: queueing validation ---------------------------------------------------------------------
def _hin_spec(code: str | None, d: int, K: int, r: int, routing: str = "ecube") -> str:
    if code is None:
        return f"hypercube:n={d + K.bit_length() - 1}"
    family = {"BH/BH": "bh", "BH/CCC": "ccc"}[code]
    return (f"hin:level1=bh:{d},level2={family}:{H.level2_size(code, K)},r={r}"
            + (f",routing={routing}" if routing != "ecube" else ""))


_ZERO_LOAD: dict = {}


#: the studies' mean message length in flits (geometric, cut at 64)
MEAN_LEN = 8.0
#: called with each simulated point's network and load before it runs (the CLI shows it beside the time)
on_point = None
#: a list to collect each measured point (a PointResult with its per-channel and per-source figures,
#: ``SimConfig.detail``) and its topology: ``simulate --study NAME --report FILE.html`` draws them; None: not kept
keep_points = None

#: the traffic options that name a point of each pattern in a study's report
_TRAFFIC_KEYS = {"locality": ("g",), "alpha": ("alpha",), "hotspot": ("hotspot", "fraction")}


def _measured(spec: str, rate: float, cfg: SimConfig):
    """One measured point of a study (:func:`simulate_point`); kept in :data:`keep_points` when that is a list,
    named by its network, traffic and load."""
    if keep_points is None:
        return simulate_point(spec, rate, cfg)
    p = simulate_point(spec, rate, SimConfig(**{**cfg.__dict__, "detail": True}))
    args = ", ".join(f"{k} {cfg.traffic_args[k]:g}" for k in _TRAFFIC_KEYS.get(cfg.traffic, ())
                     if cfg.traffic_args.get(k) is not None)
    p.network = f"{p.network}, {cfg.traffic}{f' ({args})' if args else ''}, offered {p.offered:g}"
    keep_points.append((p, model_for(spec, cfg.router)[0].topology))
    return p


def _zero_load(spec: str, cfg: SimConfig, measure: int) -> float:
    """The simulated zero-load network latency of ``spec`` under ``cfg``'s traffic (rate 0.002; it
    depends on alpha through the hop count), once per network and setting."""
    key = (spec, cfg.length, cfg.seed, measure, str(cfg.traffic_args))
    if key not in _ZERO_LOAD:
        cfg0 = SimConfig(**{**cfg.__dict__, "warmup": 200, "measure": measure})
        _ZERO_LOAD[key] = simulate_point(spec, 0.002, cfg0).network_latency_mean
    return _ZERO_LOAD[key]


def hin_delay(code: str | None, d: int, K: int, alpha: float, lam: float, mu_cl: float, mu_ncl: float,
              mean_len: float = MEAN_LEN, warmup: int = 2000, measure: int = 20000, seed: int = 1,
              routing: str = "ecube", zero_measure: int = 20000, kleinrock: bool = True, loads=None,
              drain: int | None = None) -> dict:
    """One point of Figs 8-9: BH(D) (``code=None``), BH/BH or BH/CCC with K clusters of BH(d). The
    zero-load latency is simulated over ``zero_measure`` cycles; ``drain`` (default ``measure``) bounds the
    cycles the measured packets get to arrive after the window, except where our routes load a channel at
    or beyond its capacity (the point cannot drain: ``measure`` shows it). Kleinrock's formula on our routes walks
    the routes from the orbit representatives of the sources only where the model's XOR symmetry holds
    (``HM.routed_loads(symmetric=True)``: 16 sources of BH(4)/BH(11), 8 s), else every pair;
    ``kleinrock=False`` leaves it out (NaN); ``loads``: the channel loads of our routes, if already known
    (:func:`one_lane_loads` split into lanes)."""
    ratio = mu_ncl / mu_cl
    r = int(round(ratio))
    if code is not None and abs(ratio - r) > 1e-9:
        raise ValueError(f"mu_NCL/mu_CL = {ratio} is not a whole number of replicated links")
    if code is None and ratio != 1:
        raise ValueError("BH has one link speed")
    rate = lam / mu_cl
    # Kleinrock on the channels of *our* routing (deterministic e-cube; lanes are separate channels)
    spec = _hin_spec(code, d, K, r, routing)
    topo, routing_fn, _ = build_network(spec)
    n = 2 ** d
    if not kleinrock:
        loads = None
    elif loads is None and routing == "least_used":   # the fluid least-used selection (Sec. IV-B)
        loads = HM.routed_loads(routing_fn, n, LeastUsedSelector().select)
    elif loads is None:
        loads = _our_loads(topo, routing_fn, n)
    if on_point is not None:
        on_point(f"{spec}, alpha {alpha:g}, lam {lam:g}")
    pred = _predicted(code, d, K, alpha, lam, mu_cl, mu_ncl, mean_len, loads, topo.num_nodes)
    if drain is None or pred["max_util_ours"] >= 1:
        drain = measure
    cfg = SimConfig(warmup=warmup, measure=measure, drain=drain, seed=seed, router=RouterConfig(fifo_depth=64),
                    length=f"exp:{mean_len:g}:64", traffic="alpha",
                    traffic_args={"alpha": alpha, "cluster_size": n})
    sim = _measured(spec, rate, cfg)
    zero = _zero_load(spec, cfg, zero_measure)
    return {"network": str(spec), **pred,            # the spec: a short name in a wide table
            "saturated": sim.saturated, "message": sim.message,
            "sim_latency": sim.latency_mean, "sim_network_latency": sim.network_latency_mean,
            "sim_zero_load": zero,
            "Q_sim": sim.network_latency_mean - zero,
            "source_wait": sim.latency_mean - sim.network_latency_mean,
            "sim_link_util_max": sim.link_util_max}


def _our_loads(topo, routing_fn, n: int):
    """Per-channel loads of our deterministic routing, from the orbit representatives where the model's
    XOR symmetry holds."""
    return HM.routed_loads(routing_fn, n, symmetric=symmetry_of(topo, routing_fn) is not None)


def _predicted(code, d: int, K: int, alpha: float, lam: float, mu_cl: float, mu_ncl: float, mean_len: float,
               loads, n_nodes: int) -> dict:
    """A point's predictions in cycles: the paper's R and Q (eqs 15-21), Kleinrock on our routes
    (``loads``: None leaves it NaN) and the port wait the model adds."""
    D = d + math.log2(K)
    T, rate = mu_cl * mean_len, lam / mu_cl
    if code is None:
        R = H.r_bh(alpha, D, d, lam, mu_cl, mu_ncl)
        R0 = H.p_bh(alpha, D, d) / mu_cl
    else:
        R = H.queueing(code, alpha, d, K, lam, mu_cl, mu_ncl)["R"]
        R0 = H.queueing(code, alpha, d, K, 1e-12, mu_cl, mu_ncl)["R"]
    if loads is None:
        kr = kr0 = {"R": math.nan, "max_util_CL": math.nan, "max_util_NCL": math.nan}
    else:
        kr = HM.kleinrock(loads, alpha, lam, mu_cl, mu_cl, n_nodes)
        kr0 = HM.kleinrock(loads, alpha, 1e-12, mu_cl, mu_cl, n_nodes)
    fin = (lambda x: x * T if math.isfinite(x) or math.isnan(x) else math.inf)
    pk = port_wait(rate, mean_len, 64)
    return {"alpha": alpha, "lam": lam, "mu_CL": mu_cl, "mu_NCL": mu_ncl, "T": T, "offered": rate,
            "R_paper": fin(R), "Q_paper": fin(R - R0),
            "R_ours_kleinrock": fin(kr["R"]), "Q_ours_kleinrock": fin(kr["R"] - kr0["R"]),
            "max_util_ours": max(kr["max_util_CL"], kr["max_util_NCL"]),
            "Q_port_pk": pk, "Q_model": fin(kr["R"] - kr0["R"]) + pk}


def port_wait(rho: float, mean_len: float, cut: int) -> float:
    """Pollaczek-Khinchine mean wait at a port of one flit per cycle loaded to ``rho`` by messages of
    geometric length (mean ``mean_len``, cut at ``cut``): ``rho E[S^2] / (2 E[S] (1 - rho))``. The model's
    injection and ejection ports are such queues; the paper's node has neither."""
    L = np.arange(1, cut + 1, dtype=float)
    p = 1.0 / mean_len
    pmf = p * (1 - p) ** (L - 1)
    pmf[-1] += (1 - p) ** cut
    es, es2 = float((L * pmf).sum()), float((L * L * pmf).sum())
    return math.inf if rho >= 1 else rho * es2 / (2 * es * (1 - rho))


def figure_8(alphas=(0.5, 0.6, 0.7, 0.8, 0.9, 1.0), lam: float = 0.375, **kw) -> list[dict]:
    """Fig. 8(a) with mu = 0.75: BH for D = 6, d = 3 and D = 3, d = 2 (lam scaled: see docs)."""
    return [hin_delay(None, d, K, a, lam, 0.75, 0.75, **kw) for d, K in ((3, 8), (2, 2)) for a in alphas]


def figure_9(alphas=(0.5, 0.6, 0.7, 0.8, 0.9, 1.0), lam: float = 0.5, **kw) -> list[dict]:
    """Fig. 9(a): BH/BH, mu_CL = 1.5, mu_NCL = 3 (2 replicated level-2 links), D = 6, d = 3 and D = 3, d = 2."""
    return [hin_delay("BH/BH", d, K, a, lam, 1.5, 3.0, **kw) for d, K in ((3, 8), (2, 2)) for a in alphas]


def hin_replication(ratios=(1, 2, 3, 4), d: int = 3, K: int = 8, alpha: float = 0.8, lam: float = 0.5,
                    mu_cl: float = 1.5, code: str = "BH/BH", ref: dict | None = None, release_models: bool = False,
                    one=None, **kw) -> list[dict]:
    """Fig. 11 on a network the model can run: LR ratio = L R / (L_BH R_BH) with R simulated (network
    latency), by the paper's formula, and by Kleinrock on our routes (``LR_kleinrock``: the paper's M/M/1
    model on our deterministic routes, both networks), for level-2 replication i (mu_NCL = i mu_CL) of
    ``code`` (BH/BH or BH/CCC, K clusters of BH(d)) against BH(D), D = d + log2 K (``ref``: its
    :func:`hin_delay` row, if already run). Kleinrock's loads come from one walk of the one-lane network
    (``one``: :func:`one_lane_loads`, walked here if not given). ``release_models`` drops the simulator's
    cached models after each point (BH(4)/CCC(8)'s route tables are 0.2-3 GB each)."""
    ref = ref or hin_delay(None, d, K, alpha, lam, mu_cl, mu_cl, **kw)
    if one is None and kw.get("kleinrock", True) and kw.get("routing", "ecube") == "ecube":
        one = one_lane_loads(code, d, K)
    out = []
    for i in ratios:
        loads = None if one is None else HM.split_lanes(one, 2 ** d, i)
        p = hin_delay(code, d, K, alpha, lam, mu_cl, i * mu_cl, loads=loads, **kw)
        if release_models:
            release()
        p.update({"simulated": True, **_lr(code, d, K, i, p, ref)})
        out.append(p)
    return out


def _lr(code: str, d: int, K: int, i: int, p: dict, ref: dict) -> dict:
    """Fig. 11's LR ratio L R / (L_BH R_BH) of point ``p`` (``i`` lanes) against BH(D) ``ref``: simulated,
    by Kleinrock on our routes and by the paper's formula (None where ``p`` has no simulation)."""
    D = d + int(math.log2(K))
    L = H.l_hin(code, d, K, i)
    lr = (lambda key: None if p.get(key) is None else L * p[key] / (H.l_bh(D) * ref[key]))
    return {"replication": i, "L": L, "LR_sim": lr("sim_network_latency"), "LR_kleinrock": lr("R_ours_kleinrock"),
            "LR_paper": H.lr_ratio(code, p["alpha"], d, K, p["lam"], p["mu_CL"], p["mu_NCL"], replication=i)}


def one_lane_loads(code: str, d: int, K: int):
    """The channel loads of our e-cube routes on the one-lane network: a message takes lane ``x mod i``
    and neither its level-2 route nor the traffic depends on x, so :func:`HM.split_lanes` gives every
    i-lane network's loads from this one walk (BH(4)/CCC(8): 2 min)."""
    topo, routing_fn, _ = build_network(_hin_spec(code, d, K, 1))
    return _our_loads(topo, routing_fn, 2 ** d)


def lanes_by_kleinrock(ratios, d: int, K: int, alpha: float, lam: float, mu_cl: float, code: str, ref: dict,
                       mean_len: float = MEAN_LEN, one=None) -> list[dict]:
    """Fig. 11's replications that are not simulated, by Kleinrock on our routes alone: the one-lane
    walk split into i lanes (:func:`one_lane_loads`); the same fields as :func:`hin_replication` rows,
    the simulated ones None."""
    n = 2 ** d
    one = one_lane_loads(code, d, K) if one is None else one
    out = []
    for i in ratios:
        p = _predicted(code, d, K, alpha, lam, mu_cl, i * mu_cl, mean_len, HM.split_lanes(one, n, i), K * n)
        p.update({"simulated": False, **dict.fromkeys(("saturated", "sim_network_latency", "sim_zero_load", "Q_sim"))})
        p.update(_lr(code, d, K, i, p, ref))
        out.append(p)
    return out


def hin_routing(alphas=(0.5, 0.6, 0.7, 0.8), d: int = 3, K: int = 8, lam: float = 0.5,
                routings=("ecube", "balanced", "least_used"), **kw) -> list[dict]:
    """Fig. 12: e-cube vs the Sec. IV-B candidates with the fixed pick (``balanced``) and with the
    router's run-time least-used selection (``least_used``, docs/router.md "Adaptive selection"),
    BH/BH, mu_CL = 1.5, mu_NCL = 3."""
    return [dict(hin_delay("BH/BH", d, K, a, lam, 1.5, 3.0, routing=rt, **kw), routing=rt)
            for a in alphas for rt in routings]


# ---- Dandamudi & Eager at the paper's own parameters (delay against N; Figs 11-12) ----------------------
#: short runs for the default study (a minute or two each on a busy 2-core machine)
QUICK = {"warmup": 500, "measure": 2500}


def _zero_measure(nodes: int) -> int:
    """Enough zero-load cycles for ~250 packets of mean length 8 at rate 0.002."""
    return max(3000, 1_000_000 // nodes)


def figure_8b(sizes=(5, 6, 7, 8), ds=(3, 2), alpha: float = 0.8, lam: float = 0.5, mu: float = 1.0, **kw) -> list[dict]:
    """Fig. 8(b): BH against N = 2^D (log2 N = 5..8), alpha = 0.8, mu = 1, clusters of 2^d for the
    locality. The paper's lambda = 1 is 1 flit/node/cycle on our one injection port, so we run lam
    (default 0.5, link utilisation half the paper's) and print the paper's R at its own lambda too."""
    kw = {**QUICK, **kw}
    rows = []
    for d in ds:
        for D in sizes:
            r = hin_delay(None, d, 2 ** (D - d), alpha, lam, mu, mu, zero_measure=_zero_measure(2 ** D), **kw)
            r.update({"network": f"BH({D})", "log2N": D, "d": d, "R_paper_own_lambda": H.r_bh(alpha, D, d, 1.0, mu, mu)})
            rows.append(r)
    return rows


def figure_9b(sizes=(5, 6, 7, 8), alpha: float = 0.8, lam: float = 0.4, **kw) -> list[dict]:
    """Fig. 9(b): BH/BH against N, alpha = 0.8; d = 3 with mu_CL = 1.2, mu_NCL = 1.5 and d = 2 with
    mu_CL = mu_NCL = 1.2. A level-2 link of 1.25 mu_CL is not a whole number of wires: d = 3 runs one
    lane (mu_NCL = mu_CL) and prints the paper's R at 1.25 beside the formula at 1. lam = 0.4 (offered
    0.33 flits/node/cycle) instead of 1 (0.83, beyond our BH/BH's saturation)."""
    kw = {**QUICK, **kw}
    rows = []
    for d, mu_cl, mu_ncl_paper in ((3, 1.2, 1.5), (2, 1.2, 1.2)):
        for D in sizes:
            K = 2 ** (D - d)
            r = hin_delay("BH/BH", d, K, alpha, lam, mu_cl, mu_cl, zero_measure=_zero_measure(2 ** D), **kw)
            r.update({"network": f"BH({d})/BH({D - d})", "log2N": D, "d": d, "mu_NCL_paper": mu_ncl_paper,
                      "R_paper_own_lambda": H.queueing("BH/BH", alpha, d, K, 1.0, mu_cl, mu_ncl_paper)["R"]})
            rows.append(r)
    return rows


def figure_11(ratios=(1, 2, 3, 4), D: int = 8, d: int = 4, alpha: float = 0.8, lam: float = 1.0, mu_cl: float = 3.0,
              **kw) -> list[dict]:
    """Fig. 11 at the paper's d = 4, lambda = 1, mu_CL = 3, alpha = 0.8 (offered 1/3 flit/node/cycle:
    feasible) on BH(4)/BH(4) (D = 8, 256 nodes), with Kleinrock on our routes; the paper's LR ratio at
    D = 15 (its formula) is printed beside (:func:`figure_11_d15` simulates D = 15)."""
    kw = {**QUICK, "zero_measure": _zero_measure(2 ** D), **kw}
    rows = hin_replication(ratios, d, 2 ** (D - d), alpha, lam, mu_cl, **kw)
    for r in rows:
        r["network"] = f"BH({d})/BH({D - d})"
        i = r["replication"]
        r["LR_paper_D15"] = H.lr_ratio("BH/BH", alpha, d, 2 ** (15 - d), lam, mu_cl, i * mu_cl, replication=i)
    return rows


#: short windows for the 32,768-node points (30-50 s each on a busy 2-core machine, 1.4 GB; BH(4)/CCC(8):
#: 3-5 min, 5-7 GB); the long drain lets a point below capacity on our routes deliver its tail
D15_WINDOWS = {"warmup": 500, "measure": 1500, "drain": 4000, "zero_measure": 1000}
#: BH/CCC lanes simulated at D = 15: lane x mod i puts ceil(16 / i) of a cluster's 16 sources on the busiest
#: lane, so these are the lane counts where that share changes (5 = 4, 7 = 6, 9..15 = 8)
D15_CCC_RATIOS = (1, 2, 3, 4, 6, 8, 16)
#: printed under a study's table (``cubenoc simulate --study``)
STUDY_NOTES = {"fig11-d15": (
    "BH/CCC is simulated where the busiest lane's share of a cluster's 16 sources changes (lane x mod i: "
    "1, 2, 3, 4, 6, 8, 16 lanes); the other rows are Kleinrock on our routes alone ('-' in the simulated "
    "columns). Kleinrock on our routes (LR_kleinrock, max_util_ours) says where the simulation must saturate.")}


def figure_11_d15(ratios=(1, 2, 3, 4), D: int = 15, d: int = 4, alpha: float = 0.8, lam: float = 1.0,
                  mu_cl: float = 3.0, ccc_ratios=D15_CCC_RATIOS, up_to: int = 16, **kw) -> list[dict]:
    """Fig. 11 at the paper's own size: BH(4)/BH(11) and BH(4)/CCC(8), D = 15 (32,768 nodes; the model
    runs them on XOR-symmetric tables, one row per orbit, sim/symmetric_tables.py), against BH(15), d = 4,
    lambda = 1, mu_CL = 3, alpha = 0.8, short windows (:data:`D15_WINDOWS`). Kleinrock on our routes walks
    the one-lane routes from the orbit representatives once per network (BH/BH: 16 sources, 8 s; BH/CCC:
    128 sources, 2 min) and splits them into lanes; ``LR_paper`` is the paper's Fig. 11 curve (eqs 18 and
    21 at D = 15). BH/CCC for ``ccc_ratios`` (:data:`D15_CCC_RATIOS`; ``()`` leaves BH/CCC out, as
    ``ratios=()`` BH/BH) where 2^(D-d) clusters make a CCC of power-of-two dimension (D - d = 3, 6 or 11).
    The other replications up to ``up_to`` come by Kleinrock on our routes alone
    (:func:`lanes_by_kleinrock`; ``simulated`` False)."""
    kw = {**D15_WINDOWS, **kw}
    K = 2 ** (D - d)
    ref = hin_delay(None, d, K, alpha, lam, mu_cl, mu_cl, **kw)
    mean_len = kw.get("mean_len", MEAN_LEN)

    def curve(code, name, simulated, **more):
        if not simulated:
            return []
        one = one_lane_loads(code, d, K)
        rs = hin_replication(simulated, d, K, alpha, lam, mu_cl, code=code, ref=ref, one=one, **more, **kw)
        rest = [i for i in range(1, up_to + 1) if i not in simulated]
        rs += lanes_by_kleinrock(rest, d, K, alpha, lam, mu_cl, code, ref, mean_len, one)
        for r in rs:
            r["network"] = name
        return sorted(rs, key=lambda r: r["replication"])

    rows = curve("BH/BH", f"BH({d})/BH({D - d})", ratios)
    dc = H.level2_size("BH/CCC", K) if H.exists("BH/CCC", K) else 0
    if ccc_ratios and dc and dc & (dc - 1) == 0:
        rows += curve("BH/CCC", f"BH({d})/CCC({dc})", ccc_ratios, release_models=True)
    for r in rows:
        r["log2N"] = D
    return rows


#: Sec. IV-B's simulated delays (time units) for D = 6, d = 3: (alpha, routing) -> R
PAPER_FIG12 = {(0.5, "random"): 15.2, (0.5, "improved"): 6.3, (0.6, "random"): 5.3, (0.6, "improved"): 3.8}


def figure_12(alphas=(0.5, 0.6, 0.8, 1.0), sizes=((3, 8), (2, 2)), lam: float = 1.0,
              routings=("ecube", "least_used"), **kw) -> list[dict]:
    """Fig. 12 at the paper's lambda = 1 (mu_CL = 1.5, mu_NCL = 3: 2 level-2 lanes), both of its
    networks (D = 6, d = 3 and D = 3, d = 2), e-cube against the run-time least-used selection. Delays
    in the paper's time units (cycles / T); the queueing part Q = R - R(lam -> 0) compares."""
    kw = {**QUICK, **kw}
    rows = []
    for d, K in sizes:
        D = d + K.bit_length() - 1
        for a in alphas:
            for rt in routings:
                r = hin_delay("BH/BH", d, K, a, lam, 1.5, 3.0, routing=rt, zero_measure=_zero_measure(2 ** D), **kw)
                r0 = H.queueing("BH/BH", a, d, K, 1e-12, 1.5, 3.0)["R"]
                quoted = PAPER_FIG12.get((a, "random" if rt == "ecube" else "improved")) if D == 6 else None
                r.update({"network": f"BH({d})/BH({D - d})", "routing": rt, "log2N": D, "d": d,
                          "R_sim_units": r["sim_network_latency"] / r["T"] if not r["saturated"] else math.inf,
                          "Q_sim_units": r["Q_sim"] / r["T"] if not r["saturated"] else math.inf,
                          "Q_paper_units": r["Q_paper"] / r["T"],
                          "R_paper_quoted": quoted, "Q_paper_quoted": quoted - r0 if quoted else None})
                rows.append(r)
    return rows


# ---- what a third level buys (Sec. II-C's general structure) -------------------------------------------------
#: 64-node HINs: the three-level BH(2)/BH(2)/BH(2) against the two-level networks of the same size
HIN_LEVEL_NETWORKS = ((("BH", 4), ("BH", 4), ("BH", 4)), (("BH", 8), ("BH", 8)), (("BH", 4), ("BH", 16)),
                      (("BH", 16), ("BH", 4)))


def hin_levels(networks=HIN_LEVEL_NETWORKS, alphas=(None, 0.8), lam: float = 1.0, mu: float = 3.0,
               rate: float = 0.1, length: int = 4, warmup: int = 1000, measure: int = 5000) -> list[dict]:
    """Links, distance and delay of HINs of the same size and different depths, and BH(D): by formula
    (eqs 1-21, generalised to any number of levels: :func:`~.analysis.hierarchical_formulas.p_levels`,
    :func:`~.analysis.hierarchical_formulas.queueing_levels`; lam, mu_CL = mu_NCL = mu), the mean routed
    path, and simulated on the model at ``rate`` flits/node/cycle with packets of ``length`` flits. Traffic:
    ``alpha = None`` is uniform (alpha = n_1 / N, self included), else ``alpha`` of the messages stay in
    their level-1 cluster (each network's own: 4 nodes in BH(2)/..., 8 in BH(3)/BH(3))."""
    rows = []
    N = math.prod(k for _, k in networks[0])
    D = N.bit_length() - 1
    for levels in [None, *networks]:
        n = levels[0][1] if levels else 2 ** (D // 2)
        for a in alphas:
            alpha = n / N if a is None else a
            if levels is None:                      # BH(D), its cluster links those of the first network's clusters
                d = networks[0][0][1].bit_length() - 1
                n = 2 ** d
                alpha = n / N if a is None else a
                spec, name = f"hypercube:n={D}", f"BH({D})"
                f = {"L": int(H.l_bh(D)), "P": H.p_bh(alpha, D, d), "R": H.r_bh(alpha, D, d, lam, mu, mu),
                     "LP_ratio": 1.0, "LR_ratio": 1.0}
                f["P_routed"] = f["P"]
            else:
                spec = "hin:" + ",".join(f"level{i}={fam.lower()}:{H.level_size(fam, k)}"
                                         for i, (fam, k) in enumerate(levels, start=1))
                f = HM.row_levels(levels, alpha, lam, mu, mu, explicit=N <= HM.ROUTED_MAX_NODES)
                name = f["network"]
            if on_point is not None:
                on_point(f"{spec}, alpha {alpha:g}")
            cfg = SimConfig(warmup=warmup, measure=measure, length=str(length), traffic="alpha",
                            traffic_args={"alpha": alpha, "cluster_size": n})
            sim = _measured(spec, rate, cfg)
            rows.append({"network": name, "levels": 1 if levels is None else len(levels), "n_1": n,
                         "traffic": "uniform" if a is None else f"alpha {a:g}", "alpha": alpha, "L": f["L"],
                         "P": f["P"], "P_routed": float(f.get("P_routed", math.nan)), "R": f["R"],
                         "LP_ratio": f.get("LP_ratio"), "LR_ratio": f.get("LR_ratio"), "offered": rate,
                         "saturated": sim.saturated, "sim_hops": sim.hops_mean,
                         "sim_network_latency": sim.network_latency_mean, "sim_link_util_max": sim.link_util_max})
    return rows


#: ``cubenoc simulate --study NAME``: what each study reproduces
STUDIES = {
    "density": ("Tzeng & Wei eqs (6)-(7): traffic density per link class of Q(6, k)"),
    "fig8a": ("Dandamudi & Eager Fig. 8(a): BH delay against alpha (lambda scaled to 0.375)"),
    "fig8b": ("Dandamudi & Eager Fig. 8(b): BH delay against N = 2^5..2^8, alpha 0.8, mu 1 (lambda 0.5)"),
    "fig9a": ("Dandamudi & Eager Fig. 9(a): BH/BH delay against alpha (lambda scaled to 0.5)"),
    "fig9b": ("Dandamudi & Eager Fig. 9(b): BH/BH delay against N = 2^5..2^8, alpha 0.8 (lambda 0.4)"),
    "fig11-d6": ("Dandamudi & Eager Fig. 11 on BH(3)/BH(3): LR ratio against level-2 replication (lambda 0.5)"),
    "fig11": ("Dandamudi & Eager Fig. 11 at the paper's d = 4, lambda = 1, mu_CL = 3 on 256 nodes (D = 15 beside, by formula)"),
    "fig11-d15": ("Dandamudi & Eager Fig. 11 at the paper's D = 15 (32,768 nodes), BH/BH and BH/CCC (1-16 lanes), "
                  "d = 4, lambda = 1, mu_CL = 3; short windows"),
    "fig12-scaled": ("Dandamudi & Eager Fig. 12 at lambda 0.5, D = 6: e-cube, fixed pick, run-time least used"),
    "fig12": ("Dandamudi & Eager Fig. 12 at the paper's lambda = 1, D = 6 and D = 3: e-cube vs run-time least used"),
    "hin-levels": ("Dandamudi & Eager Sec. II-C: what a third level buys, 64 nodes: BH(2)/BH(2)/BH(2) against "
                   "BH(3)/BH(3), BH(2)/BH(4), BH(4)/BH(2) and BH(6), by formula and simulated"),
}
#: the earlier names
STUDY_ALIASES = {"8": "fig8a", "9": "fig9a", "11": "fig11-d6", "12": "fig12-scaled"}
