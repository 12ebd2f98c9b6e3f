# amaranth: UnusedElaboratable=no
"""Wu's safety levels in hardware: one :class:`SafetyLevelUnit` per node, exchanging levels with
its n neighbours over sideband wires, and :class:`SafetyNetwork`, N units wired as an n-cube with flat
fault inputs and level outputs. The rules are exactly those of ``sim/safety.py`` (``sl_rule``,
``dsl_rule``, ``adjust``, ``global_level``); docs/safety_hw.md explains the unit and its cost.

One round = one clock cycle
    Every level is a register updated *every* cycle from the neighbours' previous values; a node whose
    level is fixed by initialisation (faulty / assigned) shows its initial value instead, computed
    combinationally from the fault inputs. The registers reset to the top level (n for SL, n-1 for
    DSL), so after a reset cycle the outputs in cycle r equal ``sim.safety.compute``'s round r exactly
    (round 0 = the initial levels). Without a reset (faults switched at run time) the levels re-settle
    on their own: r cycles after a change every level clamped at ``r + 1`` (``r + 2`` for d = 2) is
    already final, so SL(1) settles within n-1 cycles, SL(2) and DSL(1) within n-2, DSL(2) within n-3
    (the paper's bounds), from any earlier state.

Hardware decision process (Definition 2)
    ``decide(levels, ref, top)`` = first j with sorted[j] < ref[j], else top. No sorter is needed:
    sorted[j] < ref[j] iff at least j+1 of the levels are < ref[j], a popcount of comparator bits. For
    DSL element k (the levels excluding neighbour k) the count is the count over all n minus neighbour
    k's own bit, so the n popcounts are shared by the n elements.

Adjustment process (Sec. 3.3) in thermometer code
    With every ``ns_pq`` as a thermometer (bit t = ``ns_pq >= t``), max is OR, min is AND and "row p
    reaches the maximum" is an AND of implications: n stages of AND/OR, no comparator trees. Ties go to
    the lowest row, as in ``sim.safety.adjust``.

Sideband (per direction of each link)
    ``sl1``/``sl2``: one level; ``dsl1``/``dsl2``: the n directed levels (the neighbour uses element k
    = its RDSL in the rule and the whole vector in the adjustment); for d = 2 models also ``tx_fault``
    = {node faulty, n link bits, the n neighbours' node-faulty bits} (distance-2 information: the
    paper's "two rounds of information exchange" of the initialisation are wires here, so the
    initialisation is ready in the same cycle, as in Python).
"""
from __future__ import annotations

from amaranth import Cat, ClockSignal, Const, Instance, Module, Mux, ResetSignal, Signal, Value, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from cubenoc.errors import CubenocError, require_int
from cubenoc.rtl.gates import any_of
from cubenoc.sim.safety import MODELS, reference

#: largest n the generator accepts (an n-cube of 2^n units; the unit alone grows as n^3)
MAX_N = 10
DEFAULT_MODELS = ("SL1", "DSL1")


def _bits(v: int) -> int:
    return max(1, v.bit_length())


def check_models(models) -> tuple[str, ...]:
    models = tuple(dict.fromkeys(str(m).upper() for m in models))
    bad = [m for m in models if m not in MODELS]
    if bad or not models:
        raise CubenocError(f"models must be a non-empty subset of {', '.join(MODELS)}, got {', '.join(bad) or 'none'}")
    return tuple(m for m in MODELS if m in models)


def _all(bits) -> Value:
    bits = list(bits)
    return Cat(*bits).all() if bits else Const(1)


def _count(bits) -> Value:
    """Popcount as a small-enough unsigned value."""
    bits = list(bits)
    return sum((b.as_unsigned() for b in bits), Const(0, _bits(len(bits))))


def _priority(viols, top: int, width: int) -> Value:
    """``viols[j]`` (or None = never): the first j that holds, else ``top``."""
    out: Value = Const(top, width)
    for j in reversed(range(len(viols))):
        if viols[j] is not None:
            out = Mux(viols[j], Const(j, width), out)
    return out


def unit_signature(n: int, models) -> wiring.Signature:
    """Ports of one unit (see :class:`SafetyLevelUnit`)."""
    lv, dv, ov = unsigned(_bits(n)), unsigned(_bits(n - 1)), unsigned(_bits(n - 1))
    members = {"node_faulty": In(1), "link_faulty": In(n)}
    if any(m.endswith("2") for m in models):
        fault = data.StructLayout({"node": 1, "links": n})
        members["tx_fault"] = Out(fault)                       # own status
        members["rx_fault"] = In(data.ArrayLayout(fault, n))
        members["tx_nbrs"] = Out(n)                            # bit k: neighbour k is faulty (relayed)
        members["rx_nbrs"] = In(data.ArrayLayout(n, n))
    for m in models:
        key = m.lower()
        if m.startswith("SL"):
            members[key] = Out(lv)
            members["rx_" + key] = In(data.ArrayLayout(lv, n))
        else:
            vec = data.ArrayLayout(dv, n)
            d = key[-1]
            members[key] = Out(vec)
            members["rx_" + key] = In(data.ArrayLayout(vec, n))
            members["gsl" + d] = Out(lv)
            members["adsl" + d] = Out(vec)
            members["order" + d] = Out(data.ArrayLayout(ov, n))
    return wiring.Signature(members)


