"""A user's own network from a BookSim anynet file (docs/anynet.md): the parser's one-line errors, the files of
the families written and read back, shortest routes (hop counts from networkx, not from our BFS), the
up*/down* VCs and the deadlock checker's verdict, the model on the 8-node ring at load 0.6, and the commands."""
from __future__ import annotations

import time
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from cubenoc.errors import CubenocError
from cubenoc.sim.anynet_file import anynet_text, parse_anynet, read_anynet
from cubenoc.sim.catalog import NetworkSpec
from cubenoc.sim.deadlock import check_deadlock
from cubenoc.sim.routing.anynet import MinimalTableRouting
from cubenoc.sim.routing.base import HeaderLayout, Hop, RoutingFunction
from cubenoc.sim.topology.anynet import AnyNetwork

from cli_run import run_cli

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def ring_text(n: int) -> str:
    return "".join(f"router {i} node {i} router {(i + 1) % n}\n" for i in range(n))


# ---- the parser ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,line,words", [
    ("router 0 node 0 router 1\nrouter 1 node 1 switch 0\n", 2, "unknown word 'switch'"),
    ("router 0 node 0 router 1\nrouter 1 node 1\nrouter 0 node 0\n", 3, "router 0 is listed twice (first on line 1)"),
    ("router 0 node 0 router 1\nrouter 1 node 1 router 7\n", 2, "link to nowhere"),
    ("router 0 node 0 router 1\nrouter 1 node 1\nrouter 2 node 2 router 3\nrouter 3 node 3\n", 3, "not connected"),
    ("router 0 node 0 router 1 4\nrouter 1 node 1\n", 1, "link weights are not supported"),
    ("router 0 node 0 node 5 router 1\nrouter 1 node 1\n", 1, "several nodes per router are not supported"),
    ("router 0 node 3 router 1\nrouter 1 node 1\n", 1, "the node id must be the router id"),
    ("router 0 node 0 router 0\n", 1, "links to itself"),
    ("router 0 router 1\nrouter 1 node 1\n", 1, "has no node"),
    ("node 0 router 1\n", 1, "a line starts with 'router R'"),
    ("router 0 node 0 router 2\nrouter 2 node 2 router 0\n", 2, "router 1 has no line"),
    ("router 0 node 0\n" + "".join(f"router {i} node {i} router 0\n" for i in range(1, 63)), 1, "at most 61 network ports"),
])
def test_bad_files_are_refused_in_one_line_naming_file_and_line(text, line, words):
    with pytest.raises(CubenocError) as exc:
        parse_anynet(text, "my.anynet")
    msg = str(exc.value)
    assert "\n" not in msg and msg.startswith(f"anynet my.anynet line {line}: "), msg
    assert words in msg, msg


def test_a_link_listed_on_both_lines_is_one_link_and_ports_follow_the_file():
    adj = parse_anynet("router 0 node 0 router 2 router 1\nrouter 1 node 1 router 0\nrouter 2 node 2\n")
    assert adj == [[2, 1], [0], [0]]
    topo = AnyNetwork(adj)
    assert topo.neighbor(0, 0) == (2, 0) and topo.neighbor(0, 1) == (1, 0) and topo.num_links == 2
    topo.validate()


def test_comments_and_blank_lines_are_skipped():
    """(Router 1's ports: its own line's neighbour 2 first, then 0, which names it.)"""
    assert parse_anynet("// a triangle\n\nrouter 0 node 0 router 1 router 2  # both\nrouter 1 node 1 router 2\n"
                        "router 2 node 2\n") == [[1, 2], [2, 0], [0, 1]]


@pytest.mark.parametrize("argv", [["simulate", "anynet:file={bad}", "--rate", "0.1"],
                                  ["generate", "anynet:file={bad}", "-o", "{tmp}/out"],
                                  ["analyze", "anynet", "--file", "{bad}"],
                                  ["simulate", "anynet:file={tmp}/missing.anynet", "--rate", "0.1"],
                                  ["simulate", "anynet", "--rate", "0.1"]])
