"""Tzeng & Wei, enhanced hypercubes: (diameter x degree), the recommended k, broadcast with few ports
per step and the running text's binomials, against BFS, Theorem 3 and hand counts."""
from cubenoc.cli import main
from cubenoc.sim.analysis import enhanced_claims as C
from cubenoc.sim.broadcast.hypercube import BinomialBroadcast, EnhancedBroadcast
from cubenoc.sim.topology.hypercube import EnhancedHypercube, Hypercube


def test_diameter_times_degree_smaller_than_the_hypercube():
    rows = {r["n"]: r for r in C.diameter_degree(range(2, 7))}
    for n in range(2, 7):
        for k in range(n - 1):
            bfs = int(EnhancedHypercube(n, k).distances_from(0).max())       # vertex-transitive
            if k == C.recommended_k(n):
                assert (n + 1) * bfs == rows[n]["Q(n,k_rec)"] < n * n
        # the largest k that still beats n^2, from BFS
        best = max(k for k in range(n - 1) if (n + 1) * int(EnhancedHypercube(n, k).distances_from(0).max()) < n * n)
        assert best == rows[n]["largest_k_better"]


def test_recommended_k_is_near_optimal():
    rows = C.recommendation(range(3, 21), (1.0, 1.2, 1.5))
    for r in rows:
        if r["g"] == 1.0:
            # uniform traffic: k = 0 is optimal and, for odd n, k = 1 ties it (D_mean(n, k) = D_mean(n, k+1), n-k odd)
            assert abs(r["fraction_D_mean"] - 1) < 1e-9
    s = C.recommendation_summary(rows)
    assert s["D_mean"]["worst_fraction"] > 0.95 and s["TD_r"]["worst_fraction"] > 0.9     # "equal or close"
    assert s["D_mean"]["worst_fraction"] < 1                       # but not always the best


def test_port_limited_broadcast():
    for n in (4, 5, 6):
        k = C.recommended_k(n)
        b, d = BinomialBroadcast(Hypercube(n)), EnhancedBroadcast(EnhancedHypercube(n, k))
        assert C.port_limited_broadcast(b, 0, None) == n                       # Algorithm B: n steps
        assert C.port_limited_broadcast(d, 0, None) == k + -(-(n - k) // 2)   # Theorem 3
        # one send per step: the informed set at most doubles, so n steps is the least for 2^n nodes;
        # Algorithm B's binomial tree reaches it, Algorithm D's shallow, wide tree does not
        assert C.port_limited_broadcast(b, 0, 1) == n
        assert C.port_limited_broadcast(d, 0, 1) > n
        assert C.port_limited_broadcast(d, 0, n + 1) == k + -(-(n - k) // 2)


def test_text_binomials_before_eq3_are_transposed():
    rows = {(r["j"], r["i"]): r for r in C.class_counts(5, 2)}
    # H_4 of Q_5 with the low 3 bits all 1 (i = 0 zeros) and one of the 2 high bits set: 2 nodes
    assert rows[(1, 0)]["counted"] == 2 == rows[(1, 0)]["eq3"] and rows[(1, 0)]["text"] == 3
    assert all(r["counted"] == r["eq3"] for r in rows.values())


def test_cli_claims(capsys):
    assert main(["analyze", "enhanced", "--claims", "--n", "6"]) == 0
    out = capsys.readouterr().out
    assert "diameter x degree" in out and "Recommendation" in out and "transposed" not in out
    assert "misses 3" in out
