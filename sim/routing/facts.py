"""One walk of every (source, destination) pair through a routing function, and everything it tells.

:func:`route_facts` follows each packet's every candidate hop (:meth:`RoutingFunction.candidates`, so an
adaptive function contributes every choice) and its deterministic route (:meth:`RoutingFunction.route`),
and collects in one pass what the router generator, the model, the formal harness and the analysis
need:

* ``turns[v]``: the ``(in_port, out_port)`` turns node v ever makes (``src == dst`` included: the local ->
  local turn), the crossbar's pruning (docs/router.md "Requests");
* ``fixed[v]`` / ``common``: the route-word bits every packet agrees on at each input, turn and output of
  node v / of every node alike (docs/router.md "Fixed route bits");
* ``arrivals[v]``: ``{(in_port, vc): {route word}}`` the headers that arrive at v over a link on the
  deterministic route (the formal harness's legal inputs);
* ``weights[v]``: fair arbitration's ``{(o, j): {new route word: sources}}`` (docs/router.md "Arbitration":
  how many sources' packets to the word's destination come through lane j and leave by output o);
* ``dependencies``: the channel dependency graph's edges ``(node, port, vc) -> (node, port, vc)`` (Dally
  and Seitz), and ``channels``, every channel a packet uses.

The hop bound of every walk is :func:`~.base.hop_limit`. The facts are cached per routing function object.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .base import RoutingFunction, hop_limit


@dataclass(frozen=True)
class RouteFacts:
    turns: tuple            # per node: frozenset of (in_port, out_port)
    fixed: tuple            # per node: {key: (mask, value)}
    common: dict            # key -> (mask, value) that every node seeing the key agrees on
    arrivals: tuple         # per node: {(in_port, vc): frozenset of route words}
    weights: tuple          # per node: {(o, j): {word: sources}}
    channels: frozenset     # (node, port, vc) used by some packet
    dependencies: frozenset  # (held channel, next channel)


def route_facts(routing: RoutingFunction) -> RouteFacts:
    """The facts of every (source, destination) pair of ``routing`` (cached)."""
    return _facts(routing, None)


def pair_dependencies(routing: RoutingFunction, pairs) -> tuple[frozenset, frozenset]:
    """``(channels, dependencies)`` of the given pairs only (the deadlock check of a sample)."""
    f = _facts(routing, tuple(pairs))
    return f.channels, f.dependencies


@lru_cache(maxsize=64)
def _facts(routing: RoutingFunction, pairs) -> RouteFacts:
    topo, layout = routing.topology, routing.layout
    nodes = list(topo.nodes())
    V = int(routing.num_vcs)
    limit = hop_limit(topo.num_nodes)
    arrive: list[dict] = [{} for _ in nodes]       # in port -> (AND, OR) of the words arriving
    leave: list[dict] = [{} for _ in nodes]        # turn -> (AND, OR) of the new words
    arrivals: list[dict] = [{} for _ in nodes]
    best: list[dict] = [{} for _ in nodes]         # fair weights
    channels, deps = set(), set()
    all_pairs = pairs is None
    by_dst: dict = {}
    for src, dst in (((s, d) for d in nodes for s in nodes) if all_pairs else pairs):
        by_dst.setdefault(dst, []).append(src)
    for dst, srcs in by_dst.items():
        count: dict = {}                  # (node, o, j) -> sources to dst through it (deterministic route)
        seen_w = set()                    # (node, o, j, word) on a deterministic route to dst
        for src in srcs:
            _candidates(routing, topo, layout, src, dst, limit, arrive, leave, channels, deps)
            if src != dst:
                _route(routing, topo, layout, V, src, dst, limit, arrivals, count, seen_w)
        for node, o, j, word in seen_w:   # the rest of a route depends on (node, word): a word names dst here
            words = best[node].setdefault((o, j), {})
            words[word] = max(words.get(word, 0), count[node, o, j])
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
    return RouteFacts(tuple(frozenset(t) for t in leave), tuple(fixed), common,
                      tuple({k: frozenset(w) for k, w in a.items()} for a in arrivals), tuple(best),
                      frozenset(channels), frozenset(deps))


def _candidates(routing, topo, layout, src, dst, limit, arrive, leave, channels, deps) -> None:
    """Every candidate hop of the packet src -> dst: turns, the words seen, channel dependencies."""
    # states: (node, input port the head arrived on, packed header, channel held on arrival or None)
    frontier = [(src, topo.local_port(src), layout.pack(routing.inject(src, dst)), None)]
    seen = set(frontier)
    steps = 0
    while frontier:
        steps += 1
        if steps > limit:
            raise AssertionError(f"{routing.name}: packet {src}->{dst} may not terminate (> {limit} hops)")
        nxt = []
        for node, in_port, word, held in frontier:
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
                    raise AssertionError(f"{routing.name}: {src}->{dst} uses unconnected port {hop.port} at {node}")
                ch = (node, hop.port, hop.vc)
                channels.add(ch)
                if held is not None:
                    deps.add((held, ch))
                state = (far[0], far[1], new, ch)
                if state not in seen:
                    seen.add(state)
                    nxt.append(state)
        frontier = nxt


def _route(routing, topo, layout, V, src, dst, limit, arrivals, count, seen_w) -> None:
    """The deterministic route of src -> dst: arrivals per (port, vc), and fair arbitration's counts."""
    node, j, header = src, topo.local_port(src) * V, routing.inject(src, dst)
    for _ in range(limit):
        hop = routing.route(node, header)
        local = hop.port == topo.local_port(node)
        count[node, hop.port, j] = count.get((node, hop.port, j), 0) + 1
        seen_w.add((node, hop.port, j, 0 if local else layout.pack(hop.header)))
        if local:
            return
        far = topo.neighbor(node, hop.port)
        node, header = far[0], hop.header
        j = far[1] * V + (hop.vc if V > 1 else 0)
        arrivals[node].setdefault((far[1], hop.vc), set()).add(layout.pack(header))
    raise AssertionError(f"{routing.name}: packet {src}->{dst} not delivered within {limit} hops")
