"""Route-compute units of the perfect difference networks (Parhami and Rakov Sec. 3), from ``sim/routing/pdn.py``.

* :class:`ObliviousPDNRTL` -- Algorithm 1, node-generic (one chord-switch module serves every node):
  ``d = (dest - node_id) mod n`` (a subtractor and a conditional add of n), then a ROM of the ``n - 1``
  entries of :func:`~cubenoc.sim.routing.pdn.oblivious_port_table` (``routing.rom()``); ``d = 0``
  ejects. The header is unchanged (``dest``); with degenerate chords (``hop_vcs``) the 1-bit ``hop``
  field is set and the hop leaves on VC ``hop``.
* :class:`AdaptivePDNRTL` -- Algorithm 2's *preferred* candidate (``prefer``: forward-first by default)
  as a ROM indexed by ``d`` (fault-free: node-generic) or by ``dest`` (static faults: one table per
  node), ``hop`` incremented (saturating) and VC = ``hop``: the router that takes ``route()``. With
  ``AdaptivePDNRouting(..., selection="availability")`` the router is the adaptive one instead
  (docs/router.md, "Adaptive selection and run-time faults"): both candidates from
  :class:`~cubenoc.rtl.route.candidates.PDNCandidateUnit`, forward-/backward-first chosen each cycle by
  output availability, around faulty links given as run-time inputs.
* :class:`DimensionOrderPDNRTL` -- products ``H_{q-1} x ... x H_0`` (Theorem 2): coordinates of
  ``node_id`` and ``dest`` from one mixed-radix ROM each (N entries), the lowest differing dimension
  wins (a priority chain), then that factor's Algorithm-1 ROM on ``(y_i - x_i) mod n_i``. Node-generic.
* :class:`BipartitePDNRTL` -- hosts: Algorithm-1 first-chord ROM; switches: ``(switch - dest) mod n``
  -> the index of that element in the set (a ROM of n entries). Node-generic per kind (host/switch).
"""
from __future__ import annotations

from amaranth import Module, Mux, Signal

from ...sim.routing.pdn import (AdaptivePDNRouting, BipartitePDNRouting, DimensionOrderPDNRouting,
                               ObliviousPDNRouting)
from ..gates import mod_sub, node_address, rom
from .base import InjectUnit, RouteUnit, RoutingRTL, register


class _DestInjectUnit(InjectUnit):
    """``{dest}`` (plus ``hop = 0``): the destination's low bits, the other fields zero."""

    def elaborate(self, platform):
        m = Module()
        w = self.routing.layout.offset("dest")[1]
        m.d.comb += self.route.as_value().eq(0)
        m.d.comb += self.route.dest.eq(self.dest[:w])
        return m


# ---- Algorithm 1 ------------------------------------------------------------------------------------
class _ObliviousRouteUnit(RouteUnit):
    def elaborate(self, platform):
        m = Module()
        routing, topo = self.routing, self.routing.topology
        local = topo.local_port(0)
        d = mod_sub(m, self.route.dest, node_address(self), topo.n, "d")
        rom(m, d, {dd: p for dd, p in enumerate(routing.rom(), start=1)}, self.port, default=local)
        m.d.comb += self.new_route.eq(self.route)
        if routing.hop_vcs:
            with m.If(d != 0):
                m.d.comb += [self.new_route.hop.eq(1), self.vc.eq(self.route.hop)]
        return m


@register(ObliviousPDNRouting)
class ObliviousPDNRTL(RoutingRTL):
    """Algorithm 1: distance subtractor + ROM of n-1 ports, node-generic."""

    node_generic = True
    route_unit_cls, inject_unit_cls = _ObliviousRouteUnit, _DestInjectUnit


