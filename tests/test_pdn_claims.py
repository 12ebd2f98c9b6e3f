"""Parhami & Rakov, perfect difference networks: the H^2 collectives, bit reversal, H^2 sorting, the
collinear layout, the bipartite PDN as a 2n-node network, edge vs node faults, normal-form sets and
Table 2's bisection bounds, each against the paper's value and an independent count."""
import itertools
import math
import random

import networkx as nx

from cubenoc.cli import main
from cubenoc.sim.analysis import pdn_claims as C
from cubenoc.sim.analysis.pdn_measure import table2
from cubenoc.sim.broadcast.pdn import personalized_complete, run_schedule
from cubenoc.sim.broadcast.pdn_product import (bit_reversal, power_all_to_all, power_all_to_all_split,
                                               power_complete_exchange, power_shearsort, reverse_bits)
from cubenoc.sim.topology.pdn import PerfectDifferenceNetwork, is_pds, registry_set
from cubenoc.sim.analysis.graph import to_networkx


def test_h2_all_to_all_broadcast_meets_the_receive_bound_and_the_paper_count_does_not():
    for pds in ((0, 1, 3), (0, 1, 3, 9)):
        d, n = len(pds) - 1, (len(pds) - 1) ** 2 + len(pds)
        power, steps, init = power_all_to_all(pds)
        rep = run_schedule(power, steps, init)
        assert all(len(h) == n * n for h in rep.holdings) and rep.duplicates == 0
        assert rep.max_receives == rep.max_sends == rep.max_channel == 1
        # one receive per step and n^2 - 1 messages to receive: n^2 - 1 steps is the least possible
        assert rep.steps == n * n - 1
        assert (n + 1) * d * d < n * n - 1          # the paper's count is below that bound
        power, steps, init = power_all_to_all(pds, overlap=True)
        rep = run_schedule(power, steps, init)
        assert all(len(h) == n * n for h in rep.holdings)
        assert rep.steps == n * (n - 1) and rep.max_receives == 2


def test_h2_all_to_all_split_between_dimensions_beats_the_paper_from_delta_3():
    for pds, paper in (((0, 1, 3), 28), ((0, 1, 3, 9), 117)):
        d, n = len(pds) - 1, (len(pds) - 1) ** 2 + len(pds)
        power, steps, init = power_all_to_all_split(pds)
        rep = run_schedule(power, steps, init)
        assert all(len(h) == n * n for h in rep.holdings) and rep.duplicates == 0
        # the port model, counted here per dimension: one send and one receive per node per step
        for step in steps:
            sends, receives = set(), set()
            for node, port, _ in step:
                dim = 0 if port < power.port_base[1] else 1
                far = power.neighbor(node, port)[0]
                assert (node, dim) not in sends and (far, dim) not in receives
                sends.add((node, dim))
                receives.add((far, dim))
        # n - 1 steps of own messages, then (n + 1)/2 rounds of n - 1 steps
        assert rep.steps == (n - 1) * (n + 3) // 2
        assert math.ceil((n * n - 1) / 2) <= rep.steps
        assert (rep.steps < paper) == (d >= 3)            # 30 > 28 at delta 2; 96 < 117 at delta 3


def test_h2_complete_exchange_single_port_and_pipelined():
    pds = (0, 1, 3)
    d, n = 2, 7
    power, steps, init = power_complete_exchange(pds)
    rep = run_schedule(power, steps, init)
    assert personalized_complete(rep, set().union(*init)) and rep.max_sends == 1
    g = nx.Graph(to_networkx(power))
    hops = sum(nx.single_source_shortest_path_length(g, 0).values())    # every message's hops, from one node
    assert rep.steps == hops == 4 * n * d * d                              # meets the single-port hop bound
    power, steps, init = power_complete_exchange(pds, pipelined=True)
    rep = run_schedule(power, steps, init)
    assert personalized_complete(rep, set().union(*init))
    assert rep.steps == 2 * n * n and rep.max_fwd_sends == rep.max_bwd_sends == 1     # the paper's 2 n^2


def test_bit_reversal_shift_rounds():
    for pds in ((0, 1, 3), (0, 1, 3, 9), registry_set(4)):
        topo = PerfectDifferenceNetwork(pds)
        steps, init, rounds = bit_reversal(topo)
        rep = run_schedule(topo, steps, init)
        assert personalized_complete(rep, set().union(*init)) and rep.max_channel == 1 and rep.max_sends == 1
        m = int(math.log2(topo.n))
        assert len(rounds) == m
        if m <= 3:
            assert sum(rounds) <= m                  # the paper's log2 n shift steps
    # 4 bits: after bits 0, 1 are fixed, node 0110 holds the messages of 0100..0111 (rev has bits 1,0 =
    # x2, x3), and those with x1 = 0 (0100, 0101) must both flip bit 2: two shift rounds there
    assert rounds[2] == 2 and sum(rounds) > m
    assert reverse_bits(0b0100, 4) == 0b0010


