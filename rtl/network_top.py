# amaranth: UnusedElaboratable=no
"""Network builder: any topology + routing function -> one top-level component with N routers.

``Network(plan)`` (the network's :class:`~cubenoc.sim.network_plan.NetworkPlan`: every router built with its
one :class:`~cubenoc.sim.router_config.RouterConfig`) wires router ``u``'s ``out_p{p}`` to router ``v``'s
``in_p{q}`` for every link ``neighbor(u, p) == (v, q)`` and exposes, per node ``v`` (Verilog names in brackets):

* ``local_in[v]``  (In, local flit stream)  [``local_in__{v}__valid``, ``..__ready``, ``..__payload``]
* ``local_out[v]`` (Out, local flit stream) [``local_out__{v}__valid``, ``..__ready``, ``..__payload``]
* ``status[v]``    16-bit counters          [``status__{v}__injected``, ``__ejected``, ``__dropped``,
  ``__malformed``]

A local flit's payload vector is ``{data, tail, head}`` (head is bit 0, tail bit 1, data from bit 2).

With ``config.interface == "axis"`` the per-node ports are AXI4-Stream instead (docs/ip.md): ``s_axis[v]``
(In, :class:`~cubenoc.rtl.axis_ni.AxisSignature`) and ``m_axis[v]`` (Out, with ``tid``), each node's
:class:`~cubenoc.rtl.axis_ni.AxisNetworkInterface` between them and its router; the Verilog top names them
``s<vv>_axis_tdata`` ... (:meth:`Network.verilog_ports`).

``flat=True`` exposes the same ports as vectors indexed by node instead (for benches that write one
integer per signal per cycle): ``in_valid``/``in_ready``/``out_valid``/``out_ready`` (N bits, bit v =
node v), ``in_payload``/``out_payload`` (N*(W+2) bits, node v's flit at ``[v*(W+2) +: W+2]``), and
``injected``/``ejected``/``dropped``/``malformed`` (N*16 bits, node v at ``[v*16 +: 16]``).

``structural=False`` (default) elaborates every router as an Amaranth submodule (simulate with
amaranth.sim). ``structural=True`` instantiates each router by module name (``Instance``); the router
modules are converted separately, one per distinct router shape (:meth:`router_modules`), which is what
``cubenoc generate`` writes and what Verilator builds fastest: a 64-node hypercube is one router module
instantiated 64 times.
"""
from __future__ import annotations

from amaranth import ClockSignal, Const, Instance, Module, ResetSignal, Signal, Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from cubenoc.errors import CubenocError

from .axis_ni import AxisNetworkInterface, AxisParams
from .flit import local_signature
from ..sim.network_plan import NetworkPlan
from .router import COUNTER_WIDTH, COUNTERS, Router

STATUS_SIGNATURE = wiring.Signature({name: Out(COUNTER_WIDTH) for name in COUNTERS})


