"""One node with the AXI4-Stream interface: a router and its :class:`~cubenoc.rtl.axis_ni.AxisNetworkInterface`
as one block, what ``cubenoc synth-report`` synthesises per router shape when the network's config has
``interface="axis"`` (docs/ip.md "Cost"). The network itself wires the same two blocks
(rtl/network_top.py).

``AxisNode(router, params)``: every member of the router but its local streams, plus ``s_axis``/``m_axis``;
the interface's node number is the router's ``node_id`` input where it has one, else its node.
"""
from __future__ import annotations

from amaranth import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .axis_ni import AxisNetworkInterface, AxisParams


class AxisNode(wiring.Component):
    def __init__(self, router, params: AxisParams):
        self.router, self.params = router, params
        members = {name: m for name, m in router.signature.members.items() if name not in ("local_in", "local_out")}
        members |= {"s_axis": In(params.slave()), "m_axis": Out(params.master())}
        super().__init__(members)

    def network_interface(self) -> AxisNetworkInterface:
        """The node's interface (rtl/formal/axis.py builds a node with a seeded bug by overriding this)."""
        return AxisNetworkInterface(self.params)

    def elaborate(self, platform):
        m = Module()
        r, ni = self.router, self.network_interface()
        m.submodules.router, m.submodules.ni = r, ni
        wiring.connect(m, ni.local_in, r.local_in)
        wiring.connect(m, r.local_out, ni.local_out)
        wiring.connect(m, wiring.flipped(self.s_axis), ni.s_axis)
        wiring.connect(m, ni.m_axis, wiring.flipped(self.m_axis))
        m.d.comb += ni.node_id.eq(self.node_id if "node_id" in r.signature.members else r.node)
        for name, member in r.signature.members.items():
            if name in ("local_in", "local_out"):
                continue
            mine, theirs = getattr(self, name), getattr(r, name)
            if member.is_port:
                m.d.comb += mine.eq(theirs) if member.flow == Out else theirs.eq(mine)
            elif member.flow == In:
                wiring.connect(m, wiring.flipped(mine), theirs)
            else:
                wiring.connect(m, theirs, wiring.flipped(mine))
        return m
