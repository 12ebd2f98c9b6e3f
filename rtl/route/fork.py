"""The fork unit of docs/router.md "Broadcast and multicast": a ROM filled from a BroadcastAlgorithm.

``ForkUnit(alg, node)``: In ``tag`` (``alg.layout.width`` bits), ``origin`` (1: the flit is in the
source's local FIFO, use ``alg.start(node)``; 0: ``alg.forward(node, tag)``); Out ``keep`` (1),
``ports`` (one bit per network port), ``new_tag`` (one ``alg.layout.width`` word per network port).
The table is :func:`cubenoc.sim.broadcast.fork.fork_entry`, the same one the model reads. When the
decision is the same at every node (Algorithms B and D) the unit is node-generic: one ROM for all.
"""
from __future__ import annotations

from amaranth import Module, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ...sim.broadcast.fork import fork_entry


class ForkUnit(wiring.Component):
    def __init__(self, alg, node: int):
        self.alg, self.node = alg, node
        self.tag_bits = alg.layout.width
        self.net_ports = alg.topology.num_ports(node)
        super().__init__({
            "tag": In(self.tag_bits), "origin": In(1),
            "keep": Out(1), "ports": Out(max(1, self.net_ports)),
            "new_tag": Out(data.ArrayLayout(unsigned(self.tag_bits), max(1, self.net_ports))),
        })

    def _drive(self, m, entry):
        m.d.comb += [self.keep.eq(int(entry.keep)),
                     self.ports.eq(sum(1 << p for p in entry.ports))]
        for p, w in entry.new_tags.items():
            m.d.comb += self.new_tag[p].eq(w)

    def elaborate(self, platform):
        m = Module()
        alg, node = self.alg, self.node
        with m.If(self.origin):
            self._drive(m, fork_entry(alg, node, True, 0))
        with m.Else():
            with m.Switch(self.tag):
                for word in range(1 << self.tag_bits):
                    e = fork_entry(alg, node, False, word)
                    if e.keep or e.ports:
                        with m.Case(word):
                            self._drive(m, e)
        return m
