"""cocotb (Verilator): routers with broadcast forks (docs/router.md "Broadcast and multicast") equal the
model cycle for cycle, and the papers' broadcast step counts hold in the Verilog's own trace: a lone
broadcast's last copy ejects at cycle accept + steps + 1 (Algorithm B: n; Algorithm D: k + ceil((n-k)/2),
Tzeng and Wei Theorem 3; metacube: (m+1) 2**k + k - 1, Li, Peng and Chu Theorem 3; PDN Algorithm 3: 2), every node but
the source ejects exactly one copy, payload bit for bit. On H^2 also Parhami and Rakov's all-to-all broadcast
and complete exchange (every packet released at cycle 0). Loaded scenarios (random unicast + broadcast,
random ejection backpressure, multi-flit broadcasts) run where the fork dependency graph is acyclic
(tests/test_broadcast_model.py checks which). Fast: every algorithm at its smallest network (Q_3 for
B, Q(3, 1) for D, PDN {0, 1, 3} for Algorithm 3, {0, 1}^2 for the H^2 broadcast, MC(1, 1) for the metacube); the larger ones are slow."""
from __future__ import annotations

import numpy as np
import pytest

from cubenoc.sim.analysis.pdn_routers import all_to_all_stimulus, complete_exchange_stimulus
from cubenoc.sim.router_config import RouterConfig
from cubenoc.sim.broadcast.fork import BROADCAST_DEST
from cubenoc.sim.broadcast.hypercube import BinomialBroadcast, EnhancedBroadcast
from cubenoc.sim.broadcast.metacube import MetacubeBroadcast
from cubenoc.sim.broadcast.pdn import PDNBroadcast, ProductPDNBroadcast
from cubenoc.sim.model.stimulus import StimulusBuilder, random_traffic
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.routing.metacube import MetacubeRouting
from cubenoc.sim.routing.pdn import DimensionOrderPDNRouting, ObliviousPDNRouting
from cubenoc.sim.topology.hypercube import EnhancedHypercube, Hypercube
from cubenoc.sim.topology.metacube import Metacube
from cubenoc.sim.topology.pdn import PerfectDifferenceNetwork, ProductPDN
from cubenoc.tb.verify import verify_network


def _hc(topo, alg_cls):
    return topo, EcubeRouting(topo), alg_cls(topo)


def _mc(k, m):
    t = Metacube(k, m)
    return t, MetacubeRouting(t, vcs=False), MetacubeBroadcast(t)


def _pdn(pds):
    t = PerfectDifferenceNetwork(pds)
    return t, ObliviousPDNRouting(t), PDNBroadcast(t)


def _h2(pds):
    t = ProductPDN([pds, pds])
    return t, DimensionOrderPDNRouting(t), ProductPDNBroadcast(t)


# name: (builder, loaded scenarios too (the fork dependency graph is acyclic), fast). The names say the
# algorithm: alg_b_* = Algorithm B (binomial), alg_d_* = Algorithm D (enhanced hypercube Q(n, k)),
# pdn_alg3_* = PDN Algorithm 3, metacube_* = the metacube broadcast (Li, Peng and Chu Sec. 4.2). Every algorithm
# runs at its smallest network in the fast set (tests/test_variant_coverage.py checks that it stays so).
CASES = {
    "alg_b_q3": (lambda: _hc(Hypercube(3), BinomialBroadcast), True, True),
    "alg_b_q4": (lambda: _hc(Hypercube(4), BinomialBroadcast), True, False),
    # Q(3, 1): the skip (x ^ 0b011) goes out as a no-copy forward over dimension 2 before the far node
    # broadcasts, so both branches of Algorithm D's forward run; floor((n-k)/2) = 1: no fork cycle
    "alg_d_q3k1": (lambda: _hc(EnhancedHypercube(3, 1), EnhancedBroadcast), True, True),
    "alg_d_q4k0": (lambda: _hc(EnhancedHypercube(4, 0), EnhancedBroadcast), True, False),
    "alg_d_q4k1": (lambda: _hc(EnhancedHypercube(4, 1), EnhancedBroadcast), True, False),
    "alg_d_q5k0": (lambda: _hc(EnhancedHypercube(5, 0), EnhancedBroadcast), True, False),
    "alg_d_q5k1": (lambda: _hc(EnhancedHypercube(5, 1), EnhancedBroadcast), False, False),   # 2-cycle: docs/deadlock.md
    "pdn_alg3_pdn7": (lambda: _pdn((0, 1, 3)), True, True),
    "pdn_alg3_pdn13": (lambda: _pdn((0, 1, 3, 9)), True, False),
    # H^2 (Parhami & Rakov Sec. 4): Algorithm 3 in the rows, each copy starting it in its column; {0,1}^2
    # (3 x 3) takes 1 + 1 steps, {0,1,3}^2 the paper's 4
    "pdn_h2_pdn3x3": (lambda: _h2((0, 1)), True, True),
    "pdn_h2_pdn7x7": (lambda: _h2((0, 1, 3)), True, False),
    "metacube_mc11": (lambda: _mc(1, 1), False, True),      # class cycle in one VC: docs/deadlock.md
    "metacube_mc12": (lambda: _mc(1, 2), False, False),
}


