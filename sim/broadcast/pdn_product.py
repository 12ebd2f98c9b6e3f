"""Collectives, permutations and sorting that Parhami & Rakov (perfect difference networks, Sec. 3-4)
build from the single-PDN algorithms: schedules replayed by :func:`.pdn.run_schedule`.

* :func:`power_all_to_all` -- all-to-all broadcast in ``H^2`` (Sec. 4, last paragraph): Algorithm 4 in
  every row, then ``n`` rounds of Algorithm 4 in every column (round k forwards the message from the
  row node k columns away). ``overlap=True`` starts the column rounds at once (a node then sends on one
  row and one column link per step): the paper's "total overlap".
* :func:`power_all_to_all_split` -- the same port model, with the second leg split between the
  dimensions: half the messages go row-then-column, half column-then-row (``(n - 1)(n + 3) / 2`` steps).
* :func:`power_complete_exchange` -- complete exchange in ``H^2``: "each node sends all of its messages
  for nodes in one column to the destination column's node in the same row" (``n`` rounds of
  Algorithm 5 in every row), then the same in every column.
* :func:`bit_reversal` -- Sec. 4's bit-reversal permutation on nodes ``0 .. 2^m - 1``, emulating the
  hypercube's dimension-order routing by generalized shifts of ``+-2^i`` (Algorithm 6).
* :func:`power_shearsort` -- Sec. 3's "any sorting algorithm for a square mesh that uses row and column
  sorts": shearsort on ``H^2``, each row/column sort an odd-even transposition sort on the linear array
  0-1-...-(n-1), whose links are the PDN's chord ``+-1``.

Dimension 0 of ``H^2`` is the row network (a row: nodes with the same coordinate 1).
"""
from __future__ import annotations

import itertools
import math

from ..routing.pdn import two_hop_pair
from ..topology.pdn import PerfectDifferenceNetwork, ProductPDN, pdn_power
from .pdn import _basic, all_to_all_broadcast, bwd_port, complete_exchange, fwd_port


def _power(h) -> ProductPDN:
    return pdn_power(_basic(h if isinstance(h, PerfectDifferenceNetwork) else PerfectDifferenceNetwork(h)), 2)


def _lift(power: ProductPDN, dim: int, other: int, steps, message):
    """One H-schedule run in the line of dimension ``dim`` whose other coordinate is ``other``;
    ``message(m, other)`` names the H^2 message for the H message ``m``."""
    out = []
    for step in steps:
        row = []
        for x, port, m in step:
            if message(m, other) is None:       # this line's node has nothing to send in this run
                continue
            coords = [0, 0]
            coords[dim], coords[1 - dim] = x, other
            row.append((power.node_of(coords), power.port_base[dim] + port, message(m, other)))
        out.append(row)
    return out


def _merge(runs, offsets=None):
    """Run the schedules side by side: run r's step s is step ``offsets[r] + s`` (default 0)."""
    offsets = offsets or [0] * len(runs)
    total = max((o + len(r) for o, r in zip(offsets, runs)), default=0)
    steps = [[] for _ in range(total)]
    for o, run in zip(offsets, runs):
        for s, step in enumerate(run):
            steps[o + s] += step
    return steps


def power_all_to_all(h, overlap: bool = False):
    """All-to-all broadcast in ``H^2``; message = originating node. Returns ``(power, steps, initial)``.
    Without overlap: ``(n - 1) + n (n - 1) = n^2 - 1`` steps, one send and one receive per node per step;
    with overlap ``n (n - 1)`` steps, one send and one receive per node per dimension per step."""
    power = _power(h)
    base = power.dims[0]
    n = base.n
    a2a, _ = all_to_all_broadcast(base)
    rows = _merge([_lift(power, 0, r, a2a, lambda m, r: power.node_of([m, r])) for r in range(n)])
    cols = []
    for k in range(n):                 # round k: the message from the node k columns to the right
        cols.append(_merge([_lift(power, 1, c, a2a, lambda m, c, k=k: power.node_of([(c + k) % n, m]))
                            for c in range(n)]))
    if overlap:
        steps = _merge([rows] + cols, [0] + [k * len(a2a) for k in range(n)])
    else:
        steps = rows + [s for c in cols for s in c]
    return power, steps, [{v} for v in power.nodes()]


