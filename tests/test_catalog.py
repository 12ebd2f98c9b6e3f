"""The network catalog (sim/catalog.py): one spec grammar, the family flags as its shorthand, and
the same spec string accepted by generate, simulate, bench, synth-report and build."""
from __future__ import annotations

import argparse

import pytest

from cubenoc.cli import main
from cubenoc.errors import CubenocError
from cubenoc.sim.catalog import PRESETS, NetworkSpec
from cubenoc.sim.routing.hierarchical import BalancedHierarchicalRouting, HierarchicalRouting
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.routing.metacube import MetacubeRouting
from cubenoc.sim.routing.pdn import AdaptivePDNRouting, DimensionOrderPDNRouting, ObliviousPDNRouting
from cubenoc.sim.topology.hierarchical import Hierarchical
from cubenoc.sim.topology.hypercube import EnhancedHypercube, Hypercube
from cubenoc.sim.topology.metacube import Metacube
from cubenoc.sim.topology.pdn import PerfectDifferenceNetwork, ProductPDN, registry_set, zero_free

SPECS = ["hypercube:n=3", "enhanced:n=6,k=2", "metacube:k=1,m=2", "pdn:set=0,1,3,9",
         "pdn:set=0,1,3,routing=availability,prefer=backward", "pdn:delta=4,zero_free=1", "pdn:product=2,2",
         "hin:level1=bh:3,level2=ccc:2,routing=balanced", "hin:level1=bh:2,level2=bh:1,r=2",
         "enhanced:n=4,k=0,queues=voq,pipeline=1"]


@pytest.mark.parametrize("text", SPECS + list(PRESETS))
def test_spec_round_trips(text):
    spec = NetworkSpec.parse(text)
    assert NetworkSpec.parse(str(spec)) == spec
    if text in PRESETS:
        assert spec == NetworkSpec.parse(PRESETS[text])


@pytest.mark.parametrize("text,topo_cls,routing_cls,nodes", [
    ("hypercube:n=3", Hypercube, EcubeRouting, 8),
    ("enhanced:n=6,k=2", EnhancedHypercube, EcubeRouting, 64),
    ("metacube:k=1,m=2", Metacube, MetacubeRouting, 2 ** (2 * 2 + 1)),     # 2^(m 2^k + k) nodes
    ("pdn:set=0,1,3,9", PerfectDifferenceNetwork, ObliviousPDNRouting, 13),  # delta^2 + delta + 1, delta = 3
    ("pdn:product=2,2", ProductPDN, DimensionOrderPDNRouting, 49),
    ("hin:level1=bh:3,level2=ccc:2", Hierarchical, HierarchicalRouting, 8 * 8),   # BH(3) x CCC(2): 2 * 2^2
    ("hin:level1=bh:3,level2=ccc:2,routing=least_used", Hierarchical, BalancedHierarchicalRouting, 64),
])
def test_build_makes_the_named_network(text, topo_cls, routing_cls, nodes):
    topo, routing = NetworkSpec.parse(text).build("model")
    assert type(topo) is topo_cls and isinstance(routing, routing_cls) and topo.num_nodes == nodes


def test_pdn_options():
    topo, routing = NetworkSpec.parse("pdn:delta=4,zero_free=1").build()
    assert topo.pds == zero_free(registry_set(4))
    topo, routing = NetworkSpec.parse("pdn:set=0,1,3,routing=availability,prefer=backward").build()
    assert isinstance(routing, AdaptivePDNRouting) and routing.selection == "availability"
    assert NetworkSpec.parse("pdn:set=0,1,3,routing=availability").selection


def test_older_hin_spelling_is_the_same_network():
    assert NetworkSpec.parse("hin:d=3,level2=bh,size=3") == NetworkSpec.parse("hin:level1=bh:3,level2=bh:3")


@pytest.mark.parametrize("text,message", [
    ("torus:n=3", "unknown network 'torus:n=3'"),
    ("hypercube:n=x", "n must be an integer"),
    ("hypercube:m=2", "hypercube takes parameters n, payload, depth, queues, pipeline, broadcast, faults, "
                      "arbitration, fifo_memory, counters, loopback, interface; got m"),
    ("enhanced:n=4,k=3", "k must be in 0..n-2"),
    ("pdn:set=0,1,3,delta=3", "exactly one of set=S, delta=D or product=D1,D0"),
    ("pdn:set=0,1,3,routing=zigzag", "pdn routing must be one of oblivious, adaptive, availability"),
    ("metacube:k=1", "metacube needs k (class bits, 1..4) and m"),
    ("hypercube:n=3,n=4", "parameter n given twice"),
    ("hypercube:3", "key=value pairs"),
    ("hypercube:n=3,pipeline=maybe", "pipeline is 0 or 1"),
])
def test_bad_specs_say_which_key(text, message):
    with pytest.raises(CubenocError, match=None) as exc:
        NetworkSpec.parse(text).build()
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_limits_live_in_the_catalog():
    with pytest.raises(CubenocError, match="n must be in 1..16"):
        NetworkSpec.parse("hypercube:n=17").build("rtl")
    with pytest.raises(CubenocError, match="n must be in 1..20"):
        NetworkSpec.parse("hypercube:n=21").build("model")
    with pytest.raises(CubenocError, match="node addresses"):
        NetworkSpec.parse("metacube:k=2,m=5").build("rtl")       # 5 * 4 + 2 = 22 address bits


def _spec_of_generate(argv):
    from cubenoc.generate import add_arguments, network_spec
    p = argparse.ArgumentParser()
    add_arguments(p)
    return network_spec(p.parse_args(argv))


