"""The one writer of benchmark blocks in docs pages (cubenoc/docs_section.py)."""
import pytest

from cubenoc.docs_section import replace_section, table_main
from cubenoc.errors import CubenocError

B, E = "<!-- x:begin -->", "<!-- x:end -->"


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


def test_table_main_prints_and_writes(tmp_path, capsys):
    page = tmp_path / "p.md"
    table_main(["--write", str(page), "3", "5"], lambda ns: f"ns={ns}", B, E)
    assert "ns=(3, 5)" in capsys.readouterr().out and "ns=(3, 5)" in page.read_text()
    table_main([], lambda ns: f"ns={ns}", B, E)
    assert "ns=(4, 5, 6)" in capsys.readouterr().out
    for bad in (["--write"], ["four"]):
        with pytest.raises(SystemExit):
            table_main(bad, lambda ns: "", B, E)
