"""The network plan: what every consumer of a network needs, computed once from (topology, routing,
:class:`~cubenoc.sim.router_config.RouterConfig`).

A command resolves its network spec and router config, makes the plan once (:func:`plan_of`, the one
place a plan is made) and hands it on; :meth:`NetworkPlan.replace` gives a variant. The plan checks the config
against the routing function (the one place a combination of options is refused), resolves the broadcast
algorithm, and reads the one walk of every (source, destination) pair
(:func:`~cubenoc.sim.routing.facts.route_facts`) through the router's options:

* :meth:`turns` / :meth:`allowed_matrix`: the turns node v's crossbar carries (the walk's, without the
  local -> local turn when the router has no loopback, with the broadcast fork's turns);
* :meth:`fixed_bits`: the route bits every packet agrees on (docs/router.md "Fixed route bits"; only for
  routers that route at the write);
* :meth:`arrivals`: the headers that arrive at a node per (input port, VC) (the formal harness);
* :meth:`weights`: fair arbitration's per-lane source counts;
* :meth:`deadlock`: the channel dependency graph's verdict (with the broadcast forks' edges);
* :meth:`shape`: what makes node v's router differ from another's (the router's shape key);
* :meth:`table_turns`: the turns of a large symmetric network, walked through the model's route tables
  from one node per orbit (the pair walk of a 16,384-node network would be 2^28 pairs).

The RTL (``Router``/``Network``), the model (``NetworkModel``), the cocotb benches, the formal harness and
the commands take a plan; the topology, routing function and config are its attributes.
"""
from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from cubenoc.errors import CubenocError

from .broadcast.fork import broadcast_turns, check_broadcast
from .deadlock import check_broadcast_deadlock, check_deadlock
from .model.word import PORT_BITS
from .router_config import RouterConfig
from .routing.base import hop_limit, is_adaptive
from .routing.facts import route_facts
from .routing.hypercube import EcubeRouting
from .topology.hypercube import Hypercube


def default_routing(topology):
    """The routing function a family's routers run (e-cube / Algorithm C for the hypercube family)."""
    if isinstance(topology, Hypercube):
        return EcubeRouting(topology)
    raise CubenocError(f"no default routing function for {topology!r}: pass one")


def plan_of(topology, routing=None, config: RouterConfig | None = None) -> "NetworkPlan":
    """The plan of ``topology`` under ``routing`` (None: :func:`default_routing`) with ``config`` (None: the
    generic router)."""
    return NetworkPlan(topology, routing if routing is not None else default_routing(topology), config)


class NetworkPlan:
    def __init__(self, topology, routing, config: RouterConfig | None = None):
        if routing.topology is not topology:
            raise CubenocError("the routing function must be built on the same topology object")
        self.topology, self.routing = topology, routing
        self.config = (config or RouterConfig()).check(routing)
        self.broadcast = self.config.broadcast_algorithm(topology)
        if self.broadcast is not None:
            check_broadcast(self.broadcast, routing)

    def replace(self, **changes) -> "NetworkPlan":
        """The plan of the same network with some config fields changed (checked again)."""
        return plan_of(self.topology, self.routing, self.config.replace(**changes))

    @property
    def adaptive(self) -> bool:
        """The routing function has a run-time selection (:func:`~.routing.base.is_adaptive`)."""
        return is_adaptive(self.routing)

    @property
    def candidate_stage(self) -> bool:
        """The routers route through the candidate stage (:meth:`RouterConfig.candidate_stage`)."""
        return self.config.candidate_stage(self.routing)

    @property
    def hop_limit(self) -> int:
        """The most hops any walk follows a packet (:func:`~.routing.base.hop_limit`)."""
        return hop_limit(self.topology.num_nodes)

    @cached_property
    def facts(self):
        """The one walk of every pair (cached per routing function)."""
        return route_facts(self.routing)

    @cached_property
    def _broadcast_turns(self):
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

    def table_turns(self, tables, nodes, words):
        """``bits[row, in_port]`` (bit o: the turn in_port -> o) of every route row of the model's
        ``tables`` (sim/model/tables.py; one row per orbit of a symmetric network, sim/symmetric_tables.py),
        from the walks of the packets injected at ``nodes`` with header ``words`` (numpy arrays) through
        the tables: with the packets of one node per orbit to every destination, every turn a router of
        the orbit makes. No loopback as :meth:`turns`; unicast only."""
        if self.broadcast is not None:
            raise CubenocError("the table walk follows unicast routes: broadcast turns come from the pair walk")
        row, xor = tables.row_and_xor()
        P = tables.max_ports
        local = tables.nports.astype(np.int64) - 1
        bits = np.zeros((int(row.max()) + 1, P), dtype=np.int64)
        node, word = np.asarray(nodes, dtype=np.int64), np.asarray(words, dtype=np.int64)
        in_port = local[node]
        for _ in range(self.hop_limit):
            if node.size == 0:
                break
            x = xor[node]
            e = tables.route[row[node], word ^ x].astype(np.int64)
            if (e < 0).any():
                raise CubenocError(f"{self.routing.name}: a walk reached a route word the function does not define")
            port = e & 0xFF
            np.bitwise_or.at(bits, (row[node], in_port), np.left_shift(1, port))
            go = port != local[node]
            nxt = tables.link[node[go] * P + port[go]]
            node, word, in_port = nxt // P, ((e >> PORT_BITS) ^ x)[go], nxt % P
        if node.size:
            raise CubenocError(f"{self.routing.name}: routes do not all eject within {self.hop_limit} hops")
        if not self.config.loopback:              # docs/router.md "Loopback"
            lp = local[np.unique(row, return_index=True)[1]]       # each row's local port (a node's of it)
            bits[np.arange(bits.shape[0]), lp] &= ~(np.int64(1) << lp)
        return bits

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
#: seconds per router module elaborated for one node alone (a routing whose RTL is not node-generic: anynet's
#: tables above 4,096 entries), measured: `cubenoc generate` of the 7-cube's anynet file, 128 router modules,
#: 253 s on a 2-core machine
ROUTER_MODULE_SECONDS = 2.0


def plan_seconds(topology, routing, verilog: bool = True, router_modules: int = 0) -> float:
    """A rough estimate, from the node and port counts alone, of the time to plan the network (the walk of
    every pair: ``N^2`` pairs, about ``log2(N) / 2`` hops each) and, with ``verilog``, to elaborate every
    router, ``router_modules`` of them each a module of its own. Commands check it before starting
    (``cubenoc generate enhanced:n=16,k=0`` would take days)."""
    n = topology.num_nodes
    hops = max(1.0, math.log2(max(n, 2)) / 2)
    seconds = n * n * hops * WALK_SECONDS_PER_PAIR_HOP
    if verilog:
        ports = n * (topology.num_ports(0) + 1) * getattr(routing, "num_vcs", 1)
        seconds += ports * ELABORATE_SECONDS_PER_PORT + router_modules * ROUTER_MODULE_SECONDS
    return seconds
