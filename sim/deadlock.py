"""Deadlock check: the channel dependency graph (Dally and Seitz) of a topology + routing function.

A channel is ``(node, out_port, vc)``. A packet holding channel ``c`` and asking for channel ``d`` next
adds the edge ``c -> d``. A routing function is deadlock-free (for wormhole switching with these
channels) when the graph is acyclic. The graph is built by walking every source/destination pair
through :meth:`RoutingFunction.candidates`, so adaptive functions contribute every choice they may take.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from .routing.base import RoutingFunction

Channel = tuple[int, int, int]


@dataclass
class DeadlockReport:
    routing: str
    topology: str
    num_vcs: int
    channels: int
    dependencies: int
    cycle: list[Channel] | None = field(default=None)

    @property
    def deadlock_free(self) -> bool:
        return self.cycle is None

    def describe(self, topology=None) -> str:
        head = (f"{self.routing} on {self.topology} with {self.num_vcs} VC(s): {self.channels} channels, "
                f"{self.dependencies} dependencies: ")
        if self.cycle is None:
            return head + "acyclic (deadlock-free)"
        def name(c):
            node, port, vc = c
            if topology is None:
                return f"{node}.p{port}.vc{vc}"
            return f"{topology.format_node(node)}.{topology.port_name(node, port)}.vc{vc}"
        return head + f"cycle of length {len(self.cycle)}: " + " -> ".join(name(c) for c in self.cycle)


def channel_dependency_graph(routing: RoutingFunction, pairs=None) -> nx.DiGraph:
    """The dependency graph over every (src, dst) pair (or the given ``pairs``)."""
    topo = routing.topology
    layout = routing.layout
    g = nx.DiGraph()
    if pairs is None:
        pairs = ((s, d) for s in topo.nodes() for d in topo.nodes() if s != d)
    limit = 4 * topo.num_nodes + 8
    for src, dst in pairs:
        header = routing.inject(src, dst)
        # states: (node, packed header, channel held on arrival or None at the source)
        frontier = [(src, layout.pack(header), None)]
        seen = set(frontier)
        steps = 0
        while frontier:
            steps += 1
            if steps > limit:
                raise AssertionError(f"{routing.name}: packet {src}->{dst} may not terminate (> {limit} hops)")
            nxt = []
            for node, word, held in frontier:
                for hop in routing.candidates(node, layout.unpack(word)):
                    if hop.port == topo.local_port(node):
                        continue
                    far = topo.neighbor(node, hop.port)
                    if far is None:
                        raise AssertionError(f"{routing.name}: {src}->{dst} uses unconnected port {hop.port} at {node}")
                    ch = (node, hop.port, hop.vc)
                    g.add_node(ch)
                    if held is not None:
                        g.add_edge(held, ch)
                    state = (far[0], layout.pack(hop.header), ch)
                    if state not in seen:
                        seen.add(state)
                        nxt.append(state)
            frontier = nxt
    return g


def check_deadlock(routing: RoutingFunction, pairs=None) -> DeadlockReport:
    """Build the dependency graph and report one cycle if there is any."""
    g = channel_dependency_graph(routing, pairs)
    try:
        cyc = nx.find_cycle(g)
        cycle = [u for u, _v in cyc]
    except nx.NetworkXNoCycle:
        cycle = None
    return DeadlockReport(routing.name, repr(routing.topology), routing.num_vcs,
                          g.number_of_nodes(), g.number_of_edges(), cycle)


# ---- broadcast forks (docs/router.md "Broadcast and multicast") -----------------------------------
def broadcast_dependency_graph(routing: RoutingFunction, alg, pairs=None) -> nx.DiGraph:
    """The unicast dependency graph plus the fork edges of ``alg`` from every source: a broadcast
    copy that arrived over channel ``c`` waits (holding ``c``'s buffer) until every branch ``d`` it
    forks onto is free and empty, so ``c -> d`` for each branch. The router acquires all branches at
    once, so a fork never holds one branch while waiting for another: no edges between branches. After
    its head is placed a broadcast of at most D flits never blocks on a network branch (every branch
    FIFO was empty), so the head's waits are the only ones."""
    from .broadcast.fork import fork_entry
    g = channel_dependency_graph(routing, pairs)
    topo = alg.topology
    seen = set()
    for src in topo.nodes():
        e = fork_entry(alg, src, True, 0)
        frontier = [(src, p, e.new_tags[p]) for p in e.ports]
        for ch in frontier:
            g.add_node((ch[0], ch[1], 0))
        while frontier:
            nxt = []
            for v, p, word in frontier:
                u, _q = topo.neighbor(v, p)
                held = (v, p, 0)
                f = fork_entry(alg, u, False, word)
                for o in f.ports:
                    ch = (u, o, 0)
                    g.add_edge(held, ch)
                    if (u, o, f.new_tags[o]) not in seen:
                        seen.add((u, o, f.new_tags[o]))
                        nxt.append((u, o, f.new_tags[o]))
            frontier = nxt
    return g


def check_broadcast_deadlock(routing: RoutingFunction, alg, pairs=None) -> DeadlockReport:
    """:func:`check_deadlock` for a network whose routers also fork ``alg``'s broadcasts."""
    g = broadcast_dependency_graph(routing, alg, pairs)
    try:
        cycle = [u for u, _v in nx.find_cycle(g)]
    except nx.NetworkXNoCycle:
        cycle = None
    return DeadlockReport(f"{routing.name}+{alg.name}", repr(routing.topology), routing.num_vcs,
                          g.number_of_nodes(), g.number_of_edges(), cycle)
