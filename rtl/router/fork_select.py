"""The broadcast selector (docs/router.md "Broadcast and multicast"; model: the selector step of
``fork_select`` in sim/model/forks.py): one eligible broadcast head per cycle, round robin over the inputs,
takes every output it wants.

``ForkSelect(inputs, num_ports)``: ``eligible[r]`` (input ``inputs[r]`` has a broadcast head whose outputs
are all free and empty), ``want[r]`` (the outputs it forks to), ``stalled[o]`` (output o holds a stalled
offer) and ``link_empty[o]`` (the downstream input behind output o is empty; 1 at the local output) give
``grant`` (the chosen input, one-hot), ``taken`` (the outputs it acquires this cycle) and ``empty`` (outputs a
fork may wait for: no stalled offer and an empty downstream input; on a link this matters with depth-1
FIFOs, where the downstream FIFO can be full one cycle and empty the next).
"""
from __future__ import annotations

from amaranth import Cat, Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..gates import any_of
from .arbiter import RoundRobinArbiter


class ForkSelect(wiring.Component):
    def __init__(self, inputs, num_ports: int):
        self.inputs, self.num_ports = list(inputs), num_ports
        n, P = len(self.inputs), num_ports
        super().__init__({"eligible": In(n), "want": In(P).array(n), "stalled": In(P), "link_empty": In(P),
                          "grant": Out(n), "taken": Out(P), "empty": Out(P)})

    def elaborate(self, platform):
        m = Module()
        n, P = len(self.inputs), self.num_ports
        arb = m.submodules.arbiter = RoundRobinArbiter(self.inputs, P)
        m.d.comb += [arb.requests.eq(self.eligible), self.grant.eq(arb.grant),
                     self.taken.eq(Cat(*[any_of(arb.grant[r] & self.want[r][o] for r in range(n)) for o in range(P)])),
                     arb.next.eq(arb.grant & self.taken.any().replicate(n)),
                     self.empty.eq(~self.stalled & self.link_empty)]
        return m
