"""The output unit of docs/router.md: round-robin arbiter, crossbar mux, wormhole locks (model:
``lock_after`` and ``traverse`` in sim/model/phases.py, stages.py).

``OutputUnit(layout, positions, size, num_vcs)`` serves one output over the inputs (or (input, VC) lanes)
that may turn there. Each source ``r`` offers ``flit[r]`` (the flit as it would leave: new route, output
VC) and raises ``request[r]``; the arbiter's one-hot ``grant`` selects it onto ``out``. A transfer
(``xfer``) is ``valid`` and the ``ready`` bit of the flit's VC; ``sent[r]``: source r's flit is taken (its
grant and its VC's ready, not through the crossbar mux: the input pops on it). On a transfer the pointer
moves past the winner; a head that is not a tail locks the flit's VC (``locked``), a tail frees it (the
winner's head and tail bits as an AND-OR of the selects with each source's own bits, not the crossbar's
mux: off the UP5K's critical path, docs/decisions/one-cycle-router-clock.md). A winner
that is not taken (``valid`` and not ``ready``) keeps the pointer on it, so it is granted again next cycle
and the output holds its offer (docs/router.md "Streams hold their offer"). The crossbar mux is
``gates.crossbar_mux``: on an iCE40 or ECP5 platform a 4-source output is two LUT4 primitives per bit (docs/router.md
"Crossbar"), the same function.

Broadcast policy (docs/router.md "Broadcast and multicast"): ``present[r]`` puts a fork's flit on ``out``
without the arbiter (the fork holds the lock); ``acquire`` locks the output for the fork ``acquirer``
(one-hot) and moves the pointer past it; ``out.payload.bcast`` is set for presented flits; ``stalled``
(registered) says last cycle's winner was not taken: a fork may not acquire the output then.
Least-used policy (Dandamudi and Eager Sec. IV-B): ``use`` counts the heads sent (16 bits, wrapping).
Fair arbitration (docs/router.md "Arbitration"): ``weights[r]`` maps the new route word of a head from
source r to its weight (sim/routing/fairness.py; one entry ``{0: w}`` at the local output); the winner's
head gives the weighted arbiter its weight from these constants, a body/tail flit the weight its head had
(``cur_w`` per VC).
Pipelined (docs/router.md "Pipelined router"): a pairwise-priority arbiter; the grant is registered
(``granted``) and selects the crossbar next cycle, ``valid`` is registered, the lock and the crossing
flit's ``tail`` come from the sources' candidate tail bits (``cand_tail``) at the grant.
"""
from __future__ import annotations

from amaranth import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..gates import any_of, crossbar_mux, onehot_mux, rom
from .arbiter import RoundRobinArbiter

USE_WIDTH = 16


