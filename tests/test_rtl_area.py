"""`cubenoc bench area` plumbing without running Yosys (the benchmark itself is a command, not a test):
cell counting per target, the markdown table, updating the marked block of docs/performance.md."""
import pytest

from cubenoc.cli import main
from cubenoc.bench.area import MARK_BEGIN, MARK_END, table
from cubenoc.bench.render import replace_section
from cubenoc.rtl.area import AreaResult, count


def test_count_cells_per_target():
    ice = {"SB_LUT4": 100, "SB_DFFE": 40, "SB_DFFESR": 7, "SB_DFFSR": 1, "SB_CARRY": 9, "$scopeinfo": 3,
           "SB_MAC16": 3}
    assert count(ice, "ice40") == {"lut4": 100, "ff": 48, "lutram": 0, "carry": 9, "bram": 0, "dsp": 3}
    ecp = {"LUT4": 80, "TRELLIS_FF": 30, "TRELLIS_DPR16X4": 10, "CCU2C": 4, "PFUMX": 7}
    assert count(ecp, "ecp5") == {"lut4": 80, "ff": 30, "lutram": 10, "carry": 4, "bram": 0, "dsp": 0}


def test_table_and_write_section(tmp_path):
    rs = [AreaResult("Hypercube(n=3)", 3, 4, "ice40", 400, 300, 0, 10, 1.0),
          AreaResult("Hypercube(n=3)", 3, 4, "ecp5", 300, 100, 40, 5, 1.0)]
    text = table(rs, 32, 4, "cubenoc bench area").markdown()
    assert "| Hypercube(n=3) | 4 | 400 | 100 | 300 | 300 | 75 | 100 | 40 |" in text
    page = tmp_path / "perf.md"
    page.write_text(f"# P\n\n{MARK_BEGIN}\nold\n{MARK_END}\n\n## Latency\nkept\n")
    replace_section(page, MARK_BEGIN, MARK_END, text)
    new = page.read_text()
    assert "old" not in new and text in new and new.endswith("## Latency\nkept\n")


def test_bench_area_bad_parameters(capsys):
    assert main(["bench", "area", "--family", "enhanced", "--n", "3", "--k", "2"]) == 2
    assert "k must be in 0..n-2" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["bench", "area", "--targets", "xilinx"])
    assert exc.value.code == 2


def test_by_target_puts_ice40_and_ecp5_side_by_side():
    from cubenoc.bench.render import by_target, render, target_columns
    rows = [{"net": "Q3", "target": "ice40", "lut4": 10, "ff": 0, "lutram": 0},
            {"net": "Q3", "target": "ecp5", "lut4": 7, "ff": 3, "lutram": 2},
            {"net": "Q4", "target": "ecp5", "lut4": 9, "ff": 4, "lutram": 1}]
    lines = render(by_target(rows, ("net",)), target_columns({"net": "network"}, lutram=True), "md").splitlines()
    assert lines[2] == "| Q3 | 10 | 0 | 7 | 3 | 2 |"
    assert lines[3] == "| Q4 | - | - | 9 | 4 | 1 |"          # no iCE40 run: dashes, not zeros
    assert len(lines) == 4 and lines[0].count("|") == 7
