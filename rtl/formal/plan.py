"""What ``cubenoc prove`` runs for one network (docs/formal.md): per router shape, the arbiters by
k-induction (property 4), the router harness's groups for every cycle by k-induction with the named
invariants (properties 1, 2, 3, 6; ABC's pdr where the invariants are not written for the router or a
step breaks; or to a bounded depth by BMC), the pipelined router's ejection buffer, and once per network
the route units by exhaustive simulation (property 5). With ``interface=axis``, the AXI4-Stream interface's
properties 7, 8, 9 (rtl/formal/axis_ni.py): per router shape the node's structural tready/tvalid check, and
once per network the interface alone by k-induction.

Each result is a :class:`Outcome` whose ``status`` is ``proved`` (every cycle: k-induction or pdr),
``bounded`` (no counterexample within ``depth`` cycles from reset), ``exhaustive`` (every header
checked) or ``failed`` (with the broken properties and a counterexample VCD).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path

from cubenoc.errors import CubenocError

from ...sim.routing.base import is_adaptive
from .arbiter import ArbiterHarness
from .axis_ni import AXIS_GROUPS, AXIS_TITLES, NODE_PATHS, AxisHarness, axis_params, node_paths, proof_params
from .eject import EjectHarness
from .invariants import has_invariants
from .ready_path import ready_dependencies
from .route import route_unit_mismatches
from .router import GROUPS, RouterHarness
from .runner import prove

#: the largest routers the proofs are run on (solver time grows fast with ports and lanes): with the named
#: invariants (k-induction), and without them (ABC's pdr alone)
MAX_PORTS, MAX_VCS = 10, 3
PDR_MAX_PORTS, PDR_MAX_VCS = 7, 2
#: cycles a property is checked to when its proof gives no verdict in time
FALLBACK_DEPTH = 10
#: k of the k-induction that proves properties 1, 2, 3 and 6 with the named invariants (rtl/formal/invariants.py)
INDUCTION_DEPTH = 2
GROUP_TITLES = {"stream": "1 stream rules", "conservation": "2 conservation", "wormhole": "3 wormhole exclusivity",
                "counters": "6 counters"}


@dataclass
class Outcome:
    network: str
    shape: str            # "all" for network-wide checks, else "node v (P ports, V VCs, N nodes)"
    property: str
    status: str           # proved | bounded | exhaustive | failed
    detail: str           # engine and depth, or how many cases
    seconds: float = 0.0
    failed: list[str] = field(default_factory=list)
    trace: str | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def check_supported(label: str, routing, router) -> None:
    """One line saying why a router is not proved, or nothing."""
    if is_adaptive(routing):
        raise CubenocError(f"{label}: proofs cover oblivious routing; run-time selection "
                           f"({routing.selection}) is not supported")
    ports, vcs = (MAX_PORTS, MAX_VCS) if has_invariants(router) else (PDR_MAX_PORTS, PDR_MAX_VCS)
    if router.num_ports > ports or router.num_vcs > vcs:
        how = "" if has_invariants(router) else " without the invariants"
        raise CubenocError(f"{label}: proofs{how} are supported for routers of up to {ports} ports and "
                           f"{vcs} VCs; node {router.node} has P = {router.num_ports}, V = {router.num_vcs}")


def arbiter_shapes(router) -> list[tuple[list[int], int]]:
    """The distinct (positions, size) of the router's output arbiters (router.py builds them so)."""
    P, V, local, allowed = router.num_ports, router.num_vcs, router.local, router.allowed
    lanes = [(i, c) for i in range(P) if any(allowed[i]) for c in range(1 if i == local else V)]
    out = []
    for o in range(P):
        pos = [i * V + c for i, c in lanes if allowed[i][o]]
        if len(pos) > 1 and (pos, P * V) not in out:
            out.append((pos, P * V))
    return out


