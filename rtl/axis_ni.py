"""The AXI4-Stream network interface of one node (docs/ip.md "How it works"), between the user's
``s_axis``/``m_axis`` and the router's local flit streams; its rule in Python is sim/axis_frames.py and the
model's ``ni_phase`` (sim/model/axis_ni.py).

Ingress: a queue of ``params.queue_depth`` registered entries (a shift register: ``local_in`` is entry 0,
no multiplexer between the registers and the router) in front of ``local_in``. The first beat of a frame is
held (``tready`` low) while a header flit (head; ``data`` = the destination from ``tdest`` in bits 0..15,
this node in bits 16..16+b) enters the queue; then every beat enters unchanged, ``tail`` = ``tlast``.
``s_axis.tready`` is a function of registers only (the queue has room), never of ``tvalid``, and a beat
entered in one cycle is offered to the router from the next. Unicast frames cut through. A broadcast frame
(all-ones ``tdest``) is stored until its ``tlast`` is in the queue: a broadcast packet must fit a FIFO of
the router (at most D flits, docs/router.md "Broadcast and multicast"), so a frame of more than D - 1 beats
is dropped whole: when its (D - 1)-th beat enters without ``tlast`` the header is rewritten to
:data:`~cubenoc.sim.axis_frames.DROP_DEST`, and the router's source interface drops the packet and counts
it in ``dropped`` (docs/router.md "Source interface").

Egress: a header flit is taken at once, whatever ``m_axis.tready`` (``expect_header``: the next flit out is
a header; its source goes to the ``tid`` register, its destination says whether the frame is a broadcast
copy); every other flit is a beat, written straight from ``local_out`` into a 2-entry queue with its
``tid`` and broadcast bit. ``local_out.ready`` is "a free entry, or a header" (registers only);
``m_axis`` shows the oldest entry, ``tvalid`` = not empty, ``tlast`` = ``tail``, ``tdest`` = this node or
all ones for a broadcast copy. ``tvalid`` never waits for, nor depends on, ``tready``.
"""
from __future__ import annotations

from dataclasses import dataclass

from amaranth import Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..errors import CubenocError
from ..sim.axis_frames import DROP_DEST, SRC_LSB, check_payload, dest_width, ingress_depth, node_width
from ..sim.broadcast.fork import BROADCAST_DEST
from .flit import DEST_WIDTH, local_signature


class AxisSignature(wiring.Signature):
    """AXI4-Stream, master's view: ``tdata``, ``tvalid``, ``tready`` (in), ``tlast``, ``tdest`` and, when
    ``id_width`` is given, ``tid``."""

    def __init__(self, data_width: int, dest_width: int, id_width: int = 0):
        members = {"tdata": Out(data_width), "tvalid": Out(1), "tready": In(1), "tlast": Out(1),
                   "tdest": Out(dest_width)}
        if id_width:
            members["tid"] = Out(id_width)
        super().__init__(members)


@dataclass(frozen=True)
class AxisParams:
    """What one node's interface is built from (the same for every node: the node number is an input).
    ``fifo_depth``: the routers' FIFO depth D, the longest broadcast packet (D flits: D - 1 beats)."""

    payload_width: int
    num_nodes: int
    broadcast: bool = False             # all-ones tdest is the broadcast destination
    fifo_depth: int = 4

    def __post_init__(self):
        check_payload(self.payload_width, self.num_nodes)
        if self.broadcast and self.fifo_depth < 2:       # a header and a beat must fit a FIFO
            raise CubenocError(f"broadcast with the AXI4-Stream interface needs FIFO depth 2 or more, got {self.fifo_depth}")

    @property
    def node_width(self) -> int:
        return node_width(self.num_nodes)

    @property
    def dest_width(self) -> int:
        return dest_width(self.num_nodes, self.broadcast)

    @property
    def queue_depth(self) -> int:
        """Entries of the ingress queue: 2 (full rate with a registered ``tready``), D with broadcast (a
        whole broadcast packet)."""
        return ingress_depth(self.fifo_depth, self.broadcast)

    def slave(self) -> AxisSignature:
        """``s<vv>_axis``: what the user sends (the network's view flips it)."""
        return AxisSignature(self.payload_width, self.dest_width)

    def master(self) -> AxisSignature:
        """``m<vv>_axis``: what the node receives, the source in ``tid``."""
        return AxisSignature(self.payload_width, self.dest_width, self.node_width)


