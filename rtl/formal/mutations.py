"""Seeded bugs (docs/formal.md "Seeded bugs"): each a switch in the unit it breaks, off in every build, or
(the AXI4-Stream interface's) a subclass of the unit in rtl/formal/axis_ni.py, built only by the proofs.

A unit asks ``mutant("NAME")`` while it elaborates and, only then, builds the broken variant. The switch is
on inside ``with seeded("NAME"):`` (what ``cubenoc prove --mutate NAME`` and tests/test_formal.py wrap a
proof's conversion in), so each bug shows that some named property catches it, with a counterexample.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

from cubenoc.errors import CubenocError


@dataclass(frozen=True)
class Mutation:
    unit: str          # the unit (file) that carries the switch
    bug: str           # what goes wrong
    check: str         # the proof that catches it: a router property group, "arbiter", "ready", "fork",
                       # "pipeline" (conservation of the pipelined router), "eject" (its ejection buffer),
                       # "axis" (the AXI4-Stream interface's harness) or "axis-paths" (its node's structural check)
    caught_by: str     # the name (prefix) of the property that fails


#: name -> the seeded bug
MUTATIONS = {
    "full-fifo-takes-flit": Mutation("HeadFifo", "a full FIFO still says ready: the write overwrites a flit",
                                         "conservation", "bounded occupancy"),
    "duplicated-pop": Mutation("HeadFifo", "a pop moves the pointers but keeps the head: a flit leaves twice",
                               "conservation", "in order"),
    "stalled-flit-popped": Mutation("OutputUnit", "tells the input a stalled body flit was sent: it is lost",
                                    "conservation", "in order"),
    "grant-changes-under-stall": Mutation("OutputUnit", "the arbiter may pick another winner while the offer "
                                            "is stalled: the payload changes", "stream", "stream rule"),
    "body-flit-frees-lock": Mutation("OutputUnit", "a body flit frees the wormhole lock: another packet "
                                             "cuts in", "wormhole", "wormhole"),
    "head-ignores-lock": Mutation("InputUnit", "a head requests an output another packet holds",
                                      "wormhole", "wormhole"),
    "ready-waits-for-valid": Mutation("InputUnit", "a link input raises ready only with valid (legal AXI, not "
                                      "cubenoc's contract)", "ready", "input ready independent of valid"),
    "counter-misses-drop": Mutation("SourceInterface", "a dropped one-flit packet is not counted",
                                      "counters", "counter dropped"),
    "fork-skips-copy": Mutation("ForkStage", "a fork to several outputs forgets the lowest one: a copy is "
                                  "never sent", "fork", "every copy before the next flit"),
    "stage-ignores-room": Mutation("PipeStage", "the pipelined lane requests an output without room downstream "
                                   "(with --pipeline)", "pipeline", "in order"),
    "eject-loses-stalled-flit": Mutation("EjectBuffer", "a flit crossing to a stalled local_out is not written "
                                         "into the ejection buffer: it is lost (with --pipeline)", "eject", "stream rule local_out"),
    "header-waits-for-tready": Mutation("AxisNetworkInterface", "the egress takes a header flit only with tready "
                                        "(a subclass in rtl/formal/axis_ni.py; with interface=axis)", "axis",
                                        "tvalid independent of tready (no waiting)"),
    "tvalid-waits-for-tready": Mutation("AxisNetworkInterface", "m_axis tvalid is gated by tready, a combinational "
                                        "path (a subclass in rtl/formal/axis_ni.py; with interface=axis)", "axis-paths",
                                        "tvalid independent of tready (no waiting)"),
    "stuck-pointer": Mutation("RoundRobinArbiter", "the pointer never moves: a requester can starve",
                              "arbiter", "bounded waiting"),
    "skips-input": Mutation("RoundRobinArbiter", "requester 0 is granted only when it requests alone",
                               "arbiter", "bounded waiting"),
}

_active: list[str] = []


def mutant(name: str) -> bool:
    """Whether the seeded bug ``name`` is switched on (a unit asks while it elaborates)."""
    if name not in MUTATIONS:
        raise CubenocError(f"no seeded bug {name!r}")
    return name in _active


@contextmanager
def seeded(name: str | None):
    """Switch the seeded bug ``name`` on (None: nothing) for the elaborations inside the block."""
    if name is not None and name not in MUTATIONS:
        raise CubenocError(f"seeded bug must be one of {', '.join(MUTATIONS)}, got {name!r}")
    if name is not None:
        _active.append(name)
    try:
        yield
    finally:
        if name is not None:
            _active.remove(name)
