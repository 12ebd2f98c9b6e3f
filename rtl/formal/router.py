"""Properties of one whole router (docs/formal.md "The router").

``RouterHarness(plan, node)`` drives every input of a :class:`~cubenoc.rtl.router.Router`
with any sequence (``AnySeq``) a legal upstream could send and every output's ``ready`` with any
sequence, and asserts (names as reported):

1. ``stream rule <out>``: once an output's ``valid`` is high it stays high, payload unchanged, until its
   ``ready`` (of the flit's VC) takes it (AXI4-Stream; DESIGN.md).
2. Conservation, with each flit labelled at its input by its *lane* (input, VC) in data bits the router
   never reads (``data[16:]``), and the flits of one lane (any: ``AnyConst``) also by a sequence number:
   ``in order <out>`` (that lane's flits leave in the order they entered: none lost, none duplicated),
   ``one output`` (a flit leaves by one output only), ``no creation`` (nothing leaves that did not
   enter), ``bounded occupancy`` (at most the FIFO depth inside), ``unchanged <out>`` (head/tail and the
   whole data word of a tracked flit -- ``AnyConst`` sequence number and data value -- leave as they
   entered).
3. ``wormhole <out>``: between a head and its tail on an output (and VC), every flit there belongs to
   the head's lane, and no flit leaves outside a packet.
6. ``counter <name>``: ``injected``, ``dropped``, ``malformed`` count what docs/verification.md's
   source framing says, ``ejected`` the tails taken at ``local_out``, one cycle later (``gates.count_after``).

What a legal upstream sends (assumed): whole packets per lane (head first, tail last); on a link, heads
whose route word is one some packet arrives with on that port and VC (the plan's arrivals, walking every
source/destination pair); on the local input, with ``local_free`` any flits at all (the counters'
proof), else well-formed packets to destinations it delivers. Not assumed: the AXI rule upstream (an
input may withdraw or change a stalled offer; the router's properties hold all the same).
``seeded_bug`` (a name of :data:`~cubenoc.rtl.formal.mutations.MUTATIONS`) builds the router with a broken
unit, which a proof must catch. The router is elaborated first, so that the named invariants
(rtl/formal/invariants.py) that k-induction needs can read its units' state (``Router.units``). The pipelined router's
local output is followed where flits cross into its ejection buffer (rtl/formal/eject.py proves the rest).
"""
from __future__ import annotations

from contextlib import contextmanager

from amaranth import Cat, Const, Elaboratable, Fragment, Module, Mux, Signal
from amaranth.asserts import AnyConst, AnySeq
from amaranth.hdl import Assume

from cubenoc.errors import CubenocError

from ...sim.broadcast.fork import BROADCAST_DEST, fork_entry
from ...sim.network_plan import NetworkPlan
from ...sim.routing.base import is_adaptive
from ..flit import DEST_WIDTH
from .fork_invariants import add_fork_invariants
from .invariants import Elaborated, add_invariants, has_invariants
from .mutations import seeded
from ..router.router import COUNTERS, Router
from .runner import check

SEQ_BITS = 4
#: property groups a harness can check (docs/formal.md)
GROUPS = ("stream", "conservation", "wormhole", "counters")


def output_sets(plan: NetworkPlan, node: int) -> dict:
    """Per input port: ``({unicast key: output mask}, {fork tag word: output mask})``: the outputs a head
    arriving there leaves by (the local port's unicast key is the destination, its fork set key 0), for
    the plan's broadcast algorithm."""
    routing, alg = plan.routing, plan.broadcast
    topo, layout = routing.topology, routing.layout
    local = topo.local_port(node)

    def mask(e):
        return sum(1 << p for p in e.ports) | (e.keep << local)
    out = {}
    for (port, _vc), words in plan.arrivals(node).items():
        out[port] = ({w: 1 << routing.route(node, layout.unpack(w)).port for w in words}, {})
    for port in range(local):
        out.setdefault(port, ({}, {}))
    out[local] = ({d: 1 << routing.route(node, routing.inject(node, d)).port for d in topo.nodes()},
                  {0: mask(fork_entry(alg, node, True, 0))})
    for src in topo.nodes():                       # the tags that arrive here (sim/broadcast/fork.py)
        e = fork_entry(alg, src, True, 0)
        frontier, seen = [(src, p, e.new_tags[p]) for p in e.ports], set()
        while frontier:
            v, p, word = frontier.pop()
            u, q = topo.neighbor(v, p)
            if (u, q, word) in seen:
                continue
            seen.add((u, q, word))
            f = fork_entry(alg, u, False, word)
            if u == node:
                out[q][1][word] = mask(f)
            frontier += [(u, o, f.new_tags[o]) for o in f.ports]
    return out