@pytest.mark.parametrize("flags,spec", [
    (["enhanced", "--n", "6", "--k", "2"], "enhanced:n=6,k=2"),
    (["pdn", "--set", "0,1,3,9", "--routing", "adaptive"], "pdn:set=0,1,3,9,routing=adaptive"),
    (["pdn", "--delta", "4", "--zero-free"], "pdn:delta=4,zero_free=1"),
    (["metacube", "--k", "1", "--m", "2", "--shortest"], "metacube:k=1,m=2,shortest=1"),
    (["hin", "--level1", "bh:3", "--level2", "ccc:2", "--replication", "2"], "hin:level1=bh:3,level2=ccc:2,r=2"),
    (["hypercube", "--n", "3", "--pipeline"], "hypercube:n=3,pipeline=1"),
])
def test_family_flags_are_a_shorthand_for_the_spec(flags, spec):
    assert _spec_of_generate(flags) == NetworkSpec.parse(spec) == _spec_of_generate([spec])


def test_spec_and_flags_together_is_an_error():
    with pytest.raises(CubenocError, match="not both"):
        _spec_of_generate(["pdn:set=0,1,3", "--n", "3"])


def test_one_spec_string_in_every_command(tmp_path, capsys, monkeypatch):
    """generate, simulate, bench, synth-report and build all take ``pdn:set=0,1,3``."""
    spec = "pdn:set=0,1,3"
    label = "PerfectDifferenceNetwork(set='0,1,3')"
    assert main(["generate", spec, "-o", str(tmp_path / "v")]) == 0
    assert "cubenoc_pdn_0_1_3.v" in capsys.readouterr().out
    assert main(["simulate", spec, "--rate", "0.05", "--warmup", "50", "--measure", "200", "--quiet"]) == 0
    assert label in capsys.readouterr().out
    assert main(["bench", "latency", "--network", spec, "--packet-len", "1"]) == 0
    assert f"| {label} | 1 |" in capsys.readouterr().out
    assert main(["synth-report", "--network", spec, "--list"]) == 0
    assert "P=5 V=1 (7 nodes" in capsys.readouterr().out          # 2 delta chords (delta = 2) + local
    assert main(["build", "--board", "ulx3s-85f", "--network", spec, "--estimate-only"]) == 0
    assert label in capsys.readouterr().out


def test_docs_list_every_key_and_preset():
    from pathlib import Path

    from cubenoc.sim.catalog import FAMILIES, ROUTER_KEYS
    page = (Path(__file__).resolve().parents[1] / "docs" / "networks.md").read_text()
    for fam, keys in list(FAMILIES.items()) + [("any", ROUTER_KEYS)]:
        for key in keys:
            assert f"| {fam} | `{key}` |" in page
    for name, spec in PRESETS.items():
        assert f"| `{name}` | `{spec}` |" in page


@pytest.mark.parametrize("spec,short", [
    ("hypercube:n=3", "Q(3)"), ("enhanced:n=4,k=0", "Q(4, 0)"), ("mc12", "MC(1,2)"), ("pdn:delta=5", "PDN {0,1,3,8,12,18} (31)"),
    ("pdn:set=1,2,4", "0-free PDN {1,2,4} (7)"), ("pdn:product=2,2", "PDN product 2,2 (49)"),
    ("hin:level1=bh:1,level2=ccc:2", "BH(1)/CCC(2) (16)"), ("pdn:set=0,1,3,routing=adaptive", "PDN {0,1,3} (7) adaptive")])
def test_short_label_is_the_papers_name(spec, short):
    """What synth-report and prove print for --family/--size networks (docs/performance.md's tables)."""
    assert NetworkSpec.parse(spec).short_label() == short


def test_metacube_broadcast_is_refused_with_its_reason():
    """A metacube spec with broadcast is refused at the spec, in one line (every command parses the spec
    first); the reason holds: the catalog's metacube routing needs 2+ VCs, the broadcast routers have one, and
    in one VC even the Sec. 4.2 tree alone has a cycle of channel dependencies (the class cycle)."""
    from cubenoc.sim.broadcast.metacube import MetacubeBroadcast
    from cubenoc.sim.deadlock import check_broadcast_deadlock
    from cubenoc.sim.router_config import RouterConfig
    for text in ("metacube:k=1,m=2,broadcast=1", "metacube:k=1,m=1,shortest=1,broadcast=1"):
        with pytest.raises(CubenocError) as exc:
            NetworkSpec.parse(text)
        msg = str(exc.value)
        assert "do not fork the metacube broadcast" in msg and "hypercube, enhanced or pdn" in msg and "\n" not in msg
    with pytest.raises(CubenocError, match="do not fork the metacube broadcast"):
        NetworkSpec.parse("metacube:k=2,m=1").replace(broadcast=True)
    assert NetworkSpec.parse("metacube:k=1,m=2,broadcast=0").broadcast is False
    NetworkSpec.parse("enhanced:n=4,k=0,broadcast=1")          # the other families still take it
    for k, m in ((1, 1), (1, 2), (2, 1)):
        topo, routing = NetworkSpec.parse(f"metacube:k={k},m={m}").build("rtl")
        assert routing.num_vcs >= 2
        with pytest.raises(CubenocError, match="do not fork the metacube broadcast"):
            RouterConfig(broadcast=True).check(routing)        # the API path (prove --broadcast) says the same
        one_vc = MetacubeRouting(topo, vcs=False)
        RouterConfig(broadcast=True).check(one_vc)            # the experiments' one-VC routing is still taken
        assert not check_broadcast_deadlock(one_vc, MetacubeBroadcast(topo), pairs=[]).deadlock_free
