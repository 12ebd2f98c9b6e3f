"""Build a generated network with Verilator (cocotb_tools.runner) and play Stimulus scenarios on it.

``design = build_network(plan)`` generates the flat-top Verilog into ``build/<design>/src`` (a file
is rewritten only when its text changes) and builds it in ``build/<design>/sim`` (make does nothing
when nothing changed; ccache makes a changed design cheap). ``run_scenarios(design, [(name, stim,
cycles), ...])`` runs them all in one simulator process (reset between scenarios) and returns each
one's :class:`RtlTrace`. ``CUBENOC_WAVES=1`` builds a traced variant and writes ``dump.vcd``.
"""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cubenoc.errors import CubenocError

from ..rtl.tools import use_builtin_yosys, use_verilator
from ..sim.model.stimulus import Stimulus
from ..sim.router_config import RouterConfig
from ..sim.routing.hypercube import EcubeRouting
from .stream_check import stream_check_sv

# cocotb's runner passes --public-flat-rw (every internal signal public: ~3x the C++ and compile time);
# the bench only touches top-level ports, so it is switched off again.
BUILD_ARGS = ["-Wno-fatal", "-Wno-lint", "-Wno-style", "--no-public-flat-rw"]
TOP_PORTS = ("clk", "rst", "in_valid", "in_ready", "in_payload", "out_valid", "out_ready", "out_payload",
             "injected", "ejected", "dropped", "malformed")
FAULT_PORTS = ("link_fault", "node_fault", "discarded")   # adaptive/fault-aware networks only


def project_root() -> Path:
    return Path(__file__).resolve().parents[1]


@contextmanager
def cheap_cxx():
    """Compile the Verilated C++ without optimisation while building: the bench is Python-bound (cocotb
    drives every input every cycle), so -O0 costs little simulation speed and saves 16-25 % of a bench's
    CPU time, measured on two benches (docs/verification.md "What the fast set runs")."""
    old = os.environ.get("MAKEFLAGS")
    os.environ["MAKEFLAGS"] = ((old or "") + " OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0").strip()
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("MAKEFLAGS", None)
        else:
            os.environ["MAKEFLAGS"] = old


def build_root() -> Path:
    return Path(os.environ.get("CUBENOC_BUILD_DIR", project_root() / "build"))


def waves_requested() -> bool:
    return os.environ.get("CUBENOC_WAVES", "") not in ("", "0", "no", "false")