class OutputUnit(wiring.Component):
    def __init__(self, layout, positions, size: int, num_vcs: int = 1, *, broadcast: bool = False,
                 count_heads: bool = False, lock_per_vc: bool = True, weights=None, pipelined: bool = False):
        self.layout, self.positions, self.size, self.num_vcs = layout, list(positions), size, num_vcs
        self.lock_per_vc = lock_per_vc          # False (VOQ): one lock for the output, ready still per VC
        self.weights = weights
        self.pipelined = pipelined              # docs/router.md "Pipelined router": a registered grant
        self.broadcast, self.count_heads = broadcast, count_heads
        n = len(self.positions)
        members = {"request": In(n), "flit": In(layout).array(n), "grant": Out(n), "sent": Out(n), "xfer": Out(1),
                   "locked": Out(num_vcs if lock_per_vc else 1), "valid": Out(1), "payload": Out(layout), "ready": In(num_vcs)}
        if broadcast:
            members.update({"present": In(n), "acquire": In(1), "acquirer": In(n), "stalled": Out(1)})
        if count_heads:
            members["use"] = Out(USE_WIDTH)
        if pipelined:
            members.update({"cand_tail": In(n), "tail": Out(1), "barred": Out(n)})
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        n, out = len(self.positions), self.payload
        if self.pipelined:
            return self._pipelined(m, platform)
        ww = max(1, max(max(w.values(), default=1) for w in self.weights).bit_length()) if self.weights else 0
        arb = m.submodules.arbiter = RoundRobinArbiter(self.positions, self.size, ww)
        m.d.comb += [arb.requests.eq(self.request), self.grant.eq(arb.grant)]
        sel = [self.grant[r] | self.present[r] if self.broadcast else self.grant[r] for r in range(n)]
        # valid from the requests, not the grants (the arbiter grants whenever someone requests): it need not
        # wait for the arbiter (docs/decisions/one-cycle-router-clock.md)
        m.d.comb += self.valid.eq(any_of(self.request[r] | self.present[r] if self.broadcast else self.request[r]
                                         for r in range(n)))
        # the crossbar: the selected source's flit, field by field (docs/router.md "Crossbar")
        for name in (f for f, _ in self.layout if f != "bcast"):
            pairs = [(sel[r], getattr(self.flit[r], name)) for r in range(n)]
            m.d.comb += getattr(out, name).eq(crossbar_mux(m, pairs, f"xbar_{name}", platform))
        vc = out.vc if self.num_vcs > 1 else 0
        passed, taken = self.sent, []        # source r's flit leaves: its grant and its own VC's ready
        for r in range(n):
            ready = self.ready.bit_select(self.flit[r].vc, 1) if self.num_vcs > 1 else self.ready[0]
            m.d.comb += passed[r].eq(self.grant[r] & self._leaves(ready, self.flit[r]))
            taken.append(sel[r] & ready)
        m.d.comb += [self.xfer.eq(any_of(taken)), arb.keep.eq(self._held_grant(passed))]
        lock = self.locked.bit_select(vc, 1) if self.num_vcs > 1 and self.lock_per_vc else self.locked
        if self.broadcast:
            m.d.comb += [arb.next.eq(Mux(self.acquire, self.acquirer, passed)), out.bcast.eq(self.present.any())]
            m.d.sync += self.stalled.eq(self.grant.any() & ~self.xfer)
            with m.If(self.acquire):          # before the transfer rules: a tail in the same cycle wins
                m.d.sync += lock.eq(1)
        else:
            m.d.comb += arb.next.eq(passed)
        if ww:
            self._weight(m, arb, sel, vc, ww)
        # the winner's tail and head bits from each source's own (registers), not through the crossbar's mux
        tail, head = (any_of(sel[r] & getattr(self.flit[r], b) for r in range(n)) for b in ("tail", "head"))
        with m.If(self.xfer):
            with m.If(self._frees_lock(tail, head)):
                m.d.sync += lock.eq(0)
            with m.Elif(head):
                m.d.sync += lock.eq(1)
            if self.count_heads:
                with m.If(head):
                    m.d.sync += self.use.eq(self.use + 1)
        return m

    # the three rules the seeded bugs of rtl/formal/mutations.py replace (docs/decisions/seeded-bugs.md)
    def _leaves(self, ready, flit):
        """A granted flit leaves when its VC is ready (a stalled flit stays). (``| 0``, and ``& 1`` in InputUnit._link_ready,
        keep the netlist, and so the generated Verilog's names, as they were.)"""
        return ready | 0

    def _held_grant(self, passed):
        """The grants the arbiter keeps: those stalled, so that a stalled offer does not change."""
        return self.grant & ~passed

    def _frees_lock(self, tail, head):
        """The transfer that frees the wormhole lock: the tail's."""
        return tail | 0

    def _pipelined(self, m, platform):
        """docs/router.md "Pipelined router" (V = 1, unicast): the requests already hold the downstream's
        room one cycle ahead, so every grant crosses: ``sent`` is the grant, registered in ``granted``;
        next cycle ``valid`` (registered) and the crossbar select that register over the sources' stage
        registers. Lock and pointer move on the grant, the lock from each source's own tail bit.

        The request's lock mask, "o is not locked by another lane", is one register per source,
        ``barred[r]`` = "locked, by a source other than r", set from the grant with the other sources'
        tail bits (the model's ``pipe_request`` checks ``lock[o] >= 0 and lock[o] != lane``): the same rule as
        the one-stage router's "(a body flit, or o unlocked)", taken from registers so that a request is a
        function of four registers and the output's room (docs/decisions/pipelined-router.md)."""
        n = len(self.positions)
        arb = m.submodules.arbiter = RoundRobinArbiter(self.positions, self.size, pairwise=True)
        granted, any_req = Signal(n, name="granted"), self.request.any()
        self.granted, self.arbiter = granted, arb      # the state: last cycle's grants; the arbiter
        m.d.comb += [arb.requests.eq(self.request), self.grant.eq(arb.grant), self.sent.eq(arb.grant),
                     arb.next.eq(arb.grant), self.xfer.eq(self.valid & self.ready[0])]
        m.d.sync += [granted.eq(arb.grant), self.valid.eq(any_req),     # ``tail``: the crossing flit's, registered
                     self.tail.eq(any_of(arb.grant[r] & self.cand_tail[r] for r in range(n))),
                     self.locked.eq(any_of(arb.grant[r] & ~self.cand_tail[r] for r in range(n)) |
                                    self.locked & ~any_req)]
        for r in range(n):      # ``barred[r]``: locked by another source (registered; the lock's owner is not)
            m.d.sync += self.barred[r].eq(Mux(any_req, any_of(arb.grant[q] & ~self.cand_tail[q]
                                                              for q in range(n) if q != r), self.barred[r]))
        for name, _ in self.layout:
            pairs = [(granted[r], getattr(self.flit[r], name)) for r in range(n)]
            m.d.comb += getattr(self.payload, name).eq(crossbar_mux(m, pairs, f"xbar_{name}", platform))
        return m

    def _weight(self, m, arb, sel, vc, ww) -> None:
        """The winner's packet weight: a head's from its new route word, a body flit's from its head."""
        n = len(self.positions)
        head_w = []
        for r, table in enumerate(self.weights):
            w = Signal(ww, name=f"head_weight_{r}")
            if len(set(table.values())) <= 1:                 # one weight whatever the word (or none)
                m.d.comb += w.eq(next(iter(table.values()), 1))
            else:
                rom(m, self.flit[r].route.as_value(), dict(sorted(table.items())), w, default=1)
            head_w.append(w)
        cur_w = Signal(ww * self.num_vcs, name="cur_w")       # per VC: the weight of the packet in it
        for r in range(n):                  # each source's weight from its own flit (off the crossbar)
            f = self.flit[r]
            held = cur_w.word_select(f.vc, ww) if self.num_vcs > 1 else cur_w
            m.d.comb += [arb.weight[r].eq(Mux(f.head, head_w[r], held)), arb.tail[r].eq(f.tail)]
        with m.If(self.xfer):
            m.d.sync += cur_w.word_select(vc, ww).eq(onehot_mux([(sel[r], arb.weight[r]) for r in range(n)]))
