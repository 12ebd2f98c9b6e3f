"""Li, Peng & Chu, metacube, Sec. 1: MC(k, m) against the cube-connected cycles CCC(n), the
hierarchical cubic network HCN(n, n) (Ghose & Desai), the reduced hypercube RH(k, m) (Ziavras) and the
SGI Origin2000's fat hypercube -- degree, node count and diameter, by the networks' formulas and by BFS
on the explicit graphs at small sizes. The comparison networks are analysis-only edge lists (like Table
2's networks for the PDN); CCC and MC are the project's topologies. docs/papers/metacube.md explains.
"""
from __future__ import annotations

import itertools

import networkx as nx

from ..topology.hierarchical import CubeConnectedCycles
from ..topology.metacube import Metacube
from .report import table


# ---- the networks' own formulas (as their papers give them) ---------------------------------------------
def mc_size(k: int, m: int) -> int:
    """MC(k, m) has 2^(m 2^k + k) nodes (Li, Peng and Chu, Sec. 2)."""
    return 2 ** (m * 2 ** k + k)


def mc_diameter(k: int, m: int) -> int:
    """Table 2 of the metacube paper: 2^k (m + 1) (k >= 1)."""
    return 2 ** k * (m + 1)


def ccc_diameter(n: int) -> int:
    """CCC(n), n >= 4: 2n + floor(n/2) - 2 (Preparata & Vuillemin); CCC(3): 6."""
    return 6 if n == 3 else 2 * n + n // 2 - 2


def hcn_diameter(n: int) -> int:
    """HCN(n, n): n + floor((n + 1)/3) + 1 (Ghose & Desai)."""
    return n + (n + 1) // 3 + 1


# ---- explicit graphs -------------------------------------------------------------------------------------
def hcn_graph(n: int) -> nx.Graph:
    """HCN(n, n): node (I, J), I the cluster, J the node, both n bits; J-links form an n-cube; (I, J) --
    (J, I) for I != J, and the diameter link (I, I) -- (~I, ~I)."""
    g = nx.Graph()
    full = (1 << n) - 1
    for i, j in itertools.product(range(1 << n), repeat=2):
        for d in range(n):
            g.add_edge((i, j), (i, j ^ (1 << d)))
        g.add_edge((i, j), (j, i) if i != j else (full ^ i, full ^ i))
    return g


def rh_graph(k: int, m: int) -> nx.Graph:
    """RH(k, m): addresses of k + 2^m bits, the low k bits a k-cube inside a cluster; a node's one higher
    link flips dimension k + i, i = the leftmost m bits of its k-bit field (the scan's "(2^i + k)th" would
    name dimensions beyond n; k + i is the only reading that uses each of the 2^m higher ones)."""
    if m > k:
        raise ValueError("RH(k, m) needs m <= k")
    n = k + 2 ** m
    g = nx.Graph()
    for v in range(1 << n):
        for d in range(k):
            g.add_edge(v, v ^ (1 << d))
        i = (v & ((1 << k) - 1)) >> (k - m) if m else 0
        g.add_edge(v, v ^ (1 << (k + i)))
    return g


def origin2000_graph(cubes: int = 32, cube_dim: int = 3) -> nx.Graph:
    """Routers (c, x) in ``cubes`` hypercubes of dimension ``cube_dim``; router x of every cube has its
    CrayLink to CrayRouter x (a crossbar of ``cubes`` ports); each router serves 2 nodes of 2 processors."""
    g = nx.Graph()
    for c in range(cubes):
        for x in range(1 << cube_dim):
            for d in range(cube_dim):
                g.add_edge(("r", c, x), ("r", c, x ^ (1 << d)))
            g.add_edge(("r", c, x), ("cray", x))
    return g


def _metrics(g: nx.Graph, hosts=None) -> dict:
    hosts = list(hosts if hosts is not None else g.nodes)
    ecc = [max(nx.single_source_shortest_path_length(g, h).values()) for h in hosts]
    return {"nodes": len(hosts), "degree": max(g.degree(h) for h in hosts), "diameter": max(ecc)}


