"""Properties of the round-robin arbiter (rtl/router/arbiter.py), property 4 of docs/formal.md (bounded waiting,
hence fairness), proved by k-induction for any request sequence (``AnySeq``):

* ``grant one-hot``: at most one grant; ``grant only requesters``; ``work conserving``: a request is
  always granted to someone;
* ``bounded waiting``: with the pointer moved past each winner (``next = grant``, as an output unit does
  on every transfer), a requester that keeps requesting is granted within n - 1 cycles of waiting, n the
  number of requesters.

Seeded bugs (the proof must fail): ``"stuck pointer"`` leaves the pointer where it is; ``"skips an input"``
never grants requester 0 while another requests.
"""
from __future__ import annotations

from amaranth import Cat, Const, Elaboratable, Module, Signal
from amaranth.asserts import AnySeq

from cubenoc.errors import CubenocError

from ..router.arbiter import RoundRobinArbiter
from .runner import check

SEEDED_BUGS = ("stuck pointer", "skips an input")


class _SkipsFirstInput(RoundRobinArbiter):
    """Grants requester 0 only when it requests alone: it starves that input."""

    def elaborate(self, platform):
        m = Module()
        inner = m.submodules.inner = RoundRobinArbiter(self.positions, self.size)
        n = len(self.positions)
        m.d.comb += [inner.requests.eq(self.requests & ~Const(1, n)), inner.next.eq(self.next),
                     self.grant.eq(inner.grant | Cat(self.requests == 1, Const(0, n - 1)))]
        return m


class ArbiterHarness(Elaboratable):
    def __init__(self, positions, size: int, seeded_bug: str | None = None):
        self.positions, self.size, self.seeded_bug = list(positions), size, seeded_bug
        self.properties: dict = {}

    def elaborate(self, platform):
        m = Module()
        n = len(self.positions)
        if self.seeded_bug not in (None, *SEEDED_BUGS):
            raise CubenocError(f"seeded bug must be one of {', '.join(SEEDED_BUGS)}, got {self.seeded_bug!r}")
        make = _SkipsFirstInput if self.seeded_bug == "skips an input" else RoundRobinArbiter
        arb = m.submodules.arbiter = make(self.positions, self.size)
        req, grant = AnySeq(n), arb.grant
        m.d.comb += [arb.requests.eq(req), arb.next.eq(0 if self.seeded_bug == "stuck pointer" else grant)]
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
