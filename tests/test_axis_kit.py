"""The AXI4-Stream top and the user's cocotb kit (docs/ip.md, docs/verification.md "The AXI4-Stream kit"):
``generate --interface axis --testbench`` writes a top whose ports cocotbext-axi binds by prefix and a
cocotb test that passes under Icarus and Verilator against the cycle-accurate model; the kit's model check
catches a beat delivered a cycle late; bad flag combinations exit 2 up front."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from test_icarus import need_iverilog

from cubenoc.cli import main
from cubenoc.tb.axis_kit import check_against_model, run_kit


def generate_kit(spec: str, out) -> tuple[str, object]:
    assert main(["generate", spec, "--interface", "axis", "--testbench", "-o", str(out), "--quiet"]) == 0
    top = json.loads(next(out.glob("*.json")).read_text())["top"]
    return top, out / f"test_{top}.py"


def test_axis_top_ports(tmp_path, capsys):
    """Q(4, 0): per node s<vv>_axis_{tdata,tvalid,tready,tlast,tdest}, m<vv>_axis_{..., tid, tdest}, 32-bit
    tdata (no bits taken by the destination), zero-padded node numbers; no Amaranth-style local ports."""
    top, _ = generate_kit("enhanced:n=4,k=0", tmp_path)
    text = (tmp_path / f"{top}.v").read_text()
    decl = dict((name, int(w or "0") + 1) for w, name in re.findall(r"^\s*(?:input|output)\s+(?:\[(\d+):0\]\s+)?(\w+);",
                                                                     text, re.M))
    for v in ("00", "07", "15"):
        assert decl[f"s{v}_axis_tdata"] == decl[f"m{v}_axis_tdata"] == 32
        assert decl[f"s{v}_axis_tdest"] == decl[f"m{v}_axis_tdest"] == decl[f"m{v}_axis_tid"] == 4
        for f in ("tvalid", "tready", "tlast"):
            assert decl[f"s{v}_axis_{f}"] == decl[f"m{v}_axis_{f}"] == 1
        assert decl[f"status{v}_dropped"] == 16
    assert "s0_axis_tdata" not in decl and "s16_axis_tdata" not in decl and "local_in__0__valid" not in text
    assert (tmp_path / f"{top}_axis_ni.v").exists()


@pytest.mark.parametrize("spec,env", [
    ("enhanced:n=4,k=0", {}),
    ("pdn:set=0,1,3,9", {"BAD_DEST": "0.25"}),                  # 13 nodes: tdest 13..15 dropped and counted
    ("metacube:k=1,m=2", {"PAUSE": "0.5"}),
    ("enhanced:n=3,k=1,broadcast=1", {"BCAST": "0.3", "MAX_BEATS": "6"}),   # copies with tdest all ones; > 3 beats dropped
], ids=["q4", "pdn13", "mc12", "q3-broadcast"])
def test_kit_passes_under_icarus(spec, env, tmp_path, monkeypatch, capsys):
    need_iverilog()
    top, test = generate_kit(spec, tmp_path)
    for k, v in {"FRAMES": "3", **env}.items():
        monkeypatch.setenv(k, v)
    run_kit(test, top, sim="icarus")


def test_kit_passes_under_verilator_with_waves(tmp_path, monkeypatch, capsys):
    """Verilator with the project's fast flags; WAVES: a waveform with the design's names, its path printed."""
    top, test = generate_kit("enhanced:n=3,k=1", tmp_path)
    monkeypatch.setenv("FRAMES", "3")
    wave = run_kit(test, top, sim="verilator", waves=True)
    assert wave is not None and wave.exists() and str(wave) in capsys.readouterr().out
    head = wave.read_text(errors="replace")[:400_000]
    assert "s00_axis_tdata" in head and "in_frame" in head       # the top's ports and the interface's register
    assert not re.search(r"\$var \w+ \d+ \S+ \$\d+ ", head)       # no Yosys-internal $NNN names


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["enhanced:n=4,k=0", "pdn:set=0,1,3,9", "metacube:k=1,m=2"])
def test_kit_passes_under_verilator(spec, tmp_path, capsys):
    top, test = generate_kit(spec, tmp_path)
    run_kit(test, top, sim="verilator")


class _Recorded:
    """What the kit's Recorder holds, written by hand: Q(1) (two nodes), one 1-beat frame 0 -> 1 offered at
    cycle 0, every sink ready. Timeline (docs/ip.md "How it works", docs/architecture.md, one hop): the header
    enters node 0's ingress queue at cycle 0 and its beat at 1; each is written into the local FIFO the cycle
    after (1, 2); the header crosses the link at 2 and is taken into tid at 3 at node 1; the beat leaves
    node 1's router into the egress queue at 4 and is delivered at 5."""

    def __init__(self, deliver_at: int):
        self.cycles = 8
        self.offered = [[(0, 0xCAFE0001, 1, 1)], []]
        self.taken = [(deliver_at, 1, 0xCAFE0001, 1, 0)]
        self.ready = [0b11] * 8


def test_kit_model_check_names_a_late_beat():
    ok = check_against_model(_Recorded(5), "hypercube:n=1,interface=axis")
    assert not ok.problems and ok.latency.tolist() == [5] and ok.frames == 1 and ok.beats == 1
    late = check_against_model(_Recorded(6), "hypercube:n=1,interface=axis")
    assert late.problems and "cycle 5" in late.problems[0] and "cycle 6" in late.problems[0]
    assert np.array_equal(late.status[:, 1], [0, 1])          # the model's ejected counter: one packet at node 1


@pytest.mark.parametrize("args,message", [
    (["enhanced:n=3,k=0", "--testbench"], "--testbench writes a test of the AXI4-Stream top"),
    (["enhanced:n=3,k=0", "--interface", "axis", "--flat"], "does not take --interface axis"),
    (["enhanced:n=3,k=0", "--interface", "axis", "--payload", "20"], "multiple of 8"),
    (["enhanced:n=4,k=0", "--interface", "axis", "--payload", "16"], "at least 20 bits for 16 nodes"),
])
def test_bad_axis_flags_exit_2(args, message, tmp_path, capsys):
    assert main(["generate", *args, "-o", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and not list(tmp_path.glob("*.v"))
