"""The fork unit (rtl/route/fork.py) in Amaranth's simulator equals fork_entry (sim/broadcast/fork.py) for every
tag and the origin: keep, ports and the new tag per port (docs/router.md "Broadcast and multicast")."""
from __future__ import annotations

import pytest
from amaranth.sim import Simulator

from cubenoc.rtl.route.fork import ForkUnit
from cubenoc.sim.broadcast.fork import broadcast_algorithm_for, fork_entry, fork_node_generic
from cubenoc.sim.topology.hypercube import EnhancedHypercube, Hypercube
from cubenoc.sim.topology.metacube import Metacube
from cubenoc.sim.topology.pdn import PerfectDifferenceNetwork


@pytest.mark.parametrize("topo", [Hypercube(3), EnhancedHypercube(4, 1), Metacube(1, 2),
                                  PerfectDifferenceNetwork((0, 1, 3))], ids=repr)
def test_fork_rom_matches_python(topo):
    alg = broadcast_algorithm_for(topo)
    node = topo.num_nodes - 1
    dut = ForkUnit(alg, node)
    rows = [(1, 0)] + [(0, w) for w in range(1 << alg.layout.width)]
    seen = []

    async def bench(ctx):
        for origin, word in rows:
            ctx.set(dut.origin, origin)
            ctx.set(dut.tag, word)
            e = fork_entry(alg, node, bool(origin), word)
            keep, ports = ctx.get(dut.keep), ctx.get(dut.ports)
            assert keep == int(e.keep) and ports == sum(1 << p for p in e.ports), (origin, word)
            for p in e.ports:
                assert ctx.get(dut.new_tag[p]) == e.new_tags[p]
            seen.append(ports)

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()
    assert len(seen) == len(rows) and any(seen)


def test_node_generic_forks():
    assert fork_node_generic(broadcast_algorithm_for(EnhancedHypercube(4, 1)))
    assert not fork_node_generic(broadcast_algorithm_for(Metacube(2, 1)))   # next-class port depends on c
