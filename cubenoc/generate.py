"""Generate a network's Verilog: the top, one file per distinct router module, a JSON/markdown port map.

``cubenoc generate enhanced --n 4 --k 0 -o out/`` or ``cubenoc generate hypercube --n 3``. The
microarchitecture is docs/router.md; the port names are in the written ``<top>.md``.
"""
from __future__ import annotations

import argparse

from .errors import CubenocError, require_int


def _hypercube(args):
    from .sim.routing.hypercube import EcubeRouting
    from .sim.topology import Hypercube
    if args.k is not None:
        raise CubenocError("--k applies to the enhanced hypercube only (use: generate enhanced --n N --k K)")
    topo = Hypercube(require_int(args.n, "n", 1, 16))
    return topo, EcubeRouting(topo)


def _enhanced(args):
    from .sim.routing.hypercube import EcubeRouting
    from .sim.topology import EnhancedHypercube
    topo = EnhancedHypercube(require_int(args.n, "n", 2, 16), 0 if args.k is None else args.k)
    return topo, EcubeRouting(topo)


#: family -> args -> (topology, routing function); later families add their entry here
FAMILIES = {
    "hypercube": _hypercube,
    "enhanced": _enhanced,
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("family", choices=sorted(FAMILIES), help="network family")
    p.add_argument("--n", type=int, default=4, help="cube dimension (default 4; at most 16: 16-bit destinations)")
    p.add_argument("--k", type=int, default=None, help="skip parameter of Q(n, k), 0..n-2 (default 0)")
    p.add_argument("--payload", type=int, default=32, help="payload width W in bits, at least 16 (default 32)")
    p.add_argument("--depth", type=int, default=4, help="input FIFO depth (default 4)")
    p.add_argument("--flat", action="store_true", help="expose the local ports as vectors indexed by node")
    p.add_argument("--lint", action="store_true", help="run verilator --lint-only -Wall -Wno-fatal on the result")
    p.add_argument("-o", "--out", default="out", help="output folder (default out/)")


def run(args) -> int:
    from .rtl.emit import write_network
    from .rtl.flit import check_payload_width
    topo, routing = FAMILIES[args.family](args)
    check_payload_width(args.payload)
    require_int(args.depth, "fifo depth", 1, 64)
    gen = write_network(topo, routing, args.out, payload_width=args.payload, fifo_depth=args.depth,
                        flat=args.flat)
    print(f"{topo!r}, {routing.name} routing: top module {gen.top}, "
          f"{len(set(gen.network.module_names))} router module(s)")
    for path in gen.verilog + [gen.describe_json, gen.describe_md]:
        print(f"  {path}")
    if args.lint:
        from .rtl.tools import verilator_lint
        res = verilator_lint(gen.verilog, gen.top)
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(res.by_kind.items()))
        print(f"verilator --lint-only -Wall: {res.errors} errors, {res.warnings} warnings ({kinds})")
        if res.errors:
            print(res.log)
            return 1
    return 0
