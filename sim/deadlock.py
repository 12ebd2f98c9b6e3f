"""Deadlock check: the channel dependency graph (Dally and Seitz) of a topology + routing function.

A channel is ``(node, out_port, vc)``. A packet holding channel ``c`` and asking for channel ``d`` next
adds the edge ``c -> d``. A routing function is deadlock-free (for wormhole switching with these
channels) when the graph is acyclic. The graph comes from the one walk of every source/destination pair
(sim/routing/facts.py) through :meth:`RoutingFunction.candidates`, so adaptive functions contribute every
choice they may take.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .broadcast.fork import fork_entry
from .dependency_graph import DependencyGraph
from .routing.base import RoutingFunction
from .routing.facts import pair_dependencies, route_facts

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


def channel_dependency_graph(routing: RoutingFunction, pairs=None) -> DependencyGraph:
    """The dependency graph over every (src, dst) pair (or the given ``pairs``): the channels and
    dependencies of the one walk of every pair (sim/routing/facts.py)."""
    if pairs is None:
        facts = route_facts(routing)
        channels, deps = facts.channels, facts.dependencies
    else:
        channels, deps = pair_dependencies(routing, pairs)
    return DependencyGraph(sorted(channels), sorted(deps))


def check_deadlock(routing: RoutingFunction, pairs=None) -> DeadlockReport:
    """Build the dependency graph and report one cycle if there is any."""
    g = channel_dependency_graph(routing, pairs)
    return DeadlockReport(routing.name, repr(routing.topology), routing.num_vcs,
                          g.number_of_nodes(), g.number_of_edges(), g.find_cycle())


# ---- broadcast forks (docs/router.md "Broadcast and multicast") -----------------------------------
def broadcast_dependency_graph(routing: RoutingFunction, alg, pairs=None) -> DependencyGraph:
    """The unicast dependency graph plus the fork edges of ``alg`` from every source: a broadcast
    copy that arrived over channel ``c`` waits (holding ``c``'s buffer) until every branch ``d`` it
    forks onto is free and empty, so ``c -> d`` for each branch. The router acquires all branches at
    once, so a fork never holds one branch while waiting for another: no edges between branches. After
    its head is placed a broadcast of at most D flits never blocks on a network branch (every branch
    FIFO was empty), so the head's waits are the only ones."""
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
    return DeadlockReport(f"{routing.name}+{alg.name}", repr(routing.topology), routing.num_vcs,
                          g.number_of_nodes(), g.number_of_edges(), g.find_cycle())