@contextmanager
def _locked(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


@dataclass
class Design:
    topology: object
    routing: object
    payload_width: int
    depth: int
    top: str
    dir: Path
    waves: bool
    candidate_stage: bool = False   # fault inputs and discarded counters (docs/router.md)


@dataclass
class RtlTrace:
    """What the Verilog did: ejected flits and end-of-run counters (16-bit, wrapping)."""
    cycle: np.ndarray
    node: np.ndarray
    head: np.ndarray
    tail: np.ndarray
    data: np.ndarray
    counters: np.ndarray    # [N, 4]: injected, ejected, dropped, malformed
    accepted: np.ndarray    # flits accepted per node
    cycles: int
    vcd: Path | None = None
    discarded: np.ndarray | None = None   # [N] adaptive networks only
    stream_errors: tuple = ()             # offers withdrawn or changed before ready (docs/router.md)

    def trace_tuples(self) -> list[tuple[int, int, int, int, int]]:
        return list(zip(self.cycle.tolist(), self.node.tolist(), self.head.tolist(), self.tail.tolist(),
                        [int(x) for x in self.data.tolist()]))


def build_network(plan, waves: bool | None = None, build_dir=None) -> Design:
    """The Verilog of ``plan``'s network and routers, built by Verilator in its own folder under ``build_dir``
    (default :func:`build_root`; named by the network and the config, rebuilt only when the text changes)."""
    from cocotb_tools.runner import get_runner

    from ..rtl.emit import write_network
    topology, routing, c = plan.topology, plan.routing, plan.config
    waves = waves_requested() if waves is None else waves
    use_verilator()
    use_builtin_yosys()
    # the routing function is part of the design (one topology may run several): named unless e-cube
    tag = "" if isinstance(routing, EcubeRouting) else f"_{routing.name}"
    name = f"{topology.name}{tag}_w{c.payload_width}_d{c.fifo_depth}" + ("_faults" if c.faults else "") + \
        ("_waves" if waves else "") + _config_tag(c, plan.broadcast)
    root = Path(build_dir) if build_dir is not None else build_root()
    d = root / name
    with _locked(root / f".{name}.lock"), cheap_cxx():
        g = write_network(plan, d / "src", flat=True)
        candidate_stage = g.network.candidate_stage
        runner = get_runner("verilator")
        # only the top's ports are visible to cocotb (a "*" would also match the inlined routers' signals)
        vlt = d / "src" / "public_ports.vlt"
        text = "`verilator_config\n" + "".join(f'public_flat_rw -module "{g.top}" -var "{port}"\n'
                                                 for port in TOP_PORTS + (FAULT_PORTS if candidate_stage else ()))
        if not vlt.exists() or vlt.read_text() != text:
            vlt.write_text(text)
        check = d / "src" / "stream_check.sv"          # the stream rule on every link (tb/stream_check.py)
        text = stream_check_sv(g.network, g.top)
        if not check.exists() or check.read_text() != text:
            check.write_text(text)
        args = BUILD_ARGS + [str(vlt)] + (["--trace", "--trace-structs"] if waves else [])
        runner.build(sources=[str(p) for p in g.verilog] + [str(check)], hdl_toplevel=g.top, build_dir=str(d / "sim"),
                     build_args=args, waves=waves, log_file=str(d / "build.log"))
    return Design(topology, routing, c.payload_width, c.fifo_depth, g.top, d, waves, candidate_stage)


def _config_tag(c: RouterConfig, broadcast) -> str:
    """The build folder's suffix for the options other than width, depth and faults (one folder per design)."""
    tag = f"_bc_{broadcast.name}" if broadcast is not None else ""
    tag += f"_{c.queues}" if c.queues != "fifo" else ""
    tag += f"_{c.arbitration}" if c.arbitration != "round-robin" else ""
    tag += "_pipe" if c.pipeline else ""
    tag += {False: "", None: "_auto", True: "_mem", "block": "_block"}[c.fifo_memory]
    tag += {True: "", False: "_nc", "dsp": "_dsp"}[c.counters]
    return tag + ("" if c.loopback else "_nolb")


def _save_stimulus(stim: Stimulus, path: Path) -> None:
    np.savez(path, node_start=stim.node_start, head=stim.head, tail=stim.tail, data=stim.data,
             release=stim.release, eject_ready=stim.eject_ready)


def run_scenarios(design: Design, scenarios) -> dict[str, RtlTrace]:
    """Play ``[(name, stimulus, cycles), ...]`` in one simulation; ``{name: RtlTrace}``."""
    from cocotb_tools.runner import get_runner

    use_verilator()
    n = design.topology.num_nodes
    work = Path(tempfile.mkdtemp(prefix="run_", dir=design.dir))
    job = {"num_nodes": n, "payload_width": design.payload_width, "scenarios": [],
           "candidate_stage": design.candidate_stage}
    scenarios = [tuple(sc) + (None,) * (4 - len(sc)) for sc in scenarios]   # (name, stim, cycles[, faults])
    for name, stim, cycles, faults in scenarios:
        if stim.num_nodes != n or stim.data_width != design.payload_width:
            raise CubenocError(f"scenario {name}: stimulus is for {stim.num_nodes} nodes / {stim.data_width} "
                               f"bits, the design has {n} / {design.payload_width}")
        _save_stimulus(stim, work / f"{name}.stim.npz")
        job["scenarios"].append({"name": name, "stim": str(work / f"{name}.stim.npz"), "cycles": int(cycles),
                                 "out": str(work / f"{name}.trace.npz"),
                                 "faults": [] if faults is None else
                                 [[c, str(lw), str(nw)] for c, lw, nw in faults.words(design.topology)]})
    (work / "job.json").write_text(json.dumps(job))
    runner = get_runner("verilator")
    try:
        results = runner.test(test_module="cubenoc.tb.cocotb_network", hdl_toplevel=design.top, hdl_toplevel_lang="verilog",
                              build_dir=str(design.dir / "sim"), test_dir=str(work),
                              extra_env={"CUBENOC_JOB": str(work / "job.json")}, waves=design.waves,
                              log_file=str(work / "sim.log"))
    except Exception as exc:           # a $fatal of tb/stream_check.py: say which link broke the rule
        log = (work / "sim.log").read_text() if (work / "sim.log").exists() else ""
        fatal = [line for line in log.splitlines() if "%Fatal" in line]
        if not fatal:
            raise
        raise RuntimeError(f"the simulation stopped ({work / 'sim.log'}): {fatal[0]}") from exc
    out = {}
    vcd = next(iter(work.glob("*.vcd")), None) or next(iter((design.dir / "sim").glob("*.vcd")), None)
    for sc, (name, stim, cycles, _f) in zip(job["scenarios"], scenarios):
        path = Path(sc["out"])
        if not path.exists():
            log = (work / "sim.log").read_text() if (work / "sim.log").exists() else ""
            raise RuntimeError(f"the simulation did not finish scenario {name} (results {results}); "
                               f"log tail:\n{log[-3000:]}")
        z = np.load(path)
        out[name] = RtlTrace(z["cycle"], z["node"], z["head"], z["tail"], z["data"], z["counters"],
                             z["accepted"], int(cycles), vcd, z["discarded"] if "discarded" in z else None,
                             tuple(z["stream_errors"].tolist()) if "stream_errors" in z else ())
    if not design.waves:
        shutil.rmtree(work, ignore_errors=True)
    return out
