"""`cubenoc analyze safety`: per-node report, figures, Figure 5, errors."""
import json

import pytest

from cubenoc.cli import main


def run(capsys, *argv):
    rc = main(["analyze", "safety", *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_node_report_json(capsys):
    rc, out, _ = run(capsys, "--n", "4", "--faulty-nodes", "0000,1101",
                     "--faulty-links", "1000-1010,1010-1110,0110-0111", "--json")
    assert rc == 0
    data = json.loads(out)
    row = {r["node"]: r for r in data["nodes"]}["0001"]
    assert row["DSL1"] == [3, 3, 2, 3] and row["ADSL1"] == [0, 3, 3, 3] and row["GSL1"] == 4 and row["Opt"]
    assert data["safe"] == {"SL1": 0, "SL2": 5, "DSL1": 1, "DSL2": 7} and data["r_nodes"] == 7


def test_figure_text(capsys):
    rc, out, _ = run(capsys, "--figure", "2b")
    assert rc == 0 and "Table 1 vs ours" in out and "SL(2) nodes 0..15" in out
    assert "0001" in out and "GSL2" in out


def test_figure5_small(capsys, tmp_path):
    png = tmp_path / "f5.png"
    rc, out, err = run(capsys, "--n", "5", "--fault-counts", "1..3", "--mix", "link", "--trials", "5",
                       "--json", "--plot", str(png))
    assert rc == 0 and png.stat().st_size > 1000
    data = json.loads(out)
    rows = data["results"]["link"]
    assert [r["f"] for r in rows] == [1, 2, 3]
    for r in rows:
        assert r["SL1"] <= r["DSL2"] <= r["Opt"] <= 100.0
    assert "trial" in err          # tqdm on stderr


@pytest.mark.parametrize("argv,msg", [
    (["--n", "4", "--faulty-nodes", "001"], "4 binary digits"),
    (["--n", "4", "--faulty-links", "0000-0011"], "not a hypercube edge"),
    (["--n", "3", "--faulty-nodes", "000,001,010,011,100,101,110,111"], "too many faulty nodes"),
    (["--n", "5", "--fault-counts", "1..40"], "too many faults"),
    (["--n", "5", "--fault-counts", "1..3", "--mix", "bogus"], "--mix must be"),
    (["--figure", "2a", "--fault-counts", "1..3"], "use one of"),
    (["--n", "4", "--faulty-nodes", "0000", "--plot", "x.png"], "needs the Figure 5"),
])
def test_errors(capsys, argv, msg):
    rc, _, err = run(capsys, *argv)
    assert rc == 2 and msg in err and err.count("\n") == 1
