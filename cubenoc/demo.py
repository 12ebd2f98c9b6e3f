"""Run the main job on a default network (what `make demo` shows)."""
from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=int, default=6, help="hypercube dimension (default 6)")


def run(args) -> int:
    from .sim.deadlock import check_deadlock
    from .sim.routing.hypercube import EcubeRouting
    from .sim.topology import EnhancedHypercube, Hypercube

    print(f"cubenoc demo: the {args.n}-cube and its enhanced versions Q({args.n}, k)\n")
    print(f"{'network':>22} {'nodes':>6} {'links':>6} {'diameter':>9} {'mean dist':>10}  deadlock check")
    nets = [Hypercube(args.n)] + [EnhancedHypercube(args.n, k) for k in range(args.n - 1)]
    for topo in nets:
        rep = check_deadlock(EcubeRouting(topo))
        verdict = "acyclic" if rep.deadlock_free else "CYCLE"
        print(f"{topo!r:>22} {topo.num_nodes:6d} {topo.num_links:6d} {topo.diameter():9d} "
              f"{topo.mean_distance():10.4f}  {verdict} ({rep.dependencies} dependencies)")
    return 0