# ---- Algorithm 2 (the preferred candidate; see the module docstring) -------------------------------
class _AdaptiveRouteUnit(RouteUnit):
    def elaborate(self, platform):
        m = Module()
        routing, topo = self.routing, self.routing.topology
        local = topo.local_port(0)
        dest, hop = self.route.dest, self.route.hop
        if hasattr(self, "node_id"):              # node-generic (fault-free): by distance
            d = mod_sub(m, dest, node_address(self), topo.n, "d")
            table = {dd: routing.route(0, {"dest": dd, "hop": 0}).port for dd in range(1, topo.n)}
            rom(m, d, table, self.port, default=local)
            moving = d != 0
        else:
            table = {t: routing.route(self.node, {"dest": t, "hop": 0}).port for t in range(topo.n)
                     if t != self.node and routing.dist[t][self.node] is not None}
            rom(m, dest, table, self.port, default=local)
            moving = dest != self.node
        top = (1 << len(hop)) - 1
        m.d.comb += self.new_route.eq(self.route)
        with m.If(moving):
            m.d.comb += self.new_route.hop.eq(Mux(hop == top, top, hop + 1))
            if routing.num_vcs > 1 and routing.hop_vcs:
                m.d.comb += self.vc.eq(hop)
        return m


@register(AdaptivePDNRouting)
class AdaptivePDNRTL(RoutingRTL):
    """Algorithm 2's preferred candidate as a ROM (node-generic without faults), VC = hops taken."""

    def __init__(self, routing: AdaptivePDNRouting):
        super().__init__(routing)
        self.node_generic = not (routing.faulty_nodes or routing.faulty_links)

    route_unit_cls, inject_unit_cls = _AdaptiveRouteUnit, _DestInjectUnit


# ---- dimension order on products (Theorem 2) --------------------------------------------------------
def _coords(m: Module, topo, value, name: str) -> list[Signal]:
    """Mixed-radix digits ``[x_0, ..., x_{q-1}]`` of a node number: one ROM of N entries."""
    digits = [Signal(range(r), name=f"{name}{i}") for i, r in enumerate(topo.radix)]
    for s in digits:
        m.d.comb += s.eq(0)
    with m.Switch(value):
        for v in range(topo.num_nodes):
            with m.Case(v):
                m.d.comb += [s.eq(c) for s, c in zip(digits, topo.coords(v))]
    return digits


class _DorRouteUnit(RouteUnit):
    def elaborate(self, platform):
        m = Module()
        routing, topo = self.routing, self.routing.topology
        x = _coords(m, topo, node_address(self), "x")
        y = _coords(m, topo, self.route.dest, "y")
        m.d.comb += [self.port.eq(topo.local_port(0)), self.new_route.eq(self.route)]
        for i in reversed(range(topo.q)):              # the last assignment wins: lowest dimension first
            d = mod_sub(m, y[i], x[i], topo.radix[i], f"d{i}")
            p = Signal(range(self.num_ports), name=f"port{i}")
            rom(m, d, {dd: topo.port_base[i] + routing.tables[i][dd] for dd in range(1, topo.radix[i])}, p)
            with m.If(x[i] != y[i]):
                m.d.comb += self.port.eq(p)
        return m


@register(DimensionOrderPDNRouting)
class DimensionOrderPDNRTL(RoutingRTL):
    """Generalized dimension-order routing: per dimension an Algorithm-1 ROM, lowest dimension first."""

    node_generic = True
    route_unit_cls, inject_unit_cls = _DorRouteUnit, _DestInjectUnit


# ---- bipartite host/switch form ---------------------------------------------------------------------
class _BipartiteRouteUnit(RouteUnit):
    def elaborate(self, platform):
        m = Module()
        routing, topo = self.routing, self.routing.topology
        n = topo.n
        local = topo.local_port(self.node)
        m.d.comb += self.new_route.eq(self.route)
        if topo.is_host(self.node):
            d = mod_sub(m, self.route.dest, node_address(self), n, "d")
            rom(m, d, {dd: routing.host_table[dd] for dd in range(1, n)}, self.port, default=local)
        else:   # switch: node_id - n is the switch index
            sw = Signal(range(n))
            m.d.comb += sw.eq(node_address(self) - n)
            d = mod_sub(m, sw, self.route.dest, n, "d")
            rom(m, d, {dd: routing.switch_index[dd] for dd in range(n) if dd in routing.switch_index},
                self.port, default=local)
        return m


@register(BipartitePDNRouting)
class BipartitePDNRTL(RoutingRTL):
    """Host ROM (first-chord table) and switch ROM (set index); node-generic per kind."""

    node_generic = True
    route_unit_cls, inject_unit_cls = _BipartiteRouteUnit, _DestInjectUnit
