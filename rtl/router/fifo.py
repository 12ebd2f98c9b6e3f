"""The input FIFO of docs/router.md "Input FIFO": a register at the head, the other entries behind it.

``HeadFifo(width, depth, memory=False)`` has the interface of Amaranth's ``SyncFIFO`` that the input unit
uses (``w_data``, ``w_en``, ``w_rdy``, ``r_data``, ``r_en``, ``r_rdy``) and its cycle behaviour (model:
``fifo_push``/``fifo_pop`` in sim/model/phases.py): ``w_rdy`` is "not full" (a full FIFO takes no flit
even in a cycle it pops), ``r_rdy`` "not empty", a flit written at an edge is readable after it, first
word falls through. ``r_data`` is a flip-flop (``head``), not a read mux over the storage: the route ->
arbiter -> crossbar path starts at a register (docs/decisions/one-cycle-router-clock.md).

Behind the head, ``depth - 1`` entries in a circular buffer (``depth`` 2: one skid register). A written
flit goes to the head when the FIFO is empty or its only flit leaves; otherwise to the buffer. A pop
reloads the head from the buffer's oldest entry, or from ``w_data`` when the buffer is empty: one mux in
front of the head register whose select (``src``) is itself a register. ``memory=True`` keeps the buffer
in an Amaranth ``Memory`` with an asynchronous read port (distributed RAM on ECP5, ``TRELLIS_DPR16X4``);
``memory=False`` in flip-flops; ``memory=None`` decides at elaboration: a Memory when the platform is a
Lattice family with distributed RAM (``RAM_FAMILIES``: board builds), else flip-flops (iCE40, Verilog). ``r_rdy`` is a register, ``w_rdy`` one too (the last bit of the
buffer's thermometer ``occ``: a full FIFO has every buffer entry taken; depth 1: its own register).
``w_rdy2``: room for two flits (count <= depth - 2; a register: the pipelined router's flow control).

``late=(lo, hi)``: bits ``lo:hi`` of an entry are only read late in the cycle (the flit's route and data,
which only the crossbar reads); with Memory storage they live in a ring of ``depth`` entries written at a
write counter, not in the head register and its buffer, which keep the other bits (head, tail, ``want``):
no mux and no flip-flop per late bit at the head (docs/decisions/fifo-memory.md).
The ring is read asynchronously at the read counter (distributed RAM), or with ``memory="block"`` (and
``True`` on an iCE40 platform) at the clock edge at the next head's address, the write of that edge
passed through (``transparent_for``; block RAM, ``SB_RAM40_4K``, which has no asynchronous read). Same
cycle behaviour either way.
"""
from __future__ import annotations

from dataclasses import dataclass

from amaranth import Array, Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from cubenoc.errors import CubenocError, require_int

from ..gates import any_of


#: Amaranth platform families whose LUTs can be distributed RAM (``memory=None`` picks a Memory there)
RAM_FAMILIES = ("ecp5", "machxo2", "nexus")


@dataclass
class FifoState:
    """The registers of an elaborated :class:`HeadFifo` in flip-flops (what rtl/formal/invariants.py reads):
    the head and its valid bit; behind it (depth > 1) the occupancy thermometer, the one-hot read and write
    pointers, the head's next source and the buffer; the mux select's copy ``low`` (depth 4); the cleared
    top bits (``clear_top``)."""
    head: Value
    r_rdy: Value
    occ: Value | None = None
    rptr: Value | None = None
    wptr: Value | None = None
    src: Value | None = None
    buf: list | None = None
    low: Value | None = None
    top: Value | None = None


