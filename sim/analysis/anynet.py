"""``cubenoc analyze anynet NETWORK``: the graph measures of any network (an anynet file or any catalog
spec), its routing's virtual channels and deadlock verdict, and ``--write-anynet FILE``: the network as a
BookSim anynet file (docs/anynet.md)."""
from __future__ import annotations

import numpy as np

from cubenoc.errors import CubenocError
from cubenoc.files import write_file
from cubenoc.options import add

from ..anynet_file import anynet_text
from ..catalog import NetworkSpec
from ..deadlock import check_deadlock
from ..topology.anynet import all_pairs_distances
from .pdn_measure import exact_bisection
from .report import AnalysisResult

#: the exact bisection width (every split into halves) is searched up to this many nodes
BISECTION_NODES = 22
#: the channel dependency graph is walked pair by pair up to this many nodes (N^2 routes)
DEADLOCK_WALK_NODES = 1024


def add_arguments(parser) -> None:
    parser.add_argument("networks", nargs="?", metavar="NETWORK",
                        help="a catalog spec: anynet:file=PATH or any family (hypercube:n=4, pdn:set=0,1,3,9 ...); "
                             "the same as --network")
    add(parser, "network")
    add(parser, "file", help="a BookSim anynet file (the same as NETWORK anynet:file=PATH)")
    add(parser, "write-anynet")


def network_of(args):
    """The spec the command names: NETWORK, --network or --file (one of them)."""
    if args.networks and args.network:
        raise CubenocError(f"give the network as NETWORK or as --network, not both ({args.networks} and --network "
                           f"{args.network})")
    spec = args.networks or args.network
    if spec and args.file:
        raise CubenocError(f"give the network as NETWORK/--network or as --file, not both ({spec} and --file {args.file})")
    if not spec and not args.file:
        raise CubenocError("analyze anynet needs a network: NETWORK (anynet:file=PATH or any catalog spec) or --file PATH")
    return NetworkSpec.of("anynet", file=args.file) if args.file else NetworkSpec.parse(spec)


def measures(topology, routing) -> dict:
    """Nodes, links, degree, diameter, average distance (BFS), bisection width (exact up to
    :data:`BISECTION_NODES` nodes), the routing's VCs, mean routed hops and deadlock verdict."""
    n = topology.num_nodes
    far = [[f[0] for f in (topology.neighbor(v, p) for p in range(topology.num_ports(v))) if f is not None]
           for v in topology.nodes()]
    nbr = np.full((n, max(1, max(map(len, far)))), -1, dtype=np.int64)
    for v, row in enumerate(far):
        nbr[v, :len(row)] = row
    dist = all_pairs_distances(nbr)
    if (dist < 0).any():
        raise CubenocError(f"{topology!r} is not connected")
    degrees = [len(row) for row in far]
    out = {"network": repr(topology), "nodes": n, "links": topology.num_links,
           "degree_min": min(degrees), "degree_max": max(degrees),
           "diameter": int(dist.max()),
           "average_distance": float(dist.sum(dtype=np.int64)) / (n * (n - 1)) if n > 1 else 0.0}
    out["bisection"] = exact_bisection(topology.nodes(), [(u, v) for u, _p, v, _q in topology.links()],
                                       BISECTION_NODES) if n <= BISECTION_NODES else None
    out["routing"], out["vcs"] = routing.name, int(routing.num_vcs)
    out["updown_root"] = getattr(routing, "root", None)
    if n <= DEADLOCK_WALK_NODES:
        report = check_deadlock(routing)
        hops = np.array([routing.hops(s, d) for s in topology.nodes() for d in topology.nodes() if s != d])
        out["mean_routed_hops"] = float(hops.mean()) if hops.size else 0.0
        out["deadlock_free"], out["deadlock"] = report.deadlock_free, report.describe(topology)
    else:
        out["mean_routed_hops"] = None
        out["deadlock_free"] = None
        out["deadlock"] = (f"not walked above {DEADLOCK_WALK_NODES:,} nodes"
                           + ("; acyclic: checked on the tables (one VC) or by construction (up*/down* layers), "
                              "docs/anynet.md" if routing.name.startswith("anynet_") else ""))
    return out


#: analyze measures every pair of routers (distances, routes): networks up to this many routers
MAX_ANALYZE_NODES = 8192


def analyze(args) -> AnalysisResult:
    spec = network_of(args)
    bits = spec.address_bits()
    if bits is not None and bits > MAX_ANALYZE_NODES.bit_length() - 1:
        raise CubenocError(f"{spec}: 2^{bits} routers; analyze anynet measures every pair, networks up to "
                           f"{MAX_ANALYZE_NODES:,} routers")
    topo, routing = spec.build("model")
    if topo.num_nodes > MAX_ANALYZE_NODES:
        raise CubenocError(f"{spec}: {topo.num_nodes:,} routers; analyze anynet measures every pair, networks up "
                           f"to {MAX_ANALYZE_NODES:,} routers")
    data = {"spec": str(spec), **measures(topo, routing)}
    if args.write_anynet:
        write_file(args.write_anynet, anynet_text(topo), "--write-anynet")
        data["written"] = str(args.write_anynet)
    bis = data["bisection"]
    lines = [f"{spec}: {data['network']}",
             f"  nodes {data['nodes']}, links {data['links']}, degree {data['degree_min']}..{data['degree_max']}",
             f"  diameter {data['diameter']}, average distance {data['average_distance']:.4f} (BFS over ordered pairs)",
             f"  bisection width {bis}" if bis is not None else
             f"  bisection width not computed above {BISECTION_NODES} nodes (an exhaustive search over the halves)",
             f"  routing {data['routing']}: {data['vcs']} VC(s)"
             + (f" (up*/down* root {data['updown_root']})" if data["updown_root"] is not None else "")
             + (f", mean routed hops {data['mean_routed_hops']:.4f}" if data["mean_routed_hops"] is not None else ""),
             f"  deadlock: {data['deadlock']}"]
    if args.write_anynet:
        lines.append(f"anynet file written to {args.write_anynet}")
    return AnalysisResult(data, "\n".join(lines))
