"""The safety-level broadcast fork unit (Wu Sec. 2.2): :func:`cubenoc.sim.broadcast.safety.fork`
in gates, for the router's multicast fork (one unit per input port).

Interface (the multicast fork-unit contract, plus the node's run-time level and fault inputs)
    In ``tag`` (the n + 2 bit tag of ``tag_layout(n)``: label, nocopy, handoff; LSB first), ``origin``
    (1 = the head is at the source's local FIFO: ``start``; else ``forward`` of ``tag``), ``node_id``
    (n bits; unused: every decision is relative to the node, so one module serves every node);
    Out ``keep`` (eject a copy here), ``ports`` (bit k: send a copy on port k = dimension k),
    ``new_tag`` (n words of n + 2 bits: the tag sent on port k, valid where ``ports[k]``).
    Level inputs, as :class:`~cubenoc.rtl.safety.unit.SafetyLevelUnit` produces / receives them:
    ``own_level`` (its ``sl<d>`` for SL models, ``gsl<d>`` for DSL), ``nbr_levels`` (its ``rx_sl<d>``,
    or ``rx_dsl<d>``: the neighbours' DSL vectors, of which element k of row k, the RDSL ``ns_kk``, is
    used), DSL only ``order`` (its ``order<d>``) and ``nbr_safe`` (bit k: u^k's GSL == n); faults
    ``link_faulty`` (n, the node's own link bits) and ``nbr_faulty`` (bit k: u^k is faulty); d = 2 only
    ``rx_fault`` / ``rx_nbrs`` (the same wires the unit receives).

Gates (no sorter, as in the level unit)
    The new label on port k is "the dimensions of L that come after k in the coordinate sequence", so
    only the pairwise relation before(j, k) is needed: ``lvl_j > lvl_k`` or (equal and j < k) for the
    nonascending level order, or ``rank_j < rank_k`` for the DSL partition order (a safe source);
    n(n-1)/2 comparators. The d = 2 swap of the last two dimensions a, b: b is a's only successor in L
    (``new_label[a]`` is one-hot b); then a sends nothing further and b sends {a}.
"""
from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from cubenoc.errors import CubenocError, require_int
from cubenoc.rtl.area import count, synthesize
from cubenoc.rtl.safety.unit import _bits
from cubenoc.rtl.tools import use_builtin_yosys
from cubenoc.sim.broadcast.safety import tag_layout
from cubenoc.sim.safety import MODELS

#: the largest n the generator accepts (as rtl/safety/unit.py)
MAX_N = 10


def check_model(model) -> str:
    m = str(model).upper()
    if m not in MODELS:
        raise CubenocError(f"model must be one of {', '.join(MODELS)}, got {model!r}")
    return m


def fork_signature(n: int, model: str) -> wiring.Signature:
    """Ports of :class:`SafetyBroadcastFork` (see the module docstring)."""
    tw = tag_layout(n).width
    lv, dv = _bits(n), _bits(n - 1)
    members = {"tag": In(tw), "origin": In(1), "node_id": In(n),
               "keep": Out(1), "ports": Out(n), "new_tag": Out(data.ArrayLayout(tw, n)),
               "own_level": In(lv), "link_faulty": In(n), "nbr_faulty": In(n)}
    if model.startswith("SL"):
        members["nbr_levels"] = In(data.ArrayLayout(lv, n))
    else:
        members["nbr_levels"] = In(data.ArrayLayout(data.ArrayLayout(dv, n), n))
        members["order"] = In(data.ArrayLayout(dv, n))
        members["nbr_safe"] = In(n)
    if model.endswith("2"):
        members["rx_fault"] = In(data.ArrayLayout(data.StructLayout({"node": 1, "links": n}), n))
        members["rx_nbrs"] = In(data.ArrayLayout(n, n))
    return wiring.Signature(members)


