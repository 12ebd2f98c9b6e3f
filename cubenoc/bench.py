"""Benchmarks: area (yosys), zero-load latency, saturation throughput, model speed.

``cubenoc bench area|latency|throughput|model-speed``. Each benchmark is one entry of ``BENCHES``:
name -> (help, add_arguments(parser), run(args) -> int). Results go to docs/performance.md (the commands
print the markdown table they measured; ``--write`` updates that section of the page where supported).
"""
from __future__ import annotations

import argparse


# ---- area (rtl helper): yosys synth_ice40 / synth_ecp5 per router ----------------------------------
def _area_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--family", default="both", choices=["hypercube", "enhanced", "both"],
                   help="which router family to synthesise (default both)")
    p.add_argument("--n", type=int, nargs="+", default=[3, 4, 5, 6], help="cube dimensions (default 3 4 5 6)")
    p.add_argument("--k", type=int, default=0, help="skip parameter of the enhanced hypercube (default 0)")
    p.add_argument("--payload", type=int, default=32, help="payload width W (default 32)")
    p.add_argument("--depth", type=int, default=4, help="input FIFO depth (default 4)")
    p.add_argument("--targets", nargs="+", default=["ice40", "ecp5"], choices=["ice40", "ecp5"])
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument("--write", metavar="PAGE.md", help="also replace the marked area table in this page "
                   "(docs/performance.md)")


def _area_run(args) -> int:
    from .rtl.area import run_area_bench
    return run_area_bench(args)


#: name -> (help, add_arguments, run); the model helper adds latency, throughput, model-speed here
BENCHES = {
    "area": ("router area from yosys synth_ice40/synth_ecp5 for n=3..6", _area_arguments, _area_run),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="bench", required=True, parser_class=type(parser))
    for name, (help_text, add_args, run_fn) in BENCHES.items():
        p = sub.add_parser(name, help=help_text)
        add_args(p)
        p.set_defaults(bench_run=run_fn)


def run(args) -> int:
    return int(args.bench_run(args) or 0)
