"""AXI4-Stream partners that behave differently from the kit's (docs/verification.md "Receivers of every
kind"): a generated wrapper around the ``--interface axis`` top, itself Amaranth-generated Verilog, that

* lets any receiver's ``tready`` follow its ``tvalid`` combinationally (``follow`` input, one bit per node:
  the receiver AXI4-Stream allows, which waits for ``tvalid`` before it raises ``tready``), and
* chains node ``a``'s ``m_axis`` into node ``b``'s ``s_axis`` (``tdest`` from the ``chain_tdest`` input), as
  a user who relays frames through a second node does.

The wrapper keeps the top's port names, so cocotbext-axi binds to it as to the top; ``ready_eff`` (bit v)
is the ``tready`` node v's interface actually sees, what :class:`~cubenoc.tb.axis_kit.Recorder` records
for the model. :func:`write_partner_top` writes ``<top>_partners.v`` beside the generated network.
"""
from __future__ import annotations

from pathlib import Path

from amaranth import ClockSignal, Instance, Module, Mux, ResetSignal, Signal
from amaranth.back import verilog


def partner_top(net, top: str, chain: tuple[int, int] | None = None):
    """The wrapper module and its ports (``(name, signal)`` in the top's order, then ``follow``,
    ``ready_eff``, ``chain_tdest``)."""
    from ..rtl.emit import top_ports
    from ..rtl.network_top import axis_digits
    n, d = net.topology.num_nodes, axis_digits(net.topology.num_nodes)
    m = Module()
    ports = {name: Signal(w, name=name) for name, _, w in top_ports(net) if name not in ("clk", "rst")}
    wires = {name: Signal(w, name=f"net_{name}") for name, _, w in top_ports(net) if name not in ("clk", "rst")}
    follow, ready_eff = Signal(n, name="follow"), Signal(n, name="ready_eff")
    extra = [follow, ready_eff]
    a, b = chain if chain is not None else (None, None)
    chain_tdest = None
    if chain is not None:
        chain_tdest = Signal(len(wires[f"s{b:0{d}d}_axis_tdest"]), name="chain_tdest")
        extra.append(chain_tdest)
    for name, _, _ in top_ports(net):
        if name in ("clk", "rst"):
            continue
        p, w = ports[name], wires[name]
        side, node, field = name[0], int(name[1:1 + d]) if name[1:1 + d].isdigit() else None, name.split("_")[-1]
        if name.startswith(f"s{b:0{d}d}_axis_") if b is not None else False:        # driven by the chain
            src = wires[f"m{a:0{d}d}_axis_{field}"] if field in ("tvalid", "tdata", "tlast") else None
            if field == "tdest":
                m.d.comb += w.eq(chain_tdest)
            elif field != "tready":
                m.d.comb += w.eq(src)
            m.d.comb += p.eq(w)                                   # shown at the wrapper's port (an output)
        elif a is not None and name == f"m{a:0{d}d}_axis_tready":
            m.d.comb += [w.eq(wires[f"s{b:0{d}d}_axis_tready"]), p.eq(w), ready_eff[a].eq(w)]
        elif side == "m" and field == "tready" and "_axis_" in name:
            valid = wires[name.replace("tready", "tvalid")]
            m.d.comb += [w.eq(Mux(follow[node], valid, p)), ready_eff[node].eq(w)]
        elif _is_input(net, name):
            m.d.comb += w.eq(p)
        else:
            m.d.comb += p.eq(w)
    m.submodules.network = Instance(top, i_clk=ClockSignal(), i_rst=ResetSignal(),
                                    **{("i_" if _is_input(net, k) else "o_") + k: v for k, v in wires.items()})
    return m, list(ports.values()) + extra


def _is_input(net, name: str) -> bool:
    from ..rtl.emit import top_ports
    cache = net.__dict__.setdefault("_partner_dirs", {k: d == "input" for k, d, _ in top_ports(net)})
    return cache[name]


def write_partner_top(net, top: str, outdir, chain: tuple[int, int] | None = None) -> Path:
    """Write ``<top>_partners.v`` (module ``<top>_partners``) into ``outdir``; returns its path."""
    m, ports = partner_top(net, top, chain)
    text = verilog.convert(m, name=f"{top}_partners", ports=ports, emit_src=False)
    path = Path(outdir) / f"{top}_partners.v"
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return path
