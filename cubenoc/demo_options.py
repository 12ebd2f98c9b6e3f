"""``cubenoc demo``'s options (its run: cubenoc/demo.py, imported when it runs, so that ``demo --help`` loads no
model; docs/decisions/lazy-imports.md)."""
from __future__ import annotations

import argparse

from .options import add


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("network", nargs="?", metavar="NETWORK", default=None,
                   help="any network of the catalog (docs/networks.md), e.g. pdn:set=0,1,3,9 (default: Q(n, k))")
    add(p, "network", dest="network_option")
    add(p, "n", help="cube dimension of Q(n, k) (default 4: 16 nodes)")
    add(p, "k", help="skip parameter of Q(n, k) (default 0)")
    p.add_argument("--packets", type=int, default=40, help="packets per node (default 40)")
    p.add_argument("--max-len", type=int, default=4, help="packet lengths are uniform in 1..MAX_LEN (default 4)")
    p.add_argument("--gap", type=float, default=6.0, help="mean idle cycles between a node's packets (default 6)")
    p.add_argument("--ready", type=float, default=0.8,
                   help="probability that an ejection port is ready in a cycle (default 0.8)")
    add(p, "seed", default=1, note="of the traffic")
    add(p, "build-dir", default="build", help="where the Verilog and the Verilator build go (default build/ in "
        "the current folder; a later run of the same design reuses it)")
    add(p, "report", help="write one self-contained HTML page of the run: the network drawn with the flits each link "
        "carried, per-source figures, the verdict, the command and configuration (docs/simulator.md \"The HTML "
        "report\")")
    p.add_argument("--waves", action="store_true",
                   help="write a waveform (VCD) of the run with the design's signal names and print its path "
                        "(open it with gtkwave or surfer; docs/verification.md)")
