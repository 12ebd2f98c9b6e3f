"""Seeded bugs (docs/formal.md "Seeded bugs"; docs/decisions/seeded-bugs.md): each replaces one rule of a
production unit, a small method of it (``HeadFifo._has_room`` ...), with a broken one while a proof's
design is converted, or (the AXI4-Stream interface's) is a subclass of the unit in rtl/formal/axis_ni.py.
The production units carry no switch: they are the same code with or without a proof.

``with seeded("NAME"):`` (what ``cubenoc prove --mutate NAME`` and tests/test_formal.py wrap a proof's
conversion in) puts the broken rule on the unit's class for the elaborations inside the block, so each bug
shows that some named property catches it, with a counterexample.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from importlib import import_module
from typing import Callable

from amaranth import Const, Mux

from cubenoc.errors import CubenocError


@dataclass(frozen=True)
class Mutation:
    unit: str          # the unit (file) that carries the switch
    bug: str           # what goes wrong
    check: str         # the proof that catches it: a router property group, "arbiter", "ready", "fork",
                       # "pipeline" (conservation of the pipelined router), "eject" (its ejection buffer),
                       # "axis" (the AXI4-Stream interface's harness) or "axis-paths" (its node's structural check)
    caught_by: str     # the name (prefix) of the property that fails
    rule: str | None = None              # "module.Class.method" the bug replaces (None: a subclass)
    broken: Callable | None = None       # correct method -> the broken one


def always(value: int):
    """A broken rule that is the constant ``value``, whatever its inputs."""
    return lambda correct: lambda self, *inputs: Const(value)


def grant_skipping_0(correct):
    def broken(self, m, requests, pri):            # requester 0 is granted only when it requests alone
        correct(self, m, requests & ~1, pri)
        m.d.comb += self.grant[0].eq(self.requests == 1)
    return broken


def lowest_lost(correct):
    return lambda self, want: Mux((want & (want - 1)) != 0, want & (want - 1), want)


def stalled_body_leaves(correct):
    return lambda self, ready, flit: ready | ~flit.head


def body_frees_lock(correct):
    return lambda self, tail, head: tail | ~head


def ready_with_valid(correct):
    return lambda self, fifo, s: fifo.w_rdy & (1 if self.params.local else s.valid)


def one_flit_drop_missed(correct):
    return lambda self, flit: ~flit.tail


#: name -> the seeded bug
MUTATIONS = {
    "full-fifo-takes-flit": Mutation("HeadFifo", "a full FIFO still says ready: the write overwrites a flit",
                                         "conservation", "bounded occupancy", "fifo.HeadFifo._has_room",
        always(1)),
    "duplicated-pop": Mutation("HeadFifo", "a pop moves the pointers but keeps the head: a flit leaves twice",
                               "conservation", "in order", "fifo.HeadFifo._head_pops",
        always(0)),
    "stalled-flit-popped": Mutation("OutputUnit", "tells the input a stalled body flit was sent: it is lost",
                                    "conservation", "in order", "output_unit.OutputUnit._leaves",
        stalled_body_leaves),
    "grant-changes-under-stall": Mutation("OutputUnit", "the arbiter may pick another winner while the offer "
                                            "is stalled: the payload changes", "stream", "stream rule", "output_unit.OutputUnit._held_grant",
        always(0)),
    "body-flit-frees-lock": Mutation("OutputUnit", "a body flit frees the wormhole lock: another packet "
                                             "cuts in", "wormhole", "wormhole", "output_unit.OutputUnit._frees_lock",
        body_frees_lock),
    "head-ignores-lock": Mutation("InputUnit", "a head requests an output another packet holds",
                                      "wormhole", "wormhole", "input_unit.InputUnit._lock_seen",
        always(0)),
    "ready-waits-for-valid": Mutation("InputUnit", "a link input raises ready only with valid (legal AXI, not "
                                      "cubenoc's contract)", "ready", "input ready independent of valid", "input_unit.InputUnit._link_ready",
        ready_with_valid),
    "counter-misses-drop": Mutation("SourceInterface", "a dropped one-flit packet is not counted",
                                      "counters", "counter dropped", "source.SourceInterface._drop_counted",
        one_flit_drop_missed),
    "fork-skips-copy": Mutation("ForkStage", "a fork to several outputs forgets the lowest one: a copy is "
                                  "never sent", "fork", "every copy before the next flit", "fork_stage.ForkStage._fork_set",
        lowest_lost),
    "stage-ignores-room": Mutation("PipeStage", "the pipelined lane requests an output without room downstream "
                                   "(with --pipeline)", "pipeline", "in order", "pipe_stage.PipeStage._room",
        always(1)),
    "eject-loses-stalled-flit": Mutation("EjectBuffer", "a flit crossing to a stalled local_out is not written "
                                         "into the ejection buffer: it is lost (with --pipeline)", "eject", "stream rule local_out", "eject_buffer.EjectBuffer._stalled",
        always(0)),
    "header-waits-for-tready": Mutation("AxisNetworkInterface", "the egress takes a header flit only with tready "
                                        "(a subclass in rtl/formal/axis_ni.py; with interface=axis)", "axis",
                                        "tvalid independent of tready (no waiting)"),
    "tvalid-waits-for-tready": Mutation("AxisNetworkInterface", "m_axis tvalid is gated by tready, a combinational "
                                        "path (a subclass in rtl/formal/axis_ni.py; with interface=axis)", "axis-paths",
                                        "tvalid independent of tready (no waiting)"),
    "stuck-pointer": Mutation("RoundRobinArbiter", "the pointer never moves: a requester can starve",
                              "arbiter", "bounded waiting", "arbiter.RoundRobinArbiter._moves",
        always(0)),
    "skips-input": Mutation("RoundRobinArbiter", "requester 0 is granted only when it requests alone",
                               "arbiter", "bounded waiting", "arbiter.RoundRobinArbiter._grant",
        grant_skipping_0),
}


@contextmanager
def seeded(name: str | None):
    """Switch the seeded bug ``name`` on (None: nothing) for the elaborations inside the block: its unit's
    class takes the broken rule, and the correct one back afterwards."""
    if name is not None and name not in MUTATIONS:
        raise CubenocError(f"seeded bug must be one of {', '.join(MUTATIONS)}, got {name!r}")
    bug = MUTATIONS.get(name)
    if bug is None or bug.rule is None:      # none, or a subclass the harness builds itself
        yield
        return
    module, cls, method = bug.rule.rsplit(".", 2)
    unit = getattr(import_module(f"cubenoc.rtl.router.{module}"), cls)
    correct = unit.__dict__[method]
    setattr(unit, method, bug.broken(correct))
    try:
        yield
    finally:
        setattr(unit, method, correct)
