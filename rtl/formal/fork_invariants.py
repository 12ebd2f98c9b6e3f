"""The strengthening invariants of the broadcast router (docs/formal.md "Invariants"): the route at the
FIFO head (``cur_out``), the fork stage (``held``, ``done``, ``bmode``), the locks a fork acquires, and
the tracked flit's output set (property 2b).

Per lane, the FIFO's flits carry words that arrive there and form whole packets of one kind each; a
packet's output set (``mask``) is its head's (a unicast head's port, a broadcast head's fork set), or,
for the packet already leaving, the fork's ``held`` outputs or the unicast ``cur_out``.
"""
from __future__ import annotations

from itertools import combinations

from amaranth import Cat, Const, Mux, Signal, Value
from amaranth.lib import data

from ..gates import any_of
from .invariants import (fifo_checks, fifo_view, followed, lane_entries, one_lock, packets, source_framing,
                         upstream_framing)
from .runner import check


def _mask_of(m, h, router, i, f, name):
    """``(mask, legal)`` of the head flit ``f`` in input ``i``'s FIFO: its output set, and whether its word
    is one a packet arrives with there."""
    unicast, fork = h.masks[i]
    routing, node, local = router.routing, router.node, router.local
    if i == local:                   # the source wrote inject(node, dest), or 0 for a broadcast
        unicast = {routing.layout.pack(routing.inject(node, d)): mk for d, mk in unicast.items()}
        fork_key, fork = Value.cast(f.route), {0: fork[0]}
    else:
        tw = router.broadcast.layout.width
        fork_key = Value.cast(f.route)[:tw]
    mask = Signal(router.num_ports, name=name)
    route = Value.cast(f.route)
    with m.If(f.bcast):
        with m.Switch(fork_key):
            for w, mk in fork.items():
                with m.Case(w):
                    m.d.comb += mask.eq(mk)
    with m.Else():
        with m.Switch(route):
            for w, mk in unicast.items():
                with m.Case(w):
                    m.d.comb += mask.eq(mk)
    tag_ok = any_of(fork_key == w for w in fork) & ((route >> len(fork_key)) == 0 if i != local else 1)
    legal = Mux(f.bcast, tag_ok, any_of(route == w for w in unicast))
    return mask, legal


