"""A cubenoc network inside an Amaranth design (docs/ip.md): the network's per-node ports are
``AxisSignature`` interfaces, so a design connects to them with ``wiring.connect``.

``FrameSender`` (the user's own AXI4-Stream master) sends one 3-beat frame from node 3 to node 5 of the
8-node hypercube Q3; amaranth.sim runs the design and prints what node 5's ``m_axis`` delivers, with the
source in ``tid``. Run: ``python examples/amaranth_axis.py``.
"""
from amaranth import Array, Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import Out
from amaranth.sim import Simulator

from cubenoc.rtl.axis_ni import AxisSignature
from cubenoc.rtl.network_top import Network
from cubenoc.sim.catalog import NetworkSpec
from cubenoc.sim.network_plan import plan_of

SPEC, SRC, DST = "hypercube:n=3,interface=axis", 3, 5
BEATS = [0x11111111, 0x22222222, 0x33333333]


class FrameSender(wiring.Component):
    """An AXI4-Stream master that sends ``beats`` to ``dest`` once."""

    def __init__(self, beats, dest, dest_width):
        self.beats, self.dest = beats, dest
        super().__init__({"o": Out(AxisSignature(32, dest_width))})

    def elaborate(self, platform):
        m = Module()
        i = Signal(range(len(self.beats) + 1))
        m.d.comb += [self.o.tvalid.eq(i < len(self.beats)), self.o.tdest.eq(self.dest),
                     self.o.tdata.eq(Array(Const(b, 32) for b in self.beats)[i]),
                     self.o.tlast.eq(i == len(self.beats) - 1)]
        with m.If(self.o.tvalid & self.o.tready):
            m.d.sync += i.eq(i + 1)
        return m


class Design(wiring.Component):
    """The network and a sender at node SRC; node DST's m_axis is this design's output."""

    def __init__(self):
        spec = NetworkSpec.parse(SPEC)
        topo, routing = spec.build("rtl")
        self.net = Network(plan_of(topo, routing, spec.router_config()))
        self.sender = FrameSender(BEATS, DST, self.net.axis.dest_width)
        super().__init__({"out": Out(self.net.axis.master())})

    def elaborate(self, platform):
        m = Module()
        m.submodules.net, m.submodules.sender = self.net, self.sender
        wiring.connect(m, self.sender.o, self.net.s_axis[SRC])
        wiring.connect(m, self.net.m_axis[DST], wiring.flipped(self.out))
        for v in range(len(self.net.m_axis)):          # the other nodes take whatever arrives
            if v != DST:
                m.d.comb += self.net.m_axis[v].tready.eq(1)
        return m


def main():
    dut = Design()
    got = []

    async def bench(ctx):
        ctx.set(dut.out.tready, 1)
        for cycle in range(30):
            if ctx.get(dut.out.tvalid):
                got.append((cycle, ctx.get(dut.out.tid), ctx.get(dut.out.tdest), ctx.get(dut.out.tdata),
                            ctx.get(dut.out.tlast)))
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    for cycle, tid, tdest, tdata, tlast in got:
        print(f"cycle {cycle}: m{DST:02d}_axis tid {tid} tdest {tdest} tdata {tdata:#010x}" + (" tlast" if tlast else ""))
    return got


if __name__ == "__main__":
    main()
