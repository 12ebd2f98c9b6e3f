"""The AXI4-Stream network interface of one node (docs/ip.md), between the user's ``s_axis``/``m_axis`` and
the router's local flit streams; its rule in Python is sim/axis_frames.py.

Ingress: the first beat after reset or after ``tlast`` is held (``tready`` low) while a header flit
(head; ``data`` = the destination from ``tdest`` in bits 0..15, this node in bits 16..16+b) is offered on
``local_in``; then every beat passes through unchanged, ``tail`` = ``tlast``. No register on the data path:
``local_in`` follows the AXI4-Stream hold rule because ``s_axis`` does.

Egress: ``local_out.ready`` is ``m_axis.tready`` (the router sees the user's backpressure, nothing else); a
head flit (the header) is taken without showing ``tvalid`` and its source loaded into the ``tid`` register;
every other flit is a beat, ``tlast`` = ``tail``, ``tdest`` = this node.

Cost: one header flit per frame (a frame of L beats is L + 1 flits on every link it crosses), b + 1
flip-flops and a few LUTs per node (docs/ip.md "Cost").
"""
from __future__ import annotations

from dataclasses import dataclass

from amaranth import Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..sim.axis_frames import SRC_LSB, check_payload, dest_width, node_width
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
    """What one node's interface is built from (the same for every node: the node number is an input)."""

    payload_width: int
    num_nodes: int
    broadcast: bool = False             # all-ones tdest is the broadcast destination

    def __post_init__(self):
        check_payload(self.payload_width, self.num_nodes)

    @property
    def node_width(self) -> int:
        return node_width(self.num_nodes)

    @property
    def dest_width(self) -> int:
        return dest_width(self.num_nodes, self.broadcast)

    def slave(self) -> AxisSignature:
        """``s<vv>_axis``: what the user sends (the network's view flips it)."""
        return AxisSignature(self.payload_width, self.dest_width)

    def master(self) -> AxisSignature:
        """``m<vv>_axis``: what the node receives, the source in ``tid``."""
        return AxisSignature(self.payload_width, self.dest_width, self.node_width)


class AxisNetworkInterface(wiring.Component):
    def __init__(self, params: AxisParams):
        self.params = params
        w = params.payload_width
        super().__init__({"s_axis": In(params.slave()), "m_axis": Out(params.master()),
                          "local_in": Out(local_signature(w)), "local_out": In(local_signature(w)),
                          "node_id": In(params.node_width)})

    def elaborate(self, platform):
        m = Module()
        p, s, o, li, lo = self.params, self.s_axis, self.m_axis, self.local_in, self.local_out
        # ingress: header flit, then the beats
        in_frame = Signal()                     # the header of the frame at s_axis has been sent
        dest = s.tdest.as_unsigned()
        if p.broadcast:
            dest = Mux(s.tdest == (1 << p.dest_width) - 1, Const(BROADCAST_DEST, DEST_WIDTH), dest)
        header = dest | (self.node_id << SRC_LSB)
        m.d.comb += li.valid.eq(s.tvalid)
        with m.If(in_frame):
            m.d.comb += [li.payload.data.eq(s.tdata), li.payload.tail.eq(s.tlast), s.tready.eq(li.ready)]
            with m.If(s.tvalid & li.ready & s.tlast):
                m.d.sync += in_frame.eq(0)
        with m.Else():
            m.d.comb += [li.payload.head.eq(1), li.payload.data.eq(header)]
            with m.If(s.tvalid & li.ready):
                m.d.sync += in_frame.eq(1)
        # egress: the header gives tid, the beats pass
        tid = Signal(p.node_width)
        head = lo.payload.head
        m.d.comb += [lo.ready.eq(o.tready), o.tvalid.eq(lo.valid & ~head), o.tdata.eq(lo.payload.data),
                     o.tlast.eq(lo.payload.tail), o.tid.eq(tid), o.tdest.eq(self.node_id)]
        with m.If(lo.valid & head & o.tready):
            m.d.sync += tid.eq(lo.payload.data[SRC_LSB:SRC_LSB + p.node_width])
        return m
