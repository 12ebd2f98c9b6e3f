"""A UART transmitter (8N1) and a line reporter that prints counters in decimal.

:class:`UartTx` shifts out one byte per ``data`` stream transfer: start bit, 8 data bits LSB first, stop
bit, each ``divisor`` clock cycles long (``divisor = round(f_clk / baud)``).

:class:`LineReporter` prints a fixed program of literal text and numbers: each number is converted to
decimal by a sequential double-dabble (one bit per cycle), printed without leading zeros, optionally
with one digit after a decimal point (``fixed1``: the value is in tenths). A :class:`Digit` field prints
one character ``'0' + value`` at once (no conversion: small values such as safety levels, fault bits).
"""
from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from cubenoc.errors import require_int


class Digit(str):
    """A program item of :class:`LineReporter`: the named value (0..9) printed as one digit."""


class UartTx(wiring.Component):
    def __init__(self, divisor: int):
        self.divisor = require_int(divisor, "UART divisor (clock cycles per bit)", 2, 1 << 20)
        super().__init__({"data": In(stream.Signature(8)), "tx": Out(1, init=1)})

    def elaborate(self, platform):
        m = Module()
        shreg = Signal(10, init=0x3FF)
        bits = Signal(range(11))
        timer = Signal(range(self.divisor))
        m.d.comb += [self.tx.eq(shreg[0]), self.data.ready.eq(bits == 0)]
        with m.If(self.data.valid & self.data.ready):
            m.d.sync += [shreg.eq(Cat(Const(0, 1), self.data.payload, Const(1, 1))), bits.eq(10),
                         timer.eq(self.divisor - 1)]
        with m.Elif(bits != 0):
            with m.If(timer == 0):
                m.d.sync += [shreg.eq(Cat(shreg[1:], Const(1, 1))), bits.eq(bits - 1),
                             timer.eq(self.divisor - 1)]
            with m.Else():
                m.d.sync += timer.eq(timer - 1)
        return m


class LineReporter(wiring.Component):
    """Prints ``program`` (a list of ``str`` literals and ``(name, fixed1)`` number fields) when
    ``start`` pulses; the numbers are the ``values[name]`` inputs (``width`` bits) sampled as they
    are printed. ``busy`` is high from ``start`` to the last character."""

    def __init__(self, program: list, width: int = 32):
        self.program = []
        for item in program:
            if isinstance(item, Digit):
                self.program.append(("digit", str(item)))
            elif isinstance(item, str):
                self.program += [("char", ord(c)) for c in item]
            else:
                self.program.append(("num",) + tuple(item))
        self.names = [it[1] for it in self.program if it[0] in ("num", "digit")]
        self.width = width
        self.digits = len(str((1 << width) - 1))
        super().__init__({"start": In(1), "busy": Out(1), "out": Out(stream.Signature(8)),
                          "values": In(wiring.Signature({n: In(width) for n in dict.fromkeys(self.names)}))})

    def elaborate(self, platform):
        m = Module()
        D, Wd = self.digits, self.width
        pc = Signal(range(len(self.program) + 1), init=len(self.program))
        bcd = Signal(4 * D)
        binr = Signal(Wd)
        step = Signal(range(Wd + 1))
        digit = Signal(range(D + 1))
        seen = Signal()
        phase = Signal(2)            # 0 idle/literal, 1 converting, 2 emitting digits, 3 decimal point
        m.d.comb += self.busy.eq(pc != len(self.program))
        with m.If(self.start & ~self.busy):
            m.d.sync += [pc.eq(0), phase.eq(0)]
        m.d.comb += self.out.valid.eq(0)

        cur_digit = Signal(4)
        m.d.comb += cur_digit.eq(bcd.word_select((D - 1 - digit).as_unsigned()[:len(digit)], 4))
        # one double-dabble step: digits >= 5 get +3, then shift {bcd, binr} left by one
        adj = Cat(*[Mux(bcd[4 * i:4 * i + 4] >= 5, bcd[4 * i:4 * i + 4] + 3, bcd[4 * i:4 * i + 4])[:4]
                    for i in range(D)])

        with m.Switch(pc):
            for i, item in enumerate(self.program):
                with m.Case(i):
                    if item[0] == "char":
                        m.d.comb += [self.out.valid.eq(1), self.out.payload.eq(item[1])]
                        with m.If(self.out.ready):
                            m.d.sync += pc.eq(i + 1)
                    elif item[0] == "digit":
                        m.d.comb += [self.out.valid.eq(1),
                                     self.out.payload.eq(ord("0") + getattr(self.values, item[1])[:4])]
                        with m.If(self.out.ready):
                            m.d.sync += pc.eq(i + 1)
                    else:
                        _, name, fixed1 = item
                        with m.Switch(phase):
                            with m.Case(0):
                                m.d.sync += [binr.eq(getattr(self.values, name)), bcd.eq(0), step.eq(0),
                                             phase.eq(1)]
                            with m.Case(1):
                                m.d.sync += [Cat(binr, bcd).eq(Cat(Const(0, 1), binr, adj)),
                                             step.eq(step + 1)]
                                with m.If(step == Wd - 1):
                                    m.d.sync += [phase.eq(2), digit.eq(0), seen.eq(0)]
                            with m.Case(2):
                                last_int = D - 2 if fixed1 else D - 1
                                show = seen | (cur_digit != 0) | (digit >= last_int)
                                with m.If(~show):
                                    m.d.sync += digit.eq(digit + 1)
                                with m.Else():
                                    m.d.comb += [self.out.valid.eq(1), self.out.payload.eq(ord("0") + cur_digit)]
                                    with m.If(self.out.ready):
                                        m.d.sync += [seen.eq(1), digit.eq(digit + 1)]
                                        with m.If(digit == D - 1):
                                            m.d.sync += [phase.eq(0), pc.eq(i + 1)]
                                        if fixed1:
                                            with m.If(digit == D - 2):
                                                m.d.sync += phase.eq(3)
                            with m.Case(3):
                                m.d.comb += [self.out.valid.eq(1), self.out.payload.eq(ord("."))]
                                with m.If(self.out.ready):
                                    m.d.sync += phase.eq(2)
        return m
