"""Gate helpers shared by every unit: OR-reduce, one-hot mux (also in iCE40 / ECP5 LUT4 primitives), ROM, modular
subtract, node address, event counter."""
from __future__ import annotations

from amaranth import (
    Cat,
    ClockSignal,
    Const,
    Instance,
    Module,
    Mux,
    ResetSignal,
    Signal,
    Value,
)

from ..sim.axis_frames import node_width as bits_of_node


def any_of(bits) -> Value:
    """OR of ``bits`` (0 for none)."""
    bits = list(bits)
    return Cat(*bits).any() if bits else Const(0)


#: Amaranth platform families whose DSP block (``SB_MAC16``) ``count_after(..., dsp=True)`` uses
DSP_FAMILIES = ("ice40", "ice5")
DSP_COUNTER_WIDTH = 16              # one half of an SB_MAC16: a 16-bit accumulator


def count_after(m: Module, pairs, platform=None, dsp: bool = False) -> list:
    """Each ``(counter, event)`` of ``pairs``: ``counter`` + 1 at the edge after each cycle ``event`` holds.
    The event is a flip-flop and the counter's enable is that flip-flop, so no path through the router's
    decisions ends at the counter's enables (docs/router.md "Status": the status counters show an event one
    cycle later). With ``dsp`` on an iCE40 platform (``DSP_FAMILIES``; the UP5K has eight ``SB_MAC16``) two
    16-bit counters share one DSP block in accumulator mode (Lattice TN1295 "DSP Function Usage Guide": each
    half adds its input to its output register, ``Q <= Q + B``; the sync reset loads 0 through ``OLOAD``),
    the event flip-flop as the input: no LUT4 and no carry cell for them, the same cycle behaviour
    (tests/test_dsp_counters.py proves it against yosys' SB_MAC16 model). Elsewhere (Verilog for simulation) the
    flip-flop counters."""
    pairs = list(pairs)
    dsp = dsp and platform_family(platform) in DSP_FAMILIES
    seen = []
    for counter, event in pairs:
        s = Signal(name=f"{counter.name}_event")
        m.d.sync += s.eq(event)
        seen.append(s)
        if not dsp:
            with m.If(s):
                m.d.sync += counter.eq(counter + 1)
    if dsp:
        for k in range(0, len(pairs), 2):
            bot, top = pairs[k][0], pairs[k + 1][0] if k + 1 < len(pairs) else None
            if any(len(c) != DSP_COUNTER_WIDTH for c in (bot, top) if c is not None):
                raise ValueError(f"a DSP counter is {DSP_COUNTER_WIDTH} bits wide")
            o = Signal(2 * DSP_COUNTER_WIDTH, name=f"{bot.name}_dsp_o")
            zero = Const(0, DSP_COUNTER_WIDTH)

            def add(bit):                   # the 16-bit addend: the event flip-flop in bit 0
                return Cat(bit, Const(0, DSP_COUNTER_WIDTH - 1))
            m.submodules[f"{bot.name}_dsp"] = Instance(
                "SB_MAC16",
                # outputs: the accumulator registers; adders: Q + the A / B input, carry in 0
                p_TOPOUTPUT_SELECT=1, p_BOTOUTPUT_SELECT=1, p_TOPADDSUB_LOWERINPUT=0, p_BOTADDSUB_LOWERINPUT=0,
                p_TOPADDSUB_UPPERINPUT=0, p_BOTADDSUB_UPPERINPUT=0, p_TOPADDSUB_CARRYSELECT=0,
                p_BOTADDSUB_CARRYSELECT=0,
                i_CLK=ClockSignal(), i_CE=Const(1), i_A=add(seen[k + 1] if top is not None else Const(0)),
                i_B=add(seen[k]), i_C=zero, i_D=zero, i_OLOADTOP=ResetSignal(), i_OLOADBOT=ResetSignal(),
                **{f"i_{pin}": Const(0) for pin in ("AHOLD", "BHOLD", "CHOLD", "DHOLD", "IRSTTOP", "IRSTBOT",
                                                    "ORSTTOP", "ORSTBOT", "ADDSUBTOP", "ADDSUBBOT", "OHOLDTOP",
                                                    "OHOLDBOT", "CI", "ACCUMCI", "SIGNEXTIN")},
                o_O=o)
            m.d.comb += bot.eq(o[:DSP_COUNTER_WIDTH])
            if top is not None:
                m.d.comb += top.eq(o[DSP_COUNTER_WIDTH:])
    return seen                      # the event flip-flops (the formal invariants read them)


