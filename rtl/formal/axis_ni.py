"""Properties of the AXI4-Stream network interface (rtl/axis_ni.py), docs/formal.md "The AXI4-Stream
interface", as ``cubenoc prove`` lists them for a network with ``interface=axis``:

7. ``tvalid independent of tready (no waiting)``: structural, for one node as a whole (router and
   interface, :class:`~cubenoc.rtl.axis_node.AxisNode`): no combinational path from ``m_axis__tready`` to
   ``m_axis__tvalid``, none from ``s_axis__tvalid`` to ``s_axis__tready`` (:func:`node_paths`); and by
   k-induction on the interface (:class:`AxisHarness`, group ``wait``): a header flit offered on
   ``local_out`` is taken in the same cycle whatever ``tready`` (the beat behind it never waits for the
   receiver), with the invariant that ``local_out`` offers a header exactly when the interface expects one.
8. ``hold rule on m_axis and local_in`` (group ``hold``): once ``m_axis.tvalid`` is high and ``tready`` low, the next
   cycle ``tvalid`` is high with the same ``tdata``, ``tlast``, ``tid``, ``tdest``; the same on ``local_in``.
9. ``frames conserved through the interface`` (group ``conservation``): ingress, the flits leaving by
   ``local_in`` are, in order, each frame's header (the destination from ``tdest``, 0xFFFF for a broadcast,
   ``DROP_DEST`` for a broadcast of more than D - 1 beats; this node) and then its beats unchanged,
   ``tail`` = ``tlast``, a broadcast header only once its frame's ``tlast`` is in; egress, every flit
   taken from ``local_out`` but a header is one ``m_axis`` beat (the same cycle, its data and tail), with
   the header's source in ``tid`` and this node (all ones for a broadcast copy) in ``tdest``, and no beat
   else.

The environment (assumed): ``s_axis`` any sequence that keeps the AXI4-Stream rule (a stalled offer stays,
unchanged); ``local_out`` any sequence of whole packets, a header and at least one more flit each (what every
node's interface sends; the router proofs' wormhole property keeps them whole), under the stream rule the
router proofs establish for ``local_out``; ``m_axis.tready`` and ``local_in.ready`` any; ``node_id`` any
node, constant. The interface's control never reads a beat's ``tdata``, so it is proved at the smallest
payload width that holds the header (:func:`proof_params`).

Ingress is followed as a numbered stream: the harness numbers the flits it expects (a frame's header when
its first beat is offered, each beat when it is taken) and records the expected content of one of them,
any one (``AnyConst`` number); when that number leaves by ``local_in`` the flit must be the recorded one.
The invariants (k-induction) relate the interface's registers, which it publishes as typed state
(``IngressState``, ``EgressState`` in rtl/axis_ni.py), to that bookkeeping. Seeded bugs are subclasses of
the interface (:data:`INTERFACE_BUGS`), never switches in it.
"""
from __future__ import annotations

from types import SimpleNamespace

from amaranth import Cat, Const, Elaboratable, Fragment, Module, Mux, Signal
from amaranth.asserts import AnyConst, AnySeq
from amaranth.hdl import Assume
from amaranth.lib import data

from cubenoc.errors import CubenocError

from ...sim.axis_frames import DROP_DEST, SRC_LSB
from ...sim.broadcast.fork import BROADCAST_DEST
from ..axis_ni import AxisNetworkInterface, AxisParams
from ..axis_node import AxisNode
from ..flit import DEST_WIDTH, local_flit_layout
from .invariants import Elaborated
from .mutations import seeded
from .runner import check

#: property groups of :class:`AxisHarness`, and their titles in ``cubenoc prove``'s table
AXIS_GROUPS = ("wait", "hold", "conservation")
AXIS_TITLES = {"wait": "7 tvalid independent of tready: header at once", "hold": "8 hold rule on m_axis and local_in",
               "conservation": "9 frames conserved through the interface"}
#: the structural rows (per router shape: the node as a whole), with the probe each reads
NODE_PATHS = {"7 tvalid independent of tready (no waiting)": ("m_axis__tready", "m_axis__tvalid"),
              "7 s_axis tready independent of tvalid": ("s_axis__tvalid", "s_axis__tready")}


