"""The README's tour and docs/tutorial.md cannot drift: every command in them runs, except those marked
``[takes ...]``, whose arguments are still parsed (and a board build's network estimated, a synth-report's
shapes listed); the output the tutorial shows for a command that runs here is what the command prints."""
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
TUTORIAL = ROOT / "docs" / "tutorial.md"


def tutorial_steps() -> list[tuple[str, bool, list[str]]]:
    """(command, slow, the lines of the ```text block the tutorial shows after it)."""
    text = TUTORIAL.read_text()
    out = []
    for cmds, shown in re.findall(r"```sh\n([^`]*)```\s*\n```text\n([^`]*)```", text):
        for line in cmds.splitlines():
            if line.startswith("cubenoc "):
                out.append((line, "[takes" in line.partition("#")[2], shown.splitlines()))
    return out


STEPS = tutorial_steps()


def test_the_tour_has_fast_and_slow_commands():
    assert len([c for c, slow in LINES if not slow]) >= 15 and any(slow for _, slow in LINES)
    assert all(re.search(r"\[takes ~?[\d.-]+ min\]|\[takes over \d+ min\]", line)
               for line, slow in LINES if slow)


def _argv(line: str) -> list[str]:
    argv = shlex.split(line.partition("#")[0])[1:]
    return [str(ROOT / a) if a.startswith("examples/") else a for a in argv]


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


def test_the_tutorial_walks_from_make_demo_to_a_bitstream():
    text = TUTORIAL.read_text()
    order = [text.index(s) for s in ("make demo", "cubenoc generate", "cubenoc simulate", "--plot",
                                     "cubenoc demo --network", "run_my_noc.py", "cubenoc build --board")]
    assert order == sorted(order)
    assert [c.split()[1] for c, _, _ in STEPS] == ["generate", "simulate", "demo", "build"]
    assert all(shown for _, _, shown in STEPS)                   # every step shows its output


@pytest.mark.parametrize("cmd,shown", [(c, s) for c, slow, s in STEPS if not slow])
def test_tutorial_command_prints_what_the_tutorial_shows(cmd, shown, tmp_path, monkeypatch, capsys):
    """Run in a temporary folder; every line the tutorial shows is in the output (the progress bar apart)."""
    monkeypatch.chdir(tmp_path)
    assert main(_argv(cmd)) == 0
    cap = capsys.readouterr()
    printed = {line.rstrip() for line in (cap.out + "\n" + cap.err).splitlines()}
    missing = [line for line in shown if line.rstrip() not in printed and not line.startswith("simulate:")]
    assert not missing, missing


@pytest.mark.parametrize("cmd", [c for c, slow, _ in STEPS if slow])
def test_slow_tutorial_command_parses(cmd, tmp_path, monkeypatch, capsys):
    test_slow_tour_command_parses(cmd, tmp_path, monkeypatch, capsys)