class SafetyLevelUnit(wiring.Component):
    """One node's safety levels for ``models`` (any of SL1, SL2, DSL1, DSL2).

    Inputs: ``node_faulty``, ``link_faulty[k]`` (the link along dimension k; both ends must see it),
    ``rx_<model>[k]`` the level(s) of the neighbour along dimension k, and for d = 2 ``rx_fault[k]``.
    Outputs: ``sl1``/``sl2`` (the level), ``dsl1``/``dsl2`` (directed levels ``s_0..s_{n-1}``) with
    ``gsl<d>`` (global level), ``adsl<d>`` (ADSL ``as_i0..as_i(n-1)``, nondescending) and ``order<d>``
    (partition order, first-selected dimension first), and ``tx_fault`` for d = 2. Every output is also
    what the neighbours receive. Node-generic: the same module serves every node.
    """

    def __new__(cls, n: int, models=DEFAULT_MODELS):
        require_int(n, "n", 2, MAX_N)             # bad parameters raise before the object exists: no "never
        check_models(models)                      # used" warning for it
        return super().__new__(cls, src_loc_at=1)

    def __init__(self, n: int, models=DEFAULT_MODELS):
        self.n = require_int(n, "n", 2, MAX_N)
        self.models = check_models(models)
        super().__init__(unit_signature(self.n, self.models))

    # -- distance-2 information (SL(2)/DSL(2) initialisation) -----------------------------------------
    def _blocked(self) -> dict:
        """``(i, j) -> 1`` if the non-faulty node u^{ij} is unreachable over both shortest paths."""
        n, rx, lf = self.n, self.rx_fault, self.link_faulty
        out = {}
        for i in range(n):
            for j in range(i + 1, n):
                via_i = ~rx[i].node & ~lf[i] & ~rx[i].links[j]
                via_j = ~rx[j].node & ~lf[j] & ~rx[j].links[i]
                out[i, j] = ~self.rx_nbrs[i][j] & ~via_i & ~via_j
        return out

    def elaborate(self, platform):
        m = Module()
        n = self.n
        faulty1 = Signal(name="faulty1")         # d = 1: the node or one of its links is faulty
        m.d.comb += faulty1.eq(self.node_faulty | self.link_faulty.any())
        blocked = None
        if any(md.endswith("2") for md in self.models):
            m.d.comb += [self.tx_fault.node.eq(self.node_faulty), self.tx_fault.links.eq(self.link_faulty)]
            m.d.comb += [self.tx_nbrs[k].eq(self.rx_fault[k].node) for k in range(n)]
            blocked = {}
            for (i, j), v in self._blocked().items():
                s = Signal(name=f"blocked_{i}_{j}")
                m.d.comb += s.eq(v)
                blocked[i, j] = s
        for model in self.models:
            d = int(model[-1])
            if model.startswith("SL"):
                self._sl(m, model, d, faulty1, blocked)
            else:
                self._dsl(m, model, d, faulty1, blocked)
        return m

    # -- SL(d): Definition 2 / Sec. 3.2 ---------------------------------------------------------------
    def _sl(self, m, model, d, faulty1, blocked):
        n, key = self.n, model.lower()
        w = _bits(n)
        if d == 1:
            fixed, init = faulty1, Const(0, w)
        else:
            one = any_of(blocked.values())
            fixed = faulty1 | one
            init = Mux(faulty1, 0, 1)
        nbrs = [getattr(self, "rx_" + key)[k] for k in range(n)]
        reg = Signal(w, init=n, name=f"{key}_reg")
        m.d.sync += reg.eq(self._decide(nbrs, reference(n, d), n, w))
        m.d.comb += getattr(self, key).eq(Mux(fixed, init, reg))

    @staticmethod
    def _decide(levels, ref, top, width) -> Value:
        """Definition 2: first j with #(levels < ref[j]) >= j+1, else top."""
        viols = [None if r == 0 else _count(lv < r for lv in levels) >= j + 1 for j, r in enumerate(ref)]
        return _priority(viols, top, width)

    # -- DSL(d): Sec. 3.3 / 3.4 -----------------------------------------------------------------------
    def _dsl(self, m, model, d, faulty1, blocked):
        n, key = self.n, model.lower()
        wd, w = _bits(n - 1), _bits(n)
        rx = getattr(self, "rx_" + key)
        out = getattr(self, key)
        # initialisation: per element k, fixed (0 or 1) or n-1
        if d == 1:
            zero = [faulty1] * n
            one = [Const(0)] * n
        else:
            zero = [self.node_faulty | any_of(self.link_faulty[j] for j in range(n) if j != k) for k in range(n)]
            one = [any_of(b for (i, j), b in blocked.items() if k not in (i, j)) for k in range(n)]
        # the rule (dsl_rule): s_k = decide({ns_jj : j != k}, ref(n-1, d), n-1); the counts over all n
        # relevant levels are shared by the n elements (element k subtracts neighbour k's own bit)
        rel = [rx[j][j] for j in range(n)]
        ref = reference(n - 1, d)
        below, total = {}, {}
        for r in sorted(set(ref) - {0}):
            below[r] = Signal(n, name=f"{key}_below{r}")          # bit j: ns_jj < r
            m.d.comb += below[r].eq(Cat(*[x < r for x in rel]))
            total[r] = Signal(_bits(n), name=f"{key}_count{r}")
            m.d.comb += total[r].eq(_count(below[r][j] for j in range(n)))
        for k in range(n):
            viols = [None if r == 0 else (total[r] >= jj + 2) | ((total[r] >= jj + 1) & ~below[r][k])
                     for jj, r in enumerate(ref)]
            reg = Signal(wd, init=n - 1, name=f"{key}_reg{k}")
            m.d.sync += reg.eq(_priority(viols, n - 1, wd))
            fixed = zero[k] | one[k]
            m.d.comb += out[k].eq(Mux(fixed, Mux(zero[k], 0, 1), reg))
        # adjustment process on ns_pq = rx[p][q], thermometer-coded: bit t-1 of therm[p][q] = ns_pq >= t
        # (t = 1..n-1), so max = OR, min = AND, and every step is a few (n-1)-bit vector operations
        tw = n - 1
        therm = [[Signal(tw, name=f"{key}_ns{p}{q}") for q in range(n)] for p in range(n)]
        for p in range(n):
            for q in range(n):
                m.d.comb += therm[p][q].eq(Cat(*[rx[p][q] >= t for t in range(1, n)]))
        selected = Const(0, n)
        prev = Const((1 << tw) - 1, tw)           # as_i(n) = n: all ones
        adsl_t = [None] * n
        order = getattr(self, "order" + model[-1])
        for step in range(n):
            rowmax = []
            for p in range(n):                   # row p's best over columns {p} + selected
                v = therm[p][p]
                for q in range(n):
                    if q != p:
                        v = v | (therm[p][q] & selected[q].replicate(tw))
                rm = Signal(tw, name=f"{key}_adj{step}_row{p}")
                m.d.comb += rm.eq(v)
                rowmax.append(rm)
            big = Signal(tw, name=f"{key}_adj{step}_max")
            v = Const(0, tw)
            for p in range(n):
                v = v | (rowmax[p] & (~selected[p]).replicate(tw))
            m.d.comb += big.eq(v)
            reach = Cat(*[~selected[p] & ~(big & ~rowmax[p]).any() for p in range(n)])
            pick = Signal(n, name=f"{key}_adj{step}_pick")
            m.d.comb += pick.eq(reach & -reach)          # the lowest row reaching the maximum
            new_prev = Signal(tw, name=f"{key}_adsl_t{n - 1 - step}")
            m.d.comb += new_prev.eq(prev & big)
            prev = new_prev
            adsl_t[n - 1 - step] = prev
            m.d.comb += order[step].eq(_priority([pick[p] for p in range(n)], 0, len(order[step])))
            sel = Signal(n, name=f"{key}_adj{step}_selected")
            m.d.comb += sel.eq(selected | pick)
            selected = sel
        adsl = getattr(self, "adsl" + model[-1])
        for j in range(n):
            m.d.comb += adsl[j].eq(_count(adsl_t[j][t] for t in range(tw)))
        # global level: decision process on the (already nondescending) ADSL with ref(n, d), top n
        viols = [None if r == 0 else ~adsl_t[j][r - 1] for j, r in enumerate(reference(n, d))]
        g = _priority(viols, n, w)
        gsl = getattr(self, "gsl" + model[-1])
        if d == 1:
            m.d.comb += gsl.eq(Mux(faulty1, 0, g))
        else:   # an assigned node: the minimum of its assigned elements
            m.d.comb += gsl.eq(Mux(any_of(zero), 0, Mux(any_of(one), 1, g)))


