"""The one renderer of the benchmarks, their results files and the docs pages' blocks rendered from them
(cubenoc/bench/render.py, ``cubenoc bench --render [--check]``)."""
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


def test_publish_prints_one_format_and_writes_the_markdown(tmp_path, capsys, monkeypatch):
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
    monkeypatch.chdir(tmp_path)
    publish(t1, argparse.Namespace(format="csv", write=None))
    assert capsys.readouterr().out.splitlines() == ["network,lut4", "Q(4),1098", "PDN,900"]     # raw values
    assert (tmp_path / "build" / "results" / "x.json").exists()      # every run keeps its results


def test_write_publishes_a_results_file_and_renders_the_page_from_it(tmp_path, capsys):
    """--write PAGE: the results file beside the page holds the rows, the command, date, machine and tool
    versions; the page's block is that file's rendering, and a hand edit of the page fails the check."""
    import argparse

    from cubenoc.bench.render import Table, publish, render_results
    page = tmp_path / "p.md"
    page.write_text(f"head\n{B}\nold\n{E}\ntail\n")
    cols = {"network": "network", "lut4": ("LUT4", lambda r: f"{r['lut4']:,}")}
    publish(Table(ROWS, cols, before="Command: `x`", marks=(B, E)), argparse.Namespace(format="md", write=str(page)))
    capsys.readouterr()
    data = json.loads((tmp_path / "results" / "x.json").read_text())
    assert data["page"] == "p.md" and data["marks"] == [B, E] and data["tables"][0]["rows"] == ROWS
    assert data["tables"][0]["cells"] == [["Q(4)", "1,098"], ["PDN", "900"]]
    assert set(data) >= {"command", "date", "machine", "tools"} and data["tools"]["python"]
    assert render_results(tmp_path, check=True) == []
    page.write_text(page.read_text().replace("1,098", "1,099"))              # a hand edit
    problems = render_results(tmp_path, check=True)
    assert len(problems) == 1 and "differs from" in problems[0]
    render_results(tmp_path)                                                 # --render puts the data back
    assert "1,098" in page.read_text() and render_results(tmp_path, check=True) == []


def test_every_docs_table_block_is_its_results_file():
    """``cubenoc bench --render --check`` on this checkout: every page block with a results file in
    docs/results/ is that file's rendering, and every results file names its command and provenance."""
    from cubenoc.bench import DOCS
    from cubenoc.bench.render import table_cells
    from cubenoc.cli import main
    assert main(["bench", "--render", "--check"]) == 0
    files = sorted((DOCS / "results").glob("*.json"))
    assert len(files) >= 15
    for f in files:
        data = json.loads(f.read_text())
        assert data["command"] and data["date"] and data["machine"] and data["tools"], f.name
        assert all(len(row) == len(table_cells(t)[0]) for t in data["tables"] for row in table_cells(t)[1]), f.name


def test_check_exits_1_when_a_page_is_edited_by_hand(tmp_path, capsys):
    import shutil

    from cubenoc.bench import DOCS
    from cubenoc.cli import main
    shutil.copytree(DOCS / "results", tmp_path / "results")
    shutil.copy(DOCS / "performance.md", tmp_path / "performance.md")
    for f in (tmp_path / "results").glob("*.json"):                     # only this page's blocks
        if json.loads(f.read_text())["page"] != "performance.md":
            f.unlink()
    assert main(["bench", "--render", "--check", "--docs", str(tmp_path)]) == 0
    page = tmp_path / "performance.md"
    page.write_text(page.read_text().replace("| **0.795** |", "| **0.800** |", 1))
    assert main(["bench", "--render", "--check", "--docs", str(tmp_path)]) == 1
    assert "bench throughput" in capsys.readouterr().err
    assert main(["bench", "--render", "--docs", str(tmp_path)]) == 0
    assert main(["bench", "--render", "--check", "--docs", str(tmp_path)]) == 0


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
        "cubenoc bench throughput --n 6 --k 0 --rate 0.5 1 --window 300 --routers fifo"     # the names of today
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


def test_performance_headline_figures_are_cells_of_the_results():
    """Every number in the value column of docs/performance.md's headline table is a figure of some table
    rendered from docs/results/ (the headline cannot drift from the data it summarises)."""
    import re

    from cubenoc.bench import DOCS
    from cubenoc.bench.render import table_cells
    page = (DOCS / "performance.md").read_text()
    head = page.split("## Headline", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[2] for line in head.splitlines() if line.startswith("| ") and "---" not in line][1:]
    number = r"\d[\d,]*\.?\d*"
    cells = set()
    for f in (DOCS / "results").glob("*.json"):
        for t in json.loads(f.read_text())["tables"]:
            for row in table_cells(t)[1]:
                for c in row:
                    cells.update(re.findall(number, c))
    figures = [x for v in rows for x in re.findall(number, re.sub(r"\b(h \+ 1|Q\(\d, \d\)|Q_\d+|\d-flit|W = \d+|"
                                                                    r"\d+ ports|\d+,000 cycles|\d-cube)", "", v))]
    assert len(figures) >= 15
    missing = [x for x in figures if x not in cells]
    assert not missing, missing