def test_commands_refuse_a_bad_file_in_one_line(argv, tmp_path, capsys):
    bad = tmp_path / "bad.anynet"
    bad.write_text("router 0 node 0 router 1\nrouter 1 node 1 router 0 router 5\n")
    argv = [a.format(bad=bad, tmp=tmp_path) for a in argv]
    status, _out, err, _s = run_cli(argv, capsys, limit=60)
    assert status == 2 and len(err) == 1 and err[0].startswith("cubenoc: error: "), err
    assert "anynet" in err[0]


# ---- the families written and read back ------------------------------------------------------------------
FAMILY_FILES = {"q4.anynet": "hypercube:n=4", "pdn13.anynet": "pdn:set=0,1,3,9", "mc12.anynet": "metacube:k=1,m=2",
                "q6.anynet": "hypercube:n=6", "pdn7.anynet": "pdn:set=0,1,3"}


@pytest.mark.parametrize("name", sorted(FAMILY_FILES))
def test_example_files_are_the_family_networks_port_for_port(name):
    fam, _ = NetworkSpec.parse(FAMILY_FILES[name]).build("model")
    topo = read_anynet(EXAMPLES / name)
    assert topo.num_nodes == fam.num_nodes
    for v in fam.nodes():
        assert [topo.neighbor(v, p) for p in range(topo.num_ports(v))] == \
            [fam.neighbor(v, p) for p in range(fam.num_ports(v))]
    assert (EXAMPLES / name).read_text() == anynet_text(fam)


def _graph(name: str) -> nx.Graph:
    """The network of an example, built by networkx from its definition (not from our parser)."""
    if name == "q4.anynet":
        g = nx.hypercube_graph(4)
        return nx.relabel_nodes(g, {v: int("".join(map(str, reversed(v))), 2) for v in g})
    if name == "pdn13.anynet":
        return nx.Graph([(x, (x + s) % 13) for x in range(13) for s in (1, 3, 9)])
    if name == "ring8.anynet":
        return nx.cycle_graph(8)
    if name == "pdn7.anynet":
        return nx.Graph([(x, (x + s) % 7) for x in range(7) for s in (1, 3)])
    raise KeyError(name)


@pytest.mark.parametrize("name", ["q4.anynet", "pdn13.anynet", "ring8.anynet", "pdn7.anynet"])
def test_routes_are_shortest_and_deadlock_free(name):
    topo, routing = NetworkSpec.parse(f"anynet:file={EXAMPLES / name}").build("model")
    lengths = dict(nx.all_pairs_shortest_path_length(_graph(name)))
    for s in topo.nodes():
        for d in topo.nodes():
            assert routing.hops(s, d) == lengths[s][d], (s, d)
    assert check_deadlock(routing).deadlock_free


def test_metacube_file_routes_are_shortest_where_the_family_routes_are_not():
    """MC(1,2): every anynet route is a shortest path of the metacube's own graph (networkx on its links), and
    the family's class-by-class routing is longer on average (3.548 against 3.355 hops)."""
    fam, fam_routing = NetworkSpec.parse("metacube:k=1,m=2").build("model")
    lengths = dict(nx.all_pairs_shortest_path_length(nx.Graph([(u, v) for u, _p, v, _q in fam.links()])))
    topo, routing = NetworkSpec.parse(f"anynet:file={EXAMPLES / 'mc12.anynet'}").build("model")
    pairs = [(s, d) for s in topo.nodes() for d in topo.nodes() if s != d]
    assert all(routing.hops(s, d) == lengths[s][d] for s, d in pairs)
    ours = np.mean([routing.hops(s, d) for s, d in pairs])
    theirs = np.mean([fam_routing.hops(s, d) for s, d in pairs])
    assert ours == pytest.approx(np.mean([lengths[s][d] for s, d in pairs])) and theirs > ours + 0.1
    assert check_deadlock(routing).deadlock_free and routing.num_vcs == 2


