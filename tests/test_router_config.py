# amaranth: UnusedElaboratable=no
"""RouterConfig: one home for the router's options, one legality table, one map from specs and flags, and
each target's default (sim/router_config.py)."""
from __future__ import annotations

import argparse
import ast
import itertools
from pathlib import Path

import pytest

from cubenoc.errors import CubenocError
from cubenoc.sim.catalog import NetworkSpec
from cubenoc.sim.router_config import (NOT_BUILT, SPEC_KEYS, TARGETS, RouterConfig, field_value, spec_value,
                                       target_default, target_names, target_synth)
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.routing.pdn import AdaptivePDNRouting
from cubenoc.sim.topology.hypercube import Hypercube
from cubenoc.sim.topology.pdn import PerfectDifferenceNetwork
from cubenoc.sim.network_plan import plan_of

ROOT = Path(__file__).resolve().parents[1]

#: one non-default value per option that some other option refuses (the names NOT_BUILT uses)
TURN_ON = {"broadcast": {"broadcast": True}, "faults": {"faults": True}, "voq": {"queues": "voq"},
           "pipeline": {"pipeline": True}, "no-loopback": {"loopback": False}, "fair": {"arbitration": "fair"}}


@pytest.mark.parametrize("field,value,words", [
    ("payload_width", 8, "payload width must be an integer of at least 16 and at most 1024"),
    ("payload_width", 100_000, "payload width must be an integer of at least 16 and at most 1024"),
    ("fifo_depth", 0, "fifo depth"),
    ("queues", "lanes", "queues must be one of fifo, voq"),
    ("arbitration", "age", "arbitration must be one of round-robin, fair"),
    ("pipeline", "yes", "pipeline must be True or False"),
    ("fifo_memory", "sram", "FIFO memory must be False, True, None or 'block'"),
    ("counters", "dps", "counters must be True, False or 'dsp'"),
    ("loopback", 0, "loopback must be True or False"),
])
def test_each_field_refuses_a_bad_value_in_one_line(field, value, words):
    with pytest.raises(CubenocError, match=words) as refused:
        RouterConfig(**{field: value})
    assert "\n" not in str(refused.value)


def test_the_legality_table_is_the_only_rule_between_options():
    """Every pair of options: refused exactly when NOT_BUILT lists it (in either order), with a message
    naming both; every other pair builds."""
    table = {frozenset(p) for p in NOT_BUILT}
    options = [k for k in TURN_ON]
    for a, b in itertools.combinations(options, 2):
        kw = TURN_ON[a] | TURN_ON[b]
        if frozenset((a, b)) in table:
            with pytest.raises(CubenocError, match="cannot take") as refused:
                RouterConfig(**kw)
            assert "\n" not in str(refused.value)
        else:
            RouterConfig(**kw)


def test_a_run_time_selection_counts_as_adaptive_and_vc_routing_refuses_one_vc_options():
    pdn = PerfectDifferenceNetwork((0, 1, 3, 9))
    selecting = AdaptivePDNRouting(pdn, hop_vcs=False, selection="availability")
    with pytest.raises(CubenocError, match="cannot take a run-time selection"):
        RouterConfig(loopback=False).check(selecting)
    RouterConfig(loopback=False).check(AdaptivePDNRouting(pdn, hop_vcs=False))     # fixed pick: not adaptive
    two_vc = AdaptivePDNRouting(pdn)
    assert two_vc.num_vcs == 2
    for kw in ({"pipeline": True}, {"queues": "voq"}, {"broadcast": True}):
        with pytest.raises(CubenocError, match="one-VC routing function"):
            RouterConfig(**kw).check(two_vc)


def test_spec_keys_set_the_config_and_read_back():
    spec = NetworkSpec.parse("enhanced:n=4,k=0,depth=2,pipeline=1,counters=dsp,loopback=0,payload=48")
    cfg = spec.router_config()
    assert cfg == RouterConfig(fifo_depth=2, pipeline=True, counters="dsp", loopback=False, payload_width=48)
    assert spec.without_router() == NetworkSpec.parse("enhanced:n=4,k=0")
    assert NetworkSpec.parse(str(spec)) == spec
    for key, (name, kind, _) in SPEC_KEYS.items():       # each key names a field; values read back
        assert name in RouterConfig.__dataclass_fields__
        value = getattr(RouterConfig(), name)
        if not isinstance(value, bool) or kind == "bool":
            assert field_value(key, spec_value(key, value)) == value
    with pytest.raises(CubenocError, match="counters must be one of on, off, dsp"):
        NetworkSpec.parse("hypercube:n=2,counters=maybe")


def _generate_args(argv):
    from cubenoc.generate import add_arguments
    p = argparse.ArgumentParser()
    add_arguments(p)
    return p.parse_args(argv)


