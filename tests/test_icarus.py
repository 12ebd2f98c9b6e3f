"""Icarus Verilog, the second simulator: one network of every family (and the router variants whose
Verilog differs most: broadcast forks, the adaptive router with fault inputs, virtual channels) compiles
with ``iverilog -g2012``; the AXI4-Stream kit's test runs under it (tests/test_axis_kit.py)."""
import re
import shutil
from pathlib import Path

import pytest

from cubenoc.rtl.emit import write_network
from cubenoc.rtl.tools import iverilog_compile
from cubenoc.sim.catalog import FAMILIES, NetworkSpec
from cubenoc.sim.network_plan import plan_of


def need_iverilog():
    """Skip only where the Makefile could not have installed it (no apt-get); otherwise its absence fails."""
    if shutil.which("iverilog") is None:
        if shutil.which("apt-get") is None:
            pytest.skip("iverilog is not installed and apt-get is unavailable to install it")
        pytest.fail("iverilog is missing: `make venv` installs it (apt-get install iverilog)")


#: the smallest network of each family; metacube's two VCs and enhanced broadcast forks once failed
#: (functions named ``\\$procmux$NNN``, which Icarus takes for system functions)
NETWORKS = {"hypercube": "hypercube:n=2", "enhanced": "enhanced:n=3,k=1,broadcast=1", "metacube": "metacube:k=1,m=2",
            "pdn": "pdn:set=0,1,3,routing=availability", "hin": "hin:level1=bh:1,level2=bh:2",
            "anynet": f"anynet:file={Path(__file__).resolve().parents[1] / 'examples' / 'ring8.anynet'}"}


def test_every_family_has_a_network():
    assert set(NETWORKS) == set(FAMILIES)


@pytest.mark.parametrize("family", sorted(NETWORKS))
def test_iverilog_compiles_every_family(family, tmp_path):
    need_iverilog()
    spec = NetworkSpec.parse(NETWORKS[family])
    topo, routing = spec.build("rtl")
    gen = write_network(plan_of(topo, routing, spec.router_config()), tmp_path)
    res = iverilog_compile(gen.verilog, gen.top, tmp_path / "net.vvp")
    assert res.returncode == 0 and not res.stderr.strip(), res.stderr[-3000:]
    assert (tmp_path / "net.vvp").stat().st_size > 0
    for f in gen.verilog:
        assert not re.search(r"function\b[^;]*\\\$", f.read_text()), f"{f.name}: a function with a $ name"


def test_iverilog_compiles_a_three_level_hin(tmp_path):
    """BH(2)/BH(2)/BH(2): interface routers of levels 1, 2 and 3 (2, 4 and 6 network ports) in one network."""
    need_iverilog()
    spec = NetworkSpec.parse("hin:level1=bh:2,level2=bh:2,level3=bh:2")
    topo, routing = spec.build("rtl")
    gen = write_network(plan_of(topo, routing, spec.router_config()), tmp_path)
    assert sorted({topo.num_ports(v) for v in topo.nodes()}) == [2, 4, 6]
    assert len([f for f in gen.verilog if "_router" in f.name]) == 3       # one router module per shape
    res = iverilog_compile(gen.verilog, gen.top, tmp_path / "net.vvp")
    assert res.returncode == 0 and not res.stderr.strip(), res.stderr[-3000:]
