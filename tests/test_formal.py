# amaranth: UnusedElaboratable=no
"""Formal proofs with SymbiYosys from pip (rtl/formal/, docs/formal.md): the round-robin arbiter of every
output is fair for every request sequence (k-induction), and a seeded bug makes the proof fail with a
counterexample trace that names the broken property."""
from __future__ import annotations

import pytest

from cubenoc.sim.router_config import RouterConfig
from cubenoc.rtl.formal.arbiter import ArbiterHarness
from cubenoc.rtl.formal.runner import prove
from cubenoc.rtl.formal.mutations import MUTATIONS
from cubenoc.sim.network_plan import plan_of

SHAPES = {                       # (positions, size): the arbiters the routers build
    "q2_output_p3": ([0, 1, 2], 3),
    "q4_pruned_output": ([0, 2, 3, 4], 5),                 # a turn-pruned output of a 5-port router
    "vc2_lanes": ([0, 1, 2, 3, 4, 5, 8, 9], 10),          # (input, VC) lanes j = i * 2 + c, local lane 8
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_arbiter_is_fair_by_induction(shape, tmp_path):
    positions, size = SHAPES[shape]
    res = prove(ArbiterHarness(positions, size), f"arbiter_{shape}", tmp_path, depth=len(positions) + 2)
    assert res.passed and res.mode == "prove", res.log[-1500:]
    assert "successful proof by k-induction" in res.log


def test_bad_mode_or_engine_is_a_clear_error(tmp_path):
    from cubenoc.errors import CubenocError
    with pytest.raises(CubenocError, match="mode must be prove or bmc"):
        prove(ArbiterHarness([0, 1], 2), "x", tmp_path, mode="ic3")
    with pytest.raises(CubenocError, match="engine must be smtbmc, or pdr in prove mode"):
        prove(ArbiterHarness([0, 1], 2), "x", tmp_path, mode="bmc", engine="pdr")


# ---- the whole router (rtl/formal/router.py) and cubenoc prove ---------------------------------------
def _q2():
    from cubenoc.sim.routing.hypercube import EcubeRouting
    from cubenoc.sim.topology.hypercube import Hypercube
    t = Hypercube(2)
    return t, EcubeRouting(t)


def _plan(t, r, **options):
    from cubenoc.sim.network_plan import NetworkPlan
    return NetworkPlan(t, r, RouterConfig(**{"fifo_depth": 2, **options}))


def test_prove_q2_proves_every_property(tmp_path, capsys):
    """``cubenoc prove --family hypercube --n 2`` exits 0 and lists properties 1, 2, 3 and 6 as proved for
    every cycle by k-induction with the named invariants, none bounded; the arbiters by k-induction."""
    import json

    from cubenoc.cli import main
    assert main(["prove", "--family", "hypercube", "--n", "2", "--work-dir", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    got = {o["property"]: (o["status"], o["detail"]) for o in out["outcomes"]}
    assert out["failed"] == 0
    assert got["1 input ready independent of valid"][0] == "proved"
    for prop in ("1 stream rules", "2 conservation", "3 wormhole exclusivity", "6 counters"):
        assert got[prop][0] == "proved" and got[prop][1].startswith("k-induction (2 steps) with the invariants"), got[prop]
    assert not [o for o in out["outcomes"] if o["status"] == "bounded"]
    assert got["5 route units"][0] == "exhaustive" and got["5 route units"][1].startswith("32 ")
    arbiters = [o for o in out["outcomes"] if o["property"].startswith("4 bounded waiting")]
    assert arbiters and all(o["status"] == "proved" for o in arbiters)


def test_input_ready_never_waits_for_valid():
    """Property 1's second half on a one-VC and a two-VC router; a seeded input unit whose ready waits
    for valid is caught."""
    from cubenoc.rtl.formal.ready_path import ready_dependencies
    from cubenoc.rtl.router import Router
    from cubenoc.sim.routing.metacube import MetacubeRouting
    from cubenoc.sim.topology.metacube import Metacube
    t, r = _q2()
    assert ready_dependencies(Router(plan_of(t, r), 0)) == {"in_p0": set(), "in_p1": set(), "local_in": {"payload"}}
    mc = Metacube(1, 1)
    deps = ready_dependencies(Router(plan_of(mc, MetacubeRouting(mc)), 0))
    assert not any("valid" in d for d in deps.values()) and len(deps) == 3
    bad = ready_dependencies(Router(plan_of(t, r), 0), seeded_bug="ready-waits-for-valid")
    assert bad["in_p0"] == {"valid"} and bad["in_p1"] == {"valid"}


@pytest.mark.parametrize("group", ["stream", "conservation", "wormhole"])
@pytest.mark.parametrize("options", [{}, {"arbitration": "fair"}, {"loopback": False}])
def test_two_vc_router_is_proved_by_induction(group, options, tmp_path):
    """V > 1: MC(1,1)'s router (3 ports, 2 VCs per link: lanes (input, VC), per-VC ready, locks), with each
    option the default networks use, proved for every cycle by k-induction with the named invariants."""
    from cubenoc.rtl.formal.router import RouterHarness
    from cubenoc.sim.routing.metacube import MetacubeRouting
    from cubenoc.sim.topology.metacube import Metacube
    t = Metacube(1, 1)
    res = prove(RouterHarness(_plan(t, MetacubeRouting(t), **options), 0, groups=(group,)), f"mc11_{group}",
                tmp_path, depth=2)
    assert res.passed and res.mode == "prove", (res.failed, res.log[-1500:])
    assert "Temporal induction successful" in res.log


@pytest.mark.parametrize("depth", [1, 3])
def test_other_fifo_depths_are_proved_by_induction(depth, tmp_path):
    """The FIFO's invariants cover its other register sets: the head register alone (depth 1, its own
    ``w_rdy`` register) and a three-entry ring (depth 3); Q(2)'s router, conservation."""
    from cubenoc.rtl.formal.router import RouterHarness
    t, r = _q2()
    res = prove(RouterHarness(_plan(t, r, fifo_depth=depth), 0, groups=("conservation",)), f"d{depth}", tmp_path, depth=2)
    assert res.passed and "Temporal induction successful" in res.log, (res.failed, res.log[-1500:])


@pytest.mark.parametrize("bug", ["full-fifo-takes-flit", "duplicated-pop", "stalled-flit-popped",
                                 "grant-changes-under-stall", "body-flit-frees-lock", "head-ignores-lock"])
def test_seeded_bugs_break_the_induction(bug, tmp_path):
    """The invariants are not vacuous: with a seeded bug in the FIFO, input or output unit the k-induction
    of the group it breaks no longer closes (its step fails on a property or an invariant)."""
    from cubenoc.rtl.formal.router import RouterHarness
    group = {"grant-changes-under-stall": "stream", "body-flit-frees-lock": "wormhole",
             "head-ignores-lock": "wormhole"}.get(bug, "conservation")
    t, r = _q2()
    res = prove(RouterHarness(_plan(t, r), 0, groups=(group,), seeded_bug=bug), "bug", tmp_path, depth=2)
    assert not res.passed and res.failed, res.log[-1500:]


@pytest.mark.parametrize("group", ["stream", "conservation", "wormhole"])
def test_broadcast_router_is_proved_by_induction(group, tmp_path):
    """The broadcast router (Algorithm B on Q(2): the route at the FIFO head, the fork stage, locks a fork
    acquires) proved for every cycle by k-induction with its invariants (rtl/formal/fork_invariants.py);
    with the fork's seeded bug the conservation induction no longer closes."""
    from cubenoc.rtl.formal.router import RouterHarness
    from cubenoc.sim.broadcast.fork import broadcast_algorithm_for
    t, r = _q2()
    plan = _plan(t, r, broadcast=broadcast_algorithm_for(t))
    res = prove(RouterHarness(plan, 0, groups=(group,)), f"bc_{group}", tmp_path, depth=2)
    assert res.passed and res.mode == "prove", (res.failed, res.log[-1500:])
    assert "Temporal induction successful" in res.log
    if group == "conservation":
        bad = prove(RouterHarness(plan, 0, groups=(group,), seeded_bug="fork-skips-copy"), "bc_bug", tmp_path, depth=2)
        assert not bad.passed and bad.failed


def test_invariants_see_every_lane():
    """The invariants read every lane's FIFO and route-at-write registers: Q(2)'s node 0 has three lanes,
    MC(1,1)'s (two VCs on its two links, one local lane) five; the names say which lane each covers."""
    from amaranth import Fragment

    from cubenoc.rtl.formal.invariants import lanes
    from cubenoc.rtl.formal.router import RouterHarness
    from cubenoc.rtl.router import Router
    from cubenoc.sim.routing.metacube import MetacubeRouting
    from cubenoc.sim.topology.metacube import Metacube
    t, r = _q2()
    mc = Metacube(1, 1)
    for topo, routing, n in ((t, r, 3), (mc, MetacubeRouting(mc), 5)):
        router = Router(plan_of(topo, routing, RouterConfig(fifo_depth=4)), 0)
        Fragment.get(router, None)
        found = lanes(router)
        assert len(found) == n and all(ln.fifo.state.occ.shape().width == 3 and ln.route.pkt_want is not None
                                       for _i, _c, ln in found)
    h = RouterHarness(_plan(t, r), 0, groups=("wormhole",))
    from amaranth.back import rtlil
    rtlil.convert(h, ports=[])
    names = set(h.properties.values())
    for lane in ("in_p0", "in_p1", "local_in"):
        assert f"fifo {lane}: the free entry follows the buffered ones" in names
        assert f"lane {lane}: an owned output's packet goes on at the head" in names
    assert "source: framing follows the upstream" in names


@pytest.mark.parametrize("group", ["conservation", "counters"])
def test_router_without_loopback_holds_to_depth_6(group, tmp_path):
    """Without loopback a packet to its own node is dropped at the source and counted in ``dropped``: the
    harness's legal upstream and the counters' restatement say so (a head to node 0 is not injected)."""
    from cubenoc.rtl.formal.router import RouterHarness
    t, r = _q2()
    res = prove(RouterHarness(_plan(t, r, loopback=False), 0, groups=(group,), local_free=group == "counters"),
                f"noloop_{group}", tmp_path, depth=6, mode="bmc")
    assert res.passed, (res.failed, res.log[-1500:])


def test_a_proof_without_a_verdict_in_time_says_so(tmp_path):
    """``timeout``: a pdr run stopped before its verdict is neither passed nor failed (``cubenoc prove``
    then checks the property to 10 cycles and lists it as bounded, with the reason)."""
    from cubenoc.rtl.formal.router import RouterHarness
    t, r = _q2()
    res = prove(RouterHarness(_plan(t, r), 0, groups=("conservation",)), "late", tmp_path, engine="pdr", timeout=2)
    assert res.timed_out and not res.passed and not res.failed


def test_prove_pipelined_q2_proves_every_property(tmp_path, capsys):
    """The pipelined router (two cycles per hop; its pairwise arbiters; its ejection buffer proved on its own
    to local_out): every property proved for every cycle, none bounded."""
    import json

    from cubenoc.cli import main
    assert main(["prove", "--family", "hypercube", "--n", "2", "--pipeline", "--work-dir", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    got = {o["property"]: (o["status"], o["detail"]) for o in out["outcomes"]}
    for prop in ("1 stream rules", "2 conservation", "3 wormhole exclusivity",
                 "2 conservation, ejection buffer to local_out"):
        assert got[prop][0] == "proved" and got[prop][1].startswith("k-induction (2 steps) with the invariants"), got[prop]
    assert {o["status"] for o in out["outcomes"]} <= {"proved", "exhaustive"}
    assert len([o for o in out["outcomes"] if o["property"].startswith("4 bounded waiting")]) == 2


def test_broadcast_fork_leaves_by_exactly_its_fork_set(tmp_path):
    """Property 2 for the broadcast fork (Algorithm B on Q(2)): the tracked flit leaves by no output
    outside its fork set, once per output, and by all of them before its lane's next flit; the counters
    take destination 0xFFFF as injected, not dropped."""
    from cubenoc.rtl.formal.router import RouterHarness, output_sets
    from cubenoc.sim.broadcast.fork import broadcast_algorithm_for
    t, r = _q2()
    alg = broadcast_algorithm_for(t)
    sets = output_sets(_plan(t, r, broadcast=alg), 0)
    assert sets[2][1] == {0: 0b011}          # from the local port: both dimensions, not back to itself
    ok = prove(RouterHarness(_plan(t, r, broadcast=alg), 0, groups=("conservation",)), "bc", tmp_path, depth=6,
               mode="bmc")
    assert ok.passed, (ok.failed, ok.log[-1500:])
    counters = prove(RouterHarness(_plan(t, r, broadcast=alg), 0, groups=("counters",), local_free=True),
                     "bc_counters", tmp_path, depth=6, mode="bmc")
    assert counters.passed, counters.failed


def test_broadcast_router_with_depth_1_fifos_holds_its_offer(tmp_path):
    """Found by this proof: with depth-1 FIFOs a downstream FIFO can be full one cycle and empty the next,
    and a fork then took a link output whose unicast offer was stalled, replacing it. A fork now waits
    while any output holds a stalled offer (rtl/router/fork_select.py, the model's bc.stall mask)."""
    from cubenoc.rtl.formal.router import RouterHarness
    from cubenoc.sim.broadcast.fork import broadcast_algorithm_for
    t, r = _q2()
    res = prove(RouterHarness(_plan(t, r, fifo_depth=1, broadcast=broadcast_algorithm_for(t)), 0, groups=("stream",)),
                "bc_d1", tmp_path, depth=8, mode="bmc")
    assert res.passed, res.failed


@pytest.mark.parametrize("bug", list(MUTATIONS))
def test_every_seeded_bug_is_caught_by_its_property(bug, tmp_path):
    """Each seeded bug (a switch in the unit it breaks, rtl/router/mutations.py) makes the proof of Q(2)'s
    router (FIFO depth 2; its fork with --broadcast; a 4-input arbiter) fail the property it names, with
    a counterexample trace; the structural ready check names the input."""
    from cubenoc.rtl.formal.ready_path import ready_dependencies
    from cubenoc.rtl.formal.router import RouterHarness
    from cubenoc.rtl.router import Router
    from cubenoc.sim.broadcast.fork import broadcast_algorithm_for
    mu = MUTATIONS[bug]
    t, r = _q2()
    if mu.check == "ready":
        assert ready_dependencies(Router(plan_of(t, r), 0), seeded_bug=bug)["in_p0"] == {"valid"}
        return
    if mu.check.startswith("axis"):          # the AXI4-Stream interface: a subclass in rtl/formal/axis_ni.py
        from cubenoc.rtl.axis_ni import AxisParams
        from cubenoc.rtl.formal.axis_ni import AxisHarness, node_paths
        if mu.check == "axis-paths":         # structural, the node as a whole
            holds = node_paths(Router(plan_of(t, r), 0), AxisParams(32, 4), seeded_bug=bug)
            assert [title for title, ok in holds.items() if not ok] == [f"7 {mu.caught_by}"]
            return
        res = prove(AxisHarness(AxisParams(32, 4), seeded_bug=bug, invariants=False), "bug", tmp_path, depth=8,
                    mode="bmc")
        assert not res.passed
        assert res.failed and all(name.startswith(mu.caught_by) for name in res.failed), res.failed
        assert res.trace is not None and res.trace.read_text().startswith("$")
        return
    if mu.check == "arbiter":
        positions, size = SHAPES["q4_pruned_output"]
        res = prove(ArbiterHarness(positions, size, seeded_bug=bug), "bug", tmp_path, depth=8)
    elif mu.check == "eject":
        from cubenoc.rtl.flit import link_flit_layout
        from cubenoc.rtl.formal.eject import EjectHarness
        res = prove(EjectHarness(link_flit_layout(r, 16), seeded_bug=bug, invariants=False), "bug", tmp_path, depth=8, mode="bmc")
    else:
        fork = mu.check == "fork"
        group = "conservation" if mu.check in ("fork", "pipeline") else mu.check
        plan = (_plan(t, r, broadcast=broadcast_algorithm_for(t)) if fork else
                _plan(t, r, pipeline=mu.check == "pipeline"))
        res = prove(RouterHarness(plan, 0, groups=(group,), local_free=group == "counters", seeded_bug=bug,
                                  invariants=False), "bug", tmp_path, depth=8, mode="bmc")
    assert not res.passed
    assert res.failed and all(name.startswith(mu.caught_by) for name in res.failed), res.failed
    assert res.trace is not None and res.trace.read_text().startswith("$")


def test_seeded_bugs_are_off_in_normal_builds():
    """Production units carry no seeded bug: ``seeded`` puts the broken rule on the unit's class only inside
    the block (and the correct one back, also after an error); an unknown name is an error."""
    import pathlib
    from importlib import import_module
    from cubenoc.errors import CubenocError
    from cubenoc.rtl.formal.mutations import seeded

    def rules():
        out = {}
        for name, mu in MUTATIONS.items():
            if mu.rule is not None:
                module, cls, method = mu.rule.rsplit(".", 2)
                out[name] = getattr(getattr(import_module(f"cubenoc.rtl.router.{module}"), cls), method)
        return out
    correct = rules()
    assert len(correct) == 13          # every seeded bug but the interface's two subclasses
    with seeded("duplicated-pop"):
        assert [name for name, rule in rules().items() if rule is not correct[name]] == ["duplicated-pop"]
    with pytest.raises(ZeroDivisionError), seeded("skips-input"):
        1 / 0
    assert rules() == correct
    rtl = pathlib.Path(__file__).parent.parent / "rtl"
    assert not [p for p in rtl.rglob("*.py") if "formal" not in p.parts and "mutant" in p.read_text()]
    with pytest.raises(CubenocError, match="seeded bug must be one of"):
        with seeded("no-such-bug"):
            pass


def test_prove_mutate_names_the_catching_property(tmp_path, capsys):
    """``cubenoc prove --mutate NAME`` exits 0 and names the property that caught the bug (here bounded,
    the quick check); an unknown name is refused in one line."""
    from cubenoc.cli import main
    assert main(["prove", "--family", "hypercube", "--n", "2", "--bmc-depth", "6", "--mutate", "counter-misses-drop",
                 "--work-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "seeded bug 'counter-misses-drop' caught by: counter dropped" in out
    assert main(["prove", "--mutate", "nothing"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("cubenoc: error: --mutate takes one of") and len(err.splitlines()) == 1


def test_arrivals_are_the_headers_packets_bring():
    """Node 0 of Q(2) under e-cube (highest set tag bit first, the tag is what is left to correct): over
    dimension 1 come packets with nothing left (tag 0) or bit 0 left (tag 1); over dimension 0 only
    packets with nothing left, since bit 1 is always corrected first."""
    t, r = _q2()
    got = {k: sorted(r.layout.unpack(w)["tag"] for w in v) for k, v in _plan(t, r).arrivals(0).items()}
    assert got == {(0, 0): [0], (1, 0): [0, 1]}


@pytest.mark.parametrize("argv,msg", [
    (["--family", "pdn", "--size", "0,1,3,8,12,18"], "P = 11, V = 1"),
    (["--network", "pdn:set=0,1,3,8,12,18"], "P = 11, V = 1"),           # a catalog spec, the same refusal
    (["--network", "q4", "--size", "4"], "not both"),
    (["--family", "hypercube", "--n", "2", "--bmc-depth", "0"], "--bmc-depth"),
    (["--family", "hypercube", "--n", "2", "--depth", "0"], "--depth"),
])
def test_prove_refuses_unsupported_in_one_line(argv, msg, capsys):
    from cubenoc.cli import main
    assert main(["prove", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert msg in err and len(err.splitlines()) == 1, err