class SafetyBroadcastFork(wiring.Component):
    """Combinational fork decision of the safety-level broadcast at one node (``model`` one of SL1, SL2,
    DSL1, DSL2); bit-exact :func:`cubenoc.sim.broadcast.safety.fork`."""

    node_generic = True

    def __new__(cls, n: int, model: str = "SL1"):
        require_int(n, "n", 2, MAX_N)             # bad parameters raise before the object exists: no "never
        check_model(model)                        # used" warning for it
        return super().__new__(cls, src_loc_at=1)

    def __init__(self, n: int, model: str = "SL1"):
        self.n = require_int(n, "n", 2, MAX_N)
        self.model = check_model(model)
        self.layout = tag_layout(self.n)
        super().__init__(fork_signature(self.n, self.model))

    def elaborate(self, platform):
        m = Module()
        n, dsl = self.n, self.model.startswith("DSL")
        lay = self.layout
        lo, lw = lay.offset("label")
        label_in = self.tag[lo:lo + lw]
        nocopy_in = self.tag[lay.offset("nocopy")[0]]
        handoff_in_bit = self.tag[lay.offset("handoff")[0]]

        safe = Signal(name="safe")
        m.d.comb += safe.eq(self.own_level == n)
        handoff_in = Signal(name="handoff_in")            # forward of a hand-over: broadcast as the source
        m.d.comb += handoff_in.eq(~self.origin & handoff_in_bit)
        src_mode = Signal(name="src_mode")                # split the whole cube with the source's cs
        m.d.comb += src_mode.eq(self.origin | handoff_in)
        L = Signal(n, name="L")
        m.d.comb += L.eq(Mux(src_mode, (1 << n) - 1, label_in))
        after = self._after(m, L, src_mode & safe if dsl else None)
        new_label = self._swapped(m, L, after) if self.model.endswith("2") else after
        h, handoff_out = self._handoff(m, safe)

        usable = ~self.nbr_faulty & ~self.link_faulty
        m.d.comb += self.ports.eq(Mux(handoff_out, h, L & usable))
        m.d.comb += self.keep.eq(~self.origin & (handoff_in | ~nocopy_in))
        for k in range(n):
            # the copy back to the originator of a hand-over (highest label bit, as Python) is nocopy
            back = handoff_in & label_in[k] & ~label_in[k + 1:].any() if k + 1 < n else handoff_in & label_in[k]
            word = Mux(handoff_out, Cat(Const(1 << k, n), Const(0, 1), Const(1, 1)),
                       Cat(new_label[k], back, Const(0, 1)))
            m.d.comb += self.new_tag[k].eq(word)
        return m

    def _after(self, m, L, order_when) -> list:
        """``after[k]``: the dimensions of ``L`` that come after ``k`` in the coordinate sequence (nonascending
        neighbour levels, ties to the lower dimension); with DSL, a safe source (``order_when``) takes the
        partition order instead."""
        n, dsl = self.n, order_when is not None
        lvl = [self.nbr_levels[k][k] if dsl else self.nbr_levels[k] for k in range(n)]

        def lvl_before(j, k):
            return lvl[j] >= lvl[k] if j < k else lvl[j] > lvl[k]

        if dsl:
            use_order = Signal(name="use_order")           # a safe source splits in partition order
            m.d.comb += use_order.eq(order_when)
            rank = [self._rank(m, dim) for dim in range(n)]
        after = []
        for k in range(n):
            bits = []
            for j in range(n):
                if j == k:
                    bits.append(Const(0))
                    continue
                b = lvl_before(k, j)
                if dsl:
                    b = Mux(use_order, rank[k] < rank[j], b)
                bits.append(L[j] & b)
            a = Signal(n, name=f"after{k}")
            m.d.comb += a.eq(Cat(*bits))
            after.append(a)
        return after

    def _rank(self, m, dim):
        """The place of dimension ``dim`` in the partition order (DSL)."""
        rw = len(self.order[0])
        r = Signal(rw, name=f"rank{dim}")
        v = Const(0, rw)
        for i in range(self.n):
            v = v | Mux(self.order[i] == dim, i, 0)
        m.d.comb += r.eq(v)
        return r

    def _swapped(self, m, L, after) -> list:
        """SL2/DSL2: the last two of cs are (a, b) iff a in L and after[a] == {b}; swap them when u^ab is
        non-faulty and reachable only through u^b."""
        n = self.n

        def via(a, b):
            return ~self.nbr_faulty[a] & ~self.link_faulty[a] & ~self.rx_fault[a].links[b]
        pair = {}
        for a in range(n):
            for b in range(n):
                if a != b:
                    s = Signal(name=f"swap_{a}_{b}")
                    m.d.comb += s.eq(L[a] & (after[a] == (1 << b)) & ~self.rx_nbrs[a][b] & ~via(a, b) & via(b, a))
                    pair[a, b] = s
        new_label = []
        for k in range(n):
            is_a = Cat(*[pair[k, b] for b in range(n) if b != k]).any()
            to_b = Cat(*[pair[a, k] if a != k else Const(0) for a in range(n)])
            s = Signal(n, name=f"label{k}")
            m.d.comb += s.eq(Mux(is_a, 0, Mux(to_b.any(), to_b, after[k])))
            new_label.append(s)
        return new_label

    def _handoff(self, m, safe):
        """Hand-over at an unsafe origin: the lowest safe neighbour over a non-faulty link (one-hot), and
        whether this node hands over."""
        n, dsl = self.n, self.model.startswith("DSL")
        cand = Signal(n, name="handoff_cand")
        m.d.comb += cand.eq(self.nbr_safe & ~self.link_faulty if dsl
                            else Cat(*[self.nbr_levels[k] == n for k in range(n)]) & ~self.link_faulty)
        h = Signal(n, name="handoff_onehot")
        m.d.comb += h.eq(cand & -cand)
        handoff_out = Signal(name="handoff_out")
        m.d.comb += handoff_out.eq(self.origin & ~safe)
        return h, handoff_out


