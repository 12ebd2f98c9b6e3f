"""Verilog and port descriptions of a network: what ``cubenoc generate`` writes and cocotb builds.

``network_files(topology, routing)`` returns ``{file name: text}``: ``<top>.v`` (the network, routers
instantiated by module name) and one ``<module>.v`` per distinct router shape (and the AXI4-Stream
interface's module), plus ``<top>.json`` and ``<top>.md`` describing the ports and the header layout,
``<top>.veo`` (an instantiation template), ``<top>.vlt`` (Verilator's waivers for these files) and ``<top>.core``
(a FuseSoC core; docs/ip.md). ``write_network(...)`` writes them into a folder, touching a file only when its text
changes (so simulators do not rebuild for nothing).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from textwrap import wrap

from ..sim.catalog import recorded
from .flit import DEST_WIDTH, link_flit_layout, local_flit_layout
from .network_top import Network
from .router import COUNTERS, COUNTER_WIDTH
from .tools import flat_verilog, use_builtin_yosys


@dataclass
class GeneratedNetwork:
    top: str                    # top module name
    verilog: list[Path]         # every .v file, the top first
    describe_json: Path
    describe_md: Path
    network: Network
    packaging: list[Path]       # <top>.veo (instantiation template), <top>.vlt (waivers), <top>.core (FuseSoC)
    waivers: Path               # <top>.vlt


def top_name(topology, flat: bool = False) -> str:
    return f"cubenoc_{topology.name}" + ("_flat" if flat else "")


def _fields(layout) -> list[dict]:
    out = []
    for name, field in layout:
        out.append({"name": name, "lsb": field.offset, "width": field.width})
    return out


def describe(net: Network, top: str, spec=None) -> dict:
    """``<top>.json``: the network, every field of its resolved router configuration (``router_config``),
    its ports and routers; ``spec``: the catalog spec it was built from (with the router options that differ
    from the generic router)."""
    topo, routing = net.topology, net.routing
    local = local_flit_layout(net.payload_width)
    link = link_flit_layout(routing, net.payload_width)
    if net.broadcast is not None or net.queues == "voq":   # bcast field, wider route; VOQ vc
        link = net.routers[0].flit_layout
    return {
        "top": top,
        "topology": repr(topo),
        "routing": routing.name,
        "num_nodes": topo.num_nodes,
        "payload_width": net.payload_width,
        "fifo_depth": net.fifo_depth,
        "queues": net.config.queues,
        "pipeline": net.config.pipeline,
        "arbitration": net.config.arbitration,
        "broadcast": net.broadcast is not None,
        "counters": net.config.counters,
        "fifo_memory": bool(net.config.fifo_memory),
        "loopback": net.config.loopback,
        "dest_width": DEST_WIDTH,
        "clock": "clk", "reset": "rst (synchronous, active high)",
        "local_flit": _fields(local),
        "link_flit": _fields(link),
        "route_header": [{"name": n, "lsb": routing.layout.offset(n)[0], "width": w}
                         for n, w in routing.layout.fields],
        "flat": net.flat,
        "faults": net.candidate_stage,
        "interface": net.config.interface,
        "ports": _flat_ports(net) if net.flat else _axis_ports(net) if net.axis is not None else {
            "local_in": {"pattern": "local_in__{node}__{valid,ready,payload}", "direction": "in (ready out)",
                         "payload_width": local.size},
            "local_out": {"pattern": "local_out__{node}__{valid,ready,payload}", "direction": "out (ready in)",
                          "payload_width": local.size},
            "status": {"pattern": "status__{node}__{" + ",".join(COUNTERS) + "}", "direction": "out",
                       "width": COUNTER_WIDTH},
        },
        "routers": [{"node": v, "module": net.module_names[v], "ports": topo.num_ports(v) + 1,
                     "port_names": [topo.port_name(v, p) for p in range(topo.num_ports(v) + 1)],
                     "links": [list(topo.neighbor(v, p)) if topo.neighbor(v, p) else None
                               for p in range(topo.num_ports(v))]}
                    for v in topo.nodes()],
        "modules": sorted(set(net.module_names)),
        **recorded(spec, net.config),
    }


def _axis_ports(net: Network) -> dict:
    """The AXI4-Stream top's ports (docs/ip.md), node numbers zero-padded to ``digits``."""
    from .network_top import axis_digits
    a = net.axis
    d = axis_digits(net.topology.num_nodes)
    ports = {"digits": d,
             "s_axis": {"pattern": "s{node}_axis_{tdata,tvalid,tready,tlast,tdest}", "direction": "in (tready out)",
                        "tdata": a.payload_width, "tdest": a.dest_width},
             "m_axis": {"pattern": "m{node}_axis_{tdata,tvalid,tready,tlast,tid,tdest}", "direction": "out (tready in)",
                        "tdata": a.payload_width, "tdest": a.dest_width, "tid": a.node_width},
             "status": {"pattern": "status{node}_{" + ",".join(COUNTERS) + "}", "direction": "out",
                        "width": COUNTER_WIDTH},
             "ni_module": net.ni_module}
    if net.candidate_stage:
        ports["faults"] = {"pattern": "{link_fault,node_fault,discarded}{node}", "link_fault": net.fault_stride}
    return ports