class HeadFifo(wiring.Component):
    def __init__(self, width: int, depth: int, *, memory: bool | str | None = False, clear_top: int = 0,
                 late: tuple[int, int] | None = None):
        if memory not in (False, True, None, "block"):
            raise CubenocError(f"FIFO memory must be False, True, None or 'block', got {memory!r}")
        self.width, self.depth = width, require_int(depth, "fifo depth", 1, 64)
        self.memory, self.clear_top, self.late = memory, clear_top, late   # clear_top: see clear_top() below
        super().__init__({"w_data": In(width), "w_en": In(1), "w_rdy": Out(1, init=1),
                          "r_data": Out(width), "r_en": In(1), "r_rdy": Out(1), "w_rdy2": Out(1)})

    def elaborate(self, platform):
        m = Module()
        B = self.depth - 1                                   # entries behind the head
        we, pop = Signal(), Signal()
        m.d.comb += [we.eq(self.w_en & self.w_rdy), pop.eq(self.r_en & self.r_rdy)]
        family = getattr(platform, "family", None)
        memory = self.memory if self.memory is not None else family in RAM_FAMILIES
        if memory and self.late and B:                       # the late bits in a ring, the others in a HeadFifo
            return self._split(m, we, pop, memory == "block" or family == "ice40")
        head = Signal(self.width, reset_less=True)           # no reset: r_data only counts when r_rdy
        m.d.comb += self.r_data.eq(head)
        self.state = FifoState(head, self.r_rdy)
        if B == 0:                                           # the head register alone (w_rdy2 stays 0)
            with m.If(we):
                m.d.sync += [head.eq(self.w_data), self.r_rdy.eq(1), self.w_rdy.eq(0)]
            with m.Elif(pop):
                m.d.sync += [self.r_rdy.eq(0), self.w_rdy.eq(1)]
            return clear_top(self, m, we, self.w_data, pop)
        occ = Signal(B)                                      # thermometer: bit k = more than k in the buffer
        rptr, wptr = Signal(B, init=1), Signal(B, init=1)    # one-hot: oldest entry, next free entry
        src = Signal(range(B + 1), init=B)                   # the head's next value: buffer[src], w_data if B
        nxt_src = Signal.like(src)
        self.state.occ, self.state.rptr, self.state.wptr, self.state.src = occ, rptr, wptr, src
        m.d.comb += self.w_rdy2.eq(~occ[B - 2] if B > 1 else ~self.r_rdy)   # the buffer holds <= B - 2

        def binary(onehot):
            return Cat(*[any_of(onehot[k] for k in range(B) if k >> b & 1) for b in range(len(src))])
        # a write goes into buffer[wptr] whenever it is taken; wptr only moves when the flit stays there
        # (not when it goes to the head): the storage's write enable does not wait for pop. With
        # ``clear_top`` (the pipelined router) the free entry is written whenever there is one, taken or not
        store = self.w_rdy if self.clear_top else we
        if memory and B > 1:
            mem = m.submodules.storage = Memory(shape=self.width, depth=B, init=[])
            wr, rd = mem.write_port(), mem.read_port(domain="comb")
            m.d.comb += [wr.addr.eq(binary(wptr)), wr.data.eq(self.w_data), wr.en.eq(store), rd.addr.eq(binary(rptr))]
            nxt_head = Mux(occ[0], rd.data, self.w_data)
        else:
            buf = self.state.buf = [Signal(self.width, name=f"buf_{k}", reset_less=True) for k in range(B)]
            for k in range(B):
                with m.If(store & wptr[k]):
                    m.d.sync += buf[k].eq(self.w_data)
            if B == 3:        # a 4:1 mux in two LUT4s per bit (not three): see mux4
                low = Signal()                               # ~src[1] (src starts at 3): a copy yosys cannot fold
                m.d.sync += low.eq(~nxt_src[1])
                self.state.low = low
                nxt_head = mux4(src, low, [*buf, self.w_data])
            elif B == 1:
                nxt_head = Mux(src[0], self.w_data, buf[0])
            else:
                nxt_head = Array([*buf, self.w_data])[src]
        with m.If(self._head_pops(pop) | ~self.r_rdy):     # the head takes its next value
            m.d.sync += head.eq(nxt_head)

        # the control state after the edge, worked out for pop = 0 and pop = 1 and chosen by pop last:
        # the grant -> pop path ends one LUT before each of these registers (docs/performance.md)
        def step(popping: bool) -> list:
            from_buf = occ[0] if popping else Const(0)
            to_buf = we & self.r_rdy & (occ[0] if popping else 1)
            nxt_r, nxt_w, nxt_occ = (Signal(B, name=f"{n}_{'pop' if popping else 'keep'}") for n in ("r", "w", "occ"))
            m.d.comb += [nxt_r.eq(Mux(from_buf, Cat(rptr[B - 1], rptr[:B - 1]), rptr)),
                         nxt_w.eq(Mux(to_buf, Cat(wptr[B - 1], wptr[:B - 1]), wptr)),
                         nxt_occ.eq(Mux(to_buf & ~from_buf, Cat(Const(1), occ[:B - 1]),
                                        Mux(from_buf & ~to_buf, Cat(occ[1:], Const(0)), occ)))]
            return [nxt_r, nxt_w, nxt_occ, Mux(nxt_occ[0], binary(nxt_r), Const(B, len(src))),
                    we | (occ[0] if popping else self.r_rdy)]
        nxt = [Mux(pop, if_pop, if_not) for if_pop, if_not in zip(step(True), step(False))]
        m.d.comb += [nxt_src.eq(nxt[3]),                                 # full: every buffer entry taken
                     self.w_rdy.eq(self._has_room(occ))]
        m.d.sync += [reg.eq(v) for reg, v in zip((rptr, wptr, occ, src, self.r_rdy), nxt)]
        return clear_top(self, m, (pop | ~self.r_rdy) & nxt[4], nxt_head, (pop | ~self.r_rdy) & ~nxt[4])

    # the two rules the seeded bugs of rtl/formal/mutations.py replace (docs/decisions/seeded-bugs.md)
    def _has_room(self, occ):
        """``w_rdy``: a free buffer entry (the thermometer's top bit clear)."""
        return ~occ[-1]

    def _head_pops(self, pop):
        """The head takes the next flit on a pop (or while it is empty)."""
        return pop

    def _split(self, m, we, pop, block):
        lo, hi, D = *self.late, self.depth
        early = m.submodules.early = HeadFifo(self.width - (hi - lo), D, memory=True, clear_top=self.clear_top)
        ring = m.submodules.late = Memory(shape=hi - lo, depth=D, init=[], attrs={"ram_style": "block"} if block else None)
        wr = ring.write_port()
        rd = ring.read_port(domain="sync", transparent_for=(wr,)) if block else ring.read_port(domain="comb")
        r_at = Signal(range(D), name="r_at") if block else rd.addr   # distributed RAM: read at the head as it is
        step = lambda ptr: Mux(ptr == D - 1, 0, ptr + 1)
        for ptr, en in ((wr.addr, we), (r_at, pop)):                  # the counters of writes and pops
            with m.If(en):
                m.d.sync += ptr.eq(step(ptr))
        if block:                                     # block RAM reads at the edge: at the next head's address
            m.d.comb += rd.addr.eq(Mux(pop, step(r_at), r_at))
        d = self.w_data
        m.d.comb += [wr.data.eq(d[lo:hi]), wr.en.eq(we), early.w_data.eq(Cat(d[:lo], d[hi:])), early.w_en.eq(self.w_en),
                     early.r_en.eq(self.r_en), self.r_data.eq(Cat(early.r_data[:lo], rd.data, early.r_data[lo:])),
                     *[getattr(self, n).eq(getattr(early, n)) for n in ("w_rdy", "r_rdy", "w_rdy2")]]
        return m


