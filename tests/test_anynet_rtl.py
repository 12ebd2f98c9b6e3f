"""The Verilog of anynet networks (docs/anynet.md): it compiles under Icarus, the cocotb network bench holds it to
the model flit for flit and cycle for cycle (tb/scenarios.py's scenarios), its route units equal the routing
function, and cubenoc prove proves its routers. Unmarked: the 7-router PDN's file (one VC) and the 8-router
ring's proofs; marked slow (about a minute each): the 13-router PDN's file and the ring in cocotb (two VCs)."""
from __future__ import annotations

from pathlib import Path

import pytest

from cubenoc.sim.catalog import NetworkSpec

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.parametrize("name", ["pdn7.anynet", pytest.param("pdn13.anynet", marks=pytest.mark.slow)])
def test_iverilog_compiles_the_pdn_files(name, tmp_path):
    """``cubenoc generate anynet:file=pdn13.anynet``'s network (13 router modules, about a minute: slow) and
    the 7-router one's (the ring's: tests/test_icarus.py)."""
    from test_icarus import need_iverilog

    from cubenoc.rtl.emit import write_network
    from cubenoc.rtl.tools import iverilog_compile
    from cubenoc.sim.network_plan import plan_of
    need_iverilog()
    spec = NetworkSpec.parse(f"anynet:file={EXAMPLES / name}")
    topo, routing = spec.build("rtl")
    gen = write_network(plan_of(topo, routing, spec.router_config()), tmp_path)
    res = iverilog_compile(gen.verilog, gen.top, tmp_path / "net.vvp")
    assert res.returncode == 0 and not res.stderr.strip(), res.stderr[-3000:]


@pytest.mark.parametrize("name", ["pdn7.anynet",
                                  pytest.param("pdn13.anynet", marks=pytest.mark.slow),
                                  pytest.param("ring8.anynet", marks=pytest.mark.slow)])
def test_anynet_network_matches_model(name):
    from cubenoc.tb.scenarios import network_scenarios
    from cubenoc.tb.verify import verify_network
    topo, routing = NetworkSpec.parse(f"anynet:file={EXAMPLES / name}").build("rtl")
    verdicts = verify_network(topo, network_scenarios(topo.num_nodes, seed=7), routing=routing)
    report = [f"{v.name}: {p}" for v in verdicts for p in v.problems]
    assert not report, "\n".join(report)
    assert all(v.model.drained and v.rtl.cycle.size > 0 for v in verdicts)
    burst = {v.name: v for v in verdicts}["burst"]
    assert burst.rtl.counters[:, 1].sum() == burst.model.stimulus.num_packets


def test_prove_the_ring_file(tmp_path, capsys):
    """``cubenoc prove anynet:file=ring8.anynet``: the ring's routers (one node-generic shape, two VCs) have
    properties 1, 2, 3 and 6 proved for every cycle, the arbiters' bounded waiting proved, and the route units
    equal to the routing function on every header a packet presents (``make``-free, as docs/formal.md)."""
    import json

    from cubenoc.cli import main
    assert main(["prove", f"anynet:file={EXAMPLES / 'ring8.anynet'}", "--work-dir", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["failed"] == 0
    got = {}
    for o in out["outcomes"]:
        got.setdefault(o["property"], set()).add(o["status"])
    for prop in ("1 stream rules", "2 conservation", "3 wormhole exclusivity", "6 counters"):
        assert got[prop] == {"proved"}, (prop, got)
    assert got["5 route units"] == {"exhaustive"}
    assert {o["shape"] for o in out["outcomes"] if o["shape"] != "all"} == {"node 0 (3 ports, 2 VCs, 8 nodes)"}


@pytest.mark.parametrize("spec", ["pdn7.anynet", "ring8.anynet", "ring8.anynet,routing=hops", "q4.anynet"])
def test_route_units_equal_the_routing_function(spec):
    """The node-generic ROMs (rtl/route/table.py) of every scheme give ``routing.route`` and ``routing.inject``
    on every header a packet presents to every router (amaranth.sim, property 5 of cubenoc prove)."""
    from cubenoc.rtl.formal.route import route_unit_mismatches
    _topo, routing = NetworkSpec.parse(str(EXAMPLES / spec)).build("rtl")
    checked, bad = route_unit_mismatches(routing)
    assert checked > 0 and bad == []


def test_route_units_of_a_large_network_are_one_rom_per_router(monkeypatch):
    """Above GENERIC_ROM_ENTRIES (the whole network's table in every router module would be too big) each
    router gets its own node's ROM, and it too equals the routing function (MC(1,2)'s file, the threshold lowered)."""
    import cubenoc.rtl.route.table as table
    from cubenoc.rtl.formal.route import route_unit_mismatches
    from cubenoc.rtl.route import rtl_for
    _topo, routing = NetworkSpec.parse(str(EXAMPLES / "mc12.anynet")).build("rtl")
    assert rtl_for(routing).node_generic
    monkeypatch.setattr(table, "GENERIC_ROM_ENTRIES", 16)
    assert not rtl_for(routing).node_generic
    checked, bad = route_unit_mismatches(routing)
    assert checked > 1000 and bad == []


def test_generate_says_how_long_routers_of_their_own_take(tmp_path, capsys):
    """A file whose routers are each a module of their own (the 7-cube: 128 x 2^7 table entries, above
    GENERIC_ROM_ENTRIES) takes minutes to elaborate, and generate says so before it starts; the 5-cube's
    routers share one module and nothing is said. The per-router term is what makes the difference."""
    from cubenoc.netargs import SAY_ESTIMATE, check_size, own_router_modules
    from cubenoc.sim.anynet_file import anynet_text
    from cubenoc.sim.network_plan import plan_seconds
    from cubenoc.sim.topology.hypercube import Hypercube
    said = {}
    for n in (5, 7):
        path = tmp_path / f"q{n}.anynet"
        path.write_text(anynet_text(Hypercube(n)))
        spec = NetworkSpec.parse(f"anynet:file={path}")
        topo, routing = spec.build("rtl")
        check_size(spec, topo, routing, "generate")
        said[n] = (own_router_modules(routing), plan_seconds(topo, routing), capsys.readouterr().err)
    assert said[5][0] == 0 and said[5][2] == ""
    modules, shared_estimate, err = said[7]
    assert modules == 128 and shared_estimate < SAY_ESTIMATE
    assert "128 nodes, each router a module of its own, expect about" in err and "minutes" in err
