"""The source interface of docs/router.md "Source interface", in front of the local input FIFO (model:
``source_step`` in sim/model/kernel.py).

``SourceInterface(router)``: ``i`` is the user's local stream (head, tail, data; ``data[0:16]`` of a head is
the destination), ``o`` the link-flit stream into the local FIFO. Frames packets (IDLE / FORWARD / DROP),
drops a packet whose destination is out of range (or is its own node, without loopback), writes
``routing.inject(node, dest)`` as the route of every flit of the packet, counts ``injected``, ``dropped``,
``malformed`` one cycle after the flit (``gates.count_after``; unless the router is built with
``counters=False``: they then read 0).
``enable`` low (a faulty node) refuses every flit. With a broadcast algorithm, destination 0xFFFF is a broadcast: ``bcast = 1``,
``route = 0``.
"""
from __future__ import annotations

from amaranth import Const, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ...sim.broadcast.fork import BROADCAST_DEST
from ..flit import DEST_WIDTH, local_signature
from ..gates import count_after, node_width

COUNTER_WIDTH = 16


class SourceInterface(wiring.Component):
    def __init__(self, router):
        self.router = router
        self.inject = router.adapter.inject_unit(router.node)
        members = {"i": In(local_signature(router.payload_width)), "o": Out(stream.Signature(router.flit_layout)),
                   "enable": In(1, init=1)}
        members.update({name: Out(COUNTER_WIDTH) for name in ("injected", "dropped", "malformed")})
        if router.node_generic:
            members["node_id"] = In(node_width(router.topology))
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        r, s, w = self.router, self.i, self.o.payload
        inj = m.submodules.inject = self.inject
        if "node_id" in inj.signature.members:          # a VOQ router is node-specific: the node is a constant
            m.d.comb += inj.node_id.eq(self.node_id if r.node_generic else Const(r.node, len(inj.node_id)))
        dest = s.payload.data[:DEST_WIDTH]
        m.d.comb += inj.dest.eq(dest)
        num_nodes = r.topology.num_nodes
        dest_ok, b = Const(1), (num_nodes - 1).bit_length()
        if num_nodes < (1 << DEST_WIDTH):                  # the same test without a 16-bit carry chain
            dest_ok = ~dest[b:].any() & ((dest[:b] < num_nodes) if num_nodes < (1 << b) else Const(1))
        if not r.loopback:                                 # docs/router.md "Loopback": its own node is dropped
            dest_ok = dest_ok & (dest[:node_width(r.topology)] != (self.node_id if r.node_generic else r.node))
        route = inj.route.as_value()
        if r.broadcast is not None:
            is_bc = dest == BROADCAST_DEST
            dest_ok, route = dest_ok | is_bc, Mux(is_bc, 0, route)
        valid, ready = Signal(name="offer_valid"), Signal(name="offer_ready")   # the offer after ``enable``
        m.d.comb += [valid.eq(s.valid & self.enable), s.ready.eq(ready & self.enable)]
        in_packet, dropping = Signal(name="in_packet"), Signal(name="dropping")
        counted = {name: Signal(name=f"{name}_now") for name in ("injected", "dropped", "malformed")}
        pkt_route = Signal(len(route))
        m.d.comb += [w.tail.eq(s.payload.tail), w.data.eq(s.payload.data)]
        if r.route_at_write:   # the route field whatever the state (it only counts when written): the
            m.d.comb += w.route.eq(Mux(in_packet, pkt_route, route))   # router routes it before its FIFO

        def route_is(value):
            return [] if r.route_at_write else [w.route.eq(value)]
        with m.If(~in_packet):
            with m.If(s.payload.head & dest_ok):
                m.d.comb += [w.head.eq(1), *route_is(route), self.o.valid.eq(valid), ready.eq(self.o.ready)]
                if r.broadcast is not None:
                    m.d.comb += w.bcast.eq(is_bc)
                with m.If(valid & self.o.ready):
                    m.d.comb += counted["injected"].eq(1)
                    m.d.sync += in_packet.eq(~s.payload.tail)
            with m.Elif(s.payload.head):                       # destination out of range: drop the packet
                m.d.comb += ready.eq(1)
                with m.If(valid):
                    m.d.comb += counted["dropped"].eq(1)
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
        if r.counters:
            count_after(m, [(getattr(self, name), event) for name, event in counted.items()], platform, r.counter_dsp)
        return m
