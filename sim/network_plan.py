"""The network plan: what every consumer of a network needs, computed once from (topology, routing,
:class:`~cubenoc.sim.router_config.RouterConfig`).

``NetworkPlan(topology, routing, config)`` checks the config against the routing function (the one place
a combination of options is refused), resolves the broadcast algorithm, and reads the one walk of every
(source, destination) pair (:func:`~cubenoc.sim.routing.facts.route_facts`) through the router's options:

* :meth:`turns` / :meth:`allowed_matrix`: the turns node v's crossbar carries (the walk's, without the
  local -> local turn when the router has no loopback, with the broadcast fork's turns);
* :meth:`fixed_bits`: the route bits every packet agrees on (docs/router.md "Fixed route bits"; only for
  routers that route at the write);
* :meth:`arrivals`: the headers that arrive at a node per (input port, VC) (the formal harness);
* :meth:`weights`: fair arbitration's per-lane source counts;
* :meth:`deadlock`: the channel dependency graph's verdict (with the broadcast forks' edges);
* :meth:`shape`: what makes node v's router differ from another's (the router's shape key).

The RTL (``Router``/``Network``), the model (``NetworkModel``), the cocotb benches, the formal harness and
``cubenoc generate`` build from a plan.
"""
from __future__ import annotations

from functools import cached_property

from cubenoc.errors import CubenocError

from .router_config import RouterConfig
from .routing.facts import route_facts


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
    def facts(self):
        """The one walk of every pair (cached per routing function)."""
        return route_facts(self.routing)

    @cached_property
    def _broadcast_turns(self):
        from .broadcast.fork import broadcast_turns
        return broadcast_turns(self.broadcast)

    def turns(self, node: int) -> frozenset:
        """The ``(in_port, out_port)`` turns node ``node``'s crossbar carries."""
        out = self.facts.turns[node]
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
        if not self.config.route_at_write(self.routing):
            return {}
        return dict(self.facts.common if node is None else self.facts.fixed[node])

    def arrivals(self, node: int) -> dict:
        """``{(input port, vc): {route word}}``: every header a packet arrives at ``node`` with."""
        return {k: set(v) for k, v in self.facts.arrivals[node].items()}

    def weights(self, node: int) -> dict | None:
        """Fair arbitration's weights of ``node`` ({(o, j): {new route word: weight}}); None otherwise."""
        return self.facts.weights[node] if self.config.arbitration == "fair" else None

    def deadlock(self):
        """The deadlock check's report (sim/deadlock.py) for these routers, broadcast forks included."""
        from .deadlock import check_broadcast_deadlock, check_deadlock
        if self.broadcast is not None:
            return check_broadcast_deadlock(self.routing, self.broadcast)
        return check_deadlock(self.routing)

    def shape(self, node: int, node_specific: bool) -> tuple:
        """What distinguishes node ``node``'s router from another node's: the config, the port count, the
        turns, and what the walk gives the node (fixed route bits, fair weights); ``node_specific``: its
        route units know the node (then the node itself)."""
        key = (self.config, self.topology.local_port(node) + 1, tuple(map(tuple, self.allowed_matrix(node))),
               node if node_specific else None)
        fixed = self.fixed_bits(node if node_specific else None)
        if fixed:
            key += (tuple(sorted(fixed.items(), key=repr)),)
        w = self.weights(node)
        if w is not None:
            key += ("fair", tuple(sorted((k, tuple(sorted(v.items()))) for k, v in w.items())))
        return key


#: seconds per (source, destination, hop) of the pair walk and per router port elaborated into Verilog,
#: measured on a busy 2-core machine (Q(8, 0) .. Q(10, 0): the walk 5-125 s, the Verilog ~0.1 s per router)
WALK_SECONDS_PER_PAIR_HOP = 22e-6
ELABORATE_SECONDS_PER_PORT = 0.01


def plan_seconds(topology, routing, verilog: bool = True) -> float:
    """A rough estimate, from the node and port counts alone, of the time to plan the network (the walk of
    every pair: ``N^2`` pairs, about ``log2(N) / 2`` hops each) and, with ``verilog``, to elaborate every
    router. Commands check it before starting (``cubenoc generate enhanced:n=16,k=0`` would take days)."""
    import math
    n = topology.num_nodes
    hops = max(1.0, math.log2(max(n, 2)) / 2)
    seconds = n * n * hops * WALK_SECONDS_PER_PAIR_HOP
    if verilog:
        ports = n * (topology.num_ports(0) + 1) * getattr(routing, "num_vcs", 1)
        seconds += ports * ELABORATE_SECONDS_PER_PORT
    return seconds
