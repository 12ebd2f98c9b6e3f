"""The round-robin arbiter of docs/router.md "Arbitration" (model: ``rr_pick`` in sim/model/phases.py).

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

Pairwise (``pairwise=True``, the pipelined router's, docs/router.md "Pipelined router"): the same round
robin with the pointer moving past every grant (``next`` and ``keep`` unused), kept as one register per
pair of requesters, ``before[q][r]`` = "q comes before r from the pointer": a grant is then its request
and, per other requester, one AND-NOT of two registers (two LUT4 levels for five requesters instead of
three), and a pair's next value is "the winner is not in [q, r)", with no clock enable.
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
    def __init__(self, positions, size: int, weight_width: int = 0, pairwise: bool = False):
        self.positions, self.size, self.weight_width = list(positions), size, weight_width
        self.pairwise = pairwise and not weight_width and len(self.positions) > 1
        n = len(self.positions)
        members = {"requests": In(n), "grant": Out(n), "next": In(n), "keep": In(n)}
        if weight_width:
            members.update({"weight": In(weight_width).array(n), "tail": In(n)})
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        pos = self.positions
        if self.pairwise:
            return self._pairwise(m)
        pri = Signal(self.size, init=(1 << self.size) - 1)
        self._grant(m, self.requests, pri)
        if self.weight_width:
            used = Signal(self.weight_width)
        for r, j in enumerate(pos):
            if self.weight_width:     # the packets r already sent from first place in a row
                mine = Signal(self.weight_width, name=f"used_{r}")
                m.d.comb += mine.eq(Mux(pri == thermometer(j, self.size), used, 0))
            with m.If(self._moves(r)):
                if self.weight_width:
                    n, w = mine + self.tail[r], self.weight[r]
                    # stay first while the weight allows; a 1-bit weight is at most 1: never (no w > 1 to write)
                    with m.If((w > 1) & (n < w) if self.weight_width > 1 else 0):
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

    def _grant(self, m, requests, pri):
        """Each requester's grant: it requests and no requester before it in the order from the pointer does."""
        for r, j in enumerate(self.positions):
            # requester q comes before r in the order pointer, pointer+1, ..., size-1, 0, ...
            before = [requests[q] & ((pri[k] | ~pri[j]) if k < j else (pri[k] & ~pri[j]))
                      for q, k in enumerate(self.positions) if q != r]
            m.d.comb += self.grant[r].eq(requests[r] & ~any_of(before))

    def _moves(self, r):
        """The pointer moves past requester r (its grant was used)."""
        return self.next[r]

    def _pairwise(self, m):
        """``before[q][r]`` (q < r) for the pointer: q at place k comes before r at place j (k < j) when the
        pointer is <= k or > j; reset pointer 0: every ``before`` set."""
        pos, n, size = self.positions, len(self.positions), self.size
        pairs = [(q, r) for r in range(n) for q in range(r)]
        before = {qr: Signal(name=f"before_{qr[0]}_{qr[1]}", init=1) for qr in pairs}
        self.before = before            # the state: {(q, r): q before r} (rtl/formal/invariants.py reads it)

        def first(q, r):            # q before r, as a value (registers only)
            return before[q, r] if q < r else ~before[r, q]
        for r in range(n):
            m.d.comb += self.grant[r].eq(self.requests[r] & ~any_of(self.requests[q] & first(q, r)
                                                                     for q in range(n) if q != r))

        def order(pointer, q, r):   # q before r when the pointer is at ``pointer`` (constants)
            return (pos[q] - pointer) % size < (pos[r] - pointer) % size
        for (q, r), b in before.items():       # q stays first unless the winner lies in [q, r)
            m.d.sync += b.eq((b | self.requests.any()) &
                             ~any_of(self.grant[w] for w in range(n) if not order(pos[w] + 1, q, r)))
        return m
