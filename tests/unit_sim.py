"""Shared by the per-unit tests (tests/test_unit_*.py): the amaranth.sim runner, flit packing, hypothesis
settings and strategies over flits and ready patterns, and each unit's parameters built without a Router."""
from __future__ import annotations

from functools import partial

from amaranth.sim import Simulator
from hypothesis import settings
from hypothesis import strategies as st

from cubenoc.rtl.flit import link_flit_layout
from cubenoc.sim.network_plan import NetworkPlan
from cubenoc.rtl.gates import node_width
from cubenoc.rtl.route import rtl_for
from cubenoc.rtl.route.base import NodeUnit

SETTINGS = settings(max_examples=12, deadline=None)


def run(dut, bench, clock=True):
    """Run ``bench`` on ``dut`` (``clock=False``: a combinational unit, no sync domain)."""
    sim = Simulator(dut)
    if clock:
        sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


def pack(layout, fields: dict) -> int:
    """A flit as the integer of ``layout`` (fields given as integers)."""
    return sum(int(v) << layout[name].offset for name, v in fields.items())


def hop(routing, node, word):
    """``routing.route`` on a packed route word (None for words no packet carries)."""
    try:
        return routing.route(node, routing.layout.unpack(word))
    except Exception:                      # noqa: BLE001 - words no packet carries
        return None


def route_unit(routing, node, generic=False) -> NodeUnit:
    """``node``'s route unit as a unit parameter (``generic``: its node_id from the holder's input)."""
    return NodeUnit(partial(rtl_for(routing).route_unit, node), node, node_width(routing.topology) if generic else 0)


def inject_unit(routing, node, generic=False) -> NodeUnit:
    return NodeUnit(partial(rtl_for(routing).inject_unit, node), node, node_width(routing.topology) if generic else 0)


def layout(routing, broadcast=None):
    return link_flit_layout(routing, 32, broadcast)


#: one cycle of a flit source: (head, tail, data, valid); and a ready pattern: bits, mostly set
flit_bits = st.tuples(st.booleans(), st.booleans(), st.integers(0, 2**32 - 1), st.booleans())


def ready_bits(n: int):
    return st.integers(0, (1 << n) - 1)


def cycles(step, min_size=20, max_size=80):
    """A stimulus of ``step`` per cycle (hypothesis shrinks it cycle by cycle)."""
    return st.lists(step, min_size=min_size, max_size=max_size)


def legal_words(topo, routing, node, port):
    """The route words packets arrive with (a legal upstream, as the formal harness assumes: the router fixes
    the bits they all agree on, docs/router.md "Fixed route bits")."""
    if port == topo.local_port(node):
        return sorted({routing.layout.pack(routing.inject(node, d)) for d in topo.nodes()})
    return sorted(set().union(*[w for (p, _), w in NetworkPlan(routing.topology, routing).arrivals(node).items() if p == port]))
