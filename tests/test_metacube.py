"""MC(k, m) of Li, Peng and Chu: wiring, notation, Tables 1-2 against BFS, Sec. 4.1 routing, deadlock, broadcast."""
import itertools
import random
import re

import networkx as nx
import numpy as np
import pytest

from cubenoc.cli import main
from cubenoc.errors import CubenocError
from cubenoc.sim.analysis.metacube import (PAPER_TABLE1, bit_cut, routed_lengths, table1, table2_formulas)
from cubenoc.sim.broadcast.metacube import (broadcast_schedule, check_one_port, next_class, theorem3_steps)
from cubenoc.sim.deadlock import channel_dependency_graph, check_deadlock
from cubenoc.sim.routing.metacube import (MetacubeRouting, class_dependency_graph, class_level_cycle,
                                          class_paths, gray_rank, minimal_vcs, weak_hamiltonian_path)
from cubenoc.sim.topology import Metacube
from cubenoc.sim.analysis.graph import to_networkx

SMALL = [(1, 1), (1, 2), (2, 1), (1, 3)]
SRC, DST = "00,000,000,000,000", "00,001,110,101,011"
PAPER_PATH = ["00,000,000,000,000", "00,000,000,000,001", "00,000,000,000,011", "01,000,000,000,011",
              "01,000,000,001,011", "01,000,000,101,011", "11,000,000,101,011", "11,001,000,101,011",
              "10,001,000,101,011", "10,001,010,101,011", "10,001,110,101,011", "00,001,110,101,011"]


# ---- topology ------------------------------------------------------------------------------------
@pytest.mark.parametrize("k,m", SMALL + [(2, 2), (3, 1)])
def test_wiring(k, m):
    t = Metacube(k, m)
    t.validate()
    n = m * 2 ** k + k
    assert t.num_nodes == 2 ** n and t.degree == m + k
    assert t.num_links == 2 ** n * (m + k) // 2                  # Table 2, "# of links"
    for v in random.Random(1).sample(range(t.num_nodes), min(50, t.num_nodes)):
        c = t.node_class(v)
        for p in range(m + k):
            u = t.neighbor(v, p)[0]
            x = u ^ v
            assert x & (x - 1) == 0                               # the key property: one bit differs
            if p < m:   # cube-edge: bit p of field m_c, class unchanged
                assert x == 1 << (m * c + p)
            else:       # cross-edge: class bit p-m, fields unchanged
                assert x == 1 << (m * 2 ** k + p - m)
        assert t.neighbor(v, m + k) is None
    assert nx.is_connected(nx.Graph(to_networkx(t)))


def test_paper_example_neighbours():
    """Sec. 2: the cluster and high-level neighbours of (01,111,101,110,000) in MC(2,3)."""
    t = Metacube(2, 3)
    v = t.parse_node("(01,111,101,110,000)")
    assert t.node_class(v) == 1 and t.node_id(v) == 0b110 and t.field(v, 0) == 0 and t.field(v, 3) == 0b111
    assert [t.format_node(t.neighbor(v, p)[0]) for p in range(5)] == [
        "01,111,101,111,000", "01,111,101,100,000", "01,111,101,010,000",
        "00,111,101,110,000", "11,111,101,110,000"]
    assert t.format_node(v) == "01,111,101,110,000" and t.parse_node("01111101110000") == v
    assert t.make_node(1, [0, 0b110, 0b101, 0b111]) == v


@pytest.mark.parametrize("args,msg", [((2, 0), "m (cluster dimension) must be in 1..16"),
                                      ((0, 3), "k (class bits) must be in 1..4"),
                                      ((5, 1), "k (class bits) must be in 1..4"),
                                      ((3, 3), "must be at most 24"), (("x", 1), "k must be an integer")])
def test_bad_parameters(args, msg):
    with pytest.raises(CubenocError, match=re.escape(msg)):
        Metacube(*args)


@pytest.mark.parametrize("text", ["01,111,101,110", "01,111,101,110,0000", "2,111,101,110,000", "hello"])
def test_bad_addresses(text):
    with pytest.raises(CubenocError, match="3 bits"):
        Metacube(2, 3).parse_node(text)


