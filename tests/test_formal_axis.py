"""Formal proofs of the AXI4-Stream network interface (rtl/formal/axis_ni.py, docs/formal.md "The AXI4-Stream
interface"): tvalid never waits for tready (structurally through router and interface, and a header is
taken whatever tready), the hold rule on m_axis and local_in, frames conserved through the interface, each
by k-induction for every cycle; the seeded bug "header-waits-for-tready" is caught by its named property,
and the proofs bite on other broken interfaces (subclasses here, never switches in the unit)."""
from __future__ import annotations

import json

import pytest
from amaranth import Const

from cubenoc.rtl.axis_ni import AxisNetworkInterface, AxisParams
from cubenoc.rtl.formal.axis_ni import AXIS_GROUPS, NODE_PATHS, AxisHarness, node_paths
from cubenoc.rtl.formal.runner import prove
from cubenoc.sim.network_plan import plan_of

NO_WAITING = "tvalid independent of tready (no waiting): a header is taken whatever tready"


def _q2_router(**options):
    from cubenoc.rtl.router import Router
    from cubenoc.sim.router_config import RouterConfig
    from cubenoc.sim.routing.hypercube import EcubeRouting
    from cubenoc.sim.topology.hypercube import Hypercube
    t = Hypercube(2)
    return Router(plan_of(t, EcubeRouting(t), RouterConfig(**options)), 0)


@pytest.mark.parametrize("params", [AxisParams(32, 4), AxisParams(32, 4, broadcast=True, fifo_depth=2),
                                    AxisParams(32, 8, broadcast=True, fifo_depth=4)],
                         ids=["unicast", "broadcast_d2", "broadcast_d4"])
@pytest.mark.parametrize("group", AXIS_GROUPS)
def test_interface_is_proved_by_induction(group, params, tmp_path):
    """Each group, for every cycle from reset: k-induction (2 steps) with the named invariants closes."""
    res = prove(AxisHarness(params, groups=(group,)), f"axis_{group}", tmp_path, depth=2)
    assert res.passed and res.mode == "prove", (res.failed, res.log[-1500:])
    assert "Temporal induction successful" in res.log


def test_header_waits_for_tready_is_caught_by_no_waiting(tmp_path):
    """The seeded bug (rtl/formal/axis_ni.py's subclass: the header taken only with tready) fails exactly the
    no-waiting property, from reset, with a trace; the hold rule and conservation still hold."""
    res = prove(AxisHarness(AxisParams(32, 4), seeded_bug="header-waits-for-tready"), "bug", tmp_path, depth=2)
    assert not res.passed and not res.unproved and res.failed == [NO_WAITING]
    assert res.trace is not None and res.trace.read_text().startswith("$")
    for group in ("hold", "conservation"):
        ok = prove(AxisHarness(AxisParams(32, 4), groups=(group,), seeded_bug="header-waits-for-tready"), group,
                   tmp_path, depth=2)
        assert ok.passed, ok.failed


class _TreadyWaitsForTvalid(AxisNetworkInterface):
    """s_axis tready only with tvalid: a combinational path."""

    def ingress(self, m):
        super().ingress(m)
        s = self.s_axis
        m.d.comb += s.tready.eq(s.tvalid & ~self.local_in.valid)


class _WrongHeaderSource(AxisNetworkInterface):
    def header(self):
        return super().header() ^ (1 << 16)


class _LosesTlast(AxisNetworkInterface):
    def egress(self, m):
        super().egress(m)
        m.d.comb += self.m_axis.tlast.eq(0)


class _NeverStores(AxisNetworkInterface):
    def store_broadcast(self, m, entry, count, push, pop, in_frame):
        super().store_broadcast(m, entry, count, push, pop, in_frame)
        return Const(0)


