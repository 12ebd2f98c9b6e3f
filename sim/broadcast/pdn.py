"""Collective communication in PDNs (Parhami and Rakov Sec. 4): Algorithms 3-6 and the Theorem 1 emulation.

* :class:`PDNBroadcast` -- Algorithm 3 as routers run it (all-port, the :mod:`.base` framework): the
  source sends on every port; a copy that arrived on forward chord ``+s_i`` is fanned out on every
  backward chord except ``-s_i`` (which leads back to the source). 2 steps, ``n - 1`` messages.
  Tag: ``fanout`` (1 bit: arrived on a forward chord) and ``chord`` (the index t of ``s_i`` in port
  order, so the router skips backward port ``2t + 1``).
* :class:`ProductPDNBroadcast` -- the product-network broadcast of Sec. 4 (row, then column ...): a copy
  received in dimension i is spread further in dimension i by Algorithm 3 and starts Algorithm 3 in
  every dimension above i; 2q steps in ``H^q`` (4 in ``H^2``), every node one copy.
* Step-by-step schedules, replayed and checked by :func:`run_schedule` (every transmission on a link,
  the sender already holding the message; per step: sends and receives per node, messages per directed
  channel): :func:`broadcast_single_port` (Algorithm 3, ``2*delta`` steps), :func:`all_to_all_broadcast`
  (Algorithm 4, ``n - 1`` steps), :func:`complete_exchange` (Algorithm 5, ``2*delta**2`` steps, or ``n``
  steps pipelined), :func:`shift_permutation` (Algorithm 6, 1 or 2 steps) and
  :func:`emulate_complete_network` (Theorem 1: one all-to-all step of ``K_n`` in ``delta`` steps).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from cubenoc.errors import CubenocError

from ..routing.base import HeaderLayout, Hop
from ..routing.pdn import _bits, two_hop_pair
from ..topology.pdn import PerfectDifferenceNetwork, ProductPDN
from .base import BroadcastAlgorithm


def _basic(topo) -> PerfectDifferenceNetwork:
    if not isinstance(topo, PerfectDifferenceNetwork) or topo.zero_free:
        raise CubenocError(f"Algorithms 3-6 need a basic PDN (a set containing 0), got {topo!r}")
    return topo


def fwd_port(t: int) -> int:
    """Port of forward chord ``+chords[t]``."""
    return 2 * t


def bwd_port(t: int) -> int:
    """Port of backward chord ``-chords[t]``."""
    return 2 * t + 1


# ---- Algorithm 3, all-port, as a per-hop rule -----------------------------------------------------
class PDNBroadcast(BroadcastAlgorithm):
    """Algorithm 3 (all-port): step 1 on all 2*delta ports, step 2 backward fan-out."""

    name = "pdn_broadcast"

    def __init__(self, topology: PerfectDifferenceNetwork):
        super().__init__(_basic(topology))
        self.delta = topology.delta
        self._layout = HeaderLayout([("fanout", 1), ("chord", _bits(self.delta))])


    def start(self, src: int) -> list[Hop]:
        self.topology.check_node(src)
        hops = []
        for t in range(self.delta):
            hops.append(Hop(fwd_port(t), {"fanout": 1, "chord": t}))
            hops.append(Hop(bwd_port(t), {"fanout": 0, "chord": t}))
        return hops

    def forward(self, node: int, header: dict) -> tuple[bool, list[Hop]]:
        if not header["fanout"]:
            return True, []
        return True, [Hop(bwd_port(t), {"fanout": 0, "chord": t}) for t in range(self.delta) if t != header["chord"]]

    def expected_steps(self, src: int = 0) -> int:
        return 2 if self.delta >= 2 else 1


class ProductPDNBroadcast(BroadcastAlgorithm):
    """Dimension-ordered broadcast in ``H_{q-1} x ... x H_0`` (Sec. 4, last paragraph)."""

    name = "pdn_product_broadcast"

    def __init__(self, topology: ProductPDN):
        if not isinstance(topology, ProductPDN):
            raise CubenocError(f"ProductPDNBroadcast needs a ProductPDN, got {topology!r}")
        for h in topology.dims:
            _basic(h)
        super().__init__(topology)
        width = _bits(max(h.delta for h in topology.dims))
        self._layout = HeaderLayout([("dim", _bits(topology.q)), ("fanout", 1), ("chord", width)])


    def _start_dims(self, first: int) -> list[Hop]:
        topo, hops = self.topology, []
        for i in range(first, topo.q):
            base = topo.port_base[i]
            for t in range(topo.dims[i].delta):
                hops.append(Hop(base + fwd_port(t), {"dim": i, "fanout": 1, "chord": t}))
                hops.append(Hop(base + bwd_port(t), {"dim": i, "fanout": 0, "chord": t}))
        return hops

    def start(self, src: int) -> list[Hop]:
        self.topology.check_node(src)
        return self._start_dims(0)

    def forward(self, node: int, header: dict) -> tuple[bool, list[Hop]]:
        i = header["dim"]
        hops = []
        if header["fanout"]:
            base = self.topology.port_base[i]
            hops = [Hop(base + bwd_port(t), {"dim": i, "fanout": 0, "chord": t})
                    for t in range(self.topology.dims[i].delta) if t != header["chord"]]
        return True, hops + self._start_dims(i + 1)

    def expected_steps(self, src: int = 0) -> int:
        return sum(2 if h.delta >= 2 else 1 for h in self.topology.dims)


# ---- explicit schedules ---------------------------------------------------------------------------
@dataclass
class ScheduleReport:
    """What :func:`run_schedule` measured."""
    steps: int
    transmissions: int
    max_sends: int            # most messages one node sent in one step
    max_receives: int         # most messages one node received in one step
    max_channel: int          # most messages on one directed channel in one step
    duplicates: int           # messages received by a node that already had them
    max_fwd_sends: int = 0    # most messages one node sent on forward chords in one step
    max_bwd_sends: int = 0
    holdings: list[set] = field(default_factory=list, repr=False)


def run_schedule(topo: PerfectDifferenceNetwork, steps, initial) -> ScheduleReport:
    """Replay ``steps`` (each a list of ``(node, port, message)``) from ``initial`` holdings (list of
    sets per node). A node may send a message only if it held it before the step."""
    holdings = [set(h) for h in initial]
    tx = dup = 0
    ms = mr = mc = mf = mb = 0
    for k, step in enumerate(steps, 1):
        sends, recvs, chans, fwd, bwd = {}, {}, {}, {}, {}
        arrivals = []
        for node, port, msg in step:
            far = topo.neighbor(node, port)
            if far is None:
                raise AssertionError(f"step {k}: node {node} sends on unconnected port {port}")
            if msg not in holdings[node]:
                raise AssertionError(f"step {k}: node {node} sends {msg!r} it does not hold")
            sends[node] = sends.get(node, 0) + 1
            recvs[far[0]] = recvs.get(far[0], 0) + 1
            chans[(node, port)] = chans.get((node, port), 0) + 1
            tbl = fwd if port % 2 == 0 else bwd
            tbl[node] = tbl.get(node, 0) + 1
            arrivals.append((far[0], msg))
            tx += 1
        for node, msg in arrivals:
            if msg in holdings[node]:
                dup += 1
            holdings[node].add(msg)
        ms = max(ms, *sends.values(), 0)
        mr = max(mr, *recvs.values(), 0)
        mc = max(mc, *chans.values(), 0)
        mf = max(mf, *fwd.values(), 0)
        mb = max(mb, *bwd.values(), 0)
    return ScheduleReport(len(steps), tx, ms, mr, mc, dup, mf, mb, holdings)


def _chord_index(topo, s: int) -> int:
    return topo.chords.index(s)


def broadcast_single_port(topo: PerfectDifferenceNetwork, src: int = 0):
    """Algorithm 3 with one send per node per step: the source sends forward on chords 1..delta in
    steps 1..delta and backward in steps delta+1..2*delta; the node reached on chord t (step t+1)
    sends its delta-1 backward copies in the following steps. Returns ``(steps, initial)``."""
    topo = _basic(topo)
    src = topo.check_node(src)
    delta = topo.delta
    steps: list[list] = [[] for _ in range(2 * delta)]
    for t in range(delta):
        steps[t].append((src, fwd_port(t), "m"))
        steps[delta + t].append((src, bwd_port(t), "m"))
        y = (src + topo.chords[t]) % topo.n
        others = [u for u in range(delta) if u != t]
        for k, u in enumerate(others):
            steps[t + 1 + k].append((y, bwd_port(u), "m"))
    initial = [set() for _ in topo.nodes()]
    initial[src].add("m")
    return [s for s in steps if s], initial


def all_to_all_broadcast(topo: PerfectDifferenceNetwork):
    """Algorithm 4, single-port: every node does the same thing in the same step, so each node sends
    and receives exactly one message per step. Phase a (delta steps): own message on ``+s_t``. Phase b
    (delta^2 steps): own message on every ``-s_u``, then for each received message (it came from
    ``y - s_t``) on every ``-s_u``, u != t. Message = originating node."""
    topo = _basic(topo)
    delta, n = topo.delta, topo.n
    steps = []
    for t in range(delta):
        steps.append([(x, fwd_port(t), x) for x in topo.nodes()])
    for u in range(delta):
        steps.append([(y, bwd_port(u), y) for y in topo.nodes()])
    for t in range(delta):
        for u in range(delta):
            if u != t:
                steps.append([(y, bwd_port(u), (y - topo.chords[t]) % n) for y in topo.nodes()])
    return steps, [{x} for x in topo.nodes()]


def complete_exchange(topo: PerfectDifferenceNetwork, pipelined: bool = False):
    """Algorithm 5. Message = ``(origin, destination)``. Phase a (2*delta steps): the messages for
    ``x + s_t`` then ``x - s_t``. Phase b: for each ordered pair (i, j) of distinct nonzero chords the
    message for ``x + s_i - s_j`` goes out on ``+s_i`` and is forwarded on ``-s_j`` in the next step
    (2 steps per pair), or, ``pipelined``, pair k's forward leg shares a step with pair k-1's backward
    leg (delta(delta-1) + 1 steps)."""
    topo = _basic(topo)
    delta, n = topo.delta, topo.n
    c = topo.chords
    steps = []
    for t in range(delta):
        steps.append([(x, fwd_port(t), (x, (x + c[t]) % n)) for x in topo.nodes()])
    for t in range(delta):
        steps.append([(x, bwd_port(t), (x, (x - c[t]) % n)) for x in topo.nodes()])
    pairs = [(i, j) for i in range(delta) for j in range(delta) if i != j]

    def leg1(i, j):
        return [(x, fwd_port(i), (x, (x + c[i] - c[j]) % n)) for x in topo.nodes()]

    def leg2(i, j):
        return [((x + c[i]) % n, bwd_port(j), (x, (x + c[i] - c[j]) % n)) for x in topo.nodes()]

    if not pipelined:
        for i, j in pairs:
            steps += [leg1(i, j), leg2(i, j)]
    else:
        prev = None
        for i, j in pairs:
            steps.append(leg1(i, j) + (leg2(*prev) if prev else []))
            prev = (i, j)
        if prev:
            steps.append(leg2(*prev))
    return steps, [{(x, y) for y in topo.nodes() if y != x} for x in topo.nodes()]


def shift_permutation(topo: PerfectDifferenceNetwork, c: int, signs=None):
    """Algorithm 6: node x sends to ``x + c`` (``signs[x] = -1``: to ``x - c``). One step when
    ``c = +-s_i``, else two (``+s_i`` then ``-s_j`` with ``s_i - s_j = c``). Message = ``(x, dest)``."""
    topo = _basic(topo)
    n = topo.n
    c = c % n
    if c == 0:
        raise CubenocError(f"shift amount must be nonzero mod {n}")
    signs = [1] * n if signs is None else list(signs)
    if len(signs) != n or any(s not in (1, -1) for s in signs):
        raise CubenocError(f"signs must be {n} values of +1/-1")
    first, second = [], []
    for x in topo.nodes():
        d = (signs[x] * c) % n
        dest = (x + d) % n
        si, sj = two_hop_pair(topo, d)
        if sj == 0:                                     # d = +s_i: one forward hop
            first.append((x, fwd_port(_chord_index(topo, si)), (x, dest)))
        elif si == 0:                                   # d = -s_j: one backward hop
            first.append((x, bwd_port(_chord_index(topo, sj)), (x, dest)))
        else:
            first.append((x, fwd_port(_chord_index(topo, si)), (x, dest)))
            second.append(((x + si) % n, bwd_port(_chord_index(topo, sj)), (x, dest)))
    steps = [first] + ([second] if second else [])
    return steps, [{(x, (x + signs[x] * c) % n)} for x in topo.nodes()]


def emulate_complete_network(topo: PerfectDifferenceNetwork):
    """Theorem 1's schedule (Fig. 4), all-port: one step of ``K_n`` (every node a message to every
    other) in delta steps. Forward chord t carries, in steps 1..delta-1, the two-hop messages whose
    backward leg is chord ``(t + k) mod delta`` (k = step; the paper's cyclic order s_{i+1}, ...,
    s_{i-1}) and in step delta the one-hop message; backward chords carry the one-hop message in
    step 1 and forward the two-hop messages received in the step before."""
    topo = _basic(topo)
    delta, n, c = topo.delta, topo.n, topo.chords
    steps = [[] for _ in range(delta)]
    for x in topo.nodes():
        for t in range(delta):
            for k in range(1, delta):
                u = (t + k) % delta
                dest = (x + c[t] - c[u]) % n
                steps[k - 1].append((x, fwd_port(t), (x, dest)))
                steps[k].append(((x + c[t]) % n, bwd_port(u), (x, dest)))
            steps[delta - 1].append((x, fwd_port(t), (x, (x + c[t]) % n)))
            steps[0].append((x, bwd_port(t), (x, (x - c[t]) % n)))
    return steps, [{(x, y) for y in topo.nodes() if y != x} for x in topo.nodes()]


def personalized_complete(report: ScheduleReport, expected) -> bool:
    """Every expected ``(origin, dest)`` message is held by ``dest``."""
    return all(m in report.holdings[m[1]] for m in expected)
