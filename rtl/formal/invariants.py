"""The strengthening invariants of the router proofs (docs/formal.md "Invariants").

k-induction proves a property for every cycle when the property, together with these invariants, is
inductive: if they all hold in k consecutive states, they hold in the next. Each is a named assertion
(``runner.check``), proved with the properties, and each states one fact of the router's state:

* a FIFO's registers are consistent (:func:`fifo_view`): its buffer fills in order, its pointers are
  one-hot and as far apart as the buffer holds flits, its head reloads from the oldest entry;
* a lane's flits (in queue order: the head register, then the buffer from the oldest entry) are whole
  packets in order, each wanting one output, a body flit the output of its head, and they agree with the
  upstream's framing (the harness's ``in_packet``) and the route-at-write unit's packet registers;
* with the wormhole group: an output's lock is the harness's open packet there, and its owner lane holds
  the packet's next flit at its head (a body flit), and no other lane has a body flit for that output;
* with the conservation group: the followed lane's FIFO holds ``occupancy`` flits whose sequence numbers
  run on from ``out_seq``, with their head/tail copies, and the tracked flit's data word;
* the pipelined router: a lane's stage register first in its queue, the outputs' registered grants,
  tails, locks and ``barred`` bits, the pairwise arbiters' order, room downstream for a crossing flit.

They are written for the routers of the default networks: the route at the write (oblivious unicast
routing), one FIFO per input or VC, in flip-flops, one cycle per hop or pipelined; the broadcast
router's are in :mod:`.fork_invariants` (:func:`has_invariants`).
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from amaranth import Cat, Const, Elaboratable, Mux, Value
from amaranth.lib import data

from cubenoc.errors import CubenocError

from ..gates import any_of, onehot_mux
from .runner import check


class Elaborated(Elaboratable):
    """An already elaborated fragment, as a submodule (a harness elaborates the design first, to read
    its units' state: ``Router.units``, ``InputUnit.lanes``, ``HeadFifo.state`` ...)."""

    def __init__(self, fragment):
        self.fragment = fragment

    def elaborate(self, platform):
        return self.fragment


def has_invariants(router) -> bool:
    """The routers these invariants (or the broadcast router's, :mod:`.fork_invariants`) describe."""
    if router.queues != "fifo" or router.candidate_stage:
        return False
    if router.broadcast is not None:
        return router.num_vcs == 1 and not router.pipeline
    return router.route_at_write


@dataclass
class FifoView:
    count: Value              # flits inside
    entries: list             # (present, word) in queue order: the head register, then the buffer
    invariants: list          # (name, condition)


def one_hot(v) -> Value:
    return (v != 0) & ((v & (v - 1)) == 0)


def at_most_one(v) -> Value:
    return (v & (v - 1)) == 0


def fifo_view(fifo) -> FifoView:
    """The queue of an elaborated :class:`~cubenoc.rtl.router.fifo.HeadFifo` (flip-flop storage) and the
    invariants of its registers (:class:`~cubenoc.rtl.router.fifo.FifoState`)."""
    reg, B = fifo.state, fifo.depth - 1
    head, r_rdy = fifo.r_data, reg.r_rdy               # the head register (its top bits: ``top``)
    cleared = [("an empty FIFO's top bits read 0", r_rdy | (reg.top == 0))] if reg.top is not None else []
    if B == 0:                               # the head register alone: w_rdy is a register of its own
        return FifoView(r_rdy, [(r_rdy, head)], [("takes a flit exactly when empty", fifo.w_rdy == ~r_rdy), *cleared])
    if reg.buf is None:
        raise CubenocError("the formal invariants read FIFOs in flip-flops, not in memory")
    occ, rptr, wptr, src, buf = reg.occ, reg.rptr, reg.wptr, reg.src, reg.buf
    count = r_rdy + sum(occ[k] for k in range(B))
    entries = [(r_rdy, head)]
    for k in range(B):                       # the k-th oldest buffered flit: rptr rotated on by k
        entries.append((occ[k], onehot_mux([(rptr[a], buf[(a + k) % B]) for a in range(B)])))

    def rotated(n):                          # the one-hot rptr moved on by n places
        return Cat(*[rptr[(a - n) % B] for a in range(B)])
    index = onehot_mux([(rptr[a], Const(a, len(src))) for a in range(B)])
    inv = [
        ("buffer filled in order", Cat(*[~occ[k + 1] | occ[k] for k in range(B - 1)]).all() if B > 1 else Const(1)),
        ("one oldest and one free entry", one_hot(rptr) & one_hot(wptr)),
        ("the free entry follows the buffered ones",
         Cat(*[(occ != (1 << n) - 1) | (wptr == rotated(n)) for n in range(B + 1)]).all()),
        ("buffered flits wait behind the head", ~occ[0] | r_rdy),
        ("the head reloads from the oldest entry", src == Mux(occ[0], index, B)),
    ]
    if reg.low is not None:
        inv.append(("the mux select's copy", reg.low == ~src[1]))
    return FifoView(count, entries, inv + cleared)


def lanes(router):
    """``(input, vc, lane)`` of every lane of the elaborated ``router`` (:class:`~cubenoc.rtl.router.input_unit.Lane`)."""
    return [(i, c, lane) for i, unit in router.units.inputs.items() for c, lane in enumerate(unit.lanes)]


def crossings(router) -> dict:
    """The pipelined router's ``{lane: [(output, granted bit)]}``: lane j's stage crosses output o this
    cycle when o's registered grant names it."""
    out = {}
    for o, unit in router.units.outputs.items() if router.pipeline else ():
        for r, j in enumerate(unit.positions):
            out.setdefault(j, []).append((o, unit.granted[r]))
    return out


def lane_queue(view: FifoView, stage=None, crossing=None):
    """A lane's flits in order, ``(count, [(present, word)])``: the pipelined lane's stage register first
    when it holds a flit (waiting, or crossing this cycle), then the FIFO's."""
    if stage is None:
        return view.count, view.entries
    held = ~stage.advance | (Const(0) if crossing is None else crossing)
    word = Cat(stage.stage.as_value(), stage.stage_want)
    shifted = [(Const(1), word), *view.entries]
    entries = [(Mux(held, p, q), Mux(held, w, v)) for (p, w), (q, v) in zip(shifted, [*view.entries, (Const(0), word)])]
    return held + view.count, entries


def fifo_checks(m, h, name: str, view: FifoView) -> None:
    """Assert a FIFO's own invariants (``view.invariants``), each named after ``name``."""
    for cond_name, cond in view.invariants:
        check(m, h, f"{name}: {cond_name}", cond)


def upstream_framing(m, h, lane: str, tails, count, in_packet, agrees=None) -> None:
    """The upstream is inside a packet exactly when the lane's last flit is not a tail (``tails`` in queue
    order); with ``agrees``, per last flit, what else the upstream's open packet agrees with."""
    for n, tail in enumerate(tails, 1):
        check(m, h, f"lane {lane}: the upstream's framing",
              (count != n) | ((in_packet == ~tail) & (~in_packet | (agrees[n - 1] if agrees else 1))))


def one_lock(m, h, lane: str, owns, unless=0) -> None:
    """A lane owns at most one output's lock (``unless``: a fork, which holds several)."""
    check(m, h, f"lane {lane}: at most one lock", at_most_one(Cat(*owns)) | unless)


def packets(m, h, lane: str, j: int, flits) -> None:
    """A lane's flits (``(present, flit)`` in queue order) carry its label and form whole packets."""
    check(m, h, f"lane {lane}: flits carry their lane", Cat(*[~p | (h.fields(f.data)[0] == j) for p, f in flits]).all())
    check(m, h, f"lane {lane}: whole packets in order",
          Cat(*[~q | (g.head == f.tail) for (_, f), (q, g) in pairwise(flits)]).all())


def source_framing(m, h, source, in_packet) -> None:
    """The source interface is inside a packet exactly when the upstream is, and then not dropping."""
    check(m, h, "source: framing follows the upstream", (source.in_packet == in_packet) & (~source.dropping | ~in_packet))


def add_invariants(m, harness, router, follow=None) -> None:
    """Assert every invariant of the elaborated ``router`` that ``harness``'s groups need.
    ``follow``: the conservation bookkeeping ``(lane, tracked_seq, tracked_data, in_seq, out_seq,
    occupancy)``."""
    h, V, P, local = harness, router.num_vcs, router.num_ports, router.local
    lay = router.flit_layout
    wormhole, parts = "wormhole" in h.groups, router.units
    cross, stages = crossings(router), {}
    for i, c, ln in lanes(router):
        fifo, route, stage = ln.fifo, ln.route, ln.stage
        stages[i * V + c] = stage
        j, lane = i * V + c, h.lane_name(i, c, local)
        view = fifo_view(fifo)
        fifo_checks(m, h, f"fifo {lane}", view)
        if i == local and h.local_free:      # any flits on the local input: only the FIFO's own registers
            continue
        count, queue = lane_queue(view, stage, any_of(g for _o, g in cross.get(j, ())))
        flits = [(p, data.View(lay, w[:lay.size]), w[lay.size:]) for p, w in queue]
        pkt_want, pkt_vc = route.pkt_want, route.pkt_vc
        in_packet = h.in_packet[j]

        def vc_of(f):
            return f.vc if V > 1 else Const(0)
        packets(m, h, lane, j, [(p, f) for p, f, _ in flits])
        check(m, h, f"lane {lane}: one output per flit",
              Cat(*[~p | at_most_one(w) for p, _, w in flits], at_most_one(pkt_want)).all())
        if V > 1:
            check(m, h, f"lane {lane}: every flit's VC is one of the V",
                  Cat(*[~p | (f.vc < V) for p, f, _ in flits], pkt_vc < V).all())
        check(m, h, f"lane {lane}: a body flit wants its head's output",
              Cat(*[~q | g.head | ((v == w) & (vc_of(g) == vc_of(f)))
                    for (_, f, w), (q, g, v) in pairwise(flits)]).all())
        upstream_framing(m, h, lane, [f.tail for _, f, _ in flits], count, in_packet)
        for n in range(1, len(flits) + 1):
            _, last, w = flits[n - 1]
            check(m, h, f"lane {lane}: the packet's output at the write",
                  (count != n) | ~in_packet | ((pkt_want == w) & (pkt_vc == vc_of(last))))
        if i == local:
            source_framing(m, h, parts.source, in_packet)
        if wormhole:
            _lane_locks(m, h, lane, j, flits, count, in_packet, pkt_want, pkt_vc, vc_of, P, V, local)
        if follow is not None:
            followed(m, h, f"lane {lane}", lane_entries(h, flits), count, follow, follow[0] == j)
        if stage is not None:
            for o, granted in cross.get(j, ()):
                check(m, h, f"lane {lane}: a crossing flit left the FIFO for its output",
                      ~granted | (stage.advance & stage.stage_want[o]))
    if router.pipeline:
        _pipelined_outputs(m, h, router, stages, wormhole)
    elif wormhole:
        for (o, c), busy in h.busy.items():
            locked = parts.outputs[o].locked
            check(m, h, f"lock {h.output_name(o, local)}: the open packet", locked[c] == busy)


def rotation(arbiter) -> Value:
    """The pairwise arbiter's ``before[q][r]`` registers are the order from some pointer position."""
    pos, size, before = arbiter.positions, arbiter.size, arbiter.before

    def order(pointer, q, r):
        return (pos[q] - pointer) % size < (pos[r] - pointer) % size
    return any_of(Cat(*[b == int(order(p, q, r)) for (q, r), b in before.items()]).all() for p in range(size))


def _pipelined_outputs(m, h, router, stages, wormhole):
    """The pipelined router's outputs: ``valid`` is the registered grant, its ``tail`` the crossing
    flit's; the crossing flit always has room downstream; the lock (set at the grant) is the open
    packet after the crossing, ``barred`` that lock seen by every other lane."""
    local, eject = router.local, router.units.eject
    for o, ou in router.units.outputs.items():
        name = h.output_name(o, local)
        granted, lanes_at = ou.granted, list(ou.positions)
        tail = onehot_mux([(granted[r], stages[j].stage.tail) for r, j in enumerate(lanes_at)])
        check(m, h, f"output {name}: valid is the registered grant", (ou.valid == granted.any()) & at_most_one(granted))
        if ou.arbiter.pairwise:       # (one requester: no order to keep)
            check(m, h, f"output {name}: the arbiter's order is a rotation", rotation(ou.arbiter))
        check(m, h, f"output {name}: its tail is the crossing flit's", ~ou.valid | (ou.tail == tail))
        room = (~eject.buffer.state.occ[0] if o == local else h.level[o] < h.depth)
        check(m, h, f"output {name}: the crossing flit has room downstream", ~ou.valid | room)
        if wormhole:
            busy, owner = h.busy[o, 0], h.owner[o, 0]
            crossing = onehot_mux([(granted[r], Const(j, len(owner))) for r, j in enumerate(lanes_at)])
            check(m, h, f"output {name}: the lock is the open packet after the crossing",
                  ou.locked == Mux(ou.valid, ~ou.tail, busy))
            now = Mux(ou.valid, crossing, owner)
            check(m, h, f"output {name}: barred for every lane but the lock's owner",
                  Cat(*[ou.barred[r] == (ou.locked & (now != j)) for r, j in enumerate(lanes_at)]).all())
    fifo_checks(m, h, "ejection buffer", fifo_view(eject.buffer))


def _lane_locks(m, h, lane, j, flits, count, in_packet, pkt_want, pkt_vc, vc_of, P, V, local):
    """A lane's packet in progress owns the lock of its output and VC, and only it."""
    owns = {(o, c): h.busy[o, c] & (h.owner[o, c] == j) for (o, c) in h.busy}
    present, first, want = flits[0]
    one_lock(m, h, lane, owns.values())
    check(m, h, f"lane {lane}: a body flit at the head holds its output's lock",
          ~present | first.head | any_of(want[o] & own & (vc_of(first) == c if o != local else 1)
                                         for (o, c), own in owns.items()))
    for (o, c), own in owns.items():
        check(m, h, f"lane {lane}: an owned output's packet goes on at the head",
              ~own | ~present | (~first.head & want[o] & ((vc_of(first) == c) if o != local else 1)))
        check(m, h, f"lane {lane}: the packet's output at the write",
              ~own | (count != 0) | ((pkt_want == 1 << o) & ((pkt_vc == c) if V > 1 and o != local else 1)))
    check(m, h, f"lane {lane}: the upstream's framing", (count != 0) | (in_packet == any_of(owns.values())))


def numbered_on(k: int, present, seq, data, out_seq, tracked_seq, tracked_data):
    """Entry ``k`` of a queue whose flits are numbered on from ``out_seq`` (the next to leave): (its
    sequence number is ``out_seq + k``, the tracked flit's data is intact), each true when absent."""
    return (~present | (seq == (out_seq + k)[:len(out_seq)]),
            ~present | (seq != tracked_seq) | (data == tracked_data))


def lane_entries(h, flits) -> list:
    """A router lane's flits (``(present, flit, ...)``) as :func:`followed` reads them: the sequence number
    and the head/tail copies in the data bits (``h.fields``)."""
    out = []
    for present, f, *_ in flits:
        _, seq, hbit, tbit = h.fields(f.data)
        out.append((present, seq, f.data, (hbit == f.head) & (tbit == f.tail)))
    return out


def followed(m, h, name, entries, count, follow, mine, forks: bool = False):
    """A followed queue (``mine``: it is the followed one): ``count`` flits inside, numbered on from
    ``out_seq``, labels intact (``entries``: ``(present, sequence number, data word, labels agree)`` in queue
    order). With ``forks`` (a broadcast router, where a flit leaves several times) numbered up to ``in_seq``;
    ``occupancy`` None: no occupancy count kept (the ejection buffer)."""
    tracked_lane, tracked_seq, tracked_data, in_seq, out_seq, occupancy = follow
    seq_bits = len(out_seq)
    if forks:
        out_seq = (in_seq - count)[:seq_bits]
    else:
        held = in_seq == (out_seq + count)[:seq_bits]
        check(m, h, f"{name}: the followed lane's occupancy",
              ~mine | (held if occupancy is None else (occupancy == count) & held))
    for k, (present, seq, word, labelled) in enumerate(entries):
        in_order, intact = numbered_on(k, present, seq, word, out_seq, tracked_seq, tracked_data)
        check(m, h, f"{name}: the followed lane's sequence numbers", ~mine | (in_order & (~present | labelled)))
        check(m, h, f"{name}: the tracked flit's data", ~mine | intact)