# ---- virtual channels and deadlock -----------------------------------------------------------------------
def test_the_ring_needs_two_vcs_and_one_vc_is_refused_saying_why(tmp_path):
    path = tmp_path / "ring8.anynet"
    path.write_text(ring_text(8))
    topo = read_anynet(path)
    routing = MinimalTableRouting(topo)
    assert routing.num_vcs == 2
    assert check_deadlock(routing).deadlock_free
    with pytest.raises(CubenocError, match=r"need 2 virtual channels .* the routers take at most 1") as exc:
        MinimalTableRouting(topo, max_vcs=1)
    assert "\n" not in str(exc.value)


class _OneVcTable(RoutingFunction):
    """A destination table on one VC, ``table[d, v]`` (the routings the anynet schemes are checked against)."""

    name = "one_vc_table"

    def __init__(self, topology, table):
        super().__init__(topology)
        self.table, self._layout = table, HeaderLayout([("dest", 8)])

    def inject(self, src, dst):
        return {"dest": dst}

    def route(self, node, header):
        d = header["dest"]
        return Hop(self.topology.local_port(node) if d == node else int(self.table[d][node]), dict(header))


def _clockwise_shortest(topo):
    """Shortest paths around the 8-ring on one VC, clockwise at the opposite node: the routing the VCs are for."""
    def port(v, w):
        return next(p for p in range(2) if topo.neighbor(v, p)[0] == w)
    return _OneVcTable(topo, [[None if d == v else port(v, (v + (1 if (d - v) % 8 <= 4 else -1)) % 8)
                               for v in range(8)] for d in range(8)])


SEEDS = range(6)


def _random_table(seed):
    from cubenoc.sim.routing.anynet import port_order_table
    g = nx.connected_watts_strogatz_graph(10 + seed, 4, 0.3 + 0.1 * seed, seed=seed)
    topo = AnyNetwork([sorted(g[v]) for v in range(g.number_of_nodes())])
    return topo, port_order_table(topo.nbr.astype(np.int32), topo.distances)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_one_vc_table_check_agrees_with_the_deadlock_checker(seed):
    """The planner's check of a lowest-port table (its channel dependencies from the table, whole-array)
    against the checker's walk of every pair (sim/deadlock.py), on random connected graphs: some acyclic, some
    not."""
    from cubenoc.sim.routing.anynet import one_vc_acyclic
    topo, table = _random_table(seed)
    assert one_vc_acyclic(topo.nbr.astype(np.int32), table) == check_deadlock(_OneVcTable(topo, table)).deadlock_free


def test_the_random_graphs_gave_both_verdicts():
    """The graphs above are not all of one kind (the checker's verdicts, in one process whatever the order)."""
    assert {check_deadlock(_OneVcTable(*_random_table(s))).deadlock_free for s in SEEDS} == {True, False}


@pytest.mark.parametrize("name,scheme,vcs", [("ring8.anynet", "hops", 4), ("pdn13.anynet", "hops", 2),
                                             ("q4.anynet", "updown", 1), ("mc12.anynet", "updown", 2),
                                             ("q4.anynet", "port_order", 1)])
def test_every_scheme_is_shortest_and_deadlock_free(name, scheme, vcs):
    topo, routing = NetworkSpec.parse(f"anynet:file={EXAMPLES / name},routing={scheme}").build("model")
    lengths = dict(nx.all_pairs_shortest_path_length(nx.Graph([(u, v) for u, _p, v, _q in topo.links()])))
    assert all(routing.hops(s, d) == lengths[s][d] for s in topo.nodes() for d in topo.nodes())
    assert routing.num_vcs == vcs and check_deadlock(routing).deadlock_free


@pytest.mark.parametrize("spec,words", [("ring8.anynet,routing=port_order", "cycle of channel dependencies"),
                                        ("mc12.anynet,routing=hops", "one per hop of the diameter, 6"),
                                        ("q4.anynet,routing=zigzag", "must be one of auto, port_order")])
def test_a_scheme_that_cannot_be_deadlock_free_is_refused_saying_why(spec, words):
    with pytest.raises(CubenocError, match=words) as exc:
        NetworkSpec.parse(str(EXAMPLES / spec)).build("model")
    assert "\n" not in str(exc.value)