def onehot_mux(pairs):
    """The value whose select is high in ``[(select, value), ...]`` (selects one-hot or all low, then a
    don't-care). Encoded to a binary index and a balanced 2:1 mux tree: in yosys this maps to fewer
    LUT4s than an AND-OR of the selects (docs/performance.md)."""
    if len(pairs) == 1:
        return pairs[0][1]
    bits = (len(pairs) - 1).bit_length()
    idx = [any_of(sel for pos, (sel, _) in enumerate(pairs) if pos >> b & 1) for b in range(bits)]
    level = [val for _, val in pairs]
    for b in range(bits):
        level = [Mux(idx[b], level[j + 1], level[j]) if j + 1 < len(level) else level[j]
                 for j in range(0, len(level), 2)]
    return level[0]


#: Amaranth platform families whose LUT4 primitive ``lut_onehot_mux`` instantiates (``platform.family``:
#: "iCE40" / "iCE5" for amaranth.vendor's SiliconBlue platforms): (cell, its truth table parameter, inputs
#: in table-bit order, output, the inputs from the fastest: nextpnr's delays, iCE40 I3 0.87 ns against
#: 1.21-1.28, ECP5 A 0.14 ns against 0.28-0.38)
SB_LUT4 = ("SB_LUT4", "LUT_INIT", ("I0", "I1", "I2", "I3"), "O", (3, 2, 1, 0))
LUT4_PRIMITIVES = {"ice40": SB_LUT4, "ice5": SB_LUT4, "ecp5": ("LUT4", "INIT", ("A", "B", "C", "D"), "Z", (0, 1, 2, 3))}


def lut_primitive(platform) -> tuple | None:
    """The LUT4 primitive of ``platform``'s family, or None (Verilog for simulation)."""
    return LUT4_PRIMITIVES.get(platform_family(platform))


def platform_family(platform) -> str:
    """``platform.family`` in lower case ("" without a platform: Verilog for simulation)."""
    return str(getattr(platform, "family", "")).lower()


def _table(fn) -> int:
    """The 16-bit truth table of ``fn(i0, i1, i2, i3)``: bit ``i3 i2 i1 i0`` is its value (SB_LUT4's LUT_INIT)."""
    return sum(1 << k for k in range(16) if fn(k & 1, k >> 1 & 1, k >> 2 & 1, k >> 3 & 1))


#: docs/decisions/one-cycle-router-clock.md: a 4:1 mux of d0..d3 by a binary select (s1 s0) in two LUT4s
#: (ABC maps the six-input function to three): t = s1 ? s0 : (s0 ? d1 : d0); out = s1 ? (t ? d3 : d2) : t.
#: The late inputs first (the selects from the arbiter, then t): ``lut4`` puts them on the fastest pins
MUX4_T = _table(lambda s0, s1, d0, d1: s0 if s1 else (d1 if s0 else d0))
MUX4_OUT = _table(lambda t, s1, d2, d3: (d3 if t else d2) if s1 else t)


def lut4(m: Module, table: int, inputs, name: str, prim: tuple | None) -> Signal:
    """One 4-input LUT: ``table`` bit ``inputs[3..0]``. ``prim`` (``LUT4_PRIMITIVES``): the FPGA primitive, a
    cut ABC may not merge across or duplicate, ``inputs[k]`` on its k-th fastest pin (the table permuted to
    match); None: the same table as logic (simulation, tests/test_gates.py)."""
    ins = [Value.cast(x) for x in inputs] + [Const(0)] * (4 - len(inputs))
    out = Signal(name=name)
    if prim:
        cell, init, pins, o, fast = prim
        cell_table = sum(1 << j for j in range(16) if table >> sum((j >> fast[k] & 1) << k for k in range(4)) & 1)
        m.submodules[name] = Instance(cell, **{f"p_{init}": Const(cell_table, 16), f"o_{o}": out},
                                      **{f"i_{pins[fast[k]]}": ins[k] for k in range(4)})
    else:
        m.d.comb += out.eq(Const(table, 16).bit_select(Cat(*ins), 1))
    return out