def explicit_checks() -> list[dict]:
    """Formulas against BFS on small instances."""
    rows = []
    for n in (3, 4, 5):
        t = CubeConnectedCycles(n)
        dia = max(int(t.distances_from(s).max()) for s in range(t.num_nodes))
        rows.append({"network": f"CCC({n})", "nodes": t.num_nodes, "formula_nodes": n * 2 ** n,
                     "diameter": dia, "formula_diameter": ccc_diameter(n), "degree": 3})
    for n in (2, 3, 4):
        mt = _metrics(hcn_graph(n))
        rows.append({"network": f"HCN({n},{n})", "nodes": mt["nodes"], "formula_nodes": 4 ** n,
                     "diameter": mt["diameter"], "formula_diameter": hcn_diameter(n), "degree": mt["degree"]})
    for k, m in ((2, 1), (3, 1), (3, 2), (4, 2)):
        mt = _metrics(rh_graph(k, m))
        rows.append({"network": f"RH({k},{m})", "nodes": mt["nodes"], "formula_nodes": 2 ** (k + 2 ** m),
                     "diameter": mt["diameter"], "formula_diameter": None, "degree": mt["degree"]})
    for k, m in ((1, 1), (1, 2), (2, 1), (1, 3), (2, 2)):
        t = Metacube(k, m)
        dia = int(max(t.distances_from(s).max() for s in range(0, t.num_nodes, max(1, t.num_nodes // 64))))
        rows.append({"network": f"MC({k},{m})", "nodes": t.num_nodes, "formula_nodes": mc_size(k, m),
                     "diameter": dia, "formula_diameter": mc_diameter(k, m), "degree": k + m})
    o = origin2000_graph()
    routers = [v for v in o.nodes if v[0] == "r"]
    mt = _metrics(o, routers)
    rows.append({"network": "Origin2000 (routers)", "nodes": mt["nodes"], "formula_nodes": 256,
                 "diameter": mt["diameter"], "formula_diameter": None, "degree": mt["degree"] + 2})
    return rows


def equal_degree(degrees=range(3, 7)) -> list[dict]:
    """The largest network of each family with d links per node (formulas; CCC has degree 3 at any size)."""
    rows = []
    for d in degrees:
        mc = max(((k, d - k) for k in range(1, d)), key=lambda km: mc_size(*km))
        rh = max(((d - 1, m) for m in range(0, d)), key=lambda km: 2 ** (km[0] + 2 ** km[1]))
        rows.append({"degree": d, "hypercube": 2 ** d,
                     "MC": f"MC({mc[0]},{mc[1]})", "MC_nodes": mc_size(*mc), "MC_diameter": mc_diameter(*mc),
                     "HCN": f"HCN({d - 1},{d - 1})", "HCN_nodes": 4 ** (d - 1), "HCN_diameter": hcn_diameter(d - 1),
                     "RH": f"RH({rh[0]},{rh[1]})", "RH_nodes": 2 ** (rh[0] + 2 ** rh[1]),
                     "RH_m_below_k": 2 ** (d - 1 + 2 ** (d - 2)) if d >= 2 else None})
    return rows


def paper_claims() -> list[dict]:
    """Sec. 1's sentences, each with ours."""
    rows = [
        {"claim": "MC(2,3): 5 links per node, 16384 nodes", "paper": 16384, "ours": mc_size(2, 3),
         "verdict": "holds" if mc_size(2, 3) == 16384 and 2 + 3 == 5 else "FAILS"},
        {"claim": "MC(3,3): 6 links per node, 2^27 = 134,217,728 nodes", "paper": 2 ** 27, "ours": mc_size(3, 3),
         "verdict": "holds" if mc_size(3, 3) == 134217728 else "FAILS"},
        {"claim": "MC has many more nodes than HCN at 5 links", "paper": "much larger",
         "ours": f"MC(2,3) {mc_size(2, 3)} vs HCN(4,4) {4 ** 4}", "verdict": "holds"},
        {"claim": "MC has many more nodes than RH at 5 links", "paper": "much larger",
         "ours": f"MC(2,3) {mc_size(2, 3)} vs RH(4,2) {2 ** 8}, RH(4,3) {2 ** 12}, RH(4,4) {2 ** 20}; at every degree "
                 f"the largest RH(d-1,d-1) has as many nodes as the largest MC(d-1,1)",
         "verdict": "holds only for RH(k, m) with m < k"},
        {"claim": "HCN: about half the links per node of the hypercube", "paper": "~1/2",
         "ours": "n+1 of 2n (HCN(n,n) vs Q_2n)", "verdict": "holds"},
        {"claim": "HCN: diameter about 3/4 of the hypercube's", "paper": "~3/4",
         "ours": ", ".join(f"n={n}: {hcn_diameter(n)}/{2 * n} = {hcn_diameter(n) / (2 * n):.3f}" for n in (2, 4, 8, 16)),
         "verdict": "3/4 for n = 4..8; tends to 2/3"},
        {"claim": "CCC: diameter about twice the hypercube's (same node count)", "paper": "~2",
         "ours": ", ".join(f"CCC({n}) {ccc_diameter(n)} vs Q_{n}+log2 {n}: "
                           f"{ccc_diameter(n) / (n + (n).bit_length() - 1):.2f}" for n in (4, 8, 16)),
         "verdict": "1.3 to 1.9 for n = 4..16, tending to 2.5"},
        {"claim": "MC has a shorter diameter than CCC", "paper": "shorter",
         "ours": f"equal size 64 at 3 links: MC(2,1) {mc_diameter(2, 1)} = CCC(4) {ccc_diameter(4)}; "
                 f"16384 nodes: MC(2,3) {mc_diameter(2, 3)} (5 links) vs CCC(11) {ccc_diameter(11)} (22528 nodes)",
         "verdict": "holds at equal size with more links; ties at 64 nodes with 3 links"},
        {"claim": "Origin2000: 1024 = 2^5 x 2^3 x 4 processors, 8 CrayRouters, 256 routers of 6 links",
         "paper": "1024 / 8 / 256 / 6", "ours": None, "verdict": None},
    ]
    o = origin2000_graph()
    routers = [v for v in o.nodes if v[0] == "r"]
    crays = [v for v in o.nodes if v[0] == "cray"]
    deg = max(o.degree(r) for r in routers) + 2
    rows[-1]["ours"] = f"{4 * len(routers)} / {len(crays)} / {len(routers)} / {deg}"
    rows[-1]["verdict"] = "holds" if (4 * len(routers), len(crays), len(routers), deg) == (1024, 8, 256, 6) else "FAILS"
    return rows


def compare() -> dict:
    return {"explicit": explicit_checks(), "equal_degree": equal_degree(), "claims": paper_claims()}


def text(data: dict) -> str:
    lines = ["Sec. 1 comparison networks: formulas against BFS on the explicit graphs",
             table([[r["network"], r["nodes"], r["formula_nodes"], r["degree"], r["diameter"],
                     r["formula_diameter"] if r["formula_diameter"] is not None else "-"] for r in data["explicit"]],
                   ["network", "nodes", "formula", "degree", "diameter (BFS)", "formula"]),
             "", "Largest network with d links per node (CCC: degree 3 at every size):",
             table([[r["degree"], r["hypercube"], f"{r['MC']} {r['MC_nodes']} (diam {r['MC_diameter']})",
                     f"{r['HCN']} {r['HCN_nodes']} (diam {r['HCN_diameter']})", f"{r['RH']} {r['RH_nodes']}",
                     r["RH_m_below_k"]] for r in data["equal_degree"]],
                   ["d", "hypercube", "MC", "HCN", "RH (m = k)", "RH (m = k-1)"]),
             "", table([[r["claim"], r["paper"], r["ours"], r["verdict"]] for r in data["claims"]],
                       ["Sec. 1 claim", "paper", "ours", "verdict"])]
    return "\n".join(lines)