def test_templates_render_cells_from_typed_rows():
    """A column map of templates: numbers formatted by their field's spec, lists joined, the first
    alternative whose fields the row has (a zero counts as present, False and None do not), else ``-``."""
    from cubenoc.bench.render import fill
    alts = ["{best:?}**{fmax_mhz:.2f}** ({seeds_mhz:.2f})", "{fmax_mhz:.2f} ({seeds_mhz:.2f})", "{note}"]
    assert fill(alts, {"best": True, "fmax_mhz": 37.0, "seeds_mhz": [37.0, 36.291]}) == "**37.00** (37.00, 36.29)"
    assert fill(alts, {"best": False, "fmax_mhz": 0, "seeds_mhz": [1]}) == "0.00 (1.00)"
    assert fill(alts, {"note": "does not fit"}) == "does not fit"
    assert fill(alts, {"fmax_mhz": None}) == "-"
    assert fill("{lut4:,} / {ff}", {"lut4": 15344, "ff": 0}) == "15,344 / 0"


def test_a_table_of_templates_is_kept_as_rows_and_rendered_from_them(tmp_path, capsys):
    """--write with a column map of templates keeps no cells: the page block is rendered from the typed
    rows, so a changed number in the results file changes the page."""
    import argparse

    from cubenoc.bench.render import Table, publish, render_results
    page = tmp_path / "p.md"
    page.write_text(f"{B}\n{E}\n")
    cols = {"network": "network", "lut4": ("LUT4 / FF", "{lut4:,} / {ff}")}
    publish(Table([{"network": "Q(4)", "lut4": 1098, "ff": 8}], cols, marks=(B, E)),
            argparse.Namespace(format="md", write=str(page)))
    capsys.readouterr()
    path = tmp_path / "results" / "x.json"
    data = json.loads(path.read_text())
    assert "cells" not in data["tables"][0] and data["tables"][0]["rows"][0]["lut4"] == 1098
    assert "| Q(4) | 1,098 / 8 |" in page.read_text()
    data["tables"][0]["rows"][0]["lut4"] = 2001
    path.write_text(json.dumps(data))
    assert render_results(tmp_path, check=True)
    render_results(tmp_path)
    assert "| Q(4) | 2,001 / 8 |" in page.read_text() and render_results(tmp_path, check=True) == []


def test_every_results_file_holds_typed_rows():
    """Every table in docs/results/ holds rows of named fields (identifiers, not headings); a field that
    holds a number in one row holds numbers (or lists of them) or nothing in every row, and no number is
    written as text. At least 16 tables are rendered from their rows by a column map of templates."""
    import re

    from cubenoc.bench import DOCS
    number = re.compile(r"-?[\d,]+(\.\d+)?")

    def numeric(v):
        return type(v) in (int, float) or isinstance(v, list) and v and all(type(x) in (int, float) for x in v)
    templated = 0
    for f in sorted((DOCS / "results").glob("*.json")):
        for t in json.loads(f.read_text())["tables"]:
            assert t["rows"], f.name
            fields = {k for row in t["rows"] for k in row}
            assert all(re.fullmatch(r"[a-z][a-z0-9_]*", k) for k in fields), (f.name, sorted(fields))
            for k in fields:
                values = [row[k] for row in t["rows"] if row.get(k) is not None]
                assert not any(isinstance(v, str) and number.fullmatch(v) for v in values), (f.name, k)
                if any(numeric(v) for v in values):
                    assert all(numeric(v) for v in values), (f.name, k, values)
            templated += "columns" in t
    assert templated >= 16


def test_a_template_that_does_not_fit_its_rows_is_one_line(tmp_path):
    """A results file whose template has an unknown conversion, or formats text as a number, is a one-line
    error naming the file, not a traceback."""
    from cubenoc.bench.render import render_results
    (tmp_path / "results").mkdir()
    (tmp_path / "p.md").write_text(f"{B}\n{E}\n")
    for template in ("{lut4!z}", "{lut4} {network:.2f}"):
        (tmp_path / "results" / "x.json").write_text(json.dumps(
            {"page": "p.md", "marks": [B, E], "tables": [{"columns": [["LUT4", template]],
                                                           "rows": [{"lut4": 1, "network": "Q(4)"}]}]}))
        with pytest.raises(CubenocError, match=r"results file .*x.json: a cell template does not fit its rows"):
            render_results(tmp_path, check=True)