def test_the_q6_file_is_as_balanced_as_ecube():
    """Lowest port first on the 6-cube's file is dimension-order routing: at 0.4 flits/node/cycle the same
    accepted load and busiest link as the family's e-cube (up*/down* would crowd the root's links)."""
    from cubenoc.sim.simulator import SimConfig, simulate_point
    cfg = SimConfig(warmup=300, measure=2000, drain=2000)
    ours = simulate_point(f"anynet:file={EXAMPLES / 'q6.anynet'}", 0.4, cfg)
    cube = simulate_point("hypercube:n=6", 0.4, cfg)
    assert not ours.saturated and not cube.saturated
    assert ours.link_util_max <= 1.05 * cube.link_util_max


def test_the_ring_runs_at_load_06_without_deadlock_where_one_vc_wedges(tmp_path):
    """Offered 0.6 flits/node/cycle of 4-flit packets for 3,000 cycles (beyond the ring's saturation): with the
    two up*/down* VCs every packet is delivered; the same shortest paths on one VC wedge (the checker's cycle)."""
    from cubenoc.sim.model.network import NetworkModel
    from cubenoc.sim.model.stimulus import bernoulli_traffic
    from cubenoc.sim.network_plan import plan_of
    path = tmp_path / "ring8.anynet"
    path.write_text(ring_text(8))
    topo, routing = NetworkSpec.parse(f"anynet:file={path}").build("model")
    stim = bernoulli_traffic(8, 0.6, 4, 3000, seed=3)
    res = NetworkModel(plan_of(topo, routing)).run(stim, max_cycles=60_000)
    assert res.drained and res.delivered.size == stim.num_packets
    one_vc = _clockwise_shortest(topo)
    assert not check_deadlock(one_vc).deadlock_free
    wedged = NetworkModel(plan_of(topo, one_vc)).run(stim, max_cycles=20_000)
    assert not wedged.drained and wedged.delivered.size < stim.num_packets


@pytest.mark.parametrize("spec", ["q4.anynet", "pdn13.anynet", "ring8.anynet", "mc12.anynet", "ring8.anynet,routing=hops",
                                  "pdn13.anynet,routing=hops", "q4.anynet,routing=updown"])
def test_the_simulators_tables_equal_the_generic_ones(spec):
    """sim/model/anynet.py's numpy tables and turns (what simulate runs) are build_tables' of routing.route with
    the plan's turns (what every other family's generic model reads), entry for entry."""
    from cubenoc.sim.model.anynet import anynet_model
    from cubenoc.sim.model.network import NetworkModel
    from cubenoc.sim.network_plan import plan_of
    topo, routing = NetworkSpec.parse(str(EXAMPLES / spec)).build("model")
    plan = plan_of(topo, routing)
    fast, generic = anynet_model(plan).tables, NetworkModel(plan).tables
    for key in ("nports", "link", "route", "allowed"):
        assert np.array_equal(getattr(fast, key), getattr(generic, key)), key
    assert (fast.vc is None) == (generic.vc is None) and (fast.vc is None or np.array_equal(fast.vc, generic.vc))
    assert (fast.route >= 0).sum() > topo.num_nodes ** 2 // 2


def test_simulate_q4_file_gives_the_hypercube_hops():
    """Mean hops of the anynet Q4 within 2 % of hypercube:n=4 at load 0.05 (and of 32/15, the cube's mean
    distance under uniform traffic)."""
    from cubenoc.sim.simulator import SimConfig, simulate_point
    cfg = SimConfig(warmup=500, measure=4000, drain=2000)
    ours = simulate_point(f"anynet:file={EXAMPLES / 'q4.anynet'}", 0.05, cfg)
    cube = simulate_point("hypercube:n=4", 0.05, cfg)
    assert not ours.saturated and ours.packets > 1000
    assert abs(ours.hops_mean - cube.hops_mean) <= 0.02 * cube.hops_mean
    assert abs(ours.hops_mean - 32 / 15) <= 0.02 * 32 / 15


