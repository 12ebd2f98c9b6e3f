"""Properties of the round-robin arbiter (rtl/router/arbiter.py), property 4 of docs/formal.md (bounded waiting,
hence fairness), proved by k-induction for any request sequence (``AnySeq``):

* ``grant one-hot``: at most one grant; ``grant only requesters``; ``work conserving``: a request is
  always granted to someone;
* ``bounded waiting``: with the pointer moved past each winner (``next = grant``, as an output unit does
  on every transfer), a requester that keeps requesting is granted within n - 1 cycles of waiting, n the
  number of requesters.

Seeded bugs (the proof must fail; switches in rtl/router/arbiter.py): ``"stuck-pointer"`` leaves the pointer
where it is; ``"skips-input"`` never grants requester 0 while another requests.
"""
from __future__ import annotations

from amaranth import Elaboratable, Fragment, Module, Signal
from amaranth.asserts import AnySeq

from ..router.arbiter import RoundRobinArbiter
from .invariants import Elaborated, rotation
from .mutations import seeded
from .runner import check


class ArbiterHarness(Elaboratable):
    def __init__(self, positions, size: int, seeded_bug: str | None = None, pairwise: bool = False):
        """``pairwise``: the pipelined router's arbiter (the pointer kept as pairwise order registers)."""
        self.positions, self.size, self.seeded_bug, self.pairwise = list(positions), size, seeded_bug, pairwise
        self.properties: dict = {}

    def elaborating(self):
        """What :func:`~.runner.prove` wraps the conversion in: the seeded bug, if any."""
        return seeded(self.seeded_bug)

    def elaborate(self, platform):
        m = Module()
        n = len(self.positions)
        arb = RoundRobinArbiter(self.positions, self.size, pairwise=self.pairwise)
        m.submodules.arbiter = Elaborated(Fragment.get(arb, platform))   # now: the invariant reads its registers
        if arb.pairwise:        # the strengthening invariant of the pairwise order registers
            check(m, self, "the pairwise order is a rotation", rotation(arb))
        req, grant = AnySeq(n), arb.grant
        m.d.comb += [arb.requests.eq(req), arb.next.eq(grant)]
        check(m, self, "grant one-hot", (grant & (grant - 1)) == 0)
        check(m, self, "grant only requesters", (grant & ~req) == 0)
        check(m, self, "work conserving", (req == 0) | (grant != 0))
        for r in range(n):
            waited = Signal(range(n + 1), name=f"waited_{r}")
            m.d.sync += waited.eq(0)
            with m.If(req[r] & ~grant[r]):
                m.d.sync += waited.eq(waited + 1)
            check(m, self, "bounded waiting", waited <= n - 1)
        return m