class SafetyNetwork(wiring.Component):
    """N = 2^n safety-level units wired as an n-cube, flat ports (bit/field of node v):

    * ``node_faulty`` In(N): bit v.
    * ``link_faulty`` In(N*n): bit ``v*n + k`` is the link from v along dimension k; the link is faulty
      if either end's bit is set (both units see the OR).
    * per model, e.g. ``sl1`` Out(N*w) node v at ``[v*w +: w]``; ``dsl1``, ``adsl1``, ``order1``
      Out(N*n*wd) element k of node v at ``[(v*n+k)*wd +: wd]``; ``gsl1`` Out(N*w).
    * ``levels``: all of those concatenated in :func:`output_fields` order (one read per cycle).

    ``structural=True`` instantiates the unit by module name (one Verilog module for all N nodes, what
    :func:`.unit_files.safety_files` writes); otherwise the units are Amaranth submodules (amaranth.sim).
    """

    def __init__(self, n: int, models=DEFAULT_MODELS, *, structural: bool = False, unit_name: str | None = None):
        self.n = require_int(n, "n", 2, MAX_N)
        self.models = check_models(models)
        self.structural = structural
        self.unit = SafetyLevelUnit(self.n, self.models)   # the port template (and the module converted alone;
        # never elaborated here: this file's first line turns Amaranth's "never used" warning off)
        self.unit_name = unit_name or unit_module_name(self.n, self.models)
        N = 1 << self.n
        members = {"node_faulty": In(N), "link_faulty": In(N * self.n)}
        total = 0
        for name, (per, width) in self.output_fields().items():
            members[name] = Out(N * per * width)
            total += N * per * width
        members["levels"] = Out(total)         # every output above, concatenated in that order (LSB first)
        super().__init__(members)

    def output_fields(self) -> dict[str, tuple[int, int]]:
        """Flat output name -> (fields per node, bits per field)."""
        return output_fields(self.n, self.models)

    def elaborate(self, platform):
        m = Module()
        n, N = self.n, 1 << self.n
        units = [SafetyLevelUnit(n, self.models) for _ in range(N)] if not self.structural else None
        sig = self.unit.signature
        outs = []        # per node: member name -> Signal holding that unit's output
        for v in range(N):
            outs.append({name: Signal(Value.cast(getattr(self.unit, name)).shape(), name=f"u{v}_{name}")
                         for name, mem in sig.members.items() if mem.flow == Out})
        flat = {name: [] for name in self.output_fields()}
        for v in range(N):
            ins = {"node_faulty": self.node_faulty[v],
                   "link_faulty": Cat(*[self.link_faulty[v * n + k] | self.link_faulty[(v ^ 1 << k) * n + k]
                                        for k in range(n)])}
            for name in sig.members:
                if name.startswith("rx_"):
                    src = "tx_" + name[3:] if name in ("rx_fault", "rx_nbrs") else name[3:]
                    ins[name] = Cat(*[outs[v ^ 1 << k][src] for k in range(n)])
            for name in flat:
                flat[name].append(outs[v][name])
            if self.structural:
                ports = {"i_" + k: val for k, val in ins.items()}
                ports.update({"o_" + k: s for k, s in outs[v].items()})
                m.submodules[f"unit_{v}"] = Instance(self.unit_name, i_clk=ClockSignal(), i_rst=ResetSignal(), **ports)
            else:
                u = units[v]
                m.submodules[f"unit_{v}"] = u
                m.d.comb += [Value.cast(getattr(u, k)).eq(val) for k, val in ins.items()]
                m.d.comb += [s.eq(Value.cast(getattr(u, k))) for k, s in outs[v].items()]
        for name, parts in flat.items():
            m.d.comb += getattr(self, name).eq(Cat(*parts))
        m.d.comb += self.levels.eq(Cat(*[getattr(self, name) for name in flat]))
        return m


def output_fields(n: int, models) -> dict[str, tuple[int, int]]:
    """Flat output name -> (fields per node, bits per field)."""
    lw, dw = _bits(n), _bits(n - 1)
    out = {}
    for model in check_models(models):
        key = model.lower()
        if model.startswith("SL"):
            out[key] = (1, lw)
        else:
            d = key[-1]
            out.update({key: (n, dw), "gsl" + d: (1, lw), "adsl" + d: (n, dw), "order" + d: (n, dw)})
    return out


def unit_module_name(n: int, models) -> str:
    return f"cubenoc_safety_unit_n{n}_" + "_".join(m.lower() for m in check_models(models))


def sideband_bits(n: int, models=DEFAULT_MODELS) -> int:
    """Wires per direction of one link."""
    models = check_models(models)
    bits = sum(_bits(n) if m.startswith("SL") else n * _bits(n - 1) for m in models)
    return bits + (2 * n + 1 if any(m.endswith("2") for m in models) else 0)
