"""Broadcast as the routers run it: a per-hop rule that keeps a copy and/or forks the message.

A :class:`BroadcastAlgorithm` says what the originating node sends (:meth:`start`) and what a node does
with a broadcast message it receives (:meth:`forward`: keep a copy or not, and the copies it sends on,
each a :class:`~cubenoc.sim.routing.base.Hop`). :func:`run_broadcast` plays it out in synchronous steps
(one link traversal per step, all ports at once) and records who kept a copy when, so every algorithm
is checked the same way: every node keeps exactly one copy, in the number of steps the paper proves.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from ..routing.base import HeaderLayout, Hop, hop_limit
from ..topology.base import Topology


class BroadcastAlgorithm(ABC):
    name: str = "broadcast"

    def __init__(self, topology: Topology):
        self.topology = topology

    @property
    def layout(self) -> HeaderLayout:
        """The broadcast tag carried by the head flit (a subclass sets ``self._layout``)."""
        return self._layout

    @abstractmethod
    def start(self, src: int) -> list[Hop]:
        """The copies the originating node sends (it keeps the message itself)."""

    @abstractmethod
    def forward(self, node: int, header: dict) -> tuple[bool, list[Hop]]:
        """At a receiving node: ``(keep_a_copy, copies_to_send_on)``."""

    def expected_steps(self, src: int = 0) -> int | None:
        """The step count the paper proves (``None`` if it gives none)."""
        return None


@dataclass
class BroadcastTrace:
    src: int
    copies: list[int]                 # copies kept per node (the source counts as one)
    step_kept: list[int]              # step at which each node kept its copy (-1: never)
    steps: int                        # steps until the last message arrived
    messages: int                     # link traversals
    edges: list[tuple[int, int, int, int]] = field(default_factory=list)  # (step, from, port, to)

    @property
    def exactly_once(self) -> bool:
        return all(c == 1 for c in self.copies)


def run_broadcast(alg: BroadcastAlgorithm, src: int, max_steps: int | None = None,
                  skip_nodes: frozenset = frozenset(), skip_links: frozenset = frozenset()) -> BroadcastTrace:
    """Play ``alg`` from ``src`` in synchronous steps; ``skip_nodes`` (e.g. faulty nodes) drop messages,
    and so do faulty links: a message sent on ``(node, port)`` in ``skip_links`` is lost (list both ends)."""
    topo = alg.topology
    topo.check_node(src)
    n = topo.num_nodes
    copies = [0] * n
    step_kept = [-1] * n
    copies[src] = 1
    step_kept[src] = 0
    in_flight = [(src, hop) for hop in alg.start(src)]
    limit = max_steps if max_steps is not None else hop_limit(n)
    steps = messages = 0
    edges = []
    while in_flight:
        steps += 1
        if steps > limit:
            raise AssertionError(f"{alg.name}: broadcast from {src} still running after {limit} steps")
        arrivals = []
        for node, hop in in_flight:
            far = topo.neighbor(node, hop.port)
            if far is None:
                raise AssertionError(f"{alg.name}: node {node} sent on unconnected port {hop.port}")
            messages += 1
            edges.append((steps, node, hop.port, far[0]))
            if (node, hop.port) in skip_links:
                continue
            arrivals.append((far[0], hop.header))
        in_flight = []
        for node, header in arrivals:
            if node in skip_nodes:
                continue
            keep, hops = alg.forward(node, header)
            if keep:
                copies[node] += 1
                if step_kept[node] < 0:
                    step_kept[node] = steps
            in_flight.extend((node, h) for h in hops)
    return BroadcastTrace(src, copies, step_kept, steps, messages, edges)