@pytest.mark.parametrize("name", ["pdn13.anynet", "mc12.anynet"])
def test_pdn_and_metacube_files_simulate(name):
    from cubenoc.sim.simulator import SimConfig, simulate_point
    res = simulate_point(f"anynet:file={EXAMPLES / name}", 0.1, SimConfig(warmup=200, measure=1500, drain=2000))
    assert not res.saturated and res.packets > 100 and res.accepted == pytest.approx(0.1, rel=0.15)


# ---- the planner against brute force ---------------------------------------------------------------------
def _small_networks():
    """Small connected graphs, degrees unequal in most, each router's ports in a shuffled order (ties between
    ports then fall on no pattern): some need one up*/down* VC (the 3-cube, PDN {0,1,3}), most more."""
    rng = np.random.default_rng(5)
    graphs = [nx.cycle_graph(7), nx.petersen_graph(), nx.grid_2d_graph(3, 4), nx.hypercube_graph(3),
              nx.Graph([(x, (x + s) % 7) for x in range(7) for s in (1, 3)]), nx.random_regular_graph(3, 12, seed=2),
              nx.barabasi_albert_graph(13, 2, seed=4)]
    graphs += [nx.connected_watts_strogatz_graph(12, 4, 0.4, seed=s) for s in range(3)]
    out = []
    for g in graphs:
        g = nx.convert_node_labels_to_integers(g)
        out.append((g, AnyNetwork([[int(w) for w in rng.permutation(sorted(g[v]))] for v in range(len(g))])))
    return out


def _updown_by_brute_force(g, topo, root):
    """``(down, turns, port, free)`` as updown_tables defines them, from every shortest path networkx lists:
    the rank of a router by (its hops from the root, its id), a hop down where the rank grows, a turn where a
    down hop is followed by an up one; the least over the paths, the lowest first port among those."""
    n = topo.num_nodes
    hops = nx.single_source_shortest_path_length(g, root)
    rank = {v: r for r, v in enumerate(sorted(g, key=lambda v: (hops[v], v)))}
    port_to = {(v, topo.neighbor(v, p)[0]): p for v in g for p in range(topo.num_ports(v))}
    down = np.zeros(topo.nbr.shape, dtype=bool)
    for (v, w), p in port_to.items():
        down[v, p] = rank[w] > rank[v]
    turns = np.zeros((2, n, n), dtype=int)
    port = np.full((2, n, n), -1)
    free = np.full((n, n), -1)
    for v in g:
        for d in g:
            if v == d:
                continue
            seen = {0: [], 1: []}                           # (turns, first port) of each path
            for path in nx.all_shortest_paths(g, v, d):
                dn = [rank[b] > rank[a] for a, b in zip(path, path[1:])]
                first = port_to[path[0], path[1]]
                for s in (0, 1):
                    seen[s].append((sum(a and not b for a, b in zip([bool(s)] + dn, dn)), first))
                if dn[0] and seen[0][-1][0] == 0:
                    free[d, v] = first if free[d, v] < 0 else min(free[d, v], first)
            for s in (0, 1):
                turns[s, d, v], port[s, d, v] = min(seen[s])
    return down, turns, port, free


