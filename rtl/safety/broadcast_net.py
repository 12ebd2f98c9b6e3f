# amaranth: UnusedElaboratable=no
"""The safety-level broadcast through the routers (Wu Sec. 2.2, 2.3): an n-cube of broadcast
routers (docs/router.md "Broadcast and multicast") whose fork units are
:class:`~cubenoc.rtl.safety.fork.SafetyBroadcastFork`, fed at run time by the node's
:class:`~cubenoc.rtl.safety.unit.SafetyLevelUnit`; the units exchange levels over their sideband exactly as
in :class:`~cubenoc.rtl.safety.unit.SafetyNetwork`. docs/safety_hw.md "Safety-level broadcast through the
routers".

``SafetyBroadcastNetwork(n, model)`` has the ports of ``Network(..., flat=True)`` (``in_valid`` ...
``malformed``) plus the fault inputs of the adaptive network top (same names and packing, so the bench
and :class:`~cubenoc.sim.model.faults.FaultSchedule` drive them): ``link_fault`` (N*n bits, bit
``v*n + k``: the link of v along dimension k; either end's bit marks the link) and ``node_fault`` (N).
The faults only reach the level units and, through them, the fork units; the routers themselves do
not stop traffic (faults are held constant during a run; the fault-aware router mode is a different
router, not combined with broadcast).

The Verilog does not depend on the fault set: the routers are built with :class:`RuntimeSafetyBroadcast`
(the algorithm on the fault-free cube, for the tag layout, plus ``fork_unit``) and a full crossbar
(any input to any output: with faults the coordinate sequences, hence the turns, change at run time).
The whole network is one hierarchical design (one Verilog file): each router's fork units read the
level wires of their node, which a router converted alone would not have.
"""
from __future__ import annotations

from amaranth import Cat, Module, Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In

from cubenoc.errors import require_int
from cubenoc.rtl.network_top import Network
from cubenoc.rtl.safety.fork import SafetyBroadcastFork, check_model, connect, safe_bit
from cubenoc.rtl.safety.unit import MAX_N, SafetyLevelUnit
from cubenoc.rtl.tools import use_builtin_yosys
from cubenoc.sim.broadcast.safety import SafetyBroadcast
from cubenoc.sim.router_config import RouterConfig
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.safety import FaultSet

from ...sim.network_plan import plan_of

#: the fork unit's inputs that come from the node's level unit and fault wires (not from the router)
_ROUTER_SIDE = ("tag", "origin", "node_id", "keep", "ports", "new_tag")


class _NodeFork(SafetyBroadcastFork):
    """One fork unit inside a router: its level/fault inputs are the node's shared ``bus`` (a
    :class:`SafetyBroadcastFork` used only for its input signals, driven by :func:`connect`)."""

    def __new__(cls, n: int, model: str, bus: SafetyBroadcastFork):
        return super().__new__(cls, n, model)

    def __init__(self, n: int, model: str, bus: SafetyBroadcastFork):
        super().__init__(n, model)
        self.bus = bus

    def elaborate(self, platform):
        m = super().elaborate(platform)
        for name in self.signature.members:
            if name not in _ROUTER_SIDE:
                m.d.comb += Value.cast(getattr(self, name)).eq(Value.cast(getattr(self.bus, name)))
        return m


class RuntimeSafetyBroadcast(SafetyBroadcast):
    """The algorithm the routers are built with: the fault-free cube's :class:`SafetyBroadcast` (tag
    layout; ``start``/``forward`` only for the router's checks) plus ``fork_unit(node)``, the gate
    fork unit wired to node ``node``'s level bus (:meth:`bus`)."""

    name = "safety-level broadcast (run-time levels)"

    def __init__(self, n: int, model: str = "SL1"):
        super().__init__(FaultSet.build(n), check_model(model))
        self._bus: dict[int, SafetyBroadcastFork] = {}

    def bus(self, node: int) -> SafetyBroadcastFork:
        got = self._bus.get(node)
        if got is None:
            # never elaborated (its inputs are the node's level wires): this file's first line turns
            # Amaranth's "never used" warning off
            got = self._bus[node] = SafetyBroadcastFork(self.n, self.model)
        return got

    def fork_unit(self, node: int) -> SafetyBroadcastFork:
        return _NodeFork(self.n, self.model, self.bus(node))


class SafetyBroadcastNetwork(wiring.Component):
    """Q_n of broadcast routers (e-cube unicast) with safety-level fork units and level units."""

    def __init__(self, n: int, model: str = "SL1", *, payload_width: int = 32, fifo_depth: int = 4):
        self.n = require_int(n, "n", 2, MAX_N)
        self.model = check_model(model)
        self.alg = RuntimeSafetyBroadcast(self.n, self.model)
        self.topology = self.alg.topology
        self.routing = EcubeRouting(self.topology)
        self.payload_width, self.fifo_depth = payload_width, fifo_depth
        self.net = Network(plan_of(self.topology, self.routing, RouterConfig(payload_width=payload_width,
                           fifo_depth=fifo_depth, broadcast=self.alg)), flat=True)
        for r in self.net.routers:                # full crossbar: the turns depend on the run-time levels
            r.allowed = [[True] * r.num_ports for _ in range(r.num_ports)]
        N = 1 << self.n
        members = dict(self.net.signature.members)
        members.update({"link_fault": In(N * self.n), "node_fault": In(N)})
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        n, N, model = self.n, 1 << self.n, self.model
        m.submodules.net = net = self.net
        for name, member in net.signature.members.items():
            if member.flow == In:
                m.d.comb += getattr(net, name).eq(getattr(self, name))
            else:
                m.d.comb += getattr(self, name).eq(getattr(net, name))
        units = [SafetyLevelUnit(n, (model,)) for _ in range(N)]
        for v, u in enumerate(units):
            m.submodules[f"levels_{v}"] = u
            nbrs = [v ^ (1 << k) for k in range(n)]
            m.d.comb += [u.node_faulty.eq(self.node_fault[v]),
                         u.link_faulty.eq(Cat(*[self.link_fault[v * n + k] | self.link_fault[w * n + k]
                                                for k, w in enumerate(nbrs)]))]
            for name, member in u.signature.members.items():      # sideband: rx_* = the neighbours' tx
                if name.startswith("rx_"):
                    src = "tx_" + name[3:] if name in ("rx_fault", "rx_nbrs") else name[3:]
                    m.d.comb += Value.cast(getattr(u, name)).eq(
                        Cat(*[Value.cast(getattr(units[w], src)) for w in nbrs]))
        for v, u in enumerate(units):
            nbrs = [v ^ (1 << k) for k in range(n)]
            nbr_faulty = Cat(*[self.node_fault[w] for w in nbrs])
            nbr_safe = Cat(*[safe_bit(units[w], model) for w in nbrs]) if model.startswith("DSL") else None
            m.d.comb += connect(self.alg.bus(v), u, nbr_faulty=None if model.endswith("2") else nbr_faulty,
                                nbr_safe=nbr_safe)
        return m


def top_name(n: int, model: str) -> str:
    return f"cubenoc_q{n}_safety_bcast_{check_model(model).lower()}"


def safety_broadcast_verilog(n: int, model: str = "SL1", *, payload_width: int = 32,
                             fifo_depth: int = 4) -> tuple[str, str]:
    """``(Verilog text, top module name)`` of :class:`SafetyBroadcastNetwork` (one file)."""
    from amaranth.back import verilog

    use_builtin_yosys()
    top = top_name(n, model)
    net = SafetyBroadcastNetwork(n, model, payload_width=payload_width, fifo_depth=fifo_depth)
    return verilog.convert(net, name=top), top
