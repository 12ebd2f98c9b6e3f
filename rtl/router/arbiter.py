"""The round-robin arbiter of docs/router.md "Arbitration" (model: ``rr_pick`` in sim/model/kernel.py).

``RoundRobinArbiter(positions, size)``: requester ``r`` sits at position ``positions[r]`` of a cyclic order
of ``size`` places (inputs, or (input, VC) pairs ``j = i * V + c``; places nobody requests from are
pruned crossbar inputs). The pointer is a thermometer code ``pri`` (bit j = ``j >= pointer``; reset:
pointer 0). ``grant`` is one-hot: the first request at or after the pointer, cyclically. On the clock
edge the pointer moves just past the requester marked in ``next`` (one-hot), or onto the one marked in
``keep`` (one-hot: a stalled winner stays first, docs/router.md "Streams hold their offer"); none: it stays.

Weighted (``weight_width > 0``, the fair arbiter of docs/router.md "Arbitration"; model ``wrr_after``): a
winner whose transfer is marked in ``next`` keeps first place while its packet's weight (``weight[r]``,
> 1) is not used up: ``used`` counts the tails (``tail[r]``) it sent in a row from first place. Each
requester's rule is computed from its own flit, beside the grant, not from the crossbar's output.
"""
from __future__ import annotations

from amaranth import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..gates import any_of


def thermometer(pointer: int, size: int) -> int:
    """The code of ``pointer mod size``: bit j set for every j >= pointer."""
    return ((1 << size) - 1) & ~((1 << (pointer % size)) - 1)


class RoundRobinArbiter(wiring.Component):
    def __init__(self, positions, size: int, weight_width: int = 0):
        self.positions, self.size, self.weight_width = list(positions), size, weight_width
        n = len(self.positions)
        members = {"requests": In(n), "grant": Out(n), "next": In(n), "keep": In(n)}
        if weight_width:
            members.update({"weight": In(weight_width).array(n), "tail": In(n)})
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        pos = self.positions
        pri = Signal(self.size, init=(1 << self.size) - 1)
        for r, j in enumerate(pos):
            # requester q comes before r in the order pointer, pointer+1, ..., size-1, 0, ...
            before = [self.requests[q] & ((pri[k] | ~pri[j]) if k < j else (pri[k] & ~pri[j]))
                      for q, k in enumerate(pos) if q != r]
            m.d.comb += self.grant[r].eq(self.requests[r] & ~any_of(before))
        if self.weight_width:
            used = Signal(self.weight_width)
        for r, j in enumerate(pos):
            if self.weight_width:     # the packets r already sent from first place in a row
                mine = Signal(self.weight_width, name=f"used_{r}")
                m.d.comb += mine.eq(Mux(pri == thermometer(j, self.size), used, 0))
            with m.If(self.next[r]):
                if self.weight_width:
                    n, w = mine + self.tail[r], self.weight[r]
                    with m.If((w > 1) & (n < w)):
                        m.d.sync += [pri.eq(thermometer(j, self.size)), used.eq(n)]
                    with m.Else():
                        m.d.sync += [pri.eq(thermometer(j + 1, self.size)), used.eq(0)]
                else:
                    m.d.sync += pri.eq(thermometer(j + 1, self.size))
            with m.Elif(self.keep[r]):
                m.d.sync += pri.eq(thermometer(j, self.size))
                if self.weight_width:
                    m.d.sync += used.eq(mine)
        return m