def _balance_by_loops(g, topo, down, turns, port, free, mode):
    """balance's rule in plain loops: destination by destination, routers farthest first, each state's
    packets (every source's one, counted at each router they pass) on the least-loaded of the equally good
    hops, the lowest port among equals. Returns the one-VC table, or ``port`` rewritten (mode 1)."""
    n = topo.num_nodes
    far = dict(nx.all_pairs_shortest_path_length(g))
    load, table, port = np.zeros(topo.nbr.shape, dtype=int), np.full((n, n), -1), port.copy()
    for d in range(n):
        flow = np.zeros((2, n), dtype=int)
        flow[0] = 1
        for v in sorted(range(n), key=lambda v: -far[v][d]):
            for s in ((0, 1) if mode == 1 else (0,)):
                f = flow[s, v] if mode == 1 else flow[:, v].sum()
                if v == d or f == 0:
                    continue
                good = []
                for p in range(topo.num_ports(v)):
                    w, dn = topo.neighbor(v, p)[0], bool(down[v, p])
                    if far[w][d] != far[v][d] - 1:
                        continue
                    if mode == 0 and free[d, v] >= 0:         # a turn-free down hop
                        good += [p] if dn and turns[1, d, w] == 0 else []
                    elif mode == 0:                           # else a turn-free up hop
                        good += [p] if not dn and turns[0, d, w] == 0 else []
                    elif mode == 1:                           # as few turns as there can be
                        good += [p] if turns[int(dn), d, w] + (s == 1 and not dn) == turns[s, d, v] else []
                    else:
                        good.append(p)
                p = min(good, key=lambda p: (load[v, p], p))
                load[v, p] += f
                flow[int(mode == 1 and down[v, p]), topo.neighbor(v, p)[0]] += f
                table[d, v] = p
                port[s, d, v] = p
    return port if mode == 1 else table


def test_the_planner_equals_brute_force_on_small_networks():
    """updown_tables' turns, ports and free hops equal the least over every shortest path (networkx), for two
    roots; port_order_table takes the lowest port one hop closer; balance equals its rule in plain loops in
    every mode; MinimalTableRouting's tables are those of its scheme and root."""
    from cubenoc.sim.routing.anynet import balance, port_order_table, updown_tables
    needs = set()
    for g, topo in _small_networks():
        n, nbr, dist = topo.num_nodes, topo.nbr.astype(np.int32), topo.distances
        far = dict(nx.all_pairs_shortest_path_length(g))
        lowest = [[min((p for p in range(topo.num_ports(v)) if far[topo.neighbor(v, p)[0]][d] == far[v][d] - 1),
                       default=-1) for v in range(n)] for d in range(n)]
        assert port_order_table(nbr, dist).tolist() == lowest
        for root in (0, int(np.argmin(dist.max(axis=1)))):
            mine = updown_tables(nbr, dist, root)
            brute = _updown_by_brute_force(g, topo, root)
            for a, b in zip(mine, brute):
                assert np.array_equal(a, b), (g, root)
            need = int(brute[1][0].max()) + 1
            needs.add(need)
            for mode in ((0, 1, 2) if need == 1 else (1, 2)):
                port = mine[2].copy()
                table = balance(nbr, dist, *mine[:2], port, mine[3], mode)
                assert np.array_equal(port if mode == 1 else table, _balance_by_loops(g, topo, *brute, mode)), (g, mode)
        for scheme in ("updown", "hops"):
            routing = MinimalTableRouting(topo, scheme, max_vcs=16)
            if scheme == "hops":
                z = np.zeros((2, n, n), dtype=np.int16)
                expect = _balance_by_loops(g, topo, np.zeros(nbr.shape, dtype=bool), z, z, z[0], 2)
            else:
                brute = _updown_by_brute_force(g, topo, routing.root)
                expect = _balance_by_loops(g, topo, *brute, 0 if routing.num_vcs == 1 else 1)
            assert np.array_equal(routing.table, expect), (g, scheme)
    assert 1 in needs and max(needs) > 1


# ---- size -------------------------------------------------------------------------------------------------
def _plan_seconds(spec_text: str) -> float:
    """CPU seconds (the loops are single-threaded; a busy machine's wall time is not the code's)."""
    from cubenoc.sim.network_plan import plan_of
    t0 = time.process_time()
    topo, routing = NetworkSpec.parse(spec_text).build("model")
    plan_of(topo, routing)
    return time.process_time() - t0


