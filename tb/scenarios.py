"""The cocotb network scenarios (docs/verification.md): each is a seeded Stimulus for one network.

* ``random``     random traffic, random lengths 1..L, random ejection backpressure
* ``burst``      every node injects back to back (saturating), ejection ready 60 % of the time
* ``all_pairs``  every source/destination pair once (self included), 2-flit packets
* ``head_on``    every other node sends a long packet to node 0 in the same cycle, then a second wave
                 to node 0's neighbour on dimension 0, so the packets contend for one output at a time
* ``bad_input``  random traffic mixed with out-of-range destinations (dropped, counted) and malformed
                 framing (stray body flits, a head inside a packet), with backpressure; the network
                 must not wedge: later good packets still arrive
"""
from __future__ import annotations

import numpy as np

from ..sim.model.stimulus import Stimulus, StimulusBuilder, all_pairs, random_ready, random_traffic


def head_on(num_nodes: int, length: int = 4, seed: int = 0) -> Stimulus:
    b = StimulusBuilder(num_nodes, seed=seed)
    for src in range(1, num_nodes):
        b.packet(src, 0, length, release=0)
    for src in range(num_nodes):
        if src != 1:
            b.packet(src, 1, length, release=5)
    return b.build()


def bad_input(num_nodes: int, seed: int = 0, cycles: int = 1500) -> Stimulus:
    rng = np.random.default_rng(seed)
    b = StimulusBuilder(num_nodes, seed=seed)
    for src in range(num_nodes):
        release = 0
        for j in range(12):
            release += int(rng.integers(0, 6))
            kind = rng.random()
            length = int(rng.integers(1, 5))
            if kind < 0.15:
                b.packet(src, int(rng.integers(num_nodes, 1 << 16)), length, release)  # out of range
            elif kind < 0.2:
                b.packet(src, 0xFFFF, length, release)
            elif kind < 0.25:   # stray body/tail flits outside a packet
                b.raw(src, [(0, 0, int(rng.integers(0, 1 << 32))), (0, 1, int(rng.integers(0, 1 << 32)))], release)
            elif kind < 0.3:    # a head inside a packet: forwarded as a body flit
                d1, d2 = (int(x) for x in rng.integers(0, num_nodes, 2))
                b.raw(src, [(1, 0, d1), (1, 0, d2 | 0xABC0000), (0, 1, 77)], release)
            else:
                b.packet(src, int(rng.integers(0, num_nodes)), length, release)
    return b.build(random_ready(num_nodes, cycles, 0.7, seed + 3))


def saturation_scenario(num_nodes: int) -> tuple:
    """Back to back 1..6-flit packets, 60 per node, the ejection ports ready 70 % of cycles."""
    return ("saturation", random_traffic(num_nodes, 60, 6, 99, mean_gap=0, p_ready=0.7, ready_cycles=20_000))


def network_scenarios(num_nodes: int, max_len: int = 6, seed: int = 1) -> list[tuple[str, Stimulus]]:
    n = num_nodes
    return [
        ("random", random_traffic(n, 20, max_len, seed, mean_gap=4, p_ready=0.5, ready_cycles=3000)),
        ("burst", random_traffic(n, 12, max_len, seed + 10, mean_gap=0, p_ready=0.6, ready_cycles=3000)),
        ("all_pairs", all_pairs(n, length=2, seed=seed + 20)),
        ("head_on", head_on(n, 4, seed + 30)),
        ("bad_input", bad_input(n, seed + 40)),
    ]
