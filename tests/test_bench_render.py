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