def prove_network(label: str, plan, shapes, workdir, *, depth: int | None = None, timeout: int | None = None,
                  jobs: int = 2, seeded_bug: str | None = None, report=lambda outcome: None) -> list[Outcome]:
    """Every check of every shape (``shapes``: ``(node, nodes using it, router)``) of the network ``plan``
    (its config: the routers' options); ``report`` is called with each :class:`Outcome` as it finishes.
    Properties 1, 2, 3 and 6 are proved for every cycle (k-induction with the invariants; else ABC's pdr,
    where a proof without a verdict after ``timeout`` seconds is checked to :data:`FALLBACK_DEPTH` cycles
    instead and listed as bounded), or with ``depth`` checked to that many cycles (BMC). ``jobs`` solvers run
    at once. With broadcast routers conservation is the tracked flit's: it leaves by exactly its fork set.
    ``seeded_bug`` (rtl/formal/mutations.py) builds every checked unit with that bug."""
    for _node, _count, router in shapes:
        check_supported(label, plan.routing, router)
    return _NetworkProof(label, plan, shapes, Path(workdir), depth, timeout, seeded_bug, report).run(jobs)


class _NetworkProof:
    """One ``prove`` run of a network: the structural and exhaustive checks done at once, the solver checks
    (each a method returning an :class:`Outcome`) queued and run ``jobs`` at a time."""

    def __init__(self, label, plan, shapes, work: Path, depth, timeout, seeded_bug, report):
        self.label, self.plan, self.work = label, plan, work
        self.depth, self.timeout, self.seeded_bug, self.report = depth, timeout, seeded_bug, report
        self.shapes = shapes
        self.routers = {node: router for node, _count, router in shapes}
        self.tag = "".join(ch if ch.isalnum() else "_" for ch in label)
        self.outcomes: list[Outcome] = []
        self.axis = plan.config.interface == "axis"
        if self.axis:                        # the AXI4-Stream interface (rtl/formal/axis_ni.py): one for every node
            self.axis_params = axis_params(plan)
            small = proof_params(self.axis_params)
            self.interface = (f"interface (W = {small.payload_width}, queue {small.queue_depth}"
                              + (", broadcast" if small.broadcast else "") + ")")

    def done(self, o: Outcome) -> None:
        self.outcomes.append(o)
        self.report(o)

    def run(self, jobs: int) -> list[Outcome]:
        checked, bad = route_unit_mismatches(self.plan.routing)
        self.done(Outcome(self.label, "all", "5 route units", "failed" if bad else "exhaustive",
                          f"{checked} (node, header) and (source, destination) cases, amaranth.sim",
                          failed=[repr(b) for b in bad[:5]]))
        checks = [c for node, count, router in self.shapes for c in self.shape_checks(node, count, router)]
        if self.axis:
            checks += [(self.axis_check, f"{self.tag}_axis_{group}", group) for group in AXIS_GROUPS]
        with ThreadPoolExecutor(max(1, jobs)) as pool:
            for future in as_completed([pool.submit(*c) for c in checks]):
                self.done(future.result())
        return self.outcomes

    def shape_checks(self, node, count, router) -> list[tuple]:
        """The structural checks of one router shape, done now; its solver checks, returned to be queued."""
        shape = f"node {node} ({router.num_ports} ports, {router.num_vcs} VC{'s' if router.num_vcs > 1 else ''}, {count} nodes)"
        self.structural(shape, router)
        name = f"{self.tag}_n{node}"
        checks = [(self.arbiter, shape, f"{name}_arbiter{k}", positions, size)
                  for k, (positions, size) in enumerate(arbiter_shapes(router))]
        if router.pipeline:
            checks.append((self.eject, shape, f"{name}_eject", router.flit_layout))
        # with the invariants, every output's stream rule at once; for pdr one output at a time (its
        # invariant for one output is far smaller than for all)
        if has_invariants(router) and self.depth is None:
            checks.append((self.group_check, shape, f"{name}_stream", node, "stream"))
        else:
            checks += [(self.group_check, shape, f"{name}_stream{o}", node, "stream", o) for o in range(router.num_ports)]
        return checks + [(self.group_check, shape, f"{name}_{group}", node, group) for group in GROUPS if group != "stream"]

    def structural(self, shape, router) -> None:
        """Property 1's ready-independent-of-valid on the router, and with the interface the node's paths."""
        deps = ready_dependencies(router, self.seeded_bug)
        on_valid = sorted(name for name, d in deps.items() if "valid" in d)
        on_payload = sorted(name for name, d in deps.items() if "payload" in d)
        self.done(Outcome(self.label, shape, "1 input ready independent of valid", "failed" if on_valid else "proved",
                          "structural: no combinational path valid -> ready (yosys cone)"
                          + (f"; payload -> ready only on {', '.join(on_payload)}" if on_payload else ""),
                          failed=[f"{n}__ready depends on {n}__valid" for n in on_valid]))
        if not self.axis:
            return
        for title, holds in node_paths(router, self.axis_params, self.seeded_bug).items():   # router + interface
            source, sink = NODE_PATHS[title]
            self.done(Outcome(self.label, shape, title, "proved" if holds else "failed",
                              f"structural: no combinational path {source} -> {sink}, router + interface "
                              "(yosys cone to flip-flops)",
                              failed=[] if holds else [f"{title[2:]}: a combinational path {source} -> {sink}"]))

    def eject(self, shape, name, layout) -> Outcome:
        res = prove(EjectHarness(layout, self.seeded_bug), name, self.work, depth=INDUCTION_DEPTH)
        return _outcome(self.label, shape, "2 conservation, ejection buffer to local_out", res,
                        f"k-induction ({INDUCTION_DEPTH} steps) with the invariants")

    def arbiter(self, shape, name, positions, size) -> Outcome:
        harness = ArbiterHarness(positions, size, self.seeded_bug, pairwise=self.plan.config.pipeline)
        res = prove(harness, name, self.work, depth=len(positions) + 2)
        return _outcome(self.label, shape, f"4 bounded waiting, {len(positions)}-input arbiter", res, "k-induction")

    def group_check(self, shape, name, node, group, output=None) -> Outcome:
        router = self.routers[node]
        title = GROUP_TITLES[group] + (" (fork sets)" if self.plan.broadcast is not None and group == "conservation" else "")
        if output is not None:
            title += " " + RouterHarness.output_name(output, router.local)

        def harness(invariants):
            return RouterHarness(self.plan, node, groups=(group,), local_free=group == "counters",
                                 seeded_bug=self.seeded_bug, outputs=None if output is None else (output,),
                                 invariants=invariants)
        res, how = self.settle(harness, name, f"FIFO depth {self.plan.config.fifo_depth}", has_invariants(router))
        return _outcome(self.label, shape, title, res, how)

    def axis_check(self, name, group) -> Outcome:
        def harness(invariants):
            return AxisHarness(self.axis_params, (group,), self.seeded_bug, invariants)
        res, how = self.settle(harness, name, "the interface alone")
        return _outcome(self.label, self.interface, AXIS_TITLES[group], res, how)

    def settle(self, harness, name, what, with_invariants=True):
        """``(result, how)`` of ``harness(invariants)``'s proof: k-induction with the invariants; where its step
        breaks (or without them) ABC's pdr, and BMC to :data:`FALLBACK_DEPTH` when pdr has no verdict in time;
        with ``depth``, BMC to that depth."""
        work = self.work
        if self.depth is not None:
            return prove(harness(False), name, work, depth=self.depth, mode="bmc"), f"BMC depth {self.depth}, {what}"
        spent, note = 0.0, ""
        if with_invariants:
            res = prove(harness(True), name, work, depth=INDUCTION_DEPTH)
            if not res.unproved:
                return res, f"k-induction ({INDUCTION_DEPTH} steps) with the invariants, {what}"
            # an induction step broke something (a seeded bug, or an invariant missing): pdr decides
            spent, note = res.seconds, f"; k-induction's step broke {', '.join(res.failed[:2])}"
        res = prove(harness(False), name, work, engine="pdr", timeout=self.timeout)
        how = f"induction (ABC pdr), {what}{note}"
        if res.timed_out:
            spent += res.seconds
            res = prove(harness(False), f"{name}_bmc", work, depth=FALLBACK_DEPTH, mode="bmc")
            how = f"BMC depth {FALLBACK_DEPTH}, {what} (pdr: no verdict in {self.timeout} s){note}"
        res.seconds += spent                 # the time spent is every attempt's
        return res, how


def _outcome(label, shape, prop, res, how) -> Outcome:
    status = "failed" if not res.passed else ("proved" if res.mode == "prove" else "bounded")
    detail = how if res.engine == "pdr" else f"{how}, smtbmc yices"
    return Outcome(label, shape, prop, status, detail, round(res.seconds, 1), res.failed,
                   str(res.trace) if res.trace else None)
