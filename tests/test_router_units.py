# amaranth: UnusedElaboratable=no
"""The router's composition (rtl/router/router.py): every unit is built from its own parameters, which the
Router derives from its config and plan, and the input unit picks the route stage they call for. Each unit's
behaviour against the model's matching phase is in its own file: tests/test_unit_source.py, test_unit_input.py,
test_unit_output.py, test_unit_arbiter.py, test_unit_fifo.py and the route stages' test_unit_route_at_write.py,
test_unit_late_route.py, test_unit_adaptive_select.py, test_unit_fork_stage.py, test_unit_pipe_stage.py."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
from amaranth.hdl import Fragment

from cubenoc.rtl.router import InputParams, InputUnit, Router, SourceInterface, SourceParams
from cubenoc.sim.router_config import RouterConfig
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.routing.metacube import MetacubeRouting
from cubenoc.sim.routing.pdn import AdaptivePDNRouting
from cubenoc.sim.topology.hypercube import EnhancedHypercube, Hypercube
from cubenoc.sim.topology.metacube import Metacube
from cubenoc.sim.topology.pdn import PerfectDifferenceNetwork
from cubenoc.sim.network_plan import plan_of

ROUTER = Path(__file__).resolve().parents[1] / "rtl" / "router"
Q3, MC, EQ, PDN = Hypercube(3), Metacube(1, 1), EnhancedHypercube(3, 0), PerfectDifferenceNetwork((0, 1, 3))


def test_no_unit_takes_the_router():
    """Only router.py (and the package's exports) name the Router; every unit file is built from parameters."""
    for path in sorted(ROUTER.glob("*.py")):
        if path.name in ("router.py", "__init__.py"):
            continue
        names = {n.id for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Name)}
        attrs = {n.attr for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Attribute)}
        assert "router" not in names | attrs and "Router" not in names, path.name


@pytest.mark.parametrize("topo,routing,config,stage", [
    (Q3, EcubeRouting, RouterConfig(), "write"),
    (Q3, EcubeRouting, RouterConfig(pipeline=True), "pipelined"),
    (MC, MetacubeRouting, RouterConfig(), "write"),
    (MC, MetacubeRouting, RouterConfig(faults=True), "adaptive"),
    (PDN, lambda t: AdaptivePDNRouting(t, selection="availability"), RouterConfig(), "adaptive"),
    (EQ, EcubeRouting, RouterConfig(queues="voq"), "late"),
    (Q3, EcubeRouting, RouterConfig(broadcast=True), "late"),
], ids=["default", "pipelined", "vcs", "faults", "selection", "voq", "broadcast"])
def test_router_derives_each_units_parameters(topo, routing, config, stage):
    """The Router gives each input the stage its config calls for (a fork unit with broadcast, lookahead units
    with per-output queues), and the units elaborate from those parameters alone."""
    r = Router(plan_of(topo, routing(topo), config), 0)
    src = r.source_params()
    assert isinstance(src, SourceParams) and src.num_nodes == topo.num_nodes and src.drop_own_node == (not config.loopback)
    for port in range(r.num_ports):
        p = r.input_params(port)
        assert isinstance(p, InputParams) and p.stage == stage and p.local == (port == r.local)
        assert p.outputs == tuple(o for o in range(r.num_ports) if r.allowed[port][o])
        assert (p.fork is not None) == config.has_broadcast
        assert len(p.lookahead) == (len(p.outputs) if config.queues == "voq" else 0)
    Fragment.get(InputUnit(r.input_params(r.local)), None)
    Fragment.get(SourceInterface(src), None)