def lut_onehot_mux(m: Module, pairs, name: str, prim: tuple | None):
    """``onehot_mux(pairs)`` (the same function for every select value: the same binary index); four
    sources as the two-LUT4 4:1 mux per bit (``MUX4_T``, ``MUX4_OUT``) on that index. Primitives because
    ABC folds the two-LUT form back into three or four LUT4s. Any other count is ``onehot_mux``: ABC's
    2:1 and 3:1 are one and two LUT4s per bit already, and the form inside a 5:1 (the local output) cost
    the UP5K router about 5 MHz (docs/decisions/one-cycle-router-clock.md)."""
    if len(pairs) != 4:
        return onehot_mux(pairs)
    sel, data = [Value.cast(s) for s, _ in pairs], [Value.cast(v) for _, v in pairs]
    s0, s1 = Signal(name=f"{name}_s0"), Signal(name=f"{name}_s1")
    m.d.comb += [s0.eq(sel[1] | sel[3]), s1.eq(sel[2] | sel[3])]
    bits = []
    for b in range(len(data[0])):
        t = lut4(m, MUX4_T, [s0, s1, data[0][b], data[1][b]], f"{name}_{b}_t", prim)
        bits.append(lut4(m, MUX4_OUT, [t, s1, data[2][b], data[3][b]], f"{name}_{b}", prim))
    return Cat(*bits)


def crossbar_mux(m: Module, pairs, name: str, platform):
    """The crossbar's one-hot mux (docs/router.md "Crossbar"): ``lut_onehot_mux`` in the platform's LUT4
    primitive (iCE40, ECP5), ``onehot_mux`` elsewhere (simulation Verilog, other FPGAs)."""
    prim = lut_primitive(platform)
    return lut_onehot_mux(m, pairs, name, prim) if prim else onehot_mux(pairs)


def rom(m: Module, index, table: dict[int, int], out: Signal, default: int = 0) -> None:
    """``out = table[index]`` (``default`` for the missing entries): a case statement, i.e. a ROM."""
    with m.Switch(index):
        for key, value in table.items():
            with m.Case(key):
                m.d.comb += out.eq(value)
        with m.Default():
            m.d.comb += out.eq(default)


def mod_sub(m: Module, a, b, n: int, name: str) -> Signal:
    """``(a - b) mod n`` for ``0 <= a, b < n``: a subtractor and a conditional add of n."""
    diff = Signal(range(-n, n), name=f"{name}_diff")
    out = Signal(range(n), name=name)
    m.d.comb += diff.eq(a - b)
    m.d.comb += out.eq(Mux(diff < 0, diff + n, diff))
    return out


def node_width(topology) -> int:
    """Bits of a node address (one definition: ``sim/axis_frames.node_width``)."""
    return bits_of_node(topology.num_nodes)


def node_address(unit):
    """A unit's node: its ``node_id`` input (node-generic units) or the constant ``unit.node``."""
    return unit.node_id if hasattr(unit, "node_id") else Const(unit.node, node_width(unit.routing.topology))


def fix_bits(v, fixed):
    """``v`` with the bits of ``fixed = (mask, value)`` set to ``value`` (none when ``fixed`` is None):
    docs/router.md "Fixed route bits"."""
    v = Value.cast(v)
    return v if not fixed else (v & ~Const(fixed[0], len(v))) | (fixed[1] & fixed[0])


def inline(elaboratable, platform) -> Module:
    """``elaboratable``'s module to extend in place: its logic one hierarchy level up, in the caller's module
    rather than a submodule of it. Amaranth never sees ``elaboratable`` used: the file that builds it opts out of
    the "never used" warning with Amaranth's public linter comment ``# amaranth: UnusedElaboratable=no``."""
    return elaboratable.elaborate(platform)