def lone_broadcast(n: int, src: int, length: int, release: int = 2):
    b = StimulusBuilder(n, seed=src + 5)
    b.packet(src, BROADCAST_DEST, length, release)
    return b.build()


def one_by_one(n: int, gap: int, length: int, seed: int):
    """A broadcast from every node in turn, ``gap`` cycles apart (each alone in the network)."""
    b = StimulusBuilder(n, seed=seed)
    for j, src in enumerate(np.random.default_rng(seed).permutation(n).tolist()):
        b.packet(src, BROADCAST_DEST, length, 1 + j * gap)
    return b.build()


def check_steps(model_result, steps: int) -> None:
    """From the trace: every broadcast's head copies eject at every node but the source, once, the last
    at accept + steps + 1; payload equal to the injected words."""
    s = model_result.stimulus
    tr_pk = s.packet[model_result.tr_flit]
    for k in np.nonzero(s.pkt_dst == BROADCAST_DEST)[0]:
        first = int(s.pkt_first[k])
        heads = (model_result.tr_flit == first)
        nodes = sorted(model_result.tr_node[heads].tolist())
        assert nodes == [v for v in range(s.num_nodes) if v != s.pkt_src[k]], s.describe_packet(int(k))
        last = int(model_result.tr_cycle[heads].max())
        assert last == int(model_result.accept_cycle[first]) + steps + 1, s.describe_packet(int(k))
        mine = tr_pk == k
        assert (model_result.tr_data[mine] == s.data[model_result.tr_flit[mine]]).all()


@pytest.mark.parametrize("name", [n if fast else pytest.param(n, marks=pytest.mark.slow)
                                  for n, (_b, _l, fast) in CASES.items()])
def test_broadcast_matches_model(name):
    build, loaded, _fast = CASES[name]
    topo, routing, alg = build()
    n = topo.num_nodes
    steps = alg.expected_steps()
    scenarios = [("lone", lone_broadcast(n, n - 1, 1)),
                 ("one_by_one", one_by_one(n, steps + 8, 3, seed=n))]
    if loaded:
        scenarios += [
            ("mixed", random_traffic(n, 8, 4, seed=n + 1, mean_gap=3, p_ready=0.6, ready_cycles=4000,
                                     p_broadcast=0.25)),
            ("burst", random_traffic(n, 6, 4, seed=n + 2, p_ready=0.8, ready_cycles=4000, p_broadcast=0.5)),
        ]
    h2 = isinstance(topo, ProductPDN) and topo.q == 2 and topo.radix[0] == topo.radix[1]
    if h2:      # Parhami & Rakov's H^2 collectives (docs/papers/pdn.md), every packet released at cycle 0
        scenarios += [("all_to_all", all_to_all_stimulus(topo)), ("complete_exchange", complete_exchange_stimulus(topo))]
    verdicts = verify_network(topo, scenarios, routing=routing, config=RouterConfig(broadcast=alg))
    report = [f"{v.name}: {p}" for v in verdicts for p in v.problems]
    assert not report, f"{topo!r} + {alg.name}:\n" + "\n".join(report)
    by = {v.name: v for v in verdicts}
    for v in verdicts:
        assert v.model.drained and v.rtl.cycle.size > 0
    # the step counts, from the Verilog's trace (equal to the model's: compared above)
    check_steps(by["lone"].model, steps)
    check_steps(by["one_by_one"].model, steps)
    assert by["lone"].rtl.cycle.size == n - 1
    if loaded:
        for key in ("mixed", "burst"):
            s = by[key].model.stimulus
            bc = s.pkt_dst == BROADCAST_DEST
            assert bc.any() and (~bc).any() and (s.pkt_len[bc] > 1).any()
            # every broadcast packet's tail ejected at n - 1 nodes (the model trace = the Verilog's)
            tails = s.pkt_first[bc] + s.pkt_len[bc] - 1
            counts = np.bincount(by[key].model.tr_flit, minlength=s.num_flits)[tails]
            assert (counts == n - 1).all()
        assert (by["mixed"].model.stimulus.eject_ready == 0).any()
    if h2:
        # the Verilog's own trace (cycle numbers equal the model's: compared above): n^2 (n^2 - 1) packets
        # ejected, one per node per cycle, the last no earlier than cycle n^2 (a node's n^2 - 1 receipts
        # through one local output, the first after one hop at cycle 2)
        for key in ("all_to_all", "complete_exchange"):
            rtl = by[key].rtl
            assert rtl.cycle.size == n * (n - 1), key
            assert np.unique(rtl.cycle * n + rtl.node).size == rtl.cycle.size, key
            assert int(rtl.cycle.max()) >= n, key
        assert int(by["all_to_all"].rtl.cycle.max()) == n        # the routers meet the bound (docs/papers/pdn.md)
