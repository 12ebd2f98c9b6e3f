"""The network plan: what every consumer of a network needs to know, computed once from (topology, routing,
:class:`~cubenoc.sim.router_config.RouterConfig`).

``NetworkPlan(topology, routing, config)`` checks the config against the routing function (the one place
a combination of options is refused), resolves the broadcast algorithm, and gives per node the turns its
crossbar carries (unicast turns from the routing walk of :mod:`cubenoc.sim.routing.turns`, the local ->
local turn only with loopback, plus the broadcast fork's turns), the route bits every packet agrees on
(:func:`~cubenoc.sim.routing.turns.fixed_route_bits`) and, with fair arbitration, the source weights
(:mod:`cubenoc.sim.routing.fairness`). The RTL (``Router``/``Network``), the model, the cocotb benches and
``cubenoc generate`` build from a plan; :data:`HOP_LIMIT` bounds every walk of a packet's route.
"""
from __future__ import annotations

from functools import cached_property

from cubenoc.errors import CubenocError

from .router_config import RouterConfig


def hop_limit(num_nodes: int) -> int:
    """The most hops any walk follows a packet before calling its route non-terminating (every family's
    routes are shorter than a few times the node count; an adaptive candidate set may wander)."""
    return 4 * num_nodes + 8


class NetworkPlan:
    def __init__(self, topology, routing, config: RouterConfig | None = None):
        if routing.topology is not topology:
            raise CubenocError("the routing function must be built on the same topology object")
        self.topology, self.routing = topology, routing
        self.config = (config or RouterConfig()).check(routing)
        self.broadcast = self.config.broadcast_algorithm(topology)
        if self.broadcast is not None:
            from .broadcast.fork import check_broadcast
            check_broadcast(self.broadcast, routing)

    @property
    def adaptive(self) -> bool:
        return self.config.adaptive(self.routing)

    @cached_property
    def _broadcast_turns(self):
        from .broadcast.fork import broadcast_turns
        return broadcast_turns(self.broadcast)

    def turns(self, node: int) -> frozenset:
        """The ``(in_port, out_port)`` turns node ``node``'s crossbar carries."""
        from .routing.turns import turns_at
        out = turns_at(self.routing, node)
        if not self.config.loopback:              # docs/router.md "Loopback"
            local = self.topology.local_port(node)
            out = out - {(local, local)}
        if self.broadcast is not None:
            out = out | frozenset(self._broadcast_turns[node])
        return out

    def allowed_matrix(self, node: int) -> list[list[bool]]:
        """``m[i][o]``: input ``i`` of ``node`` may request output ``o`` (docs/router.md "Requests")."""
        ports = self.topology.local_port(node) + 1
        turns = self.turns(node)
        return [[(i, o) in turns for o in range(ports)] for i in range(ports)]

    def fixed_bits(self, node: int | None) -> dict:
        """docs/router.md "Fixed route bits" of ``node`` (None: what every node agrees on); empty unless
        the route is written at the FIFO."""
        from .routing.turns import fixed_route_bits
        return fixed_route_bits(self.routing, node) if self.config.route_at_write(self.routing) else {}

    def weights(self, node: int) -> dict | None:
        """Fair arbitration's weights of ``node`` ({(o, j): {new route word: weight}}); None otherwise."""
        if self.config.arbitration != "fair":
            return None
        from .routing.fairness import source_weights
        return source_weights(self.routing)[node]