class Network(wiring.Component):
    def __init__(self, plan: NetworkPlan, *, structural: bool = False, flat: bool = False,
                 module_prefix: str | None = None):
        topology, routing = plan.topology, plan.routing
        topology.validate()
        self.topology, self.routing, self.plan = topology, routing, plan
        c = self.config = plan.config
        self.payload_width, self.fifo_depth, self.structural = c.payload_width, c.fifo_depth, structural
        self.flat, self.queues, self.pipeline = flat, c.queues, c.pipeline
        self.routers = [Router(plan, v) for v in topology.nodes()]
        self.broadcast = self.plan.broadcast
        prefix = module_prefix or f"cubenoc_{topology.name}_router"
        shapes: dict[tuple, str] = {}
        for r in self.routers:
            if r.shape_key not in shapes:
                shapes[r.shape_key] = f"{prefix}{len(shapes)}" if shapes or _many(self.routers) else prefix
        self.module_names = [shapes[r.shape_key] for r in self.routers]
        n = topology.num_nodes
        self.axis = None
        if c.interface == "axis":              # docs/ip.md: a network interface per node
            if flat:
                raise CubenocError("the flat top exposes the routers' flit streams: it does not take the AXI4-Stream "
                                   "interface (interface=axis)")
            self.axis = AxisParams(c.payload_width, n, self.broadcast is not None, c.fifo_depth)
            self.ni_module = prefix.removesuffix("_router") + "_axis_ni"
            self._ni = [AxisNetworkInterface(self.axis) for _ in range(n)]
            self._ni_wires = [{(s, f): Signal(len(Value.cast(getattr(getattr(ni, s), f))), name=f"node{v}_{s}__{f}")
                               for s in ("local_in", "local_out") for f in ("valid", "ready", "payload")}
                              for v, ni in enumerate(self._ni)]
            members = {"s_axis": In(self.axis.slave()).array(n), "m_axis": Out(self.axis.master()).array(n),
                       "status": Out(STATUS_SIGNATURE).array(n)}
        elif flat:
            fw = c.payload_width + 2
            members = {"in_valid": In(n), "in_ready": Out(n), "in_payload": In(n * fw),
                       "out_valid": Out(n), "out_ready": In(n), "out_payload": Out(n * fw)}
            members.update({name: Out(n * COUNTER_WIDTH) for name in COUNTERS})
        else:
            members = {"local_in": In(local_signature(c.payload_width)).array(n),
                       "local_out": Out(local_signature(c.payload_width)).array(n),
                       "status": Out(STATUS_SIGNATURE).array(n)}
        # docs/router.md "Adaptive selection and run-time faults": fault inputs, discarded counters
        self.candidate_stage = plan.candidate_stage
        if self.candidate_stage:
            self.fault_stride = max(1, max(topology.num_ports(v) for v in topology.nodes()))
            pm = self.fault_stride
            if flat:
                members.update({"link_fault": In(n * pm), "node_fault": In(n), "discarded": Out(n * COUNTER_WIDTH)})
            else:
                members.update({"link_fault": In(pm).array(n), "node_fault": In(1).array(n),
                                "discarded": Out(COUNTER_WIDTH).array(n)})
            self._fault_wires = {v: (Signal(max(1, topology.num_ports(v)), name=f"fault_link_{v}"),
                                     Signal(name=f"fault_node_{v}")) for v in topology.nodes()}
        super().__init__(members)

    def _top_fault(self, v: int, p: int | None = None):
        """The top's link_fault bit p (or node_fault, p None) of node v."""
        if p is None:
            return self.node_fault[v]
        return self.link_fault[v * self.fault_stride + p] if self.flat else self.link_fault[v][p]

    def _drive_faults(self, m: Module) -> None:
        """Each router's link_fault[p] = either end's link bit | the far node's node_fault."""
        if not self.candidate_stage:
            return
        topo = self.topology
        for v in topo.nodes():
            lf, nf = self._fault_wires[v]
            m.d.comb += nf.eq(self._top_fault(v))
            for p in range(topo.num_ports(v)):
                far = topo.neighbor(v, p)
                bit = self._top_fault(v, p)
                if far is not None:
                    bit = bit | self._top_fault(far[0], far[1]) | self._top_fault(far[0])
                m.d.comb += lf[p].eq(bit)

    def router_modules(self) -> dict[str, Router]:
        """One representative router per distinct Verilog module name (convert each on its own)."""
        out: dict[str, Router] = {}
        for name, r in zip(self.module_names, self.routers):
            out.setdefault(name, r)
        return out

    def _top_side(self, v: int) -> dict:
        """Router member path -> the network-level value it drives or reads (local ports, counters)."""
        out = {}
        if self.flat:
            fw = self.payload_width + 2
            out[("local_in", "valid")] = self.in_valid[v]
            out[("local_in", "ready")] = self.in_ready[v]
            out[("local_in", "payload")] = self.in_payload[v * fw:(v + 1) * fw]
            out[("local_out", "valid")] = self.out_valid[v]
            out[("local_out", "ready")] = self.out_ready[v]
            out[("local_out", "payload")] = self.out_payload[v * fw:(v + 1) * fw]
            for name in COUNTERS:
                out[(name,)] = getattr(self, name)[v * COUNTER_WIDTH:(v + 1) * COUNTER_WIDTH]
        else:
            for s in ("local_in", "local_out"):
                for f in ("valid", "ready", "payload"):
                    out[(s, f)] = self._ni_wires[v][s, f] if self.axis else Value.cast(getattr(getattr(self, s)[v], f))
            for name in COUNTERS:
                out[(name,)] = getattr(self.status[v], name)
        if self.candidate_stage:
            out[("link_fault",)], out[("node_fault",)] = self._fault_wires[v]
            out[("discarded",)] = (self.discarded[v * COUNTER_WIDTH:(v + 1) * COUNTER_WIDTH] if self.flat
                                   else self.discarded[v])
        return out

    def elaborate(self, platform):
        return self._elaborate_structural() if self.structural else self._elaborate_hierarchical()

    def _elaborate_hierarchical(self) -> Module:
        m = Module()
        topo = self.topology
        self._drive_faults(m)
        self._add_interfaces(m)
        for v, r in enumerate(self.routers):
            m.submodules[f"router_{v}"] = r
            if r.node_generic:
                m.d.comb += r.node_id.eq(Const(v, len(r.node_id)))
            top = self._top_side(v)
            for path, member, mine in r.signature.flatten(r):
                if path in top:
                    if member.flow == Out:
                        m.d.comb += top[path].eq(mine)
                    else:
                        m.d.comb += Value.cast(mine).eq(top[path])
            for p in range(topo.num_ports(v)):
                far = topo.neighbor(v, p)
                out = r.output_stream(p)
                if far is None:          # unconnected port: never granted (allowed excludes it), never fed
                    m.d.comb += [out.ready.eq(0), r.input_stream(p).valid.eq(0)]
                    continue
                u, q = far
                wiring.connect(m, out, self.routers[u].input_stream(q))
        return m

    def _elaborate_structural(self) -> Module:
        """Routers as Instances whose ports are wired straight to the top's ports and to one plain
        signal per channel wire (``link_{u}_p{p}__valid/ready/payload``), so the top has no alias wires."""
        m = Module()
        topo = self.topology
        self._drive_faults(m)
        self._add_interfaces(m, structural=True)
        flit_width = self.routers[0].flit_layout.size
        # one plain signal per channel (u, p) and wire: no View, so no per-field alias wires
        link = {}
        V = self.routers[0].num_vcs              # the ready wire has one bit per VC (VOQ: per queue)
        for u, p in topo.channels():
            wires = (("valid", 1), ("ready", V), ("payload", flit_width))
            if self.broadcast is not None:     # the downstream FIFO's empty flag (broadcast heads wait for it)
                wires += (("empty", 1),)
            if self.pipeline:                  # room for two flits (docs/router.md "Pipelined router")
                wires += (("ready2", 1),)
            for f, width in wires:
                link[u, p, f] = Signal(width, name=f"link_{u}_p{p}__{f}")
        for v, r in enumerate(self.routers):   # each stands for its Instance, converted on its own (no "never
            top = self._top_side(v)              # used" warning: this file's first line)
            ports = {}
            for path, member, value in r.signature.flatten(r):
                if path in top:
                    value = top[path]
                elif path == ("node_id",):
                    value = Const(v, len(r.node_id))
                elif path[0].startswith("out_p"):          # this router's outgoing channel
                    p = int(path[0][5:])
                    if (v, p, path[1]) in link:
                        value = link[v, p, path[1]]
                    else:                                  # unconnected port: outputs dangle, inputs tie low
                        width = len(Value.cast(value))
                        value = Const(0, width) if member.flow == In else Signal(width)
                elif path[0].startswith("in_p"):           # the neighbour's channel towards us
                    far = topo.neighbor(v, int(path[0][4:]))
                    if far is None:
                        value = Const(0, len(Value.cast(value))) if member.flow == In else Signal(len(Value.cast(value)))
                    else:
                        value = link[far[0], far[1], path[1]]
                name = "__".join(str(p) for p in path)
                ports[("i_" if member.flow == In else "o_") + name] = Value.cast(value)
            m.submodules[f"router_{v}"] = Instance(self.module_names[v], i_clk=ClockSignal(),
                                                   i_rst=ResetSignal(), **ports)
        return m

    def _add_interfaces(self, m: Module, structural: bool = False) -> None:
        """Each node's AXI4-Stream interface between the top's s_axis/m_axis and the router's local streams
        (the wires ``node{v}_local_in__*``, ``node{v}_local_out__*``); structural: by module name."""
        if self.axis is None:
            return
        for v, ni in enumerate(self._ni):
            wires = self._ni_wires[v]
            if structural:
                ports = {}
                for path, member, value in ni.signature.flatten(ni):
                    if path == ("node_id",):
                        value = Const(v, len(value))
                    elif path[0] in ("local_in", "local_out"):
                        value = wires[path]
                    else:                                  # s_axis / m_axis: the top's ports of node v
                        value = getattr(getattr(self, path[0])[v], path[1])
                    ports[("i_" if member.flow == In else "o_") + "__".join(path)] = Value.cast(value)
                m.submodules[f"ni_{v}"] = Instance(self.ni_module, i_clk=ClockSignal(), i_rst=ResetSignal(), **ports)
                continue
            m.submodules[f"ni_{v}"] = ni
            m.d.comb += ni.node_id.eq(v)
            wiring.connect(m, wiring.flipped(self.s_axis[v]), ni.s_axis)
            wiring.connect(m, ni.m_axis, wiring.flipped(self.m_axis[v]))
            for s in ("local_in", "local_out"):
                for f in ("valid", "ready", "payload"):
                    mine, wire = Value.cast(getattr(getattr(ni, s), f)), wires[s, f]
                    out = (s == "local_in") == (f != "ready")      # the interface drives it
                    m.d.comb += wire.eq(mine) if out else mine.eq(wire)

    def verilog_ports(self) -> dict | None:
        """The top's Verilog port names with the AXI4-Stream interface (``s00_axis_tdata``, ``m00_axis_tid``,
        ``status00_dropped``, ``link_fault00`` ...: node numbers zero-padded so that names sort; what
        cocotbext-axi's ``AxiStreamBus.from_prefix`` and vendor interface inference bind to); None: Amaranth's
        own (``local_in__3__payload``)."""
        if self.axis is None:
            return None
        digits = axis_digits(self.topology.num_nodes)
        out = {}
        for path, member, value in self.signature.flatten(self):
            v = f"{path[1]:0{digits}d}"
            if path[0] in ("s_axis", "m_axis"):
                name = f"{path[0][0]}{v}_axis_{path[2]}"
            elif path[0] == "status":
                name = f"status{v}_{path[2]}"
            else:                                   # link_fault, node_fault, discarded
                name = f"{path[0]}{v}"
            out[name] = (Value.cast(value), None)      # the direction: In ports are read, Out ports driven
        return out


def axis_digits(num_nodes: int) -> int:
    """Digits of the node number in the AXI4-Stream top's port names (at least 2: ``s00_axis``)."""
    return max(2, len(str(num_nodes - 1)))


def _member(obj, path):
    for p in path:
        obj = getattr(obj, p)
    return obj


def _many(routers) -> bool:
    return len({r.shape_key for r in routers}) > 1
