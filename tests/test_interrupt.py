"""Ctrl-C stops every command within 2 s, exit 130, one line (cubenoc/interrupt.py, docs/cli.md): the tools a
command runs are killed with it, none is left behind."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cubenoc.interrupt import descendants

CUBENOC = [sys.executable, "-m", "cubenoc"]


def _sessions(sids: set[int]) -> list[str]:
    """The live processes of the sessions ``sids`` other than their leaders (zombies are gone already)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in sids:
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if int(fields[3]) in sids and fields[0] != "Z":
            out.append(stat[:stat.rfind(")") + 1])
    return out


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _interrupt(args, started, tmp_path, to_group=True, wait=60.0):
    """Start ``cubenoc args`` in its own session, wait until ``started(proc)`` holds, send SIGINT (to the
    whole group, as a terminal's Ctrl-C does, or to the process only) and return (exit status, seconds to
    stop, stderr lines, processes of the session still alive)."""
    p = subprocess.Popen(CUBENOC + args, cwd=tmp_path, start_new_session=True, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    try:
        t0 = time.monotonic()
        while not started(p):
            assert p.poll() is None, f"ended before it was interrupted: {p.stderr.read()}"
            assert time.monotonic() - t0 < wait, "never started"
            time.sleep(0.05)
        tools = set(descendants(p.pid))      # tools run in sessions of their own (cubenoc/interrupt.py TOOL)
        t1 = time.monotonic()
        (os.killpg if to_group else os.kill)(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=30)
        seconds = time.monotonic() - t1
        time.sleep(0.2)
        left = _sessions({p.pid} | tools) + [f"{t} (was started)" for t in tools if _alive(t)]
        return p.returncode, seconds, [x for x in err.splitlines() if x.strip()], left
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("to_group", [True, False], ids=["ctrl-c to the group", "sigint to cubenoc only"])
def test_prove_stops_within_2_s_of_ctrl_c_and_leaves_no_tool_running(tmp_path, to_group):
    pytest.importorskip("amaranth")
    args = ["prove", "hypercube:n=2", "--work-dir", str(tmp_path / "prove")]
    code, seconds, err, left = _interrupt(args, lambda p: len(descendants(p.pid)) >= 2, tmp_path, to_group)
    err = [e for e in err if not e.endswith(" ...")]       # (the line that says a long step started)
    assert code == 130 and err == ["cubenoc: interrupted"], (code, err)
    assert seconds < 2.0, f"stopped {seconds:.1f} s after Ctrl-C"
    assert left == [], left


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_simulate_stops_within_2_s_of_ctrl_c(tmp_path):
    """A long simulation (in the model's compiled loop most of the time) stops too, and its --record trace is
    not left behind as a whole-looking file."""
    rec = tmp_path / "rec.csv"
    args = ["simulate", "hypercube:n=6", "--rate", "0.3", "--measure", "400000", "--record", str(rec), "--quiet"]
    code, seconds, err, left = _interrupt(args, lambda p: any(tmp_path.glob("rec.csv*")), tmp_path, wait=120)
    assert code == 130 and err == ["cubenoc: interrupted"], (code, err)
    assert seconds < 2.0, f"stopped {seconds:.1f} s after Ctrl-C"
    assert not rec.exists() and not list(tmp_path.glob("rec.csv*")), list(tmp_path.iterdir())
