"""The broadcast fork of one input (docs/router.md "Broadcast and multicast"; model: ``fork_requests`` and
``fork_present`` in sim/model/forks.py), beside the input's unicast route stage (V = 1).

``ForkStage(num_ports, fork, route_width, origin=..., outputs=...)``: the FIFO head (``route``, ``head``,
``tail``, ``bcast``; ``ready``: not empty) is ``forking`` when it is a broadcast head or in a broadcast
packet (``bmode``). Its fork unit (``fork``: :func:`fork_unit`; ``origin``: the local input, where a
broadcast starts) gives the outputs it ``want``s and a new tag per network output (``fork_route``). The
head is ``eligible`` when nothing is ``held`` and every wanted output is unlocked (``locked``) with an empty
downstream FIFO (``empty``); ``chosen`` by the router's broadcast selector it holds the outputs ``taken``
and is ``present``ed on each until every branch has sent it (``out_ready`` on this input's ``outputs``);
then ``pop`` (also on ``sent``, a unicast flit's transfer).
"""
from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..route.base import NodeUnit, node_id_member
from ..route.fork import ForkUnit


def fork_unit(alg, node: int):
    """The fork unit of ``alg`` at ``node``: the algorithm's own (``alg.fork_unit``) or a :class:`ForkUnit` ROM."""
    make = getattr(alg, "fork_unit", None)
    return make(node) if make is not None else ForkUnit(alg, node)


class ForkStage(wiring.Component):
    def __init__(self, num_ports: int, fork: NodeUnit, route_width: int, *, origin: bool, outputs):
        self.num_ports, self.fork, self.origin, self.outputs = num_ports, fork, origin, tuple(outputs)
        P = num_ports
        super().__init__({"route": In(route_width), "head": In(1), "tail": In(1), "bcast": In(1), "ready": In(1),
                          "sent": In(1), "locked": In(P), "empty": In(P), "chosen": In(1), "taken": In(P),
                          "out_ready": In(P), "forking": Out(1), "want": Out(P), "eligible": Out(1),
                          "present": Out(P), "fork_route": Out(route_width).array(P), "pop": Out(1),
                          **node_id_member(fork)})

    def elaborate(self, platform):
        m = Module()
        P, local = self.num_ports, self.num_ports - 1
        fk = self.fork.add(m, "fork", getattr(self, "node_id", None))
        m.d.comb += [fk.tag.eq(self.route[:len(fk.tag)]), fk.origin.eq(int(self.origin))]
        for o in range(local):
            m.d.comb += self.fork_route[o].eq(fk.new_tag[o])
        held, done, bmode = Signal(P, name="held"), Signal(P, name="done"), Signal(name="bmode")
        self.held, self.done, self.bmode = held, done, bmode     # the state: the fork in progress
        wants, full = Signal(P, name="wants"), Signal(name="full")
        want = Cat(fk.ports[:local] if local else Const(0, 0), fk.keep)
        want = self._fork_set(want)
        m.d.comb += [self.forking.eq(self.ready & (bmode | (self.head & self.bcast))),
                     self.want.eq(want),
                     wants.eq(Mux(bmode, held, self.want)),
                     self.eligible.eq(self.forking & ~bmode & (held == 0) & (wants != 0) &
                                      ((wants & (self.locked | ~self.empty)) == 0)),
                     full.eq(self.forking & ((held == wants) | self.chosen)),
                     self.present.eq(Mux(full, wants & ~done, 0))]
        with m.If(self.chosen & self.taken.any()):
            m.d.sync += held.eq(self.want)
        sent_all = Signal(P, name="sent_all")          # only the outputs this input may turn to can send
        m.d.comb += sent_all.eq(done | (self.present & self.out_ready & sum(1 << o for o in self.outputs)))
        last = full & (sent_all == wants)                 # every branch has sent this flit: pop it
        m.d.comb += self.pop.eq(self.sent | last)
        with m.If(last):
            m.d.sync += done.eq(0)
            with m.If(self.tail):
                m.d.sync += [held.eq(0), bmode.eq(0)]
            with m.Elif(self.head):
                m.d.sync += bmode.eq(1)
        with m.Elif(full):
            m.d.sync += done.eq(sent_all)
        return m

    def _fork_set(self, want):
        """The outputs a packet forks to: every one the fork unit names; the rule a seeded bug of
        rtl/formal/mutations.py replaces (docs/decisions/seeded-bugs.md)."""
        return want
