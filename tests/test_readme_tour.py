"""The README's tour cannot drift: every command in it runs, except those marked ``[takes ...]``,
whose arguments are still parsed (and a board build's network estimated, a synth-report's shapes listed)."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from cubenoc.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]


def tour_lines() -> list[tuple[str, bool]]:
    text = (ROOT / "README.md").read_text()
    block = text.split("## A tour", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    out = []
    for line in block.splitlines():
        if line.startswith("cubenoc "):
            cmd, _, comment = line.partition("#")
            out.append((line, "[takes" in comment))
    return out


LINES = tour_lines()


def test_the_tour_has_fast_and_slow_commands():
    assert len([c for c, slow in LINES if not slow]) >= 15 and any(slow for _, slow in LINES)
    assert all(re.search(r"\[takes ~?[\d.-]+ min\]|\[takes over \d+ min\]", line)
               for line, slow in LINES if slow)


def _argv(line: str) -> list[str]:
    """The line as typed: run from a temporary folder, its ``--config examples/...`` finds the installed examples."""
    return shlex.split(line.partition("#")[0])[1:]


@pytest.mark.parametrize("cmd", [c for c, slow in LINES if not slow])
def test_fast_tour_command_runs(cmd, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)                 # out/, lat.png, cmp.csv ... land in a temporary folder
    assert main(_argv(cmd)) == 0, capsys.readouterr().err


@pytest.mark.parametrize("cmd", [c for c, slow in LINES if slow])
def test_slow_tour_command_parses(cmd, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    argv = _argv(cmd)
    args = build_parser(argv[0]).parse_args(argv)          # unknown options or choices fail here
    assert args.handler is not None
    if argv[0] == "build":                                  # the board and the network exist and fit
        assert main(argv + ["--estimate-only"]) == 0, capsys.readouterr().err
    if argv[0] == "synth-report":
        assert main(argv + ["--list"]) == 0, capsys.readouterr().err
