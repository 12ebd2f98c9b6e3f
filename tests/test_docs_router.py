"""The docs' code runs as written: docs/router.md's packet-order measure ("Packet order between one source
and one destination"), docs/families.md's hop table ("Routes and hop counts") and docs/tutorial.md's own
cocotb bench ("Your own cocotb bench")."""
import re
import subprocess
import sys
import textwrap
from pathlib import Path

from cubenoc.sim.router_config import RouterConfig
from cubenoc.cli import main
from cubenoc.sim.network_plan import plan_of

DOCS = Path(__file__).resolve().parents[1] / "docs"


def doc_block(name: str, page: str = "router.md") -> str:
    """The ```python block after ``<!-- docs-block: name -->`` in a docs page."""
    blocks = dict(re.findall(r"<!-- docs-block: (\S+) -->\n\s*```python\n(.*?)\n\s*```", (DOCS / page).read_text(),
                             re.S))
    return textwrap.dedent(blocks[name])


def test_packet_order_kept_by_fixed_routes_not_by_run_time_selection():
    from cubenoc.sim.model.network import NetworkModel
    from cubenoc.sim.routing.hypercube import EcubeRouting
    from cubenoc.sim.routing.pdn import AdaptivePDNRouting, ObliviousPDNRouting
    from cubenoc.sim.topology.hypercube import Hypercube
    from cubenoc.sim.topology.pdn import PerfectDifferenceNetwork
    ns: dict = {}
    exec(doc_block("order"), ns)
    share = ns["overtaken_share"]
    pdn, q3 = PerfectDifferenceNetwork((0, 1, 3)), Hypercube(3)
    for model in (NetworkModel(plan_of(pdn, ObliviousPDNRouting(pdn))), NetworkModel(plan_of(pdn, AdaptivePDNRouting(pdn))),
                  NetworkModel(plan_of(q3, EcubeRouting(q3), RouterConfig(queues="voq")))):
        assert share(model, 1.0, 1, cycles=4000) == 0.0
        assert share(model, 1.0, 4, cycles=4000, p_ready=0.5) == 0.0
    run_time = NetworkModel(plan_of(pdn, AdaptivePDNRouting(pdn, selection="availability")))
    assert 0.0 < share(run_time, 1.0, 1, cycles=4000) < 0.1
    assert 0.0 < share(run_time, 1.0, 1, cycles=4000, p_ready=0.5) < 0.2


def test_hop_table_block():
    ns: dict = {}
    exec(doc_block("hops", "families.md"), ns)
    hops = ns["HOPS"]
    assert hops["Q_4"][1] == 4 and hops["Q(4,1)"][1] == 3       # n; k + ceil((n-k)/2) (Theorem 2)
    assert hops["PDN"][1] == 2 and hops["PDN availability"][1] == 2


def test_own_bench_worked_example(tmp_path):
    """The two files of the worked example, on `cubenoc generate hypercube --n 2`: the bench's asserts
    (h + 1 = 3 cycles for 2 hops, the tail one cycle later, the data unchanged) pass on the Verilog."""
    (tmp_path / "test_my_noc.py").write_text(doc_block("test_my_noc.py", "tutorial.md"))
    (tmp_path / "run_my_noc.py").write_text(doc_block("run_my_noc.py", "tutorial.md"))
    out = tmp_path / "out"
    assert main(["generate", "hypercube", "--n", "2", "-o", str(out)]) in (0, None)
    proc = subprocess.run([sys.executable, "run_my_noc.py", "out"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "TESTS=1 PASS=1" in proc.stdout + proc.stderr
