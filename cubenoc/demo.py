"""Generate the 16-node enhanced hypercube Q(4, 0), run its Verilog in Verilator against the model.

What `make demo` shows: the router generator, the cycle-accurate model and the cocotb scoreboard on one
network under seeded random traffic (random packet lengths, random ejection backpressure), then a short
report: packets, latency, throughput and the verdict of the flit-by-flit, cycle-by-cycle comparison. The
command's options are in cubenoc/demo_options.py.
"""
from __future__ import annotations

import os
import time

from .errors import CubenocError, require, require_int, require_modules
from .estimate import check_run
from .html_report import write_report
from .netargs import check_size, one_network
from .outputs import report_file, say, working, writable_dir
from .sim.catalog import NetworkSpec
from .sim.model.stimulus import random_traffic
from .sim.network_plan import plan_of
from .sim.report_run import point_of_run
from .sim.traffic import MAX_PACKET_FLITS
from .tb.verify import verify_network


def run(args) -> int:
    require_modules("verify", "amaranth", "cocotb", "verilator")   # the README's [verify], before any line
    require(0.0 < args.ready <= 1.0, f"--ready must be in (0, 1], got {args.ready}")
    require(args.gap >= 0, f"--gap must be >= 0, got {args.gap}")
    require_int(args.packets, "--packets", 1)
    require_int(args.max_len, "--max-len", 1, MAX_PACKET_FLITS)
    network = one_network(args.network, args.network_option)
    if network and (args.n is not None or args.k is not None):
        raise CubenocError(f"--n/--k size the default Q(n, k); the network {network} has its own size: give one "
                           f"or the other")
    spec = NetworkSpec.parse(network) if network else NetworkSpec.of(
        "enhanced", n=4 if args.n is None else args.n, k=0 if args.k is None else args.k)
    topo, routing = spec.build("rtl")
    build_dir = writable_dir(args.build_dir, "--build-dir").resolve()
    report_file(args.report, "--report")
    check_size(spec, topo, routing, "demo")
    n = topo.num_nodes
    check_demo_run(n, args.packets, args.max_len, args.gap)       # hours or gigabytes: refused before any line
    config = spec.router_config()
    if config.interface == "axis":
        raise CubenocError(f"{spec}: the demo drives the routers' own flit streams; leave out interface=axis (the "
                           f"AXI4-Stream top has its own cocotb kit: generate --interface axis --testbench)")
    plan_of(topo, routing, config)               # every router option and its combination checked, before any line
    say(f"cubenoc demo: {spec.label(topo)}, {n} routers of {topo.num_ports(0) + 1} ports, {routing.name} routing, "
          f"wormhole, 4-flit FIFOs, 32-bit flits")
    stim = random_traffic(n, args.packets, args.max_len, args.seed, mean_gap=args.gap, p_ready=args.ready,
                          ready_cycles=100_000)
    say(f"traffic: {stim.num_packets} packets ({stim.num_flits} flits), uniform random destinations, "
          f"lengths 1..{args.max_len}, ejection ready {args.ready:.0%} of cycles (seed {args.seed})")
    say(f"generating Verilog and building it with Verilator in {_shown(build_dir)}/ (the first build of a design "
          f"takes 1-2 minutes, later runs reuse it) ...")
    if args.waves:                      # tb/runner.py builds a traced variant and keeps the run's folder
        os.environ["CUBENOC_WAVES"] = "1"
    t0 = time.perf_counter()
    with working("generate + Verilator build + simulation"):
        (v,) = verify_network(topo, [("demo", stim)], routing=routing, config=config, build_dir=build_dir)
    wall = time.perf_counter() - t0
    res, rtl = v.model, v.rtl
    lat = res.packet_latency()
    head = res.head_latency()
    flits = rtl.cycle.size
    print(f"\nVerilog: {_shown(v.design_dir / 'src')}/  ({wall:.1f} s generate + build + simulate)")
    print(f"  cycles simulated        {rtl.cycles}")
    print(f"  packets delivered       {int(rtl.counters[:, 1].sum())} of {stim.num_packets}"
          f"  (flits {flits}; dropped {int(rtl.counters[:, 2].sum())}, malformed {int(rtl.counters[:, 3].sum())})")
    print(f"  packet latency          mean {lat.mean():.2f}, max {int(lat.max())} cycles "
          f"(creation to tail ejection, queueing included)")
    print(f"  head latency            mean {head.mean():.2f}, max {int(head.max())} cycles "
          f"(injection to ejection handshake; zero load: hops + 1)")
    print(f"  throughput              {flits / (n * rtl.cycles):.3f} flits/node/cycle accepted "
          f"(offered {stim.num_flits / (n * max(1, int(stim.pkt_release.max()) + 1)):.3f})")
    if args.waves:
        print(f"  waveform                {rtl.vcd} (gtkwave or surfer opens it)" if rtl.vcd else
              "  waveform                none was written")
    if args.report:
        _write_report(args, spec, topo, stim, v)
    if v.ok:
        print(f"\nverdict: PASS - the Verilog ejected the same {flits} flits as the model, at the same nodes "
              f"and cycles; counters equal; nothing lost, duplicated, reordered or interleaved")
        return 0
    print("\nverdict: FAIL")
    for line in v.problems:
        print("  " + line)
    return 1


