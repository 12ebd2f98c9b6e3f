"""The source interface of docs/router.md "Source interface", in front of the local input FIFO (model:
``source_step`` in sim/model/phases.py).

``SourceInterface(SourceParams(...))``: ``i`` is the user's local stream (head, tail, data; ``data[0:16]`` of a head is
the destination), ``o`` the link-flit stream into the local FIFO. Frames packets (IDLE / FORWARD / DROP),
drops a packet whose destination is out of range (or is its own node, without loopback), writes
``routing.inject(node, dest)`` as the route of every flit of the packet, counts ``injected``, ``dropped``,
``malformed`` one cycle after the flit (``gates.count_after``; unless the router is built with
``count_events=False``: they then read 0).
``enable`` low (a faulty node) refuses every flit. With a broadcast algorithm, destination 0xFFFF is a broadcast: ``bcast = 1``,
``route = 0``. With the route at the write (docs/router.md "Route at the write") the route field is driven
whatever the state: the local input unit routes it before its FIFO.
"""
from __future__ import annotations

from dataclasses import dataclass

from amaranth import Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ...sim.broadcast.fork import BROADCAST_DEST
from ..flit import DEST_WIDTH, local_signature
from ..gates import count_after
from ..route.base import NodeUnit, node_id_member

COUNTER_WIDTH = 16


@dataclass(frozen=True)
class SourceParams:
    """What the source interface of one node is built from (the Router derives it from its config and plan)."""

    flit_layout: data.StructLayout      # the link flit written into the local FIFO
    num_nodes: int                      # destinations 0 .. num_nodes-1 are in range
    inject: NodeUnit                    # this node's inject unit (``routing.inject`` in gates)
    node_width: int                     # bits of a node address (the loopback compare)
    drop_own_node: bool = False         # a packet to its own node is dropped (a router without loopback)
    broadcast: bool = False             # destination 0xFFFF is a broadcast
    route_at_write: bool = False        # the route field whatever the state
    count_events: bool = True           # the counters (False: not built, they read 0)
    counter_dsp: bool = False           # iCE40: in SB_MAC16 blocks (gates.count_after)

    @property
    def payload_width(self) -> int:
        return self.flit_layout["data"].width


class SourceInterface(wiring.Component):
    def __init__(self, params: SourceParams):
        self.params = params
        members = {"i": In(local_signature(params.payload_width)), "o": Out(stream.Signature(params.flit_layout)),
                   "enable": In(1, init=1), **node_id_member(params.inject)}
        members.update({name: Out(COUNTER_WIDTH) for name in ("injected", "dropped", "malformed")})
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        p, s, w = self.params, self.i, self.o.payload
        node_id = getattr(self, "node_id", None)
        inj = p.inject.add(m, "inject", node_id)        # a VOQ router is node-specific: the node is a constant
        dest = s.payload.data[:DEST_WIDTH]
        m.d.comb += inj.dest.eq(dest)
        num_nodes = p.num_nodes
        dest_ok, b = Const(1), (num_nodes - 1).bit_length()
        if num_nodes < (1 << DEST_WIDTH):                  # the same test without a 16-bit carry chain
            dest_ok = ~dest[b:].any() & ((dest[:b] < num_nodes) if num_nodes < (1 << b) else Const(1))
        if p.drop_own_node:                                # docs/router.md "Loopback": its own node is dropped
            dest_ok = dest_ok & (dest[:p.node_width] != (node_id if node_id is not None else p.inject.node))
        route = inj.route.as_value()
        if p.broadcast:
            is_bc = dest == BROADCAST_DEST
            dest_ok, route = dest_ok | is_bc, Mux(is_bc, 0, route)
        valid, ready = Signal(name="offer_valid"), Signal(name="offer_ready")   # the offer after ``enable``
        m.d.comb += [valid.eq(s.valid & self.enable), s.ready.eq(ready & self.enable)]
        in_packet, dropping = Signal(name="in_packet"), Signal(name="dropping")
        self.in_packet, self.dropping = in_packet, dropping    # the state: framing of the packet coming in
        counted = {name: Signal(name=f"{name}_now") for name in ("injected", "dropped", "malformed")}
        pkt_route = Signal(len(route))
        m.d.comb += [w.tail.eq(s.payload.tail), w.data.eq(s.payload.data)]
        if p.route_at_write:   # the route field whatever the state (it only counts when written): the
            m.d.comb += w.route.eq(Mux(in_packet, pkt_route, route))   # router routes it before its FIFO

        def route_is(value):
            return [] if p.route_at_write else [w.route.eq(value)]
        with m.If(~in_packet):
            with m.If(s.payload.head & dest_ok):
                m.d.comb += [w.head.eq(1), *route_is(route), self.o.valid.eq(valid), ready.eq(self.o.ready)]
                if p.broadcast:
                    m.d.comb += w.bcast.eq(is_bc)
                with m.If(valid & self.o.ready):
                    m.d.comb += counted["injected"].eq(1)
                    m.d.sync += in_packet.eq(~s.payload.tail)
            with m.Elif(s.payload.head):                       # destination out of range: drop the packet
                m.d.comb += ready.eq(1)
                with m.If(valid):
                    m.d.comb += counted["dropped"].eq(self._drop_counted(s.payload))
                    m.d.sync += in_packet.eq(~s.payload.tail)
            with m.Else():                                     # body/tail outside a packet: discard
                m.d.comb += [ready.eq(1), counted["malformed"].eq(valid)]
        with m.Else():
            with m.If(dropping):
                m.d.comb += ready.eq(1)
            with m.Else():                                     # a head inside a packet loses its head bit
                m.d.comb += [w.head.eq(0), *route_is(pkt_route), self.o.valid.eq(valid), ready.eq(self.o.ready)]
            with m.If(valid & ready):
                m.d.comb += counted["malformed"].eq(s.payload.head)
                with m.If(s.payload.tail):
                    m.d.sync += in_packet.eq(0)
        # pkt_route and dropping only count in a packet: load them in every cycle outside one, so that their
        # enable is a register (the head that opens the packet is the last one loaded)
        with m.If(~in_packet):
            m.d.sync += [pkt_route.eq(inj.route.as_value()), dropping.eq(~dest_ok)]
        if p.count_events:
            events = count_after(m, [(getattr(self, name), event) for name, event in counted.items()], platform, p.counter_dsp)
            self.events = dict(zip(counted, events))     # counter name -> its registered event
        return m

    def _drop_counted(self, flit):
        """A dropped packet counts once, at its head (whatever its length); the rule a seeded bug of
        rtl/formal/mutations.py replaces (docs/decisions/seeded-bugs.md)."""
        return 1
