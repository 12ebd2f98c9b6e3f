"""Which (input port, output port) turns a routing function ever makes at each node.

The router's crossbar is pruned to these turns (docs/router.md, "Requests"): an input never requests an
output that ``allowed`` excludes, and that crossbar input is not built. The turns and the route-word bits
every packet agrees on at each input, turn and output (:func:`fixed_route_bits`, which the router drives
as constants: docs/router.md "Fixed route bits") come from the one walk of every source/destination pair
(:func:`~.facts.route_facts`); the network plan (sim/network_plan.py) adds the router options to them.
"""
from __future__ import annotations


from .base import RoutingFunction
from .facts import route_facts

Turn = tuple[int, int]


def allowed_turns(routing: RoutingFunction) -> list[frozenset[Turn]]:
    """Per node, the set of ``(in_port, out_port)`` turns; the local port is ``local_port(node)``. The
    local -> local turn is among them (a packet to its own node); a router without loopback drops it
    (the network plan, sim/network_plan.py)."""
    return list(_allowed_turns_cached(routing))


def turns_at(routing: RoutingFunction, node: int) -> frozenset[Turn]:
    """:func:`allowed_turns` of one node."""
    return _allowed_turns_cached(routing)[node]


def _allowed_turns_cached(routing: RoutingFunction) -> tuple[frozenset[Turn], ...]:
    return route_facts(routing).turns


def fixed_route_bits(routing: RoutingFunction, node: int | None) -> dict:
    """The route-word bits that every packet fixes at ``node`` (None: at every node alike, for a router
    built once for all nodes), as ``(mask, value)`` (mask: the bits all the words agree on, value:
    theirs), keyed ``("in", port)`` for the words arriving on an input, ``("turn", in_port, out_port)``
    for the new words a turn gives and ``("out", port)`` for the new words leaving by an output. For the
    router's constant bits (docs/router.md "Fixed route bits"); every candidate of an adaptive function
    counts."""
    if node is None:
        return dict(route_facts(routing).common)
    routing.topology.check_node(node)
    return dict(route_facts(routing).fixed[node])
