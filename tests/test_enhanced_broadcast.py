"""Enhanced hypercube broadcast (Tzeng and Wei): Algorithm B (Sec. II-B) and Algorithm D (Sec. V, Theorem 3), every n <= 8, every k,
every source -- exhaustive, although Q_n and Q(n, k) are Cayley graphs of Z_2^n and both algorithms decide
by port number only, so the trace from any source is the trace from node 0 XORed with the source
(checked below too)."""
import pytest

from cubenoc.errors import CubenocError
from cubenoc.sim.broadcast.base import run_broadcast
from cubenoc.sim.broadcast.hypercube import (OP_BROADCAST, OP_FORWARD, BinomialBroadcast, EnhancedBroadcast,
                                             broadcast_for, counts_d)
from cubenoc.sim.topology import EnhancedHypercube, Hypercube


def _ceil_half(x):
    return -(-x // 2)


@pytest.mark.parametrize("n", range(1, 9))
def test_algorithm_b_every_source(n):
    alg = BinomialBroadcast(Hypercube(n))
    for src in range(2 ** n):
        tr = run_broadcast(alg, src)
        assert tr.exactly_once and tr.steps == n == alg.expected_steps()
        assert tr.messages == 2 ** n - 1                       # nonredundant: a spanning tree
        # every node is reached along a shortest path (binomial tree)
        assert all(tr.step_kept[v] == (src ^ v).bit_count() for v in range(2 ** n))


def test_algorithm_b_paper_example_fig_2():
    """Fig. 2: from 001 in Q_3, weights 0, 1, 2 to 000, 011, 101; 101 forwards to 100 and 111."""
    topo = Hypercube(3)
    tr = run_broadcast(BinomialBroadcast(topo), 0b001)
    first = {(topo.format_node(u), topo.format_node(v)) for s, u, _p, v in tr.edges if s == 1}
    assert first == {("001", "000"), ("001", "011"), ("001", "101")}
    from_101 = {topo.format_node(v) for s, u, _p, v in tr.edges if s == 2 and u == 0b101}
    assert from_101 == {"100", "111"}


@pytest.mark.parametrize("n", range(2, 9))
def test_algorithm_d_theorem_3_every_k_every_source(n):
    for k in range(n - 1):
        topo = EnhancedHypercube(n, k)
        alg = EnhancedBroadcast(topo)
        c, c_skip = counts_d(n, k)
        assert c + c_skip == n and alg.expected_steps() == k + _ceil_half(n - k) == topo.diameter()
        for src in range(2 ** n):
            tr = run_broadcast(alg, src)
            assert tr.exactly_once, (n, k, src)
            assert tr.steps == k + _ceil_half(n - k), (n, k, src, tr.steps)
            # one skip traversal only: the originator's (Sec. V)
            skips = [(u, v) for _s, u, p, v in tr.edges if p == topo.skip_port]
            assert skips == [(src, src ^ topo.skip_mask)]
            # the forward-only nodes: X' and the path along links n-k .. n-1 (k of them, proof of Thm 3)
            receivers = {v for _s, _u, _p, v in tr.edges}
            assert tr.messages == 2 ** n - 1 + k    # a spanning tree plus the k forward-only hops
            assert receivers == set(range(2 ** n)) - {src}


def test_algorithm_d_is_translation_invariant():
    n, k = 6, 2
    alg = EnhancedBroadcast(EnhancedHypercube(n, k))
    base = run_broadcast(alg, 0)
    for src in (1, 0b101010, 63):
        tr = run_broadcast(alg, src)
        assert [(s, u ^ src, p, v ^ src) for s, u, p, v in tr.edges] == base.edges


def test_fig_9_example():
    """Fig. 9 (n=5, k=1, from 00000): 01111 gets the message over the skip at step 1 but only forwards it
    (to 11111, the farthest node); it keeps a copy only when 11111 sends it back."""
    topo = EnhancedHypercube(5, 1)
    alg = EnhancedBroadcast(topo)
    hops = alg.start(0)
    assert hops[-1].port == topo.skip_port == 5
    assert hops[-1].header == {"op": OP_FORWARD, "index": 4, "count": 2}   # <-, n-k, c'>, c' = 2
    assert all(h.header == {"op": OP_BROADCAST, "index": h.port, "count": 3} for h in hops[:-1])  # c = 3
    tr = run_broadcast(alg, 0)
    p = topo.parse_node
    into_01111 = [(s, topo.format_node(u)) for s, u, _q, v in tr.edges if v == p("01111")]
    assert into_01111 == [(1, "00000"), (3, "11111")]
    assert tr.step_kept[p("01111")] == 3 and tr.copies[p("01111")] == 1
    assert tr.step_kept[p("11111")] == 2                       # X-bar keeps and broadcasts at step k+1
    keep, out = alg.forward(p("01111"), {"op": OP_FORWARD, "index": 4, "count": 2})
    assert not keep and out[0].port == 4 and out[0].header == {"op": OP_FORWARD, "index": 5, "count": 2}
    assert tr.steps == 3


def test_header_layouts_hold_every_tag():
    for n in range(2, 9):
        for k in range(n - 1):
            alg = EnhancedBroadcast(EnhancedHypercube(n, k))
            assert alg.layout.names() == ["op", "index", "count"]
            tr = run_broadcast(alg, 0)
            assert tr.exactly_once
            # every tag on the wire packs into the layout (index reaches n, count reaches c)
            for h in alg.start(0):
                alg.layout.pack(h.header)
            alg.layout.pack({"op": OP_FORWARD, "index": n, "count": counts_d(n, k)[0]})
        assert BinomialBroadcast(Hypercube(n)).layout.names() == ["weight"]
    with pytest.raises(CubenocError):
        EnhancedBroadcast(EnhancedHypercube(5, 1)).layout.pack({"op": 1, "index": 8, "count": 1})


def test_broadcast_for_and_type_errors():
    assert isinstance(broadcast_for(EnhancedHypercube(4, 0)), EnhancedBroadcast)
    assert isinstance(broadcast_for(Hypercube(4)), BinomialBroadcast)
    with pytest.raises(TypeError):
        EnhancedBroadcast(Hypercube(4))
    with pytest.raises(CubenocError, match="node must be in"):
        run_broadcast(EnhancedBroadcast(EnhancedHypercube(4, 1)), 16)
