"""Gate helpers shared by every unit: OR-reduce, one-hot mux, ROM, modular subtract, node address."""
from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal, Value
from amaranth.utils import ceil_log2


def any_of(bits) -> Value:
    """OR of ``bits`` (0 for none)."""
    bits = list(bits)
    return Cat(*bits).any() if bits else Const(0)


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
    """Bits of a node address."""
    return max(1, ceil_log2(topology.num_nodes))


def node_address(unit):
    """A unit's node: its ``node_id`` input (node-generic units) or the constant ``unit.node``."""
    return unit.node_id if hasattr(unit, "node_id") else Const(unit.node, node_width(unit.routing.topology))