def _flat_ports(net: Network) -> dict:
    n, fw = net.topology.num_nodes, net.payload_width + 2
    ports = {name: {"direction": d, "width": n, "bit_v": "node v"}
             for name, d in (("in_valid", "in"), ("in_ready", "out"), ("out_valid", "out"), ("out_ready", "in"))}
    for name, d in (("in_payload", "in"), ("out_payload", "out")):
        ports[name] = {"direction": d, "width": n * fw, "node_v": f"[v*{fw} +: {fw}]"}
    for name in COUNTERS:
        ports[name] = {"direction": "out", "width": n * COUNTER_WIDTH,
                       "node_v": f"[v*{COUNTER_WIDTH} +: {COUNTER_WIDTH}]"}
    if net.candidate_stage:          # docs/router.md "Adaptive selection and run-time faults"
        pm = net.fault_stride
        ports["link_fault"] = {"direction": "in", "width": n * pm, "node_v": f"[v*{pm} +: {pm}] (bit p: port p)"}
        ports["node_fault"] = {"direction": "in", "width": n, "bit_v": "node v"}
        ports["discarded"] = {"direction": "out", "width": n * COUNTER_WIDTH,
                              "node_v": f"[v*{COUNTER_WIDTH} +: {COUNTER_WIDTH}]"}
    return ports


def _options_line(d: dict) -> str:
    """The router options that change what the ports mean or how the FIFOs are built."""
    out = ""
    if not d.get("counters", True):
        out += " Built without the status counters (`--no-counters`): the status outputs read 0."
    if d.get("counters") == "dsp":
        out += " Status counters in DSP blocks where the platform has them (`--dsp-counters`)."
    if not d.get("loopback", True):
        out += (" Built without loopback (`--no-loopback`): a packet addressed to its own node is dropped at its "
                "source and counted in `dropped`.")
    if d.get("fifo_memory"):
        out += (" FIFO storage behind each head register in memory arrays (`--fifo-memory`: distributed RAM "
                "where the synthesis tool infers it).")
    return out


