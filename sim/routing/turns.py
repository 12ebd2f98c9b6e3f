"""Which (input port, output port) turns a routing function ever makes at each node.

The router's crossbar is pruned to these turns (docs/router.md, "Requests"): an input never requests an
output that ``allowed`` excludes, and that crossbar input is not built. The set is derived here, once,
by walking every source/destination pair -- ``src == dst`` included, which is the local->local turn --
through :meth:`RoutingFunction.candidates` (so adaptive functions contribute every choice). The RTL
generator and the cycle-accurate model both use this function.
"""
from __future__ import annotations

from functools import lru_cache

from .base import RoutingFunction

Turn = tuple[int, int]


def allowed_turns(routing: RoutingFunction) -> list[frozenset[Turn]]:
    """Per node, the set of ``(in_port, out_port)`` turns; the local port is ``local_port(node)``."""
    return list(_allowed_turns_cached(routing))


@lru_cache(maxsize=64)
def _allowed_turns_cached(routing: RoutingFunction) -> tuple[frozenset[Turn], ...]:
    topo = routing.topology
    layout = routing.layout
    turns: list[set[Turn]] = [set() for _ in topo.nodes()]
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
                    for hop in routing.candidates(node, layout.unpack(word)):
                        turns[node].add((in_port, hop.port))
                        if hop.port == topo.local_port(node):
                            continue
                        far = topo.neighbor(node, hop.port)
                        if far is None:
                            raise AssertionError(f"{routing.name}: {src}->{dst} uses unconnected port "
                                                 f"{hop.port} at {node}")
                        state = (far[0], far[1], layout.pack(hop.header))
                        if state not in seen:
                            seen.add(state)
                            nxt.append(state)
                frontier = nxt
    return tuple(frozenset(t) for t in turns)


def allowed_matrix(routing: RoutingFunction, node: int) -> list[list[bool]]:
    """``m[i][o]``: input ``i`` of ``node`` may ever request output ``o`` (ports ``0..local_port``)."""
    topo = routing.topology
    topo.check_node(node)
    ports = topo.local_port(node) + 1
    turns = _allowed_turns_cached(routing)[node]
    return [[(i, o) in turns for o in range(ports)] for i in range(ports)]