#: the demo's measured cost (6,400 packets, 2,660 cycles of Q(4, 0) in 4.3 s with the Verilator build cached):
#: a packet (built in Python, checked against the model), a network node-cycle (cocotb drives every port every
#: cycle), the bytes a flit takes while the stimulus, the model's and the RTL's traces are held
DEMO_S_PER_PACKET, DEMO_S_PER_NODE_CYCLE, DEMO_BYTES_PER_FLIT = 3e-4, 5e-5, 400
#: the cycles the demo's traffic may last: its ejection-ready pattern is this long (``ready_cycles``)
DEMO_CYCLES = 100_000


def check_demo_run(nodes: int, packets: int, max_len: int, gap: float) -> None:
    """Refuse, before anything is printed, demo traffic longer than the demo runs (:data:`DEMO_CYCLES`), or
    that would take more than about an hour or the machine's memory."""
    mean_len = (1 + max_len) / 2
    total = nodes * packets
    cycles = packets * max(gap + mean_len, mean_len / 0.3)    # a node's packets: gapped, or at about 0.3 accepted
    if cycles > DEMO_CYCLES:
        raise CubenocError(f"--packets {packets}: a node's packets would take about {cycles:,.0f} cycles, and the "
                           f"demo runs up to {DEMO_CYCLES:,} (its ejection pattern's length): give --packets "
                           f"{max(1, int(packets * DEMO_CYCLES / cycles)):,} or fewer (default 40)")
    seconds = total * DEMO_S_PER_PACKET + nodes * cycles * DEMO_S_PER_NODE_CYCLE
    check_run(f"demo: {total:,} packets on {nodes:,} nodes", seconds, total * mean_len * DEMO_BYTES_PER_FLIT,
              "--packets (default 40) or --max-len")


def _write_report(args, spec, topo, stim, v) -> None:
    """``--report FILE.html``: the model's run (the one the Verilog matched) drawn, written whole or not at all."""
    label = spec.label(topo)
    offered = stim.num_flits / (topo.num_nodes * max(1, int(stim.pkt_release.max()) + 1))
    point = point_of_run(v.model, topo, label, offered=offered, traffic="uniform random destinations",
                         length=f"uniform 1..{args.max_len}")
    verdict = ("PASS: the Verilog ejected the same flits as the model, at the same nodes and cycles" if v.ok else
               "FAIL: " + "; ".join(v.problems[:3]))
    config = {"network": str(spec), "packets_per_node": args.packets, "max_len": args.max_len, "gap": args.gap,
              "ready": args.ready, "seed": args.seed, "router": v.model.router.as_dict()}
    write_report(args, [point], {label: topo}, config=config, title=f"cubenoc demo: {label}", curves=False,
                 notes=[f"verdict: {verdict}", f"the model's run of the demo traffic, {v.model.cycles} cycles "
                        f"(ejection ready {args.ready:.0%} of cycles): link loads and figures over the whole run"])


def _shown(path) -> str:
    """``path`` relative to the current folder when it lies inside it (``build/...``), else in full."""
    rel = os.path.relpath(path)
    return str(path) if rel.startswith("..") else rel