def test_flags_override_the_spec_which_overrides_the_target():
    from cubenoc.generate import network_spec
    from cubenoc.netargs import router_config
    args = _generate_args(["hypercube:n=3,depth=2", "--loopback", "--dsp-counters"])
    cfg = router_config(args, network_spec(args), target_default("ecp5"))
    ecp5 = TARGETS["ecp5"].config
    assert cfg == ecp5.replace(fifo_depth=2, loopback=True, counters="dsp")
    args = _generate_args(["hypercube:n=3"])
    assert router_config(args, network_spec(args), target_default(None)) == RouterConfig()
    args = _generate_args(["hypercube:n=3", "--no-counters", "--no-fifo-memory"])
    assert router_config(args, network_spec(args), target_default("ecp5-25f")) == ecp5.replace(fifo_memory=False)


def test_targets_are_valid_routers_and_named_the_ways_commands_name_them():
    q = Hypercube(4)
    for name, t in TARGETS.items():
        assert t.name == name and t.why
        t.config.check(EcubeRouting(q))
        assert target_synth(name, t.config) in ("speed", "balanced", "area")
    assert TARGETS["generic"].config == RouterConfig() == target_default(None)
    assert {"generic", "up5k", "ecp5", "ecp5-25f"} <= set(target_names())
    assert target_default("ecp5-25f") == target_default("ecp5")
    with pytest.raises(CubenocError, match="unknown target 'virtex'"):
        target_default("virtex")


@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")
def test_every_option_changes_the_router_shape():
    """Two nodes share a Verilog module only when their routers are the same: no option is left out of
    the shape key (it derives from the config)."""
    from cubenoc.rtl.router import Router
    q = Hypercube(2)
    routing = EcubeRouting(q)
    base = Router(plan_of(q, routing), 0).shape_key
    variants = [{"payload_width": 48}, {"fifo_depth": 2}, {"faults": True}, {"broadcast": True},
                {"queues": "voq"}, {"arbitration": "fair"}, {"pipeline": True}, {"fifo_memory": True},
                {"fifo_memory": "block"}, {"counters": False}, {"counters": "dsp"}, {"loopback": False}]
    keys = [Router(plan_of(q, routing, RouterConfig(**kw)), 0).shape_key for kw in variants]
    assert base not in keys and len(set(keys)) == len(keys)


ROUTER_OPTION_PARAMETERS = ("loopback", "arbitration", "fifo_memory", "counters")


#: dataclass fields of those names that are not the option: the counter values a run reports
COUNTER_VALUES = {("sim/model/result.py", "ModelResult"), ("tb/runner.py", "RtlTrace")}


def test_no_function_outside_the_config_takes_a_router_option():
    """The router's options are named in one dataclass: no function signature in the library takes
    loopback, arbitration, fifo_memory or counters as a parameter (a dataclass's fields are its
    constructor's parameters: they count too)."""
    found = []
    for folder in ("rtl", "sim", "tb", "boards", "cubenoc"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.name == "router_config.py":
                continue
            where = str(path.relative_to(ROOT))
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    a = node.args
                    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
                elif isinstance(node, ast.ClassDef) and any("dataclass" in ast.unparse(d) for d in node.decorator_list):
                    names = [x.target.id for x in node.body if isinstance(x, ast.AnnAssign)
                             and isinstance(x.target, ast.Name) and (where, node.name) not in COUNTER_VALUES]
                else:
                    continue
                found += [f"{where}:{node.lineno} {n}" for n in names if n in ROUTER_OPTION_PARAMETERS]
    assert found == []


def test_a_target_default_gives_way_to_what_the_user_asked_for():
    from cubenoc.sim.router_config import with_options
    up5k = target_default("up5k")
    assert up5k.loopback is False
    voq = with_options(up5k, {"queues": "voq"})
    assert voq.queues == "voq" and voq.loopback is True and voq.counters == up5k.counters
    pdn = PerfectDifferenceNetwork((0, 1, 3, 9))
    selecting = AdaptivePDNRouting(pdn, hop_vcs=False, selection="availability")
    assert with_options(up5k, {}, selecting).loopback is True
    assert with_options(up5k, {}, EcubeRouting(Hypercube(3))) == up5k
    with pytest.raises(CubenocError, match="cannot take"):         # both asked for: refused
        with_options(up5k, {"queues": "voq", "loopback": False})


def test_board_builds_start_from_their_target_and_keep_loopback(capsys):
    """An UP5K board's demo routers are the up5k default (counters in DSP blocks) with loopback kept;
    asking for no loopback is refused in one line (the demo's traffic addresses every node)."""
    from cubenoc.boards.boards import get_board
    from cubenoc.build import network_for
    from cubenoc.cli import main
    ns = argparse.Namespace(family=None, n=None, k=None, payload=None, depth=None)
    config = network_for(get_board("icebreaker"), ns).config
    assert config.counters == "dsp" and config.loopback is True
    assert main(["build", "--board", "icebreaker", "--no-loopback", "--estimate-only"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "keep loopback" in err