def power_all_to_all_split(h):
    """All-to-all broadcast in ``H^2`` with one send and one receive per node per dimension per step.
    Phase 1 (``n - 1`` steps): Algorithm 4 in every row and every column at once, each node's own
    message. Phase 2: message ``(p, q)`` (coordinates) still has to reach the ``(n - 1)^2`` nodes off
    its row and column. If ``(p - q) mod n`` is in ``A = {1 .. (n - 1)/2}`` it goes row-then-column: every
    node of row q broadcasts it in its column; otherwise column-then-row. A node then forwards at most
    ``(n - 1)/2`` messages in its column and ``(n + 1)/2`` in its row, one Algorithm 4 round each, the
    two dimensions side by side: ``(n - 1)(1 + (n + 1)/2) = (n - 1)(n + 3)/2`` steps. Each message
    reaches each node once (the choice depends on the message alone, so no node gets it both ways).
    The receive bound ``(n^2 - 1)/2`` is not met: the rounds are aligned, and the row rounds carry one
    message more than the column rounds. Returns ``(power, steps, initial)``."""
    power = _power(h)
    base = power.dims[0]
    n = base.n
    a2a, _ = all_to_all_broadcast(base)
    node = lambda x, y: power.node_of([x, y])
    row_first = lambda p, q: 1 <= (p - q) % n <= (n - 1) // 2
    # what node (x, y) forwards in its column (messages of its row) and in its row (of its column)
    down = {(x, y): [node(p, y) for p in range(n) if p != x and row_first(p, y)] for x in range(n) for y in range(n)}
    across = {(x, y): [node(x, q) for q in range(n) if q != y and not row_first(x, q)]
              for x in range(n) for y in range(n)}
    pick = lambda lists, key, k: lists[key][k] if k < len(lists[key]) else None
    runs = [_lift(power, 0, y, a2a, lambda m, y: node(m, y)) for y in range(n)]
    runs += [_lift(power, 1, x, a2a, lambda m, x: node(x, m)) for x in range(n)]
    offsets = [0] * (2 * n)
    rounds = max(max(map(len, down.values())), max(map(len, across.values())))
    for k in range(rounds):
        runs += [_lift(power, 1, x, a2a, lambda m, x, k=k: pick(down, (x, m), k)) for x in range(n)]
        runs += [_lift(power, 0, y, a2a, lambda m, y, k=k: pick(across, (m, y), k)) for y in range(n)]
        offsets += [(k + 1) * len(a2a)] * (2 * n)
    return power, _merge(runs, offsets), [{v} for v in power.nodes()]


def power_complete_exchange(h, pipelined: bool = False):
    """Complete exchange in ``H^2``; message = ``(origin, destination)``. Row phase: round k delivers
    to ``(x', r)`` the messages of ``(x, r)`` for column x' and row ``r + k``; column phase: round k
    moves the messages that came from the node k columns away. ``2 n`` rounds of Algorithm 5:
    ``2 n * 2 delta^2`` steps, or ``2 n * n = 2 n^2`` with the pipelined Algorithm 5."""
    power = _power(h)
    base = power.dims[0]
    n = base.n
    ce, _ = complete_exchange(base, pipelined=pipelined)
    steps = []
    for k in range(n):
        steps += _merge([_lift(power, 0, r, ce, lambda m, r, k=k: (power.node_of([m[0], r]),
                                                                       power.node_of([m[1], (r + k) % n])))
                         for r in range(n)])
    for k in range(n):
        steps += _merge([_lift(power, 1, c, ce, lambda m, c, k=k: (power.node_of([(c + k) % n, m[0]]),
                                                                       power.node_of([c, m[1]])))
                         for c in range(n)])
    initial = [{(v, w) for w in power.nodes() if w != v} for v in power.nodes()]
    return power, steps, initial


def reverse_bits(x: int, m: int) -> int:
    return int(format(x, f"0{m}b")[::-1], 2) if m else 0


def shift_rounds(m: int, order=None) -> list[int]:
    """Shift rounds per dimension of the bit reversal of :func:`bit_reversal` on ``m`` bits, the dimensions
    corrected in ``order`` (default ascending): the most messages one node holds that move in a dimension."""
    where = {x: x for x in range(2 ** m)}
    rounds = []
    for i in order or range(m):
        moving: dict[int, int] = {}
        for x, at in where.items():
            if (at >> i & 1) != (reverse_bits(x, m) >> i & 1):
                moving[at] = moving.get(at, 0) + 1
                where[x] = at ^ (1 << i)
        rounds.append(max(moving.values(), default=0))
    return rounds