def test_cli_errors_are_one_line(capsys):
    assert main(["analyze", "metacube", "--k", "2", "--m", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("cubenoc: error: m (cluster dimension) must be in 1..16") and "\n" not in err
    assert main(["analyze", "metacube", "--k", "2", "--m", "3", "--route", SRC, "00,1"]) == 2


# ---- Tables 1 and 2 --------------------------------------------------------------------------------
def test_table1():
    ours = table1()
    for key, row in PAPER_TABLE1.items():
        for d, paper, mine in zip(range(3, 9), row, ours[key]):
            if key == "hypercube" and d == 8:
                assert (paper, mine) == (265, 256)                # a typo in the paper: 2**8 = 256
            else:
                assert paper == mine
    assert Metacube(2, 3).num_nodes == 16384 and Metacube(1, 2).num_nodes == ours[1][0]


@pytest.mark.parametrize("k,m", [(1, 1), (1, 2), (1, 3), (1, 4), (2, 1), (2, 2), (3, 1)])
def test_table2_against_bfs(k, m):
    t = Metacube(k, m)
    f = table2_formulas(k, m)
    n = f["n"]
    dist = t.distances_from(0)
    assert dist.max() == f["diameter"] == (m + 1) * 2 ** k       # Theorem 2
    assert dist.mean() <= f["avg_distance_bound"]                 # Theorem 2 (zero distance included)
    assert f["cost"] == f["degree"] * f["diameter"]
    assert bit_cut(t) == f["bisection"] == 2 ** (n - k) // 2      # a balanced cut of the paper's size
    for key in ("degree", "diameter", "cost", "bisection", "links"):
        if "row_in_n" in f:
            assert f["row_in_n"][key] == pytest.approx(f[key])   # the rows in n agree with MC(k, m)
    if k == 1:   # the dual-cube's exact average distance n/2 + 1 - 1/2**((n-1)/2)
        assert dist.mean() == pytest.approx(f["row_in_n"]["avg_distance"])
    if k == 2:
        assert f["row_in_n"]["avg_distance"] == pytest.approx(f["avg_distance_bound"])


@pytest.mark.parametrize("k,m", [(1, 2), (2, 1)])
def test_vertex_transitive(k, m):
    t = Metacube(k, m)
    ref = sorted(t.distances_from(0))
    assert all(sorted(t.distances_from(s)) == ref for s in t.nodes())


def test_half_clusters_cut_is_not_the_bisection_count():
    """Sec. 3 describes the cut as 'half of the clusters of every class'; for MC(2,1) the best such
    cut has 16 edges (exhaustive), twice Table 2's 2^n/8 = 8 -- which the one-bit cut achieves."""
    t = Metacube(2, 1)
    vecs = 1 << (t.m * t.h)
    sets = []
    for c in range(t.h):
        clusters = {}
        for x in range(vecs):
            clusters.setdefault(x & ~(1 << c), []).append(x)
        cl = list(clusters.values())
        masks = []
        for sub in itertools.combinations(range(len(cl)), len(cl) // 2):
            masks.append(sum(1 << x for i in sub for x in cl[i]))
        sets.append(np.array(masks, dtype=np.int64))
    pc = np.vectorize(lambda x: bin(int(x)).count("1"))

    def d(a, b):
        return pc(sets[a][:, None] ^ sets[b][None, :])
    a = (d(0, 1)[:, :, None] + d(1, 3)[None, :, :]).min(axis=1)   # class ring 0-1-3-2-0
    b = (d(3, 2)[:, :, None] + d(2, 0)[None, :, :]).min(axis=1)
    assert (a + b.T).min() == 16 == 2 * bit_cut(t)


# ---- weak Hamiltonian paths (Lemma 1) -------------------------------------------------------------
@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_weak_hamiltonian_paths(k):
    h = 2 ** k
    for s in range(h):
        for t in range(h):
            p = weak_hamiltonian_path(s, t, range(k))
            assert p[0] == s and p[-1] == t and set(p) == set(range(h))
            assert all(bin(a ^ b).count("1") == 1 for a, b in zip(p, p[1:]))
            assert len(set(p[:h])) == h                           # c_0 .. c_{h-1}: every class once
            odd = bin(s ^ t).count("1") % 2
            assert len(p) - 1 == (h - 1 if odd else h)            # Hamiltonian path iff one exists
            assert p == [s ^ c for c in class_paths(k)[s ^ t]]    # commutes with XOR (the routers' table)


def test_fig6_and_worked_cycle():
    assert class_paths(2)[0] == (0b00, 0b01, 0b11, 0b10, 0b00)    # the example's cycle
    assert class_paths(2)[0b11] == (0b00, 0b01, 0b11, 0b10, 0b11)  # Fig. 6(d)
    assert [gray_rank(c) for c in (0b00, 0b01, 0b11, 0b10)] == [0, 1, 2, 3]


# ---- routing --------------------------------------------------------------------------------------
@pytest.mark.parametrize("shortest", [False, True])
def test_worked_example(shortest):
    t = Metacube(2, 3)
    r = MetacubeRouting(t, shortest=shortest)
    path = r.path(t.parse_node(SRC), t.parse_node(DST))
    assert [t.format_node(v) for v in path] == PAPER_PATH


def _route_lines(out: str) -> tuple[str, list[str]]:
    """The head line and the numbered nodes of ``analyze metacube --route``."""
    head, *rows = out.strip().splitlines()
    assert [int(r.split()[0]) for r in rows] == list(range(len(rows)))
    return head, [r.split()[1] for r in rows]


def test_cli_route(capsys):
    assert main(["analyze", "metacube", "--k", "2", "--m", "3", "--route", SRC, DST]) == 0
    head, path = _route_lines(capsys.readouterr().out)
    assert path == PAPER_PATH
    assert head.startswith("MC(2, 3)") and f"{len(PAPER_PATH) - 1} hops" in head and "BFS distance" in head
    assert main(["analyze", "metacube", "--k", "2", "--m", "3", "--route", SRC, DST, "--shortest"]) == 0
    assert _route_lines(capsys.readouterr().out)[1] == PAPER_PATH


def test_header_layout():
    r = MetacubeRouting(Metacube(2, 3))
    assert r.layout.fields == [("dest", 14), ("cdiff", 2), ("pos", 3), ("vc", 2)] and r.num_vcs == 3
    s = MetacubeRouting(Metacube(2, 3), shortest=True)
    assert s.layout.fields == [("dest", 14), ("cdiff", 2), ("vc", 2)] and s.num_vcs == 4
    assert MetacubeRouting(Metacube(1, 2), vcs=False).layout.fields == [("dest", 5), ("cdiff", 1), ("pos", 2)]


@pytest.mark.parametrize("k,m", SMALL)
def test_routing_all_pairs(k, m):
    """Every pair: delivered, never shorter than BFS, the full variant exactly sum d_i + r (Step 3),
    the shortest variant never longer, and the vectorised lengths equal the hop-by-hop walk."""
    t = Metacube(k, m)
    full, skip = MetacubeRouting(t), MetacubeRouting(t, shortest=True)
    for s in t.nodes():
        dist = t.distances_from(s)
        lf, ls = routed_lengths(t, s, False), routed_lengths(t, s, True)
        for d in t.nodes():
            if d == s:
                continue
            a, b = full.hops(s, d), skip.hops(s, d)
            assert a == full.path_bound(s, d) == lf[d]
            assert dist[d] <= b == ls[d] <= a <= dist[d] + 2 ** k   # Theorem 2
        if k == 1:
            assert (ls == dist).all()                             # dual-cube: the variant is shortest


def test_routing_measured_mc23():
    """MC(2,3), all pairs by symmetry: worst = diameter 16; mean 9.4998 (whp) and 9.3994 (skip) vs BFS
    9.3516; the full variant is at most 2^k = 4 hops over BFS, the shortest at most 2."""
    t = Metacube(2, 3)
    srcs = [t.make_node(c, [0] * 4) for c in range(4)]
    rng = random.Random(3)
    for s in srcs:   # spot-check the vectorised lengths against the per-hop function
        for d in rng.sample(range(t.num_nodes), 30):
            if d != s:
                assert routed_lengths(t, s, True)[d] == MetacubeRouting(t, shortest=True).hops(s, d)
    bfs = [t.distances_from(s) for s in srcs]
    full = [routed_lengths(t, s, False) for s in srcs]
    skip = [routed_lengths(t, s, True) for s in srcs]
    assert max(x.max() for x in full) == max(x.max() for x in skip) == 16 == bfs[0].max()
    assert max((f - b).max() for f, b in zip(full, bfs)) == 4
    assert max((f - b).max() for f, b in zip(skip, bfs)) == 2
    assert np.mean(full) == pytest.approx(9.4998, abs=1e-4) and np.mean(skip) == pytest.approx(9.3994, abs=1e-4)
    assert np.mean(bfs[0]) == pytest.approx(9.3516, abs=1e-4) and np.mean(bfs[0]) <= 10  # Thm 2: (n-k)/2 + 2^k


def test_route_rejects_inconsistent_header():
    t = Metacube(2, 1)
    r = MetacubeRouting(t)
    h = r.inject(0, 5)
    with pytest.raises(CubenocError, match="inconsistent"):
        r.route(0, dict(h, pos=2))


# ---- deadlock -------------------------------------------------------------------------------------
@pytest.mark.parametrize("k,m", [(1, 1), (1, 2), (2, 1)])
@pytest.mark.parametrize("shortest", [False, True])
def test_deadlock(k, m, shortest):
    """One VC: the class walks wrap and the checker finds a cycle; the descent-count VCs: acyclic."""
    t = Metacube(k, m)
    one = check_deadlock(MetacubeRouting(t, shortest=shortest, vcs=False))
    assert not one.deadlock_free and one.num_vcs == 1
    r = MetacubeRouting(t, shortest=shortest)
    rep = check_deadlock(r)
    assert rep.deadlock_free and rep.num_vcs == r.num_vcs == minimal_vcs(k, shortest) > 1
    # the class-level graph contains the projection of the real one (so its verdict holds for every m)
    g = channel_dependency_graph(r)
    proj = {((t.node_class(a[0]),) + a[1:], (t.node_class(b[0]),) + b[1:]) for a, b in g.edges}
    assert proj <= set(class_dependency_graph(k, m, shortest, r.num_vcs).edges)
    # one VC fewer than chosen is cyclic at class level and in the real network
    assert class_level_cycle(k, m, shortest, r.num_vcs - 1) is not None
    fewer = check_deadlock(MetacubeRouting(t, shortest=shortest, num_vcs=r.num_vcs - 1))
    assert not fewer.deadlock_free


def test_vc_counts_every_k():
    assert [minimal_vcs(k, False) for k in (1, 2, 3)] == [2, 3, 6]
    assert [minimal_vcs(k, True) for k in (1, 2)] == [2, 4]
    for k in (1, 2, 3):   # h + 1 VCs never saturate: acyclic by the rank argument
        assert class_level_cycle(k, 3, False, 2 ** k + 1) is None


# ---- broadcast ------------------------------------------------------------------------------------
@pytest.mark.parametrize("k,m", SMALL + [(2, 2), (3, 1)])
def test_broadcast_theorem3(k, m):
    t = Metacube(k, m)
    for src in (0, t.num_nodes - 1, random.Random(k * 10 + m).randrange(t.num_nodes)):
        sched = broadcast_schedule(t, src)
        check_one_port(t, sched)
        assert sched.num_steps == theorem3_steps(k, m) == (m + 1) * 2 ** k + k - 1
        assert sched.receipts(t.num_nodes) == [1] * t.num_nodes
        literal = broadcast_schedule(t, src, dedupe=False)
        check_one_port(t, literal)
        got = literal.receipts(t.num_nodes)
        h = 2 ** k
        assert literal.num_steps == sched.num_steps and min(got) == 1
        assert sum(got) - t.num_nodes == h * sum(2 ** (m * i) for i in range(h - 1))


def test_table3_first_iteration():
    """Table 3 (MC(2,2), s = 0): the class-cube step, the first cluster step and the next links."""
    t = Metacube(2, 2)
    sched = broadcast_schedule(t, 0, dedupe=False)
    f = t.format_node
    assert [(f(u), f(v)) for u, _p, v in sched.steps[0]] == [("00,00,00,00,00", "01,00,00,00,00")]
    assert sorted((f(u), f(v)) for u, _p, v in sched.steps[1]) == [
        ("00,00,00,00,00", "10,00,00,00,00"), ("01,00,00,00,00", "11,00,00,00,00")]
    assert sorted((f(u), f(v)) for u, _p, v in sched.steps[2]) == [
        ("00,00,00,00,00", "00,00,00,00,01"), ("01,00,00,00,00", "01,00,00,01,00"),
        ("10,00,00,00,00", "10,00,01,00,00"), ("11,00,00,00,00", "11,01,00,00,00")]
    nxt = sched.steps[4]
    assert len(nxt) == 16 and ("10,00,00,00,00", "00,00,00,00,00") in [(f(u), f(v)) for u, _p, v in nxt]
    assert [next_class(c, 2) for c in (0, 1, 3, 2)] == [1, 3, 2, 0]


def test_cli_json_and_plot(tmp_path, capsys):
    import json
    png = tmp_path / "mc.png"
    assert main(["analyze", "metacube", "--k", "1", "--m", "2", "--json", "--no-deadlock", "--plot", str(png)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["table2"][0]["bfs_diameter"] == 6 and data["broadcast"][0]["steps"] == 6
    assert data["routing"][0]["skip"]["worst_excess"] == 0 and png.stat().st_size > 1000


def test_routes_within_the_n_cube_shortest_path_plus_8():
    """Sec. 4.1: for k <= 3 a route is at most the n-cube's shortest path (the Hamming distance of the two
    addresses) + 8; checked by walking every route of MC(1,2) and MC(2,1), and by the analysis up to MC(3,1)."""
    from cubenoc.sim.analysis.metacube import measure
    for k, m in ((1, 2), (2, 1)):
        topo = Metacube(k, m)
        r = MetacubeRouting(topo)
        worst = max(len(r.path(s, t)) - 1 - bin(s ^ t).count("1")
                    for s in range(topo.num_nodes) for t in range(topo.num_nodes))
        assert 0 < worst <= 8 and worst == measure(topo)["whp"]["worst_over_hamming"]
    assert measure(Metacube(3, 1))["whp"]["worst_over_hamming"] <= 8
