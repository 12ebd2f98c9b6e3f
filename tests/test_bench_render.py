"""The one renderer of the benchmarks and the writer of docs pages' marked blocks (cubenoc/bench/render.py)."""
import csv
import io
import json

import pytest

from cubenoc.bench.render import render, replace_section
from cubenoc.errors import CubenocError

B, E = "<!-- x:begin -->", "<!-- x:end -->"
ROWS = [{"network": "Q(4)", "lut4": 1098, "fmax": 30.125}, {"network": "PDN", "lut4": 900, "fmax": None}]


def test_replace_section_keeps_the_rest_of_the_page(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("# title\n\nprose\n")
    replace_section(page, B, E, "one")
    replace_section(page, B, E, "two\n")
    text = page.read_text()
    assert text.startswith("# title\n\nprose\n") and text.count(B) == 1 and "two" in text and "one" not in text
    page.write_text(f"{B}\nonly the start\n")
    with pytest.raises(CubenocError, match="only one of the markers"):
        replace_section(page, B, E, "three")


def test_render_markdown_json_csv_agree():
    cols = {"network": "network", "lut4": "LUT4", "fmax": "Fmax (MHz)"}
    md = render(ROWS, cols, "md").splitlines()
    assert md[0] == "| network | LUT4 | Fmax (MHz) |" and md[1] == "|---|---|---|"
    assert md[2] == "| Q(4) | 1098 | 30.125 |" and md[3] == "| PDN | 900 | - |"    # missing: a dash
    assert json.loads(render(ROWS, cols, "json")) == ROWS
    back = list(csv.DictReader(io.StringIO(render(ROWS, cols, "csv"))))
    assert [r["network"] for r in back] == ["Q(4)", "PDN"] and back[0]["lut4"] == "1098" and back[1]["fmax"] == ""
    with pytest.raises(CubenocError, match="format must be one of md, json, csv"):
        render(ROWS, cols, "xml")


def test_publish_prints_one_format_and_writes_the_markdown(tmp_path, capsys):
    """--format picks what stdout gets; --write always puts the Markdown (with the text around the table)
    in the page's block; tables sharing marks share the block."""
    import argparse

    from cubenoc.bench.render import Table, publish
    cols = {"network": "network", "lut4": ("LUT4", lambda r: f"{r['lut4']:,}")}
    t1 = Table(ROWS, cols, before="Command: `x`", after="note", marks=(B, E), name="one")
    t2 = Table(ROWS[:1], cols, marks=(B, E), name="two")
    page = tmp_path / "p.md"
    page.write_text(f"head\n{B}\nold\n{E}\ntail\n")
    publish([t1, t2], argparse.Namespace(format="json", write=str(page)))
    assert json.loads(capsys.readouterr().out) == {"one": ROWS, "two": ROWS[:1]}
    text = page.read_text()
    assert text.startswith(f"head\n{B}\nCommand: `x`\n\n| network | LUT4 |\n|---|---|\n| Q(4) | 1,098 |") and "old" not in text
    assert f"note\n\n| network | LUT4 |\n|---|---|\n| Q(4) | 1,098 |\n{E}\ntail\n" in text
    publish(t1, argparse.Namespace(format="csv", write=None))
    assert capsys.readouterr().out.splitlines() == ["network,lut4", "Q(4),1098", "PDN,900"]     # raw values


def test_published_tables_render_back_identically():
    """The area block of docs/performance.md, read back into measurements, renders to the same text
    through ``bench area``'s table (the move to render() changed no published table)."""
    import re

    from cubenoc.bench import area
    from cubenoc.rtl.area import AreaResult
    from pathlib import Path
    page = (Path(__file__).resolve().parents[1] / "docs" / "performance.md").read_text()
    block = page.split(area.MARK_BEGIN, 1)[1].split(area.MARK_END, 1)[0].strip("\n")
    results = []
    for line in block.splitlines()[2:]:
        if not line.startswith("| "):
            break
        c = [x.strip() for x in line.strip("|").split("|")]
        n = int(re.search(r"n=(\d+)", c[0]).group(1))
        results += [AreaResult(c[0], n, int(c[1]), "ice40", int(c[2]), int(c[4]), 0, 0, 0.0),
                    AreaResult(c[0], n, int(c[1]), "ecp5", int(c[5]), int(c[7]), int(c[8]), 0, 0.0)]
    assert len(results) == 16
    assert area.table(results, 32, 4, "cubenoc bench area").markdown() == block


def test_command_lists_what_differs_from_the_defaults():
    from cubenoc.cli import build_parser
    from cubenoc.bench.model import _net_command

    def cmd(*argv):
        return _net_command(build_parser().parse_args(["bench", "throughput", *argv]))
    assert cmd() == "cubenoc bench throughput --n 6 --k 0"
    assert cmd("--json", "--loads", "0.5", "1", "--queues", "fifo", "--window", "300") == \
        "cubenoc bench throughput --n 6 --k 0 --loads 0.5 1 --window 300 --queues fifo"
    assert cmd("--network", "pdn13", "--depth", "2") == "cubenoc bench throughput --network pdn13 --depth 2"


def test_points_past_saturation_are_marked_in_the_sweep_tables():
    """A point that accepts under 95 % of its offered load is marked ``sat.``, and the table says what that means."""
    from cubenoc.bench.model import SAT_NOTE, sweep_columns
    from cubenoc.sim.model.perf import LoadPoint
    below, at = LoadPoint(0.9, 0.8, 917.0, 0.5), LoadPoint(0.3, 0.3, 3.0, 1.0)
    assert below.saturated and not at.saturated
    row = {"network": "Q(3)", "routing": "ecube", "vcs": 1, "packet_len": 1, "saturation": 0.8,
           "points": [{"offered": p.offered, "accepted": p.accepted, "latency": p.latency, "saturated": p.saturated}
                      for p in (at, below)]}
    cols = sweep_columns([0.3, 0.9])
    cells = [cols[k][1](row) for k in ("load_0.3", "load_0.9")]
    assert cells == ["0.300 / 3", "0.800 / 917 sat."]
    assert "95 %" in SAT_NOTE