def _markdown(d: dict) -> str:
    lines = [f"# `{d['top']}`: {d['topology']} with {d['routing']} routing", "",
             f"{d['num_nodes']} routers, payload W = {d['payload_width']} bits, input FIFO depth "
             f"{d['fifo_depth']}, clock `clk`, synchronous active-high reset `rst`. Microarchitecture: "
             "docs/router.md." + _options_line(d), "", "## Ports (per node v)", "", "| port | direction | width |", "|---|---|---|"]
    w = d["payload_width"] + 2
    if d.get("interface") == "axis":
        return _axis_markdown(d, lines[:4])
    if d["flat"]:
        lines[-4:] = ["## Ports (vectors indexed by node v)", "", "| port | direction | width | node v |", "|---|---|---|---|"]
        for name, p in d["ports"].items():
            lines.append(f"| `{name}` | {p['direction']} | {p['width']} | {p.get('node_v', 'bit v')} |")
    for s in (() if d["flat"] else ("local_in", "local_out")):
        lines.append(f"| `{s}__{{v}}__valid` | {'in' if s == 'local_in' else 'out'} | 1 |")
        lines.append(f"| `{s}__{{v}}__ready` | {'out' if s == 'local_in' else 'in'} | 1 |")
        lines.append(f"| `{s}__{{v}}__payload` | {'in' if s == 'local_in' else 'out'} | {w} |")
    for c in (() if d["flat"] else COUNTERS):
        lines.append(f"| `status__{{v}}__{c}` | out | {COUNTER_WIDTH} |")
    if d.get("faults") and not d["flat"]:       # docs/router.md "Adaptive selection and run-time faults"
        lines += ["| `link_fault__{v}` | in | network ports of v (bit p: port p) |",
                  "| `node_fault__{v}` | in | 1 |", f"| `discarded__{{v}}` | out | {COUNTER_WIDTH} |"]
    lines += ["", "## Local flit (payload vector, LSB first)", "", "| field | lsb | width |", "|---|---|---|"]
    lines += [f"| {f['name']} | {f['lsb']} | {f['width']} |" for f in d["local_flit"]]
    lines += ["", f"On a head flit `data[0:{d['dest_width']}]` is the destination node.", "",
              "## Link flit (router to router)", "", "| field | lsb | width |", "|---|---|---|"]
    lines += [f"| {f['name']} | {f['lsb']} | {f['width']} |" for f in d["link_flit"]]
    lines += ["", "Route header fields (inside `route`): " +
              ", ".join(f"`{f['name']}` [{f['lsb']}+:{f['width']}]" for f in d["route_header"]), "",
              "## Router modules", ""]
    for mod in d["modules"]:
        nodes = [r["node"] for r in d["routers"] if r["module"] == mod]
        first = next(r for r in d["routers"] if r["module"] == mod)
        lines.append(f"- `{mod}` ({first['ports']} ports: {', '.join(first['port_names'])}): nodes "
                     + (", ".join(map(str, nodes)) if len(nodes) <= 16 else f"{len(nodes)} nodes"))
    return "\n".join(lines) + "\n"


def _axis_markdown(d: dict, lines: list[str]) -> str:
    p = d["ports"]
    vv = "0" * p["digits"]
    lines += ["## Ports (per node vv, zero-padded: " + vv + ", ...)", "", "| port | direction | width |", "|---|---|---|"]
    for f, dirn, width in (("tdata", "in", p["s_axis"]["tdata"]), ("tvalid", "in", 1), ("tready", "out", 1),
                           ("tlast", "in", 1), ("tdest", "in", p["s_axis"]["tdest"])):
        lines.append(f"| `s{{vv}}_axis_{f}` | {dirn} | {width} |")
    for f, dirn, width in (("tdata", "out", p["m_axis"]["tdata"]), ("tvalid", "out", 1), ("tready", "in", 1),
                           ("tlast", "out", 1), ("tid", "out", p["m_axis"]["tid"]), ("tdest", "out", p["m_axis"]["tdest"])):
        lines.append(f"| `m{{vv}}_axis_{f}` | {dirn} | {width} |")
    lines += [f"| `status{{vv}}_{c}` | out | {COUNTER_WIDTH} |" for c in COUNTERS]
    if "faults" in p:
        lines += [f"| `link_fault{{vv}}` | in | {p['faults']['link_fault']} (bit p: port p) |",
                  "| `node_fault{vv}` | in | 1 |", f"| `discarded{{vv}}` | out | {COUNTER_WIDTH} |"]
    bc = d.get("broadcast")
    lines += ["", "One AXI4-Stream frame is one packet: `tdest` is the destination node (out of range: the frame is "
              "dropped and counted in `dropped`" + ("; all ones: a broadcast" if bc else "") +
              "), `tid` the source" + ("; a broadcast copy arrives with `tdest` all ones" if bc else "") +
              "; every beat of `tdata` is delivered. `m_axis_tvalid` never waits for `m_axis_tready`; "
              "`s_axis_tready` never depends on `s_axis_tvalid`. The network interface "
              f"(`{p['ni_module']}`, one per node) sends a header flit before each frame: a frame of L beats is "
              "L + 1 flits (docs/ip.md)."]
    if bc:
        lines += ["", f"**Limit**: a broadcast frame has at most {d['fifo_depth'] - 1} beats (the FIFO depth "
                  f"{d['fifo_depth']} less the header); a longer one is dropped whole at its source node and "
                  "counted in `dropped` (docs/ip.md \"Limits\")."]
    lines.append("")
    return "\n".join(lines) + "\n"


