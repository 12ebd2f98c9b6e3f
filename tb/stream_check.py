"""The stream rule on every link of a generated flat network (docs/router.md "Streams hold their offer").

:func:`stream_check_sv` writes SystemVerilog that ``bind``s a small checker to each channel wire
``link_{u}_p{p}__valid/ready/payload`` of the structural top (rtl/network_top.py): once ``valid`` is high and
the flit is not taken (``ready`` of its VC low), next cycle ``valid`` must be high with the same
``payload``. A break stops the simulation with ``$fatal`` and a line naming the link and the cycle, so
the cocotb run fails (the local outputs are checked by tb/cocotb_network.py itself).
"""
from __future__ import annotations

CHECKER = """\
module cubenoc_stream_check #(parameter W = 1, parameter U = 0, parameter P = 0) (
    input clk, input rst, input valid, input taken, input [W-1:0] payload);
  reg held = 1'b0;
  reg [W-1:0] last;
  integer cycle = 0;
  always @(posedge clk) begin
    cycle <= rst ? 0 : cycle + 1;
    if (!rst && held && (!valid || payload != last))
      $fatal(1, "stream rule: link out_p%0d of node %0d withdrew or changed its offer %h before ready took it (cycle %0d after reset)",
             P, U, last, cycle);
    held <= !rst && valid && !taken;
    last <= payload;
  end
endmodule
"""


def stream_check_sv(network, top: str) -> str:
    """The checker module and one ``bind`` per channel of ``network`` (a structural flat Network)."""
    layout = network.routers[0].flit_layout
    vc_field = dict(layout).get("vc")      # VCs, or per-output queues (the next router's output)
    lines = [CHECKER]
    for u, p in network.topology.channels():
        w = f"link_{u}_p{p}__"
        if vc_field is not None:        # the flit's VC (queue) selects its ready bit
            f = vc_field
            taken = f"{w}valid & {w}ready[{w}payload[{f.offset + f.width - 1}:{f.offset}]]"
        else:
            taken = f"{w}valid & {w}ready"
        lines.append(f"bind {top} cubenoc_stream_check #(.W({layout.size}), .U({u}), .P({p})) check_{u}_p{p} "
                     f"(.clk(clk), .rst(rst), .valid({w}valid), .taken({taken}), .payload({w}payload));")
    return "\n".join(lines) + "\n"