def view_inputs(view) -> dict[str, int]:
    """The unit's level/fault input words for a :class:`~cubenoc.sim.broadcast.safety.LocalView` (how
    the ports are packed; for DSL only the used diagonal ``ns_kk`` of ``nbr_levels`` is filled in)."""
    n, model = view.n, check_model(view.model)

    def bits(flags):
        return sum(int(bool(f)) << k for k, f in enumerate(flags))

    out = {"own_level": view.own_level, "link_faulty": bits(view.link_faulty),
           "nbr_faulty": bits(view.nbr_faulty)}
    if model.startswith("SL"):
        w = _bits(n)
        out["nbr_levels"] = sum(view.nbr_levels[k] << (k * w) for k in range(n))
    else:
        w = _bits(n - 1)
        out["nbr_levels"] = sum(view.nbr_levels[k] << ((k * n + k) * w) for k in range(n))
        out["order"] = sum(view.order[i] << (i * w) for i in range(n))
        out["nbr_safe"] = bits(view.nbr_safe)
    if model.endswith("2"):
        out["rx_fault"] = sum((int(view.nbr_faulty[k]) | bits(view.nbr_links[k]) << 1) << (k * (n + 1))
                              for k in range(n))
        out["rx_nbrs"] = sum(bits(view.nbr_nbrs[k]) << (k * n) for k in range(n))
    return out


def connect(fork: "SafetyBroadcastFork", unit, nbr_faulty=None, nbr_safe=None) -> list:
    """Statements wiring ``fork``'s level and fault inputs from the node's own
    :class:`~cubenoc.rtl.safety.unit.SafetyLevelUnit` ``unit`` (whose models include ``fork.model``), as a
    router does for each of its inputs. The unit's ``rx_*`` inputs are what the neighbours send, so
    the fork sees exactly the unit's view. Two more sideband bits per link direction come from the
    neighbours: ``nbr_faulty`` (n bits, neighbour k's node-faulty input; d = 1 models only, a d = 2
    unit relays it in ``rx_fault``) and ``nbr_safe`` (n bits, neighbour k's :func:`safe_bit`; DSL only).
    """
    model, key = fork.model, fork.model.lower()
    d = key[-1]
    if model not in unit.models:
        raise CubenocError(f"the level unit computes {', '.join(unit.models)}, not the fork's {model}")
    out = [fork.link_faulty.eq(unit.link_faulty)]
    if model.startswith("SL"):
        out += [fork.own_level.eq(getattr(unit, key)), fork.nbr_levels.eq(getattr(unit, "rx_" + key))]
    else:
        if nbr_safe is None:
            raise CubenocError("a DSL fork needs nbr_safe: bit k = neighbour k's gsl == n")
        out += [fork.own_level.eq(getattr(unit, "gsl" + d)), fork.nbr_levels.eq(getattr(unit, "rx_" + key)),
                fork.order.eq(getattr(unit, "order" + d)), fork.nbr_safe.eq(nbr_safe)]
    if d == "2":
        out += [fork.rx_fault.eq(unit.rx_fault), fork.rx_nbrs.eq(unit.rx_nbrs),
                fork.nbr_faulty.eq(Cat(*[unit.rx_fault[k].node for k in range(fork.n)]))]
    else:
        if nbr_faulty is None:
            raise CubenocError("a d = 1 fork needs nbr_faulty: bit k = neighbour k's node_faulty")
        out.append(fork.nbr_faulty.eq(nbr_faulty))
    return out


def safe_bit(unit, model: str):
    """The bit a node sends its neighbours as their ``nbr_safe`` (DSL): its global level is n."""
    model = check_model(model)
    return getattr(unit, "gsl" + model[-1]) == unit.n


# ---- area ------------------------------------------------------------------------------------------------
def fork_verilog(n: int, model: str = "SL1", name: str = "safety_fork") -> str:
    from amaranth.back import verilog

    use_builtin_yosys()
    return verilog.convert(SafetyBroadcastFork(n, model), name=name)


def fork_area(n: int, model: str = "SL1", target: str = "ice40") -> dict:
    """Yosys ``synth_<target>`` cell counts of one fork unit (rtl/area.py)."""
    name = "safety_fork"
    cells, seconds = synthesize(fork_verilog(n, model, name), target, top=name)
    return count(cells, target) | {"seconds": seconds}


def extra_sideband_bits(model: str) -> int:
    """Wires per link direction the fork needs beyond the level unit's sideband: the neighbour's
    node-faulty bit (d = 2 units already carry it in ``tx_fault``) and, for DSL, its safe bit (GSL == n)."""
    model = check_model(model)
    return int(model.endswith("1")) + int(model.startswith("DSL"))
