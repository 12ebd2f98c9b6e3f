"""Run-time faults at a router (docs/router.md "Adaptive selection and run-time faults"; model: ``ad.fault``,
``ad.nfault`` and the ``DISCARDED`` counter in sim/model/phases.py).

``FaultStatus(num_links, num_lanes)``: an output is faulty when its ``link_fault`` bit or ``node_fault`` is set
(the local output, the last bit of ``fault``, never is); ``enable`` (the source interface's) drops while the
node is faulty; ``discarded`` counts the flits the input lanes discard (``discard``: one bit per lane, every
cycle), 16 bits, wrapping.
"""
from __future__ import annotations

from amaranth import Cat, Const, Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .source import COUNTER_WIDTH


class FaultStatus(wiring.Component):
    def __init__(self, num_links: int, num_lanes: int):
        self.num_links, self.num_lanes = num_links, num_lanes
        super().__init__({"link_fault": In(max(1, num_links)), "node_fault": In(1), "discard": In(num_lanes),
                          "fault": Out(num_links + 1), "enable": Out(1), "discarded": Out(COUNTER_WIDTH)})

    def elaborate(self, platform):
        m = Module()
        L = self.num_links
        m.d.comb += [self.fault.eq(Cat(self.link_fault[:L] | self.node_fault.replicate(L), Const(0, 1))
                                   if L else Const(0, 1)),
                     self.enable.eq(~self.node_fault)]
        m.d.sync += self.discarded.eq((self.discarded + sum(self.discard[k] for k in range(self.num_lanes)))
                                      [:COUNTER_WIDTH])
        return m