def add_fork_invariants(m, h, router, follow=None) -> None:
    """Assert the broadcast router's invariants that ``h``'s groups need (``follow``: as
    :func:`~.invariants.add_invariants`)."""
    local, P, lay = router.local, router.num_ports, router.flit_layout
    outputs = router.units.outputs
    wormhole, held_of = bool(h.busy), {}       # who owns each output (the harness's, in every group)
    owns_any, views = {}, {}
    for i, unit in router.units.inputs.items():
        ln = unit.lanes[0]
        fs, view = ln.fork, fifo_view(ln.fifo)
        lane = h.lane_name(i, 0, local)
        fifo_checks(m, h, f"fifo {lane}", view)
        if i == local and h.local_free:
            continue
        held, done, bmode, cur_out = fs.held, fs.done, fs.bmode, ln.cur_out
        views[i] = view
        flits = [(p, data.View(lay, w)) for p, w in view.entries]
        count, in_packet = view.count, h.in_packet[i]
        heads = [_mask_of(m, h, router, i, f, f"in{i}_entry{k}_mask") for k, (_, f) in enumerate(flits)]
        leaving = Mux(bmode, held, Const(1, P) << cur_out)          # the output set of the packet leaving
        masks, kinds = [], []         # each flit's packet output set, and whether the packet is a broadcast
        for (_p, f), (mk, _legal) in zip(flits, heads):     # (a local body flit's bcast bit reads 0)
            masks.append(Mux(f.head, mk, masks[-1] if masks else leaving))
            kinds.append(Mux(f.head, f.bcast, kinds[-1] if kinds else bmode))
        owns = {o: h.busy[o, 0] & (h.owner[o, 0] == i) for o in range(P) if (o, 0) in h.busy}
        owns_any[i] = any_of(owns.values())
        present, first = flits[0]
        packets(m, h, lane, i, flits)
        check(m, h, f"lane {lane}: heads carry words that arrive here",
              Cat(*[~p | ~f.head | legal for (p, f), (_mk, legal) in zip(flits, heads)]).all())
        if i != local:
            check(m, h, f"lane {lane}: a body flit is of its head's kind",
                  Cat(*[~p | f.head | (f.bcast == kind) for (p, f), kind in zip(flits, kinds)]).all())
        upstream_framing(m, h, lane, [f.tail for _, f in flits], count, in_packet,
                         [(h.pkt_bc[i] == kind) & (h.pkt_mask[i] == mask) for kind, mask in zip(kinds, masks)])
        check(m, h, f"lane {lane}: the upstream's framing",
              (count != 0) | (~in_packet & ~bmode) | (in_packet & (h.pkt_bc[i] == bmode) & (h.pkt_mask[i] == leaving)))
        # the fork stage
        check(m, h, f"fork {lane}: done only where held, while its flit is inside",
              ((done & ~held) == 0) & ((done == 0) | (present & (done != held))))
        sets = set(h.masks[i][1].values()) if i != local else {h.masks[i][1][0]}
        check(m, h, f"fork {lane}: it holds a fork set of this input", (held == 0) | any_of(held == mk for mk in sets))
        check(m, h, f"fork {lane}: a packet forks while held",
              ((held != 0) | (~bmode & (done == 0))) & (~bmode | (held != 0)))
        check(m, h, f"fork {lane}: the held head is forked to its set",
              (held == 0) | bmode | (present & first.head & first.bcast & (held == heads[0][0]) & (done != held)))
        check(m, h, f"fork {lane}: a broadcast packet's body follows", ~bmode | ~present | ~first.head)
        check(m, h, f"lane {lane}: a unicast body follows its head", ~present | first.head | bmode | (held == 0))
        locked = Cat(*[outputs[o].locked if o in outputs else Const(0) for o in range(P)])
        holding = held & ~(done & first.tail.replicate(P))          # a tail sent frees its output at once
        held_of[i] = (holding, held, done, bmode)
        check(m, h, f"lane {lane}: a unicast body's output is locked",
              ~present | first.head | bmode | locked.bit_select(cur_out, 1))
        check(m, h, f"fork {lane}: its outputs are locked until the tail leaves", (holding & ~locked) == 0)
        if i == local:
            source_framing(m, h, router.units.source, in_packet)
        if wormhole:
            for o, own in owns.items():
                check(m, h, f"lane {lane}: an owned output's packet goes on",
                      ~own | Mux(held != 0, held.bit_select(o, 1), (cur_out == o) & (~present | ~first.head)))
                check(m, h, f"fork {lane}: the outputs a fork holds",
                      ~held[o] | Mux(done[o], own == ~first.tail, Mux(bmode, own, ~h.busy[o, 0])))
            check(m, h, f"lane {lane}: a unicast body holds its output's lock",
                  ~present | first.head | bmode | any_of(own & (cur_out == o) for o, own in owns.items()))
            check(m, h, f"lane {lane}: the upstream's framing", (count != 0) | (in_packet == (owns_any[i] | bmode)))
            one_lock(m, h, lane, owns.values(), held != 0)
        if follow is not None:
            followed(m, h, f"lane {lane}", lane_entries(h, flits), count, follow, follow[0] == i, forks=True)
            _fork_set(m, h, i, lane, flits, masks, held, done, follow)
    _output_checks(m, h, outputs, held_of, wormhole, local)


def _output_checks(m, h, outputs, held_of, wormhole, local) -> None:
    """Across the inputs: forks hold disjoint outputs, an output's lock is its open packet's or a fork's, and
    (stream) an output stalls only on a unicast offer (``held_of``: per input its holding, held, done, bmode)."""
    for a, b in combinations(list(held_of.values()), 2):
        check(m, h, "forks hold disjoint outputs", (a[0] & b[0]) == 0)
    if wormhole:
        for o in outputs:
            acquired = any_of(held[o] & ~bmode & ~done[o] for _, held, done, bmode in held_of.values())
            check(m, h, f"lock {h.output_name(o, local)}: the open packet or a fork's",
                  outputs[o].locked == (h.busy[o, 0] | acquired))
    if "stream" in h.groups:
        for o, (stalled, _held) in h.offers.items():
            ou, name = outputs[o], h.output_name(o, local)
            forked = Signal(name=f"{name}_was_forked")       # last cycle's offer was a fork's
            m.d.sync += forked.eq(ou.payload.bcast)
            check(m, h, f"output {name}: stalled is a stalled unicast offer", ou.stalled == (stalled & ~forked))


def _fork_set(m, h, i, lane, flits, masks, held, done, follow):
    """The tracked flit's output set and the copies sent: inside, at the head and forking, it has left by
    ``done``; gone, by its whole set."""
    tracked_lane, tracked_seq = follow[0], follow[1]
    mine = tracked_lane == i
    inside = any_of(p & (h.fields(f.data)[1] == tracked_seq) for p, f in flits)
    for k, (p, f) in enumerate(flits):
        is_tracked = p & (h.fields(f.data)[1] == tracked_seq)
        sent = (Mux(held != 0, done, 0) if k == 0 else Const(0))
        check(m, h, f"lane {lane}: the tracked flit's output set",
              ~mine | ~is_tracked | (h.tracked_in & (h.tracked_mask == masks[k]) & (h.departed == sent)))
    check(m, h, f"lane {lane}: the tracked flit has left by its whole set",
          ~mine | inside | (h.departed == Mux(h.tracked_in, h.tracked_mask, 0)))