# ---- seeded bugs: subclasses, built only by the proofs ----------------------------------------------------
class HeaderWaitsForTready(AxisNetworkInterface):
    """Seeded bug ``header-waits-for-tready``: a header flit is taken only while ``tready`` is high (and shown
    to nobody: it never becomes a beat), so a receiver that raises ``tready`` only after ``tvalid`` waits
    forever for the frame behind it."""

    def local_out_ready(self, count, expect_header):
        return Mux(expect_header, self.m_axis.tready, count != 2)


class TvalidWaitsForTready(AxisNetworkInterface):
    """Seeded bug ``tvalid-waits-for-tready``: ``tvalid`` is gated by ``tready``, a combinational path."""

    def egress(self, m):
        super().egress(m)
        o = self.m_axis
        m.d.comb += o.tvalid.eq((self.egress_state.count != 0) & o.tready)     # the later assignment wins


#: seeded bug name -> the broken interface (rtl/formal/mutations.py lists them with the others)
INTERFACE_BUGS = {"header-waits-for-tready": HeaderWaitsForTready, "tvalid-waits-for-tready": TvalidWaitsForTready}


def interface_class(seeded_bug: str | None):
    """The interface to build: the real one, or the subclass carrying ``seeded_bug`` (if it is one of these)."""
    return INTERFACE_BUGS.get(seeded_bug, AxisNetworkInterface)


class _Node(AxisNode):
    """An :class:`AxisNode` whose interface is ``cls``."""

    def __init__(self, router, params, cls):
        self._cls = cls
        super().__init__(router, params)

    def network_interface(self):
        return self._cls(self.params)


def axis_params(plan) -> AxisParams:
    """The interface of the network ``plan`` (as rtl/network_top.py and synth-report build it)."""
    c = plan.config
    return AxisParams(c.payload_width, plan.routing.topology.num_nodes, c.has_broadcast, c.fifo_depth)


