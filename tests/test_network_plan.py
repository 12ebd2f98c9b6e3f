"""The network plan (sim/network_plan.py) and the one walk of every pair behind it (sim/routing/facts.py): the
facts it gives equal independent computations, and the vectorised builders that large networks need give
the same facts on small networks."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from cubenoc.sim.catalog import NetworkSpec
from cubenoc.sim.model.ecube import ecube_model
from cubenoc.sim.model.network import NetworkModel
from cubenoc.sim.network_plan import NetworkPlan
from cubenoc.sim.router_config import RouterConfig
from cubenoc.sim.routing.facts import route_facts
from cubenoc.sim.symmetric_tables import symmetric_model
from cubenoc.sim.network_plan import plan_of

ROOT = Path(__file__).resolve().parents[1]
SMALL = ["hypercube:n=3", "enhanced:n=4,k=1", "metacube:k=1,m=1", "pdn:set=0,1,3", "hin:level1=bh:1,level2=bh:2",
         "pdn:set=0,1,3,routing=adaptive"]


def _bits(turns, P):
    out = np.zeros(P, dtype=np.int64)
    for i, o in turns:
        out[i] |= 1 << o
    return out


@pytest.mark.parametrize("spec", SMALL)
def test_turns_are_the_hops_of_every_path(spec):
    """For a deterministic function the walk's turns are exactly the consecutive hops of every
    routing.path (an independent walk); for an adaptive one they include them."""
    topo, routing = NetworkSpec.parse(spec).build("model")
    want = [set() for _ in topo.nodes()]
    for s in topo.nodes():
        for d in topo.nodes():
            node, in_port, header = s, topo.local_port(s), routing.inject(s, d)
            while True:
                hop = routing.route(node, header)
                want[node].add((in_port, hop.port))
                if hop.port == topo.local_port(node):
                    break
                node, in_port = topo.neighbor(node, hop.port)
                header = hop.header
    got = route_facts(routing).turns
    for v in topo.nodes():
        assert want[v] <= got[v]
        if len(routing.candidates(0, routing.inject(0, topo.num_nodes - 1))) == 1 and "adaptive" not in spec:
            assert want[v] == got[v]


@pytest.mark.parametrize("spec", SMALL)
def test_the_model_tables_carry_the_plans_turns(spec):
    """build_tables (the generic builder) prunes exactly the plan's turns, with and without loopback."""
    topo, routing = NetworkSpec.parse(spec).build("model")
    for loopback in (True, False):
        config = RouterConfig(loopback=loopback).check(routing)
        plan, model = NetworkPlan(topo, routing, config), NetworkModel(plan_of(topo, routing, config))
        P = model.tables.max_ports
        for v in topo.nodes():
            assert (model.tables.allowed[v * P:(v + 1) * P][:topo.local_port(v) + 1]
                    == _bits(plan.turns(v), topo.local_port(v) + 1)).all()


@pytest.mark.parametrize("loopback", [True, False])
@pytest.mark.parametrize("spec", ["hypercube:n=4", "enhanced:n=5,k=1"])
def test_vectorised_builders_give_the_plans_turns(spec, loopback):
    """The table-free e-cube model and the one-row-per-orbit tables (built without walking every pair)
    prune the same turns as the plan, with and without loopback."""
    topo, routing = NetworkSpec.parse(spec).build("model")
    plan = NetworkPlan(topo, routing, RouterConfig(loopback=loopback))
    P = topo.num_ports(0) + 1
    for model in (ecube_model(plan), symmetric_model(plan)):
        allowed = model.tables.allowed.reshape(-1)
        if allowed.size == P:                          # one row for every node
            allowed = np.tile(allowed, topo.num_nodes)
        for v in topo.nodes():
            assert (allowed[v * P:(v + 1) * P] == _bits(plan.turns(v), P)).all()


def test_the_plan_applies_the_router_options():
    topo, routing = NetworkSpec.parse("hypercube:n=3").build("rtl")
    on, off = NetworkPlan(topo, routing), NetworkPlan(topo, routing, RouterConfig(loopback=False))
    local = topo.local_port(5)
    assert (local, local) in on.turns(5) and off.turns(5) == on.turns(5) - {(local, local)}
    bc = NetworkPlan(topo, routing, RouterConfig(broadcast=True))
    from cubenoc.sim.broadcast.fork import broadcast_turns
    forks = broadcast_turns(bc.broadcast)
    assert all(bc.turns(v) == on.turns(v) | set(forks[v]) for v in topo.nodes())
    assert on.weights(0) is None and NetworkPlan(topo, routing, RouterConfig(arbitration="fair")).weights(0)
    assert on.fixed_bits(None) and not NetworkPlan(topo, routing, RouterConfig(queues="voq")).fixed_bits(None)
    assert on.deadlock().deadlock_free and bc.deadlock().deadlock_free


def test_the_plan_finds_the_metacube_class_cycle_without_its_vcs():
    from cubenoc.sim.routing.metacube import MetacubeRouting
    topo, routing = NetworkSpec.parse("metacube:k=1,m=2").build("rtl")
    assert NetworkPlan(topo, routing).deadlock().deadlock_free
    one = MetacubeRouting(topo, vcs=False)
    assert not NetworkPlan(topo, one).deadlock().deadlock_free


def test_arrivals_are_the_headers_a_neighbour_sends():
    """Every header arriving at node 0 over input port p was sent by the neighbour on p."""
    topo, routing = NetworkSpec.parse("enhanced:n=4,k=0").build("rtl")
    plan = NetworkPlan(topo, routing)
    arr = plan.arrivals(0)
    assert arr and all(p != topo.local_port(0) for p, _ in arr)
    for (p, _vc), words in arr.items():
        u, q = topo.neighbor(0, p)
        for w in words:
            assert any(routing.layout.pack(routing.route(u, routing.layout.unpack(x)).header) == w
                       and routing.route(u, routing.layout.unpack(x)).port == q
                       for x in range(1 << routing.layout.width)
                       if _is(routing, u, x))


def _is(routing, u, x):
    try:
        routing.route(u, routing.layout.unpack(x))
        return True
    except Exception:
        return False


def test_the_hop_limit_is_written_once():
    hits = []
    for folder in ("rtl", "sim", "tb", "boards", "cubenoc"):
        for path in (ROOT / folder).rglob("*.py"):
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if re.search(r"4 \* [\w.]*(num_nodes|\bn\b)\w* \+ [48]\b", line):
                    hits.append(f"{path.relative_to(ROOT)}:{n}")
    assert len(hits) == 1 and hits[0].startswith("sim/routing/base.py:"), hits


def test_the_plan_is_made_in_one_place_and_the_model_through_its_constructor():
    """Library code makes a plan only through ``plan_of`` (commands once, then hand it on), and no model is
    put together attribute by attribute (``NetworkModel.__new__``)."""
    made, assembled = [], []
    for folder in ("rtl", "sim", "tb", "boards", "cubenoc"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text()
            made += [str(path.relative_to(ROOT))] * text.count("NetworkPlan(")
            if "NetworkModel.__new__" in text or folder == "sim" and "__new__" in text:   # (rtl's components
                assembled.append(str(path.relative_to(ROOT)))                         # check parameters there)
    assert made == ["sim/network_plan.py"] and not assembled, (made, assembled)
