"""``cubenoc bench area``: yosys ``synth_ice40`` / ``synth_ecp5`` of node 0's router of Q_n and Q(n, k)
(rtl/area.py measures; this module prints the table docs/performance.md records)."""
from __future__ import annotations

import argparse
from dataclasses import asdict

from ..errors import CubenocError, require_int
from ..netargs import add_router_flags, router_config
from ..options import add
from ..outputs import working
from ..rtl.area import AreaResult, measure
from ..sim.catalog import recorded
from .render import Table, add_output_arguments, command, progress, publish, yosys_families

MARK_BEGIN, MARK_END = "<!-- bench area: begin -->", "<!-- bench area: end -->"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add(p, "family", nargs="+", default=["hypercube", "enhanced"], choices=("hypercube", "enhanced"),
        help="router families to synthesise")
    add(p, "n", nargs="+", default=[3, 4, 5, 6], help="cube dimensions")
    add(p, "k", default=0, help="skip parameter of the enhanced hypercube")
    add_router_flags(p, only=("payload", "depth"))
    add(p, "targets", nargs="+", default=["up5k", "ecp5-25f"], help="FPGA targets to synthesise for: up5k (ice40), "
        "ecp5-25f (ecp5)")
    add_output_arguments(p, "bench area", json_alias=True)


def rows(results: list[AreaResult], config=None, specs=None) -> list[dict]:
    """One row per router: its network, n and ports, per target ``{target}_{lut4,lut4_per_port,ff,...}``,
    and with ``config`` what was measured (``specs``: network -> its catalog spec)."""
    by: dict = {}
    for r in results:
        d = asdict(r) | {"lut4_per_port": r.lut4_per_port}
        what = recorded((specs or {}).get(r.network), config) if config is not None else {}
        row = by.setdefault((r.network, r.n, r.ports), {"network": r.network, "n": r.n, "ports": r.ports, **what})
        row.update({f"{r.target}_{k}": v for k, v in d.items() if k not in ("network", "n", "ports", "target")})
    return list(by.values())


def columns(targets) -> dict:
    cols = {"network": "router (node 0 of)", "ports": "ports P"}
    per_port = {t: (f"{t}_lut4_per_port", ("LUT4/port", lambda r, t=t: f"{r[t + '_lut4_per_port']:.0f}"
                                           if r.get(t + "_lut4") is not None else "-")) for t in targets}
    for t in targets:
        k, c = per_port[t]
        if t == "ice40":
            cols |= {"ice40_lut4": "iCE40 SB_LUT4", k: c, "ice40_ff": "SB_DFF*"}
        else:
            cols |= {"ecp5_lut4": "ECP5 LUT4", k: c, "ecp5_ff": "TRELLIS_FF", "ecp5_lutram": "DPR16X4"}
    return cols


def table(results: list[AreaResult], payload_width: int, fifo_depth: int, cmd: str, config=None,
          specs=None) -> Table:
    targets = list(dict.fromkeys(r.target for r in results))
    return Table(rows(results, config, specs), columns(targets),
                 after=f"Payload W = {payload_width} bits, input FIFO depth "
                 f"{fifo_depth}; command: `{cmd}`.", marks=(MARK_BEGIN, MARK_END))


def run(args) -> int:
    families = list(dict.fromkeys(args.family))
    ns = [require_int(n, "n", 2 if "enhanced" in families else 1, 10) for n in args.n]
    config = router_config(args, only=("payload", "depth"))
    results: list[AreaResult] = []
    specs: dict = {}
    for n in ns:
        for fam in families:
            if fam == "enhanced" and not 0 <= args.k <= n - 2:
                raise CubenocError(f"k must be in 0..n-2 for an n-cube (n={n}), got {args.k}")
            with working(f"bench area: yosys on the {fam} {n}-cube router", args.quiet):
                results += measure(fam, n, args.k, yosys_families(args.targets), config)
            specs[results[-1].network] = f"hypercube:n={n}" if fam == "hypercube" else f"enhanced:n={n},k={args.k}"
            for r in results[-len(yosys_families(args.targets)):]:
                progress(f"  {r.network}: {r.target} {r.lut4} LUT4 ({r.lut4_per_port:.0f}/port), {r.ff} FF"
                         + (f", {r.lutram} DPR16X4" if r.lutram else "") + f"  [{r.seconds:.0f} s]")
    return publish(table(results, config.payload_width, config.fifo_depth, command(args), config, specs), args)