def proof_params(params: AxisParams) -> AxisParams:
    """``params`` at the smallest payload width that holds the header (whole bytes): the interface never
    reads a beat's ``tdata``, every bit of which it carries alike."""
    need = SRC_LSB + params.node_width
    return AxisParams(-(-need // 8) * 8, params.num_nodes, params.broadcast, params.fifo_depth)


def check_interface(label: str, params: AxisParams) -> None:
    """One line saying why the interface ``params`` is not proved, or nothing."""
    if params.broadcast and params.fifo_depth < 2:
        raise CubenocError(f"{label}: the AXI4-Stream interface's proofs with broadcast routers need FIFO depth 2 or "
                           f"more (a broadcast packet, a header and a beat, fits a FIFO), got {params.fifo_depth}")


def node_paths(router, params: AxisParams, seeded_bug: str | None = None, interface=None) -> dict[str, bool]:
    """``{row title: holds}`` of :data:`NODE_PATHS` for ``router`` with its interface (``seeded_bug``: built
    with that bug; ``interface``: this class instead): no combinational path from the probe's source port to
    its sink."""
    from .ready_path import combinational_paths
    check_interface("node", params)
    node = _Node(router, params, interface or interface_class(seeded_bug))
    paths = combinational_paths(node, list(NODE_PATHS.values()), seeded_bug)
    return {title: probe not in paths for title, probe in NODE_PATHS.items()}


class AxisHarness(Elaboratable):
    def __init__(self, params: AxisParams, groups=AXIS_GROUPS, seeded_bug: str | None = None,
                 invariants: bool = True, interface=None):
        """``params``: the network's interface (proved at :func:`proof_params`' width); ``groups``: of
        :data:`AXIS_GROUPS`; ``seeded_bug``: a name of :data:`INTERFACE_BUGS`; ``invariants``: assert the named
        invariants (k-induction needs them); ``interface``: the class to prove (default: the seeded bug's,
        else the real one)."""
        bad = set(groups) - set(AXIS_GROUPS)
        if bad:
            raise CubenocError(f"interface property groups are {', '.join(AXIS_GROUPS)}, got {', '.join(sorted(bad))}")
        check_interface("AxisHarness", params)
        self.params, self.groups = proof_params(params), tuple(groups)
        self.seeded_bug, self.invariants = seeded_bug, invariants
        self.interface = interface or interface_class(seeded_bug)
        self.properties: dict = {}

    def elaborating(self):
        """What :func:`~.runner.prove` wraps the conversion in."""
        return seeded(self.seeded_bug)

    def elaborate(self, platform):
        m = Module()
        p = self.params
        ni = self.interface(p)
        m.submodules.ni = Elaborated(Fragment.get(ni, platform))   # elaborated now: its state is set
        self.ingress_state, self.egress_state = ni.ingress_state, ni.egress_state
        node = AnyConst(p.node_width)
        m.d.comb += [ni.node_id.eq(node), Assume(node < p.num_nodes)]
        self._ingress(m, ni, node)
        self._egress(m, ni, node)
        return m

    def header_word(self, tdest, node):
        """The header flit's data for a frame to ``tdest`` from ``node`` (sim/axis_frames.py ``header_word``)."""
        p = self.params
        dest = tdest.as_unsigned()
        if p.broadcast:
            dest = Mux(tdest == (1 << p.dest_width) - 1, Const(BROADCAST_DEST, DEST_WIDTH), dest)
        return dest | (node << SRC_LSB)

    # ---- ingress: s_axis -> local_in -------------------------------------------------------------------
    def _ingress(self, m, ni, node):
        v = self._ingress_stream(m, ni, node)
        if self.params.broadcast:
            self._ingress_drops(m, v)
        self._ingress_properties(m, v)
        if self.invariants:
            self._ingress_invariants(m, v)

    def _ingress_stream(self, m, ni, node) -> SimpleNamespace:
        """``s_axis`` driven by any sequence keeping the AXI4-Stream rule, ``local_in.ready`` by any; the
        expected flits numbered (a frame's header when its first beat is offered, each beat when taken) and
        one of them, any one, tracked with its expected content. Returns the bookkeeping's signals."""
        p, s, li = self.params, ni.s_axis, ni.local_in
        v = SimpleNamespace(s=s, li=li, K=p.queue_depth, D=p.fifo_depth, W=p.payload_width)
        v.F = F = (v.K + 1).bit_length() + 1            # flit numbers: more than the most ever inside
        for sig in (s.tvalid, s.tdata, s.tlast, s.tdest):
            m.d.comb += sig.eq(AnySeq(len(sig)))
        word = Cat(s.tdata, s.tlast, s.tdest)
        v.s_stalled, s_held = Signal(name="s_axis_stalled"), Signal(len(word), name="s_axis_held")
        m.d.sync += [v.s_stalled.eq(s.tvalid & ~s.tready), s_held.eq(word)]
        m.d.comb += Assume(~v.s_stalled | (s.tvalid & (word == s_held)))
        m.d.comb += li.ready.eq(AnySeq(1))
        v.frame_open = Signal(name="frame_open")           # a frame's first beat offered, its tlast not taken
        v.in_flits, v.out_flits = Signal(F, name="in_flits"), Signal(F, name="out_flits")
        v.begin, v.accept = s.tvalid & ~v.frame_open, s.tvalid & s.tready
        m.d.sync += [v.in_flits.eq(v.in_flits + v.begin + v.accept),
                     v.frame_open.eq((v.frame_open | v.begin) & ~(v.accept & s.tlast))]
        v.header_at, v.beat_at = v.in_flits, (v.in_flits + v.begin)[:F]
        v.take = li.valid & li.ready
        m.d.sync += v.out_flits.eq(v.out_flits + v.take)
        v.pending = Signal(F, name="pending")
        m.d.comb += v.pending.eq(v.in_flits - v.out_flits)
        # the tracked flit (any number): its expected content, recorded when it is numbered
        v.tracked = AnyConst(F)
        v.live, v.exp = Signal(name="tracked_live"), Signal(local_flit_layout(v.W), name="tracked_expected")
        v.tracked_frame = Signal(name="tracked_frame")     # the tracked flit is the open frame's header
        v.header = self.header_word(s.tdest, node)
        with m.If(v.take & (v.out_flits == v.tracked)):
            m.d.sync += v.live.eq(0)
        with m.If(v.begin & (v.header_at == v.tracked)):
            m.d.sync += [v.live.eq(1), v.exp.head.eq(1), v.exp.tail.eq(0), v.exp.data.eq(v.header)]
        with m.If(v.accept & (v.beat_at == v.tracked)):
            m.d.sync += [v.live.eq(1), v.exp.head.eq(0), v.exp.tail.eq(s.tlast), v.exp.data.eq(s.tdata)]
        m.d.sync += v.tracked_frame.eq(Mux(v.begin, v.header_at == v.tracked, v.tracked_frame)
                                       & ~(v.accept & (s.tlast | (v.beat_at == v.tracked))))
        return v

    def _ingress_drops(self, m, v) -> None:
        """A broadcast frame of more than D - 1 beats: its header's destination becomes DROP_DEST."""
        p, s, D = self.params, v.s, v.D
        v.is_bc = s.tdest == (1 << p.dest_width) - 1
        v.frame_bc, v.frame_beats = Signal(name="frame_bcast"), Signal(range(D), name="frame_beats")
        v.dropped = Signal(name="frame_dropped")
        begin, accept = v.begin, v.accept
        cur_bc, cur_beats = Mux(begin, v.is_bc, v.frame_bc), Mux(begin, 0, v.frame_beats)
        cur_dropped = Mux(begin, 0, v.dropped)
        too_long = accept & cur_bc & ~cur_dropped & ~s.tlast & (cur_beats == D - 2)
        with m.If(begin):
            m.d.sync += [v.frame_bc.eq(v.is_bc), v.frame_beats.eq(0), v.dropped.eq(0)]
        with m.If(accept & cur_bc & ~cur_dropped & ~too_long & ~s.tlast):
            m.d.sync += v.frame_beats.eq(cur_beats + 1)
        with m.If(too_long):
            m.d.sync += v.dropped.eq(1)
            with m.If(Mux(begin, v.header_at == v.tracked, v.tracked_frame)):
                m.d.sync += v.exp.data[:DEST_WIDTH].eq(DROP_DEST)

    def _ingress_properties(self, m, v) -> None:
        li, K = v.li, v.K
        out = data.View(local_flit_layout(v.W), li.payload.as_value())
        here = v.take & (v.out_flits == v.tracked)
        if "conservation" in self.groups:
            check(m, self, "ingress: nothing leaves that was not sent", ~v.take | (v.pending != 0))
            check(m, self, "ingress: the flits leave in order, unchanged",
                  ~here | (v.live & (out.as_value() == v.exp.as_value())))
            check(m, self, "ingress: at most the queue and a waiting header inside", v.pending <= K + 1)
            if self.params.broadcast:
                check(m, self, "ingress: a broadcast header leaves once its frame is in",
                      ~(here & v.exp.head & (v.exp.data[:DEST_WIDTH] == BROADCAST_DEST)) | ~v.tracked_frame)
        if "hold" in self.groups:
            stalled, held = Signal(name="local_in_stalled"), Signal(len(out.as_value()), name="local_in_held")
            m.d.sync += [stalled.eq(li.valid & ~li.ready), held.eq(out.as_value())]
            check(m, self, "hold rule local_in", ~stalled | (li.valid & (out.as_value() == held)))

    def _ingress_invariants(self, m, v) -> None:
        """The queue holds the expected flits not yet taken, the tracked one where its number says."""
        st, K, exp, live, pending = self.ingress_state, v.K, v.exp, v.live, v.pending
        count, valid, in_frame = st.count, st.valid, st.in_frame
        entries = [data.View(local_flit_layout(v.W), e.as_value()) for e in st.entries]
        waiting = Signal(name="header_waiting")           # the frame's header is numbered, not yet queued
        m.d.comb += waiting.eq(v.frame_open & ~in_frame)
        storing, ahead = (st.storing, st.ahead) if self.params.broadcast else (Const(0), Const(0))
        check(m, self, "ingress: the queue holds the flits sent and not taken", pending == count + waiting)
        check(m, self, "ingress: the queue's count", count <= K)
        check(m, self, "ingress: in a frame only inside the sender's", ~in_frame | v.frame_open)
        check(m, self, "ingress: a first beat waits, unchanged, for its header", ~waiting | v.s_stalled)
        check(m, self, "ingress: valid is a queue not empty and not held",
              valid == ((count != 0) & ~(storing & (ahead == 0))))
        at = Signal(v.F, name="tracked_at")                  # the tracked flit's place in the queue
        m.d.comb += at.eq(v.tracked - v.out_flits)
        check(m, self, "ingress: the tracked flit is inside exactly when numbered and not taken", live == (at < pending))
        for i, e in enumerate(entries):
            check(m, self, "ingress: the tracked flit in the queue is as recorded",
                  ~(live & (at == i) & (count > i)) | (e.as_value() == exp.as_value()))
        check(m, self, "ingress: the tracked header waiting is the offered frame's",
              ~(live & waiting & (at == count)) | ((exp.head == 1) & (exp.tail == 0) & (exp.data == v.header)))
        check(m, self, "ingress: the open frame's header is the tracked flit", ~v.tracked_frame | (exp.head & v.frame_open))
        check(m, self, "ingress: the waiting header is the tracked flit exactly when it is the tracked frame's",
              ~waiting | (v.tracked_frame == (live & (at == count))))
        if self.params.broadcast:
            self._stored_frame_invariants(m, v, st, entries, waiting, at)

    def _stored_frame_invariants(self, m, v, st, entries, waiting, at) -> None:
        """With broadcast: the frame being stored, its header's place and kind."""
        storing, ahead, beats, count = st.storing, st.ahead, st.beats, st.count
        check(m, self, "ingress: a waiting header's frame",
              ~waiting | ((v.frame_bc == v.is_bc) & (v.frame_beats == 0) & ~v.dropped))
        check(m, self, "ingress: storing is an open broadcast frame not dropped",
              storing == (st.in_frame & v.frame_bc & ~v.dropped))
        check(m, self, "ingress: a stored frame's header and beats are the queue's end",
              ~storing | ((beats == v.frame_beats) & (count == ahead + 1 + beats)))
        check(m, self, "ingress: a stored frame's header is at its place",
              ~storing | Cat(*[(ahead != i) | entries[i].head for i in range(v.K)]).all())
        check(m, self, "ingress: the tracked header stored is the open frame's",
              ~storing | (v.tracked_frame == (v.live & (at == ahead))))
        check(m, self, "ingress: the tracked frame's header says its kind",
              ~v.tracked_frame | ((v.exp.data[:DEST_WIDTH] == BROADCAST_DEST) == (v.frame_bc & ~v.dropped)))

    # ---- egress: local_out -> m_axis -------------------------------------------------------------------
    def _egress(self, m, ni, node):
        p, o, lo = self.params, ni.m_axis, ni.local_out
        W = p.payload_width
        m.d.comb += [lo.valid.eq(AnySeq(1)), lo.payload.as_value().eq(AnySeq(len(lo.payload.as_value()))),
                     o.tready.eq(AnySeq(1))]
        flit = lo.payload
        # local_out: whole packets, a header and at least one more flit, under the stream rule
        lo_stalled, lo_held = Signal(name="local_out_stalled"), Signal(len(flit.as_value()), name="local_out_held")
        m.d.sync += [lo_stalled.eq(lo.valid & ~lo.ready), lo_held.eq(flit.as_value())]
        m.d.comb += Assume(~lo_stalled | (lo.valid & (flit.as_value() == lo_held)))
        in_packet = Signal(name="local_out_in_packet")     # a header taken, its tail not yet
        with m.If(lo.valid):
            m.d.comb += Assume((flit.head == ~in_packet) & ~(flit.head & flit.tail))
        taken = lo.valid & lo.ready
        with m.If(taken):
            m.d.sync += in_packet.eq(~flit.tail)
        # the frame's source and kind, from its header as offered (the stream rule keeps it until taken)
        source, copy = Signal(p.node_width, name="frame_source"), Signal(name="frame_copy")
        with m.If(lo.valid & flit.head):
            m.d.sync += [source.eq(flit.data[SRC_LSB:SRC_LSB + p.node_width]),
                         copy.eq(flit.data[:DEST_WIDTH] == BROADCAST_DEST)]

        def tdest(is_copy):
            return Mux(is_copy, (1 << p.dest_width) - 1, node) if p.broadcast else node
        # the beats, numbered: each flit taken but a header when it is taken, each m_axis beat when it leaves
        F = 3
        body, beat = taken & ~flit.head, o.tvalid & o.tready
        in_beats, out_beats = Signal(F, name="in_beats"), Signal(F, name="out_beats")
        waiting = Signal(F, name="beats_inside")
        m.d.sync += [in_beats.eq(in_beats + body), out_beats.eq(out_beats + beat)]
        m.d.comb += waiting.eq(in_beats - out_beats)
        tracked = AnyConst(F)
        live = Signal(name="tracked_beat_live")
        exp_data, exp_last = Signal(W, name="tracked_beat_data"), Signal(name="tracked_beat_last")
        exp_tid, exp_copy = Signal(p.node_width, name="tracked_beat_tid"), Signal(name="tracked_beat_copy")
        here = beat & (out_beats == tracked)
        with m.If(here):
            m.d.sync += live.eq(0)
        with m.If(body & (in_beats == tracked)):
            m.d.sync += [live.eq(1), exp_data.eq(flit.data), exp_last.eq(flit.tail), exp_tid.eq(source),
                         exp_copy.eq(copy)]
        if "wait" in self.groups:
            check(m, self, "tvalid independent of tready (no waiting): a header is taken whatever tready",
                  ~(lo.valid & flit.head) | lo.ready)
        if "hold" in self.groups:
            word = Cat(o.tdata, o.tlast, o.tid, o.tdest)
            stalled, held = Signal(name="m_axis_stalled"), Signal(len(word), name="m_axis_held")
            m.d.sync += [stalled.eq(o.tvalid & ~o.tready), held.eq(word)]
            check(m, self, "hold rule m_axis", ~stalled | (o.tvalid & (word == held)))
        if "conservation" in self.groups:
            check(m, self, "egress: nothing leaves that was not taken", ~beat | (waiting != 0))
            check(m, self, "egress: the beats leave in order, unchanged",
                  ~here | (live & (o.tdata == exp_data) & (o.tlast == exp_last)))
            check(m, self, "egress: tid is the frame's source", ~here | (o.tid == exp_tid))
            check(m, self, "egress: tdest is this node, all ones for a broadcast copy", ~here | (o.tdest == tdest(exp_copy)))
            check(m, self, "egress: at most the queue inside", waiting <= 2)
        if not self.invariants:
            return
        st = self.egress_state
        expect_header, count, wp, rp, tid, dest = st.expect_header, st.count, st.wp, st.rp, st.tid, st.dest
        entries = [(st.data[i], st.last[i], st.ids[i], st.copy[i]) for i in range(2)]
        check(m, self, "egress: a header is expected exactly between packets", expect_header == ~in_packet)
        check(m, self, "egress: local_out offers a header exactly when one is expected",
              ~lo.valid | (flit.head == expect_header))
        check(m, self, "egress: the last header's source and kind", (tid == source) & ((dest == BROADCAST_DEST) == copy))
        check(m, self, "egress: the queue holds the beats taken and not shown", (count == waiting) & (count <= 2))
        check(m, self, "egress: the free entry follows the shown ones", wp == (rp ^ count[0]))
        at = Signal(F, name="tracked_beat_at")
        m.d.comb += at.eq(tracked - out_beats)
        check(m, self, "egress: the tracked beat is inside exactly when numbered and not shown", live == (at < waiting))
        for k in range(2):
            d, last, ident, cp = [Mux(rp ^ k, b, a) for a, b in zip(entries[0], entries[1])]
            check(m, self, "egress: the tracked beat in the queue is as recorded",
                  ~(live & (at == k)) | ((d == exp_data) & (last == exp_last) & (ident == exp_tid) & (cp == exp_copy)))
