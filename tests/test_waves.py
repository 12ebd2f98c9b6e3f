"""``cubenoc demo --waves``: a VCD whose signals carry the design's names (no Yosys-internal ``$NNN``), its path
printed (the kit's ``WAVES=1``: tests/test_axis_kit.py)."""
import re
from pathlib import Path

from cubenoc.cli import main


def test_demo_waves_prints_a_vcd_with_the_designs_names(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("CUBENOC_BUILD_DIR", str(tmp_path))
    assert main(["demo", "--network", "hypercube:n=2", "--packets", "3", "--waves"]) == 0
    out = capsys.readouterr().out
    path = Path(re.search(r"waveform\s+(\S+\.vcd)", out).group(1))
    text = path.read_text(errors="replace")
    names = re.findall(r"\$var \w+ \d+ \S+ (\S+)", text)
    assert len(names) > 100
    assert "in_payload" in names and "router_3" in re.findall(r"\$scope module (\S+)", text)
    assert not [n for n in names if n[0] in "$_"]