class RouterHarness(Elaboratable):
    def __init__(self, plan: NetworkPlan, node: int, *, groups=GROUPS, local_free: bool = False,
                 seeded_bug: str | None = None, outputs=None, invariants: bool = True):
        """``plan``: the network's plan (its config: the router's options); the harness widens the payload
        to carry its labels. ``outputs``: the outputs whose stream rule is checked (None: all).
        ``invariants``: assert the named invariants (rtl/formal/invariants.py) where they are written for
        the router, as k-induction needs; BMC and pdr do without."""
        topology, routing = plan.topology, plan.routing
        if is_adaptive(routing):
            raise CubenocError("formal proofs cover oblivious routers (no run-time selection) so far")
        self.groups = tuple(groups)
        bad = set(self.groups) - set(GROUPS)
        if bad:
            raise CubenocError(f"property groups are {', '.join(GROUPS)}, got {', '.join(sorted(bad))}")
        if local_free and {"conservation", "wormhole"} & set(self.groups):
            raise CubenocError("with any flits on the local input only the stream and counters groups apply")
        self.topology, self.routing, self.node, self.depth = topology, routing, node, plan.config.fifo_depth
        self.local_free, self.seeded_bug, self.invariants = local_free, seeded_bug, invariants
        self.outputs = None if outputs is None else tuple(outputs)
        self.num_lanes = (topology.local_port(node) + 1) * routing.num_vcs
        self.tag_bits = max(1, (self.num_lanes - 1).bit_length())
        # FIFOs in flip-flops (the memory storage has the same cycle behaviour: tests/test_unit_fifo.py); the
        # router alone, with its native local ports (an AXI4-Stream interface is proved by rtl/formal/axis_ni.py)
        self.plan = plan.replace(payload_width=DEST_WIDTH + self.tag_bits + SEQ_BITS + 2, fifo_memory=False,
                                 interface="native")
        self.config = self.plan.config
        self.payload_width = self.config.payload_width
        self.arrivals = self.plan.arrivals(node)
        self.broadcast = broadcast = self.plan.broadcast
        if broadcast is not None:
            self.masks = output_sets(self.plan, node)
        self.properties: dict = {}
        # the harness's bookkeeping: per lane, per (output, VC), per link output (its downstream FIFO's level)
        self.in_packet, self.busy, self.owner, self.level = {}, {}, {}, {}
        self.pkt_bc, self.pkt_mask, self.offers = {}, {}, {}    # broadcast: each input's packet; the stream rule's

    @contextmanager
    def elaborating(self):
        """What :func:`~.runner.prove` wraps the conversion in: the seeded bug, if any."""
        with seeded(self.seeded_bug):
            yield

    @staticmethod
    def lane_name(i: int, c: int, local: int) -> str:
        return "local_in" if i == local else f"in_p{i}" + (f".{c}" if c else "")

    def fields(self, data):
        """The labels in a flit's data: lane, sequence number, head and tail copies."""
        t, s = DEST_WIDTH, DEST_WIDTH + self.tag_bits
        return data[t:s], data[s:s + SEQ_BITS], data[s + SEQ_BITS], data[s + SEQ_BITS + 1]

    def elaborate(self, platform):
        m = Module()
        r = Router(self.plan, self.node)
        m.submodules.router = Elaborated(Fragment.get(r, platform))   # now: the invariants read r.units
        P, V, local = r.num_ports, r.num_vcs, r.local
        if "node_id" in r.signature.members:
            m.d.comb += r.node_id.eq(self.node)
        # conservation follows one lane, any lane (``AnyConst``): its flits carry sequence numbers, the
        # other lanes' flits any (the router never reads them); proved for an arbitrary lane, it holds for all
        tracked_lane, tracked_seq = AnyConst(self.tag_bits), AnyConst(SEQ_BITS)
        tracked_data = AnyConst(self.payload_width)
        in_seq, out_seq = Signal(SEQ_BITS, name="in_seq"), Signal(SEQ_BITS, name="out_seq")
        occupancy, arrived = Signal(8, name="occupancy"), Signal(name="arrived")
        if self.local_free:                  # any flits on the local input: its lane is not followed
            m.d.comb += Assume(tracked_lane != local * V)
        if self.broadcast is not None:       # a forked flit leaves several times: the tracked flit's checks
            self.tracked_in, self.tracked_mask = Signal(name="tracked_in"), Signal(P, name="tracked_mask")
            self.departed = Signal(P, name="tracked_departed")
            self.departing, self.rearmed = [], Signal(name="tracked_rearmed")
        arriving = []
        for i in range(P):
            arriving.append(self._drive_input(m, r, i, in_seq, tracked_lane, tracked_seq, tracked_data))
        m.d.comb += arrived.eq(Cat(*arriving).any())
        with m.If(arrived):
            m.d.sync += in_seq.eq(in_seq + 1)
        leaving = [self._watch_output(m, r, o, out_seq, tracked_lane, tracked_seq, tracked_data) for o in range(P)]
        if self.broadcast is not None and "conservation" in self.groups:
            # the tracked sequence number comes round again every 2^SEQ_BITS flits of the lane: a new
            # tracked flit, whose departures start from none (the last one has long left)
            m.d.sync += self.departed.eq(Mux(self.rearmed, 0, self.departed) | Cat(*self.departing))
        left = Cat(*(here for here, _ in leaving))
        m.d.sync += occupancy.eq(occupancy + arrived - left.any())
        with m.If(left.any()):
            m.d.sync += out_seq.eq(out_seq + 1)
        if "conservation" in self.groups and self.broadcast is None:
            for o, (here, seq) in enumerate(leaving):
                check(m, self, f"in order {self.output_name(o, r.local)}", ~here | (seq == out_seq))
            check(m, self, "one output", (left & (left - 1)) == 0)
            check(m, self, "no creation", ~left.any() | (occupancy != 0) | arrived)
            check(m, self, "bounded occupancy", occupancy <= self.depth + self.config.pipeline)   # + the stage
        if "counters" in self.groups:
            self._counters(m, r)
        if self.with_invariants(r) and self.groups != ("counters",):
            follow = (tracked_lane, tracked_seq, tracked_data, in_seq, out_seq, occupancy)
            add = add_invariants if self.broadcast is None else add_fork_invariants
            add(m, self, r, follow if "conservation" in self.groups else None)
        return m

    def with_invariants(self, router) -> bool:
        """The named invariants are asserted (and k-induction can prove the groups) for this router."""
        return self.invariants and has_invariants(router) and (router.counters or "counters" not in self.groups)

    def _drive_input(self, m, r, i, in_seq, tracked_lane, tracked_seq, tracked_data):
        """Drive input ``i`` as a legal upstream; returns "a flit of the tracked lane is taken here"."""
        V, local = r.num_vcs, r.local
        s = r.input_stream(i)
        valid, payload = AnySeq(1), AnySeq(len(s.payload.as_value()))
        m.d.comb += [s.valid.eq(valid), s.payload.as_value().eq(payload)]
        lanes_here = 1 if i == local else V
        vc = s.payload.vc if (i != local and V > 1) else Const(0, 1)
        taken = valid & (s.ready.bit_select(vc, 1) if i != local and V > 1 else s.ready)
        tag, seq, hbit, tbit = self.fields(s.payload.data)
        if i == local and self.local_free:
            return Const(0)
        arrived = []
        for c in range(lanes_here):
            j = i * V + c
            in_packet = self.in_packet[j] = Signal(name=f"in{i}_{c}_in_packet")
            mine = taken & (vc == c)
            arrived.append(mine & (tracked_lane == j))
            with m.If(valid & (vc == c)):
                m.d.comb += Assume((s.payload.head == ~in_packet) & (tag == j))
                with m.If((tracked_lane == j) if "conservation" in self.groups else 0):   # the followed lane's labels
                    m.d.comb += Assume((seq == in_seq) & (hbit == s.payload.head) & (tbit == s.payload.tail))
                    with m.If(seq == tracked_seq):
                        m.d.comb += Assume(s.payload.data == tracked_data)
                if self.broadcast is not None:
                    self._broadcast_input(m, r, i, j, s, mine, tag == tracked_lane, seq == tracked_seq)
                elif i == local:
                    m.d.comb += Assume(~s.payload.head | self._delivered(r, s.payload.data[:DEST_WIDTH]))
                else:
                    words = sorted(self.arrivals.get((i, c), ()))
                    route = s.payload.route.as_value() if hasattr(s.payload.route, "as_value") else s.payload.route
                    legal = Cat(*[route == w for w in words]).any() if words else Const(0)
                    m.d.comb += Assume(~s.payload.head | legal)
            with m.If(mine):
                m.d.sync += in_packet.eq(~s.payload.tail)
        return Cat(*arrived).any()

    def _watch_output(self, m, r, o, out_seq, tracked_lane, tracked_seq, tracked_data):
        """Check output ``o``; returns "a flit of the tracked lane leaves here"."""
        V, local = r.num_vcs, r.local
        out = r.output_stream(o)
        name = self.output_name(o, r.local)
        ready = AnySeq(len(out.ready))
        if (self.broadcast is not None or self.config.pipeline) and o != local:
            # a broadcast head waits for an empty downstream FIFO, a pipelined router's grant for room for
            # two: model that FIFO (the same depth), which the far router pops at will
            level, pop = Signal(range(self.depth + 1), name=f"{name}_downstream_level"), AnySeq(1)
            ready = Signal(name=f"{name}_downstream_ready")
            m.d.comb += ready.eq(level < self.depth)
            m.d.comb += out.empty.eq(level == 0) if self.broadcast is not None else out.ready2.eq(level + 2 <= self.depth)
            m.d.sync += level.eq(level + (out.valid & ready) - (pop & (level != 0)))
            self.level[o] = level
        m.d.comb += out.ready.eq(ready)
        vc = out.payload.vc if (o != local and V > 1) else Const(0, 1)
        xfer = out.valid & ready.bit_select(vc, 1)
        word = out.payload.as_value()
        if "stream" in self.groups and (self.outputs is None or o in self.outputs):
            stalled, held = Signal(name=f"{name}_stalled"), Signal(len(word), name=f"{name}_held")
            m.d.sync += [stalled.eq(out.valid & ~xfer), held.eq(word)]
            self.offers[o] = (stalled, held)
            check(m, self, f"stream rule {name}", ~stalled | (out.valid & (word == held)))
        if o == local:
            self.local_xfer_tail = xfer & out.payload.tail
        payload = out.payload
        if self.config.pipeline and o == local:
            # the pipelined router's local output: followed where flits cross into the ejection buffer (a lane's
            # next packet may leave by a link before it); the buffer's own order is proved by EjectHarness
            ou = r.units.outputs[o]
            xfer, payload = ou.valid, ou.payload
        tag, seq, hbit, tbit = self.fields(payload.data)
        here = Signal(name=f"{name}_tracked_lane")          # a flit of the followed lane leaves here
        m.d.comb += here.eq(xfer & (tag == tracked_lane))
        if "conservation" in self.groups:
            if self.broadcast is not None:
                self._broadcast_output(m, r, o, name, here, seq, tracked_seq)
            check(m, self, f"unchanged {name}", ~here | ((hbit == payload.head) & (tbit == payload.tail)))
            check(m, self, f"unchanged {name}", ~(here & (seq == tracked_seq)) | (payload.data == tracked_data))
        # the open packet per (output, VC): the wormhole property's bookkeeping, and the broadcast router's
        # invariants' in every group (who owns an output)
        if "wormhole" in self.groups or (self.broadcast is not None and self.invariants):
            for c in range(V if o != local else 1):
                busy, owner = Signal(name=f"{name}_{c}_busy"), Signal(self.tag_bits, name=f"{name}_{c}_owner")
                self.busy[o, c], self.owner[o, c] = busy, owner
                x = xfer & (vc == c)
                if "wormhole" in self.groups:
                    check(m, self, f"wormhole {name}", ~x | Cat(busy & (tag == owner) & ~payload.head,
                                                              ~busy & payload.head).any())
                with m.If(x):
                    m.d.sync += busy.eq(~payload.tail)
                    with m.If(payload.head):
                        m.d.sync += owner.eq(tag)
        return here, seq

    @staticmethod
    def output_name(o: int, local: int) -> str:
        return "local_out" if o == local else f"out_p{o}"

    def _broadcast_input(self, m, r, i, j, s, mine, is_lane, is_seq):
        """A legal upstream of a broadcast router: heads are unicast (a route word that arrives here) or
        broadcast (a fork tag that arrives here; from the local port, destination 0xFFFF); body flits
        keep their head's kind. Records each packet's output set and the tracked flit's."""
        P, local = r.num_ports, r.local
        unicast, fork = self.masks[i]
        head, bc = s.payload.head, Signal(name=f"in{i}_bcast")
        if i == local:
            dest = s.payload.data[:DEST_WIDTH]
            m.d.comb += bc.eq(dest == BROADCAST_DEST)
            key, words = dest, unicast
        else:
            route = s.payload.route
            m.d.comb += bc.eq(s.payload.bcast)
            tw = self.broadcast.layout.width
            key = route
            words = unicast
        pkt_bc, pkt_mask, mask = Signal(name=f"in{i}_pkt_bcast"), Signal(P, name=f"in{i}_pkt_mask"), Signal(P, name=f"in{i}_mask")
        self.pkt_bc[i], self.pkt_mask[i] = pkt_bc, pkt_mask
        with m.If(head & ~bc):
            with m.Switch(key):
                for w, mk in words.items():
                    with m.Case(w):
                        m.d.comb += mask.eq(mk)
            m.d.comb += Assume(Cat(*[key == w for w in words]).any() if words else Const(0))
        with m.If(head & bc):
            if i == local:
                m.d.comb += mask.eq(fork[0])
            else:
                with m.Switch(route[:tw]):
                    for w, mk in fork.items():
                        with m.Case(w):
                            m.d.comb += mask.eq(mk)
                m.d.comb += Assume(((route >> tw) == 0) & (Cat(*[route[:tw] == w for w in fork]).any()
                                                           if fork else Const(0)))
        with m.If(~head):
            m.d.comb += [mask.eq(pkt_mask), Assume(bc == pkt_bc)]
        with m.If(mine & head):
            m.d.sync += [pkt_mask.eq(mask), pkt_bc.eq(bc)]
        with m.If(mine & is_lane & is_seq):
            m.d.sync += [self.tracked_in.eq(1), self.tracked_mask.eq(mask)]
            m.d.comb += self.rearmed.eq(1)

    def _broadcast_output(self, m, r, o, name, from_lane, seq, tracked_seq):
        """The tracked flit leaves by exactly its output set: never elsewhere, once per output, and by all
        of them before the lane's next flit leaves anywhere."""
        tracked = from_lane & (seq == tracked_seq)
        self.departing.append(tracked)
        check(m, self, "fork set", ~tracked | (self.tracked_in & self.tracked_mask.bit_select(o, 1)))
        check(m, self, "one copy per output", ~tracked | ~self.departed.bit_select(o, 1))
        check(m, self, "every copy before the next flit", ~(from_lane & (seq == tracked_seq + 1)) |
              ~self.tracked_in | (self.departed == self.tracked_mask))

    def _delivered(self, r, dest):
        """A head to ``dest`` is injected, not dropped: in range, and not this node without loopback."""
        ok = dest < r.topology.num_nodes
        return ok if self.config.loopback else ok & (dest != self.node)

    def _counters(self, m, r):
        """The source framing of docs/verification.md, restated: IDLE / FORWARD / DROP."""
        s = r.local_in
        take = s.valid & s.ready
        dest_ok = self._delivered(r, s.payload.data[:DEST_WIDTH])
        if self.broadcast is not None:         # 0xFFFF: a broadcast from here (docs/router.md)
            dest_ok = dest_ok | (s.payload.data[:DEST_WIDTH] == BROADCAST_DEST)
        expect = {n: Signal(16, name=f"expected_{n}") for n in COUNTERS}
        in_packet, dropping = Signal(name="mon_in_packet"), Signal(name="mon_dropping")
        with m.If(take):
            with m.If(~in_packet):
                with m.If(s.payload.head):
                    m.d.sync += [in_packet.eq(~s.payload.tail), dropping.eq(~dest_ok)]
                    with m.If(dest_ok):
                        m.d.sync += expect["injected"].eq(expect["injected"] + 1)
                    with m.Else():
                        m.d.sync += expect["dropped"].eq(expect["dropped"] + 1)
                with m.Else():
                    m.d.sync += expect["malformed"].eq(expect["malformed"] + 1)
            with m.Else():
                with m.If(s.payload.head):
                    m.d.sync += expect["malformed"].eq(expect["malformed"] + 1)
                with m.If(s.payload.tail):
                    m.d.sync += in_packet.eq(0)
        with m.If(self.local_xfer_tail):
            m.d.sync += expect["ejected"].eq(expect["ejected"] + 1)
        for n in COUNTERS:          # a counter shows an event one cycle after it (gates.count_after)
            shown = Signal(16, name=f"shown_{n}")
            m.d.sync += shown.eq(expect[n])
            check(m, self, f"counter {n}", getattr(r, n) == shown)
        if self.with_invariants(r):  # the invariants: the source's framing, each counter's pending event
            src = r.units.source
            check(m, self, "source: framing is the monitor's",
                  (src.in_packet == in_packet) & (~in_packet | (src.dropping == dropping)))
            events = {**src.events, "ejected": r.ejected_event}
            for n in COUNTERS:
                check(m, self, f"counter {n}: the count and its pending event make the expected count",
                      (getattr(r, n) + events[n])[:16] == expect[n])