def test_node_has_no_combinational_path_tready_tvalid():
    """Structural, through router and interface (AxisNode, flattened): no path m_axis tready -> tvalid,
    none s_axis tvalid -> tready; the cone stops at flip-flops (through them both paths exist: tready pops
    the beat queue, whose count makes tvalid); gating by tready is found."""
    from cubenoc.rtl.formal import ready_path
    from cubenoc.rtl.formal.axis_ni import _Node
    router = _q2_router()
    assert node_paths(router, AxisParams(32, 4)) == {title: True for title in NODE_PATHS}
    assert not node_paths(router, AxisParams(32, 4), "tvalid-waits-for-tready")["7 tvalid independent of tready (no waiting)"]
    assert not node_paths(router, AxisParams(32, 4), interface=_TreadyWaitsForTvalid)["7 s_axis tready independent of tvalid"]
    flops, ready_path._FLOPS = ready_path._FLOPS, "$none"
    try:
        paths = ready_path.combinational_paths(_Node(router, AxisParams(32, 4), AxisNetworkInterface),
                                               list(NODE_PATHS.values()))
    finally:
        ready_path._FLOPS = flops
    assert paths == set(NODE_PATHS.values())


@pytest.mark.parametrize("broken,params,caught", [
    (_WrongHeaderSource, AxisParams(32, 4), "ingress: the flits leave in order, unchanged"),
    (_NeverStores, AxisParams(32, 4, broadcast=True, fifo_depth=4), "ingress: a broadcast header leaves once its frame is in"),
    (_LosesTlast, AxisParams(32, 4), "egress: the beats leave in order, unchanged"),
], ids=["header_source", "broadcast_not_stored", "tlast"])
def test_conservation_bites(broken, params, caught, tmp_path):
    """Frames conserved is not vacuous: a wrong header, a broadcast frame let through before its tlast, a
    lost tlast each fail it from reset (BMC, without the invariants)."""
    res = prove(AxisHarness(params, groups=("conservation",), invariants=False, interface=broken), "broken",
                tmp_path, depth=10, mode="bmc")
    assert not res.passed and caught in res.failed, res.failed


def test_prove_axis_network_lists_the_interface_properties(tmp_path, capsys):
    """``cubenoc prove 'hypercube:n=2,interface=axis'`` adds the interface's rows, all proved; the seeded bug
    needs interface=axis (one line, exit 2)."""
    from cubenoc.cli import main
    assert main(["prove", "hypercube:n=2,interface=axis", "--work-dir", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    got = {o["property"]: (o["status"], o["detail"]) for o in out["outcomes"]}
    assert out["failed"] == 0
    for title in NODE_PATHS:
        assert got[title][0] == "proved" and got[title][1].startswith("structural"), got[title]
    for title in ("7 tvalid independent of tready: header at once", "8 hold rule on m_axis and local_in",
                  "9 frames conserved through the interface"):
        assert got[title][0] == "proved" and got[title][1].startswith("k-induction (2 steps) with the invariants"), got[title]
    assert got["2 conservation"][0] == "proved"          # the router's own proofs run as before
    assert main(["prove", "hypercube:n=2", "--mutate", "header-waits-for-tready", "--work-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "add interface=axis" in err and len(err.splitlines()) == 1


@pytest.mark.slow
def test_prove_mutate_header_waits_for_tready(tmp_path, capsys):
    """``cubenoc prove ... --mutate header-waits-for-tready`` exits 0: caught by the no-waiting property."""
    from cubenoc.cli import main
    assert main(["prove", "hypercube:n=2,interface=axis", "--mutate", "header-waits-for-tready",
                 "--work-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"seeded bug 'header-waits-for-tready' caught by: {NO_WAITING}" in out


def test_prove_takes_broadcast_from_the_spec():
    """``broadcast=1`` in a spec is ``--broadcast`` for prove (synth-report still measures unicast routers)."""
    from types import SimpleNamespace

    from cubenoc.errors import CubenocError
    from cubenoc.bench.synth_shapes import network_specs
    args = dict(family=["hypercube"], size=None, n=None, network=["enhanced:n=3,k=1,broadcast=1,interface=axis"])
    (_fam, _label, _topo, _routing, spec), = network_specs(SimpleNamespace(**args, command="prove"))
    assert spec.broadcast
    with pytest.raises(CubenocError, match="synth-report measures unicast routers"):
        network_specs(SimpleNamespace(**args, command="synth-report"))


def test_prove_refuses_broadcast_interface_at_fifo_depth_1(capsys):
    """At FIFO depth 1 no broadcast packet (a header and a beat) fits a router FIFO: refused in one line."""
    from cubenoc.cli import main
    assert main(["prove", "hypercube:n=2,broadcast=1,interface=axis", "--depth", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "FIFO depth 2 or more" in err and len(err.splitlines()) == 1, err
