"""A cubenoc network in a LiteX design (docs/ip.md): the Verilog that ``cubenoc generate NETWORK --interface
axis -o OUT`` wrote, instantiated with Migen's ``Instance``; each node's ports are LiteX
``AXIStreamInterface`` endpoints (``sinks[v]`` into the network, ``sources[v]`` out of it, ``id`` = the
source node). In a SoC, pass the platform: the Verilog files are added to its sources.

Run: ``python examples/litex_axis.py OUT`` converts a LiteX module holding the network to ``OUT/litex_top.v``
(every endpoint signal a port), which any simulator compiles with the files in OUT.
"""
import json
import sys
from pathlib import Path

from litex.soc.interconnect.axi import AXIStreamInterface
from migen import ClockSignal, Instance, Module, ResetSignal
from migen.fhdl.verilog import convert


class CubenocNoC(Module):
    def __init__(self, out_dir, platform=None):
        out_dir = Path(out_dir)
        d = json.loads(next(out_dir.glob("*.json")).read_text())
        ports, top, n = d["ports"], d["top"], d["num_nodes"]
        width, dest, ident = ports["s_axis"]["tdata"], ports["s_axis"]["tdest"], ports["m_axis"]["tid"]
        self.sinks = [AXIStreamInterface(width, dest_width=dest) for _ in range(n)]
        self.sources = [AXIStreamInterface(width, id_width=ident, dest_width=dest) for _ in range(n)]
        io = {}
        for v, (s, m) in enumerate(zip(self.sinks, self.sources)):
            vv = f"{v:0{ports['digits']}d}"
            io.update({f"i_s{vv}_axis_tdata": s.data, f"i_s{vv}_axis_tvalid": s.valid, f"o_s{vv}_axis_tready": s.ready,
                       f"i_s{vv}_axis_tlast": s.last, f"i_s{vv}_axis_tdest": s.dest,
                       f"o_m{vv}_axis_tdata": m.data, f"o_m{vv}_axis_tvalid": m.valid, f"i_m{vv}_axis_tready": m.ready,
                       f"o_m{vv}_axis_tlast": m.last, f"o_m{vv}_axis_tid": m.id, f"o_m{vv}_axis_tdest": m.dest})
        self.specials += Instance(top, i_clk=ClockSignal(), i_rst=ResetSignal(), **io)
        if platform is not None:
            for f in sorted(out_dir.glob(f"{top}*.v")):
                platform.add_source(str(f))


def main(out_dir):
    noc = CubenocNoC(out_dir)
    ios = {sig for ep in noc.sinks + noc.sources for sig in (ep.valid, ep.ready, ep.last, ep.data, ep.dest)}
    ios |= {ep.id for ep in noc.sources}
    path = Path(out_dir) / "litex_top.v"
    convert(noc, ios=ios, name="litex_top").write(str(path))
    print(f"wrote {path}")
    return path


if __name__ == "__main__":
    main(sys.argv[1])