def mux4(sel, low, v):
    """``v[sel]`` for a 2-bit ``sel`` (``low`` = ~sel[1]) in two LUT4s per bit: ``a`` is ``v[sel[0]]`` when
    ``low``, else sel[0] itself, which then picks ``v[3]`` or ``v[2]``. With sel[1] in both LUTs yosys folds
    the nested mux back into a three-LUT tree; the separate register ``low`` keeps the two apart."""
    a = Mux(low, Mux(sel[0], v[1], v[0]), sel[0].replicate(len(v[0])))
    return Mux(sel[1], (a & v[3]) | (~a & v[2]), a)


def clear_top(fifo, m, load, value, clear):
    """``fifo.clear_top`` bits: a register with a reset beside the head (the pipelined router's ``want``
    bits: docs/router.md "Pipelined router"), loaded with the head, 0 whenever the FIFO is empty. With
    ``clear_top`` the FIFO also writes its storage on ``w_rdy`` alone (the free entry at ``wptr`` in every
    cycle it is not full; ``we`` only moves the pointers): the write enable does not wait for ``w_en``.
    Neither changes the cycle behaviour."""
    if fifo.clear_top:
        k, top = fifo.clear_top, Signal(fifo.clear_top, name="head_top")
        if hasattr(fifo, "state"):
            fifo.state.top = top
        m.d.comb += fifo.r_data[-k:].eq(top)
        m.d.sync += top.eq(Mux(load, value[-k:], Mux(clear, 0, top)))
    return m
