"""Fault injection from buttons into the hardware safety levels of Wu (``cubenoc build --safety``).

:class:`SafetyPanel` holds a :class:`~cubenoc.rtl.safety.unit.SafetyNetwork` (SL(1) by default, Definition 2)
for the demo's n-cube, beside the traffic network, and three debounced buttons:

* ``select``: the next node (0, 1, ..., N-1, 0, ...) becomes the selected node;
* ``toggle``: the selected node becomes faulty / non-faulty;
* ``clear``: every node becomes non-faulty (boards with a third button).

Outputs: ``faults`` (bit v: node v faulty), ``levels`` (node v's SL(1) at ``[v*w +: w]``), ``selected``,
``level`` (the selected node's level: the board's LEDs) and ``selected_faulty``. The levels re-settle
within n-1 cycles of a change (rtl/safety/unit.py), far below a button's debounce time. The faults go to the
safety levels only: the traffic network keeps running (router fault inputs are another feature).
"""
from __future__ import annotations

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from cubenoc.errors import CubenocError, require_int

from ..rtl.safety.unit import SafetyNetwork, output_fields

BUTTONS = ("select", "toggle", "clear")


class Debouncer(wiring.Component):
    """Two-flip-flop synchroniser, then the level must hold for ``cycles`` cycles to be taken;
    ``press`` pulses for one cycle when the debounced level rises."""

    def __init__(self, cycles: int):
        self.cycles = require_int(cycles, "debounce cycles", 1, 1 << 24)
        super().__init__({"raw": In(1), "level": Out(1), "press": Out(1)})

    def elaborate(self, platform):
        m = Module()
        s1, s2 = Signal(), Signal()
        m.d.sync += [s1.eq(self.raw), s2.eq(s1)]
        count = Signal(range(self.cycles + 1))
        with m.If(s2 == self.level):
            m.d.sync += count.eq(0)
        with m.Elif(count == self.cycles - 1):
            m.d.sync += [count.eq(0), self.level.eq(s2)]
            m.d.comb += self.press.eq(s2)
        with m.Else():
            m.d.sync += count.eq(count + 1)
        return m


class SafetyPanel(wiring.Component):
    def __init__(self, n: int, *, debounce_cycles: int = 12_000, model: str = "SL1"):
        if model not in ("SL1", "SL2"):
            raise CubenocError(f"the board panel shows SL1 or SL2 levels, got {model!r}")
        self.safety = SafetyNetwork(n, (model,))
        self.n, self.num_nodes, self.model = n, 1 << n, model
        self.width = output_fields(n, (model,))[model.lower()][1]
        self.debounce_cycles = debounce_cycles
        N = self.num_nodes
        super().__init__({**{f"btn_{b}": In(1) for b in BUTTONS},
                          "faults": Out(N), "levels": Out(N * self.width), "selected": Out(range(N)),
                          "level": Out(self.width), "selected_faulty": Out(1)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.safety = net = self.safety
        press = {}
        for b in BUTTONS:
            deb = m.submodules[f"debounce_{b}"] = Debouncer(self.debounce_cycles)
            m.d.comb += deb.raw.eq(getattr(self, f"btn_{b}"))
            press[b] = deb.press
        w = self.width
        with m.If(press["select"]):
            m.d.sync += self.selected.eq(self.selected + 1)          # n bits: wraps at N = 2^n
        with m.If(press["clear"]):
            m.d.sync += self.faults.eq(0)
        with m.Elif(press["toggle"]):
            m.d.sync += self.faults.eq(self.faults ^ (1 << self.selected))
        levels = getattr(net, self.model.lower())
        m.d.comb += [net.node_faulty.eq(self.faults), net.link_faulty.eq(0), self.levels.eq(levels),
                     self.level.eq(levels.word_select(self.selected, w)),
                     self.selected_faulty.eq((self.faults >> self.selected)[0])]
        return m

    def level_of(self, v: int):
        return self.levels[v * self.width:(v + 1) * self.width]


def digits_program(panel: SafetyPanel) -> list:
    """The UART line's safety part: `` sel S faults FFFF sl LLLL`` (node 0 first; one digit per node)."""
    from .uart import Digit
    N = panel.num_nodes
    return ([" sel ", ("sel", False), " faults "] + [Digit(f"f{v}") for v in range(N)] + [" sl "]
            + [Digit(f"l{v}") for v in range(N)])


def digit_values(panel: SafetyPanel, faults, levels, selected) -> dict:
    """Name -> signal for :func:`digits_program` (``faults``/``levels``/``selected``: snapshots)."""
    w = panel.width
    out = {"sel": selected}
    for v in range(panel.num_nodes):
        out[f"f{v}"] = faults[v]
        out[f"l{v}"] = levels[v * w:(v + 1) * w]
    return out