def test_bit_reversal_in_m_shift_rounds_depends_on_the_dimension_order():
    """The paper's "log2 n shift steps" fixes no dimension order: an outside count found 8 of the 24 orders
    for m = 4 (e.g. 0, 3, 1, 2) and 40 of the 120 for m = 5 finish in m shift rounds; ascending does not."""
    from cubenoc.sim.broadcast.pdn_product import orders_in_m_rounds, shift_rounds
    assert orders_in_m_rounds(4)[:2] == (8, 24) and orders_in_m_rounds(5)[:2] == (40, 120)
    assert sum(shift_rounds(4, (0, 3, 1, 2))) == 4 and sum(shift_rounds(4)) > 4
    topo = PerfectDifferenceNetwork(registry_set(4))               # n = 21: m = 4, replayed on the PDN
    steps, init, rounds = bit_reversal(topo, (0, 3, 1, 2))
    rep = run_schedule(topo, steps, init)
    assert sum(rounds) == 4 and personalized_complete(rep, set().union(*init)) and rep.max_channel == 1
    from cubenoc.sim.analysis.pdn_claims import bit_reversal_report
    r = bit_reversal_report(registry_set(4))
    assert r["verdict"].startswith("holds: 8 of 24") and r["shift_rounds"] == 4 and r["complete"]


def test_h2_shearsort_sorts_in_snake_order():
    topo = PerfectDifferenceNetwork((0, 1, 3))
    rng = random.Random(5)
    for _ in range(5):
        vals = [[rng.randrange(10) for _ in range(7)] for _ in range(7)]
        grid, steps = power_shearsort(topo, vals)
        snake = [x for r, row in enumerate(grid) for x in (row if r % 2 == 0 else row[::-1])]
        assert snake == sorted(x for row in vals for x in row)
        assert steps == 7 * (2 * 3 + 1)


def test_collinear_layout_tracks():
    rows = {r["delta"]: r for r in C.layout((2, 3, 4))}
    # {0,1,3} by hand, over the gap between 3 and 4: chord 1 gives 3-4 and the wrap 6-0 (which spans the
    # whole line); chord 3 gives 1-4, 2-5, 3-6 and the wraps 4-0, 5-1, 6-2: 2 + 6 = 8 tracks
    assert rows[2]["tracks"] == 8 and rows[2]["paper_sum_min"] == 4
    for r in rows.values():
        assert r["tracks"] == 2 * r["paper_sum_min"]
        assert 0.3 < r["tracks_over_n15"] < 0.5


def test_bipartite_pdn_as_2n_node_network():
    b = C.bipartite_as_network((0, 1, 3, 9))
    assert b["nodes"] == 26 and b["degree"] == 4 and b["links"] == 52
    assert b["diameter"] == 3 and b["hosts_only"] == {"diameter": 2, "avg_distance": 2.0}
    assert abs(b["avg_distance"] - b["avg_distance_closed_form"]) < 1e-12


def test_edge_faults_not_always_less_severe_than_node_faults():
    rows = {r["faults"]: r for r in C.edge_vs_node_faults((0, 1, 3))}
    assert rows[2]["verdict"] == "FAILS"
    # independently: some two links of the 7-node PDN push the diameter to 3, no two nodes do
    g = nx.Graph(to_networkx(PerfectDifferenceNetwork((0, 1, 3))))
    link_worst = max(nx.diameter(nx.restricted_view(g, [], pair)) for pair in itertools.combinations(g.edges, 2))
    node_worst = max(nx.diameter(g.subgraph(set(g) - set(pair))) for pair in itertools.combinations(g, 2))
    assert (link_worst, node_worst) == (3, 2) == (rows[2]["worst_diameter_links"], rows[2]["worst_diameter_nodes"])


def test_normal_form_sets_are_the_singer_multiplier_classes():
    for d in (2, 3, 4, 5):
        rep = C.normal_form_report(d)
        sets = [tuple(s) for s in rep["sets"]]
        assert all(is_pds(s) and s[:2] == (0, 1) and list(s) == sorted(s) for s in sets)
        assert registry_set(d) in sets
        n = d * d + d + 1
        k = {2: 1, 3: 1, 4: 2, 5: 1}[d]                  # q = p^k
        assert len(sets) == sum(math.gcd(t, n) == 1 for t in range(1, n)) // (3 * k) == rep["multiplier_images"]
    assert C.normal_form_sets(2) == [(0, 1, 3), (0, 1, 5)]


def test_table2_bisection_bounds_fail_at_delta_3():
    v = C.table2_bisection_verdicts(table2(3))
    assert v["K_d x K_d"]["ours"] == 8 and v["K_d x K_d"]["verdict"] == "FAILS"     # 8 > 27/4
    assert v["Swap(K_d)"]["ours"] == 3 and v["Swap(K_d)"]["verdict"] == "FAILS"     # 3 > 9/4
    assert v["basic PDN"]["verdict"] == "holds"
    assert all(x["verdict"] == "holds" for x in C.table2_bisection_verdicts(table2(4)).values())


def test_cli_collectives_and_claims(capsys):
    assert main(["analyze", "pdn", "--set", "0,1,3", "--collectives", "--claims"]) == 0
    out = capsys.readouterr().out
    assert "48" in out and "32 = (n+1) delta^2" in out and "98" in out and "2 n^2" in out
    assert "Table 2 bisection bounds" in out and "Normal-form sets of order 2" in out
    assert main(["analyze", "pdn", "--set", "0,1,3", "--zero-free", "--collectives"]) == 2
    assert capsys.readouterr().err.startswith("cubenoc: error:")
    assert main(["analyze", "pdn", "--delta", "5", "--collectives"]) == 2