def network_files(plan, *, top: str | None = None, flat: bool = False, progress=None,
                  spec=None) -> tuple[dict[str, str], Network, str]:
    """Every file of the network of ``plan``; ``progress(done, total, what)`` is called as each Verilog file
    is made; ``spec``: the catalog spec it was built from (recorded in ``<top>.json``)."""
    use_builtin_yosys()
    top = top or top_name(plan.topology, flat)
    net = Network(plan, structural=True, flat=flat, module_prefix=f"{top}_router")
    modules = net.router_modules()
    tick = progress or (lambda done, total, what: None)
    tick(0, len(modules) + 1, f"{top}.v")
    files = {f"{top}.v": flat_verilog(net, top, net.verilog_ports(), flatten=False)}
    for i, (name, router) in enumerate(modules.items()):
        tick(i + 1, len(modules) + 1, f"{name}.v")
        files[f"{name}.v"] = flat_verilog(router, name)
    if net.axis is not None:                    # docs/ip.md: one interface module, instantiated per node
        from .axis_ni import AxisNetworkInterface
        files[f"{net.ni_module}.v"] = flat_verilog(AxisNetworkInterface(net.axis), net.ni_module)
    tick(len(modules) + 1, len(modules) + 1, "done")
    d = describe(net, top, spec)
    files[f"{top}.json"] = json.dumps(d, indent=2) + "\n"
    files[f"{top}.md"] = _markdown(d)
    files[f"{top}.veo"] = instantiation_template(net, top)
    files[f"{top}.vlt"] = verilator_waivers(top)
    files[f"{top}.core"] = fusesoc_core(top, [n for n in files if n.endswith(".v")], d)
    return files, net, top


def top_ports(net: Network) -> list[tuple[str, str, int]]:
    """The top's Verilog ports ``(name, "input"|"output", width)`` in signature order (clk and rst first)."""
    from amaranth import Value
    from amaranth.lib import wiring
    out = [("clk", "input", 1), ("rst", "input", 1)]
    names = net.verilog_ports()
    if names is not None:
        flows = {id(v): m.flow for _, m, v in ((p, m, Value.cast(v)) for p, m, v in net.signature.flatten(net))}
        return out + [(name, "input" if flows.get(id(v)) == wiring.In else "output", len(v))
                      for name, (v, _) in names.items()]
    return out + [("__".join(map(str, path)), "input" if m.flow == wiring.In else "output", len(Value.cast(v)))
                  for path, m, v in net.signature.flatten(net)]


#: The top's clock and reset, connected by name in the instantiation template (no wires declared for them).
CLOCK_RESET = ("clk", "rst")


def instantiation_template(net: Network, top: str) -> str:
    """``<top>.veo``: the module instantiated with every port connected to a wire of its own name; ``clk``
    and ``rst`` are connected by name without a wire, so the text pastes unchanged into a module whose clock
    and reset are called ``clk`` and ``rst`` (ports or wires of the user's). Each connection says its
    direction and width."""
    ports = top_ports(net)
    lines = [f"// Instantiation template of {top} (cubenoc generate): copy it into your design and connect the",
             "// wires. One AXI4-Stream frame is one packet: tdest the destination, tid the source (docs/ip.md)."
             if net.axis is not None else
             "// Local flit streams: <top>.md gives the payload layout (docs/router.md).",
             "// clk (rising edge) and rst (synchronous, active high) are connected by name and not declared",
             "// here: your module's clock and reset, named clk and rst, drive them as they are.", ""]
    lines += [f"wire {f'[{w - 1}:0] ' if w > 1 else ''}{name};" for name, _, w in ports if name not in CLOCK_RESET]
    lines += ["", f"{top} u_{top} ("]
    pad = max(len(name) for name, _, _ in ports) * 2 + 5
    for i, (name, direction, w) in enumerate(ports):
        conn = f".{name}({name}){',' if i < len(ports) - 1 else ''}"
        lines.append(f"    {conn:<{pad}} // {direction}{f' [{w - 1}:0]' if w > 1 else ''}")
    return "\n".join(lines + [");", ""])


