"""Which (input port, output port) turns a routing function ever makes at each node.

The router's crossbar is pruned to these turns (docs/router.md, "Requests"): an input never requests an
output that ``allowed`` excludes, and that crossbar input is not built. The set is derived here, once,
by walking every source/destination pair -- ``src == dst`` included, which is the local->local turn --
through :meth:`RoutingFunction.candidates` (so adaptive functions contribute every choice). The RTL
generator and the cycle-accurate model both use this function. The same walk gives the route-word bits
every packet agrees on at each input, turn and output (:func:`fixed_route_bits`), which the router
drives as constants (docs/router.md "Fixed route bits").
"""
from __future__ import annotations

from functools import lru_cache


from .base import RoutingFunction

Turn = tuple[int, int]


def allowed_turns(routing: RoutingFunction) -> list[frozenset[Turn]]:
    """Per node, the set of ``(in_port, out_port)`` turns; the local port is ``local_port(node)``. The
    local -> local turn is among them (a packet to its own node); a router without loopback drops it
    (the network plan, sim/plan.py)."""
    return list(_allowed_turns_cached(routing))


def turns_at(routing: RoutingFunction, node: int) -> frozenset[Turn]:
    """:func:`allowed_turns` of one node."""
    return _allowed_turns_cached(routing)[node]


def _allowed_turns_cached(routing: RoutingFunction) -> tuple[frozenset[Turn], ...]:
    return _walk(routing)[0]


@lru_cache(maxsize=64)
def _walk(routing: RoutingFunction):
    """``(turns, fixed)`` per node: the turns, and the route bits fixed (``fixed_route_bits``), from the AND
    and the OR of the words seen."""
    topo = routing.topology
    layout = routing.layout
    arrive: list[dict] = [{} for _ in topo.nodes()]       # in port -> (AND, OR) of the words arriving
    leave: list[dict] = [{} for _ in topo.nodes()]        # turn -> (AND, OR) of the new words
    limit = 4 * topo.num_nodes + 8
    for src in topo.nodes():
        for dst in topo.nodes():
            # states: (node, input port the head arrived on, packed header)
            frontier = [(src, topo.local_port(src), layout.pack(routing.inject(src, dst)))]
            seen = set(frontier)
            steps = 0
            while frontier:
                steps += 1
                if steps > limit:
                    raise AssertionError(f"{routing.name}: packet {src}->{dst} may not terminate (> {limit} hops)")
                nxt = []
                for node, in_port, word in frontier:
                    x = arrive[node].get(in_port)
                    arrive[node][in_port] = (word, word) if x is None else (x[0] & word, x[1] | word)
                    for hop in routing.candidates(node, layout.unpack(word)):
                        new, turn = layout.pack(hop.header), (in_port, hop.port)
                        x = leave[node].get(turn)
                        leave[node][turn] = (new, new) if x is None else (x[0] & new, x[1] | new)
                        if hop.port == topo.local_port(node):
                            continue
                        far = topo.neighbor(node, hop.port)
                        if far is None:
                            raise AssertionError(f"{routing.name}: {src}->{dst} uses unconnected port "
                                                 f"{hop.port} at {node}")
                        state = (far[0], far[1], new)
                        if state not in seen:
                            seen.add(state)
                            nxt.append(state)
                frontier = nxt
    fixed = []
    for a_in, a_turn in zip(arrive, leave):
        bits = {("in", p): ao for p, ao in a_in.items()} | {("turn", *t): ao for t, ao in a_turn.items()}
        for (_, o), (a, b) in a_turn.items():
            x = bits.get(("out", o))
            bits["out", o] = (a, b) if x is None else (x[0] & a, x[1] | b)
        fixed.append({k: (~(a ^ b) & ((1 << layout.width) - 1), a & ~(a ^ b)) for k, (a, b) in bits.items()})
    common: dict = {}                     # what every node that sees a key fixes, to the same value
    for f in fixed:
        for k, (mask, value) in f.items():
            cm, cv = common.get(k, (mask, value))
            cm &= mask & ~(cv ^ value)
            common[k] = (cm, cv & cm)
    return tuple(frozenset(t) for t in leave), tuple(fixed), common


def fixed_route_bits(routing: RoutingFunction, node: int | None) -> dict:
    """The route-word bits that every packet fixes at ``node`` (None: at every node alike, for a router
    built once for all nodes), as ``(mask, value)`` (mask: the bits all the words agree on, value:
    theirs), keyed ``("in", port)`` for the words arriving on an input, ``("turn", in_port, out_port)``
    for the new words a turn gives and ``("out", port)`` for the new words leaving by an output. For the
    router's constant bits (docs/router.md "Fixed route bits"); every candidate of an adaptive function
    counts."""
    if node is None:
        return dict(_walk(routing)[2])
    routing.topology.check_node(node)
    return dict(_walk(routing)[1][node])


def allowed_matrix(routing: RoutingFunction, node: int) -> list[list[bool]]:
    """``m[i][o]``: input ``i`` of ``node`` may ever request output ``o`` (ports ``0..local_port``)."""
    topo = routing.topology
    topo.check_node(node)
    ports = topo.local_port(node) + 1
    turns = turns_at(routing, node)
    return [[(i, o) in turns for o in range(ports)] for i in range(ports)]