@dataclass
class IngressState:
    """The ingress queue's registers, set by :meth:`AxisNetworkInterface.ingress` (the formal harness's
    invariants read them: rtl/formal/axis_ni.py); the broadcast store's three are set with broadcast only."""
    entries: list
    count: Signal
    valid: Signal
    in_frame: Signal
    storing: Signal | None = None
    ahead: Signal | None = None
    beats: Signal | None = None


@dataclass
class EgressState:
    """The egress registers, set by :meth:`AxisNetworkInterface.egress`: the header expected, the last
    header's source and destination, the 2-entry beat queue (data, tail bits, sources, broadcast-copy bits)
    and its count and pointers."""
    expect_header: Signal
    tid: Signal
    dest: Signal
    data: list
    last: Signal
    ids: list
    copy: Signal
    count: Signal
    wp: Signal
    rp: Signal


class AxisNetworkInterface(wiring.Component):
    def __init__(self, params: AxisParams):
        self.params = params
        w = params.payload_width
        super().__init__({"s_axis": In(params.slave()), "m_axis": Out(params.master()),
                          "local_in": Out(local_signature(w)), "local_out": In(local_signature(w)),
                          "node_id": In(params.node_width)})

    def elaborate(self, platform):
        m = Module()
        self.ingress(m)
        self.egress(m)
        return m

    def header(self):
        """The header flit's data for the frame at ``s_axis``: destination (0xFFFF for all-ones ``tdest``
        with broadcast routers) and this node."""
        p, s = self.params, self.s_axis
        dest = s.tdest.as_unsigned()
        if p.broadcast:
            dest = Mux(self.is_broadcast(), Const(BROADCAST_DEST, DEST_WIDTH), dest)
        return dest | (self.node_id << SRC_LSB)

    def is_broadcast(self):
        return self.s_axis.tdest == (1 << self.params.dest_width) - 1

    def ingress(self, m):
        p, s, li = self.params, self.s_axis, self.local_in
        K, W = p.queue_depth, p.payload_width
        entry = [Signal(local_signature(W).members["payload"].shape, name=f"queue_{i}") for i in range(K)]
        count = Signal(range(K + 1))
        valid = Signal()                        # registered local_in.valid: queue not empty and not held
        in_frame = Signal()                     # the header of the frame at s_axis is in the queue
        room = count < K
        pop = li.valid & li.ready
        push, word = Signal(), Signal.like(entry[0])
        m.d.comb += [li.valid.eq(valid), li.payload.eq(entry[0])]
        with m.If(in_frame):
            m.d.comb += [s.tready.eq(room), push.eq(s.tvalid & room),
                         word.tail.eq(s.tlast), word.data.eq(s.tdata)]
        with m.Else():                          # the first beat waits while its header enters
            m.d.comb += [push.eq(s.tvalid & room), word.head.eq(1), word.data.eq(self.header())]
        with m.If(push):
            m.d.sync += in_frame.eq(~in_frame | ~s.tlast)
        at = count - pop                        # where the pushed word goes
        for i in range(K):
            with m.If(push & (at == i)):
                m.d.sync += entry[i].eq(word)
            if i + 1 < K:
                with m.Elif(pop):
                    m.d.sync += entry[i].eq(entry[i + 1])
        count_next = count + push - pop
        m.d.sync += count.eq(count_next)
        self.ingress_state = IngressState(entry, count, valid, in_frame)
        held = Const(0)
        if p.broadcast:
            held = self.store_broadcast(m, entry, count, push, pop, in_frame)
        m.d.sync += valid.eq((count_next != 0) & ~held)

    def store_broadcast(self, m, entry, count, push, pop, in_frame):
        """Hold a broadcast frame until its ``tlast`` is queued; drop one of more than D - 1 beats. Returns
        the next cycle's hold (the stored frame's header is at the head of the queue)."""
        p, s, K = self.params, self.s_axis, self.params.queue_depth
        storing = Signal()                      # a broadcast frame is entering and its tlast is not queued
        ahead = Signal(range(K + 1))            # queued words in front of its header
        beats = Signal(range(K))                # its beats queued so far
        storing_next, ahead_next = Signal(), Signal.like(ahead)
        m.d.comb += [storing_next.eq(storing), ahead_next.eq(ahead - (pop & (ahead != 0)))]
        with m.If(push & ~in_frame & self.is_broadcast()):
            m.d.comb += [storing_next.eq(1), ahead_next.eq(count - pop)]
            m.d.sync += beats.eq(0)
        with m.Elif(push & in_frame & storing):
            with m.If(s.tlast):
                m.d.comb += storing_next.eq(0)
            with m.Elif(beats == p.fifo_depth - 2):     # too long: the source interface drops it whole
                m.d.comb += storing_next.eq(0)
                m.d.sync += entry[0].data[:DEST_WIDTH].eq(DROP_DEST)
            with m.Else():
                m.d.sync += beats.eq(beats + 1)
        m.d.sync += [storing.eq(storing_next), ahead.eq(ahead_next)]
        self.ingress_state.storing, self.ingress_state.ahead, self.ingress_state.beats = storing, ahead, beats
        return storing_next & (ahead_next == 0)

    def local_out_ready(self, count, expect_header):
        """``local_out.ready``: a free entry of the beat queue (``count`` of 2 taken), or a header, taken at
        once whatever ``tready`` (rtl/formal/axis.py overrides this with a seeded bug)."""
        return (count != 2) | expect_header

    def egress(self, m):
        """A 2-entry queue of beats written straight from ``local_out`` (per-entry enables, no logic after the
        router's crossbar but the enables); ``local_out.ready`` = a free entry or a header, from registers."""
        p, o, lo = self.params, self.m_axis, self.local_out
        W = p.payload_width
        expect_header = Signal(init=1)          # the next flit out is a frame's header: the last one was a tail
        tid, dest = Signal(p.node_width), Signal(DEST_WIDTH)      # the current frame's header
        data = [Signal(W, name=f"out_data_{i}") for i in range(2)]
        last, copy = Signal(2, name="out_last"), Signal(2, name="out_copy")
        ids = [Signal(p.node_width, name=f"out_tid_{i}") for i in range(2)]
        count, wp, rp = Signal(range(3)), Signal(), Signal()
        self.egress_state = EgressState(expect_header, tid, dest, data, last, ids, copy, count, wp, rp)
        taken = lo.valid & lo.ready
        push = taken & ~expect_header
        pop = o.tvalid & o.tready
        m.d.comb += lo.ready.eq(self.local_out_ready(count, expect_header))
        with m.If(taken):
            m.d.sync += expect_header.eq(lo.payload.tail)
        with m.If(lo.valid & expect_header):
            m.d.sync += [tid.eq(lo.payload.data[SRC_LSB:SRC_LSB + p.node_width]), dest.eq(lo.payload.data[:DEST_WIDTH])]
        for i in range(2):
            with m.If(push & (wp == i)):
                m.d.sync += [data[i].eq(lo.payload.data), last[i].eq(lo.payload.tail), ids[i].eq(tid),
                             copy[i].eq(dest == BROADCAST_DEST)]
        m.d.sync += [count.eq(count + push - pop), wp.eq(wp ^ push), rp.eq(rp ^ pop)]
        mine = self.node_id
        if p.broadcast:
            mine = Mux(copy.bit_select(rp, 1), (1 << p.dest_width) - 1, self.node_id)
        m.d.comb += [o.tvalid.eq(count != 0), o.tdata.eq(Mux(rp, data[1], data[0])), o.tlast.eq(last.bit_select(rp, 1)),
                     o.tid.eq(Mux(rp, ids[1], ids[0])), o.tdest.eq(mine)]