#: Verilator -Wall warnings that the generated Verilog gives by construction, each with why (docs/ip.md
#: "Packaging"); ``<top>.vlt`` waives them in the network's own files and nowhere else.
WAIVERS = (
    ("UNUSEDSIGNAL", "bits that are declared and not read. Amaranth writes a wire for each field of a "
     "struct-typed port or signal (local_in__0__payload.head ...) so that waveforms show the fields, while the "
     "logic reads the packed vector; a sum is one bit wider than the counter it wraps; a unit takes a whole flit "
     "or route header and reads the fields it needs (route bits that every legal arrival fixes, docs/router.md)."),
    ("PROCASSINIT", "every register is declared with its reset value as its initial value (reg [15:0] injected "
     "= 16'h0000;, Amaranth's init, the FPGA's power-up state) and assigned in its always block; rst loads the "
     "same value."),
    ("CASEOVERLAP", "a multiplexer whose selects are one-hot (the cases of one Amaranth Switch, each a "
     "different value of the same signal) is written as a parallel_case casez with one pattern per select bit; "
     "two patterns overlap only where two selects are high at once, which the compares exclude."),
)


def verilator_waivers(top: str) -> str:
    """``<top>.vlt``: a Verilator configuration file waiving ``WAIVERS`` in files whose names contain ``top``
    (``verilator --lint-only -Wall <top>.vlt <top>*.v``: 0 warnings; tests/test_ip.py). No comment line starts
    with the word "verilator": Verilator reads such a comment as a directive."""
    lines = ["`verilator_config",
             *(f"// {line}" for line in wrap(
                 f"Waivers of Verilator -Wall warnings in {top} (cubenoc generate; docs/ip.md \"Packaging\"). "
                 f"Give this file before the Verilog: `verilator --lint-only -Wall {top}.vlt {top}*.v`. Each rule "
                 f"is waived for the reason above it, in the files whose names contain {top} only; every other "
                 "-Wall warning stays on.", 100)), ""]
    for rule, why in WAIVERS:
        lines += [f"// {line}" for line in wrap(f"{rule}: {why}", 100)]
        lines += [f'lint_off -rule {rule} -file "*{top}*.v"', ""]
    assert not any(line[2:].lstrip().lower().startswith("verilator") for line in lines if line.startswith("//"))
    return "\n".join(lines)


def fusesoc_core(top: str, verilog: list[str], d: dict) -> str:
    """``<top>.core``: a FuseSoC CAPI2 core of the Verilog beside it, with a Verilator ``lint`` target
    (``-Wall``, with the waiver file ``<top>.vlt``) and an Icarus ``sim`` target (``fusesoc --cores-root OUT run
    --target lint cubenoc:noc:<top>``; docs/ip.md)."""
    files = "\n".join(f"      - {name}" for name in verilog)
    return f"""CAPI=2:
name: cubenoc:noc:{top}:0.1.0
description: "{d['topology']}, {d['routing']} routing, {d['num_nodes']} nodes, {d['interface']} interface (cubenoc generate)"

filesets:
  rtl:
    files:
{files}
    file_type: verilogSource
  waivers:
    files:
      - {top}.vlt
    file_type: vlt

targets:
  default: &default
    filesets: [rtl]
    toplevel: {top}
  lint:
    <<: *default
    filesets: [waivers, rtl]
    default_tool: verilator
    tools:
      verilator:
        mode: lint-only
        verilator_options: [-Wall]
  sim:
    <<: *default
    default_tool: icarus
    tools:
      icarus:
        iverilog_options: [-g2012]
"""


def write_network(plan, outdir, **kw) -> GeneratedNetwork:
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    files, net, top = network_files(plan, **kw)
    paths = {}
    for name, text in files.items():
        path = outdir / name
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        paths[name] = path
    verilog_files = [paths[f"{top}.v"]] + [p for n, p in paths.items() if n.endswith(".v") and n != f"{top}.v"]
    return GeneratedNetwork(top, verilog_files, paths[f"{top}.json"], paths[f"{top}.md"], net,
                            [paths[f"{top}.veo"], paths[f"{top}.vlt"], paths[f"{top}.core"]], paths[f"{top}.vlt"])