def test_a_256_node_file_is_parsed_checked_and_planned_quickly(tmp_path):
    fam, _ = NetworkSpec.parse("hypercube:n=8").build("model")
    path = tmp_path / "q8.anynet"
    path.write_text(anynet_text(fam))
    assert _plan_seconds(f"anynet:file={path}") < 2.0
    topo, routing = NetworkSpec.parse(f"anynet:file={path}").build("model")
    assert routing.num_vcs == 1 and topo.diameter() == 8
    rng = np.random.default_rng(1)
    for s, d in rng.integers(0, 256, size=(200, 2)).tolist():
        assert routing.hops(s, d) == bin(s ^ d).count("1")


@pytest.mark.slow
def test_a_4096_node_file_is_parsed_checked_and_planned_in_10_s(tmp_path):
    """The 12-cube's file (lowest port first, checked acyclic) and a random 6-regular graph's (up*/down*)."""
    from cubenoc.bench.anynet_speed import random_regular_anynet
    fam, _ = NetworkSpec.parse("hypercube:n=12").build("model")
    path = tmp_path / "q12.anynet"
    path.write_text(anynet_text(fam))
    _plan_seconds(f"anynet:file={EXAMPLES / 'pdn7.anynet'}")
    assert _plan_seconds(f"anynet:file={path}") < 10.0
    other = random_regular_anynet(4096, 6, tmp_path)
    assert _plan_seconds(f"anynet:file={other}") < 10.0
    assert NetworkSpec.parse(f"anynet:file={other}").build("model")[1].name == "anynet_updown"


# ---- the commands -------------------------------------------------------------------------------------
def test_analyze_writes_a_file_that_reads_back_as_the_network(tmp_path, capsys):
    out = tmp_path / "pdn13.anynet"
    status, text, err, _ = run_cli(["analyze", "anynet", "pdn:set=0,1,3,9", "--write-anynet", str(out), "--json"],
                                   capsys, limit=60)
    assert status == 0, err
    import json
    data = json.loads(text)
    assert data["diameter"] == 2 and data["degree_max"] == 6 and data["links"] == 39
    assert data["average_distance"] == pytest.approx(1.5)
    status, text, err, _ = run_cli(["analyze", "anynet", str(out), "--json"], capsys, limit=60)
    back = json.loads(text)
    assert status == 0 and back["vcs"] == 1 and back["deadlock_free"] is True
    assert back["mean_routed_hops"] == pytest.approx(1.5) and back["bisection"] == data["bisection"]


def test_a_config_file_names_an_anynet_network(tmp_path, capsys):
    cfg = tmp_path / "mine.toml"
    cfg.write_text(f'network = "anynet:file={EXAMPLES / "pdn7.anynet"}"\n[traffic]\nrate = 0.1\n'
                   f'[run]\nwarmup = 100\nmeasure = 500\n')
    status, text, err, _ = run_cli(["simulate", "--config", str(cfg), "--json"], capsys, limit=60)
    assert status == 0, err
    assert "pdn7.anynet" in text


# ---- any input ------------------------------------------------------------------------------------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

WORDS = st.sampled_from(["router", "node", "Router", "0", "1", "2", "3", "-1", "7", "x", "//", "#", "1e3", "\t"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(WORDS, max_size=8).map(" ".join), max_size=6).map("\n".join) | st.text(max_size=80))
def test_any_text_is_a_network_or_one_line_naming_the_file(text):
    try:
        adj = parse_anynet(text, "f.anynet")
    except CubenocError as exc:
        msg = str(exc)
        assert "\n" not in msg and (msg.startswith("anynet f.anynet line ") or msg == "anynet f.anynet: no routers "
                                    "(a line is router R node R router R1 router R2 ... (one line per router))"), msg
        return
    topo = AnyNetwork(adj)                           # a network the parser accepts is whole and connected
    topo.validate()
    assert (topo.distances >= 0).all()


def test_a_binary_file_is_one_line_naming_the_file_and_line(tmp_path, capsys):
    path = tmp_path / "bin.anynet"
    path.write_bytes(b"router 0 node 0 router 1\nrouter 1 node \xff1\n")
    status, _out, err, _s = run_cli(["analyze", "anynet", str(path)], capsys, limit=30)
    assert status == 2 and len(err) == 1 and f"{path} line 2: not a text file" in err[0], err