def orders_in_m_rounds(m: int) -> tuple[int, int, tuple | None]:
    """How many of the m! dimension orders finish the bit reversal (the paper's "log2 n
    shift steps"; it fixes no order) in at most m rounds, of how many, and the first such order."""
    good = [p for p in itertools.permutations(range(m)) if sum(shift_rounds(m, p)) <= m]
    return len(good), math.factorial(m), good[0] if good else None


def bit_reversal(topo: PerfectDifferenceNetwork, order=None):
    """Bit reversal on nodes ``0 .. 2^m - 1``, ``m = floor(log2 n)`` (the paper writes ceil, which
    names nodes beyond n - 1). Dimension i of the emulated hypercube (in ``order``, default ascending)
    moves every message whose bit i is still wrong by ``+2^i`` (bit 0 -> 1) or ``-2^i``, as generalized
    shifts (Algorithm 6: one or two hops); a node holding several such messages sends them in successive
    shift rounds. Returns ``(steps, initial, rounds)`` with ``rounds`` the number of shift rounds per
    dimension."""
    topo = _basic(topo)
    n = topo.n
    m = int(math.floor(math.log2(n)))
    where = {x: x for x in range(2 ** m)}              # message (x, rev x) -> current node
    steps, rounds = [], []
    for i in order or range(m):
        moving: dict[int, list[int]] = {}
        for x, at in where.items():
            if (at >> i & 1) != (reverse_bits(x, m) >> i & 1):
                moving.setdefault(at, []).append(x)
        depth = max((len(v) for v in moving.values()), default=0)
        rounds.append(depth)
        for r in range(depth):
            first, second = [], []
            for at, xs in moving.items():
                if r >= len(xs):
                    continue
                x = xs[r]
                d = (1 << i) if not at >> i & 1 else -(1 << i)
                si, sj = two_hop_pair(topo, d % n)
                msg = (x, reverse_bits(x, m))
                if sj == 0:
                    first.append((at, fwd_port(topo.chords.index(si)), msg))
                elif si == 0:
                    first.append((at, bwd_port(topo.chords.index(sj)), msg))
                else:
                    first.append((at, fwd_port(topo.chords.index(si)), msg))
                    second.append(((at + si) % n, bwd_port(topo.chords.index(sj)), msg))
                where[x] = at + d
            steps += [first] + ([second] if second else [])
    initial = [set() for _ in range(n)]
    for x in range(2 ** m):
        initial[x].add((x, reverse_bits(x, m)))
    return steps, initial, rounds


def power_shearsort(topo: PerfectDifferenceNetwork, values):
    """Shearsort of ``n^2`` keys on ``H^2`` (``values[r][c]``: row r, column c), into snake order (even
    rows ascending, odd rows descending). ``ceil(log2 n) + 1`` row phases and ``ceil(log2 n)`` column
    phases, each ``n`` steps of odd-even transposition; a compare-exchange of positions x and x + 1 is
    one exchange over the chord +1 / -1 (checked to be a link). Returns ``(grid, steps)``."""
    topo = _basic(topo)
    n = topo.n
    for x in range(n - 1):
        assert topo.neighbor(x, fwd_port(0))[0] == x + 1 and topo.neighbor(x + 1, bwd_port(0))[0] == x
    grid = [list(r) for r in values]

    def oets(line, ascending):
        for t in range(n):
            for x in range(t % 2, n - 1, 2):
                if (line[x] > line[x + 1]) == ascending:
                    line[x], line[x + 1] = line[x + 1], line[x]
        return line

    steps = 0
    phases = math.ceil(math.log2(n))
    for p in range(phases + 1):
        grid = [oets(row, r % 2 == 0) for r, row in enumerate(grid)]
        steps += n
        if p == phases:
            break
        cols = [oets([grid[r][c] for r in range(n)], True) for c in range(n)]
        grid = [[cols[c][r] for c in range(n)] for r in range(n)]
        steps += n
    return grid, steps
