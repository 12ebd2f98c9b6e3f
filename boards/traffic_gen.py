"""On-chip traffic for the board demos: LFSR packet generators and checkers at every local port.

Packet format (``L`` flits, ``4 <= L <= 15``; every word is W bits; the low 16 bits carry the field,
the upper ``W-16`` bits of every non-tail word are the complement of the low 16 bits, repeated, so
that every data wire toggles):

====  ==============================================================================
flit  low 16 bits
====  ==============================================================================
0     head: destination node (``data[0:16]``, docs/router.md "Local flit")
1     ``src[0:8] | seq[8:12] | L[12:16]`` (source node, per-destination sequence number)
2     timestamp: the generator's 16-bit cycle counter when the head is first offered
3..   padding ``src[0:8] | idx[8:12] | seq[12:16]``
L-1   tail: XOR of all previous W-bit words, XOR :data:`CHECK_SALT` (all W bits)
====  ==============================================================================

A :class:`TrafficGenerator` steps a 32-bit Galois LFSR every cycle; when idle and ``lfsr[24:32] <
rate`` it starts a packet to destination ``lfsr[0:16] mod N``, of length ``4 + lfsr[16:16+b]``, with the
next sequence number for that destination (a per-destination 4-bit counter in a small memory).
With ``count_packets`` the generator counts its packets in ``sent``. A :class:`TrafficChecker` accepts
everything ejected at its node and checks the destination, the
source range, the per-source sequence (exactly the expected number: a lost, duplicated or reordered
packet is an error), every word, the check word and the flit count; it counts received packets and
errors and reports the latency ``now - timestamp`` (cycles from the head being offered to the tail being
ejected; zero-load ``h + L`` for h hops, docs/router.md) of every good packet.

:func:`packet_words` is the same format in Python (tests use it).
"""
from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from cubenoc.errors import CubenocError, require_int

from ..rtl.flit import check_payload_width, local_signature

TIME_WIDTH = 16
SEQ_WIDTH = 4
SRC_WIDTH = 8            # source ids up to 255 in flit 1 (the demos use at most 64 nodes)
MIN_LENGTH = 4
MAX_LENGTH = 15
LFSR_TAPS = 0x80200003   # x^32 + x^22 + x^2 + x + 1 (maximal length), Galois form

#: error kinds (bits of ``TrafficChecker.error_kinds``, sticky)
ERROR_KINDS = ("dest", "source", "sequence", "length", "word", "check", "framing")


def check_salt(width: int) -> int:
    return int("a5" * ((width + 7) // 8), 16) & ((1 << width) - 1)


def _upper_py(low: int, width: int) -> int:
    comp = (~low) & 0xFFFF
    reps = (width - 16 + 15) // 16
    up = 0
    for i in range(reps):
        up |= comp << (16 * i)
    return up & ((1 << (width - 16)) - 1)


def packet_words(src: int, dst: int, seq: int, length: int, timestamp: int, width: int = 32) -> list[int]:
    """The data words of one packet, exactly as :class:`TrafficGenerator` sends them."""
    check_payload_width(width)
    require_int(length, "packet length", MIN_LENGTH, MAX_LENGTH)
    lows = [dst & 0xFFFF, (src & 0xFF) | (seq & 0xF) << 8 | length << 12, timestamp & 0xFFFF]
    lows += [(src & 0xFF) | (i & 0xF) << 8 | (seq & 0xF) << 12 for i in range(3, length - 1)]
    words = [low | _upper_py(low, width) << 16 for low in lows]
    check = check_salt(width)
    for w in words:
        check ^= w
    return words + [check]


def lfsr_next(state: int) -> int:
    """One step of the 32-bit Galois LFSR (Python twin of the gates)."""
    return (state >> 1) ^ (LFSR_TAPS if state & 1 else 0)


def _upper(low, width: int):
    if width == 16:
        return Const(0, 0)
    comp = ~low
    reps = (width - 16 + 15) // 16
    return Cat(*([comp] * reps))[:width - 16]


def _bits_for(n: int) -> int:
    return max(1, (n - 1).bit_length())


class TrafficGenerator(wiring.Component):
    """Sends packets of the format above from node ``node`` into its ``local_in`` (the ``out`` stream)."""

    def __init__(self, node: int, num_nodes: int, *, payload_width: int = 32, rate: int = 64,
                 seed: int | None = None, max_length: int = 7, count_packets: bool = True):
        self.node = require_int(node, "node", 0, num_nodes - 1)
        self.count_packets = count_packets
        self.num_nodes = require_int(num_nodes, "number of nodes", 1, 1 << SRC_WIDTH)
        self.width = check_payload_width(payload_width)
        self.rate = require_int(rate, "injection rate (packets started per 256 idle cycles)", 0, 256)
        self.max_length = require_int(max_length, "maximum packet length", MIN_LENGTH, MAX_LENGTH)
        if (self.max_length - MIN_LENGTH + 1) & (self.max_length - MIN_LENGTH) != 0:
            raise CubenocError(f"maximum packet length must be 4 + 2**b - 1 (4, 5, 7, 11), got {max_length}")
        self.seed = (seed if seed is not None else 0x1234567 * (node + 1) + 0x9E3779B9) & 0xFFFFFFFF or 1
        super().__init__({"out": Out(local_signature(payload_width)), "now": In(TIME_WIDTH),
                          "enable": In(1, init=1), "sent": Out(32), "done": Out(1)})

    def elaborate(self, platform):
        m = Module()
        W, N = self.width, self.num_nodes
        lfsr = Signal(32, init=self.seed)
        m.d.sync += lfsr.eq((lfsr >> 1) ^ Mux(lfsr[0], LFSR_TAPS, 0))

        seqs = m.submodules.seqs = Memory(shape=SEQ_WIDTH, depth=N, init=[])
        rd = seqs.read_port(domain="comb")
        wr = seqs.write_port()

        busy = Signal()
        dest, length, seq, ts = Signal(16), Signal(4), Signal(SEQ_WIDTH), Signal(TIME_WIDTH)
        idx, xacc = Signal(4), Signal(W)

        # destination lfsr[0:16] mod N (N <= 256: one conditional subtraction per power of two)
        cand = Signal(16)
        db = _bits_for(N)
        raw = lfsr[0:db]
        m.d.comb += cand.eq(Mux(raw >= N, raw - N, raw) if (1 << db) != N else raw)
        lb = (self.max_length - MIN_LENGTH).bit_length()
        m.d.comb += rd.addr.eq(cand)

        start = ~busy & self.enable & (lfsr[24:32] < self.rate)
        with m.If(start):
            m.d.sync += [busy.eq(1), dest.eq(cand), seq.eq(rd.data), idx.eq(0),
                         length.eq(MIN_LENGTH + (lfsr[16:16 + lb] if lb else 0)),
                         ts.eq(self.now + 1), xacc.eq(0)]      # the head is offered in the next cycle

        is_tail = idx == length - 1
        low = Signal(16)
        with m.Switch(idx):
            with m.Case(0):
                m.d.comb += low.eq(dest)
            with m.Case(1):
                m.d.comb += low.eq(Cat(Const(self.node, SRC_WIDTH), seq, length))
            with m.Case(2):
                m.d.comb += low.eq(ts)
            with m.Default():
                m.d.comb += low.eq(Cat(Const(self.node, SRC_WIDTH), idx, seq))
        word = Cat(low, _upper(low, W))
        m.d.comb += [self.out.valid.eq(busy), self.out.payload.head.eq(idx == 0),
                     self.out.payload.tail.eq(is_tail),
                     self.out.payload.data.eq(Mux(is_tail, xacc ^ check_salt(W), word))]

        fire = self.out.valid & self.out.ready
        with m.If(fire):
            m.d.sync += [xacc.eq(xacc ^ word), idx.eq(idx + 1)]
            with m.If(is_tail):
                m.d.sync += busy.eq(0)
                if self.count_packets:
                    m.d.sync += self.sent.eq(self.sent + 1)
                m.d.comb += [wr.addr.eq(dest), wr.data.eq(seq + 1), wr.en.eq(1)]
        m.d.comb += self.done.eq(fire & is_tail)
        return m


class TrafficChecker(wiring.Component):
    """Checks every packet ejected at node ``node`` (the ``inp`` stream, from ``local_out``).

    ``received`` counts packets (tails), ``errors`` bad packets and stray flits (both only with
    ``count_packets``; the board demos count network-wide totals from the pulses instead); ``done`` pulses
    (two cycles after its tail: the flit is registered, then checked, then the result registered) for a
    good packet with its ``latency``; ``error`` pulses likewise for each error; ``error_kinds`` is a sticky
    mask over :data:`ERROR_KINDS`. ``stall_rate`` (0..256) de-asserts ``ready`` pseudo-randomly
    (``stall_rate`` in 256 cycles) to exercise backpressure.
    """

    def __init__(self, node: int, num_nodes: int, *, payload_width: int = 32, stall_rate: int = 0,
                 seed: int | None = None, count_packets: bool = True):
        self.node = require_int(node, "node", 0, num_nodes - 1)
        self.count_packets = count_packets
        self.num_nodes = require_int(num_nodes, "number of nodes", 1, 1 << SRC_WIDTH)
        self.width = check_payload_width(payload_width)
        self.stall_rate = require_int(stall_rate, "stall rate", 0, 255)
        self.seed = (seed if seed is not None else 0x7654321 * (node + 3) + 0x6A09E667) & 0xFFFFFFFF or 1
        super().__init__({"inp": In(local_signature(payload_width)), "now": In(TIME_WIDTH),
                          "received": Out(32), "errors": Out(16), "done": Out(1), "error": Out(1),
                          "latency": Out(TIME_WIDTH), "error_kinds": Out(len(ERROR_KINDS))})

    def elaborate(self, platform):
        m = Module()
        W, N = self.width, self.num_nodes
        expect = m.submodules.expect = Memory(shape=SEQ_WIDTH, depth=N, init=[])
        rd = expect.read_port(domain="comb")
        wr = expect.write_port()

        self._backpressure(m)

        in_pkt, bad = Signal(), Signal()
        idx, length, ts = Signal(4), Signal(4), Signal(TIME_WIDTH)
        src, seq, xacc = Signal(SRC_WIDTH), Signal(SEQ_WIDTH), Signal(W)
        kinds = Signal(len(ERROR_KINDS))
        K = {name: 1 << i for i, name in enumerate(ERROR_KINDS)}

        # every accepted flit is registered first and checked in the next cycle: the checks never sit
        # on the network's ejection path (ready never depends on them)
        flit = Signal.like(self.inp.payload)
        fire = Signal()
        m.d.sync += [fire.eq(self.inp.valid & self.inp.ready), flit.eq(self.inp.payload)]
        low, up = flit.data[0:16], flit.data[16:W]
        up_ok = (up == _upper(low, W)) if W > 16 else Const(1)
        f_src, f_seq, f_len = low[0:8], low[8:12], low[12:16]
        m.d.comb += rd.addr.eq(f_src)

        fault = Signal(len(ERROR_KINDS))      # kinds found on this flit
        pkt_err = Signal()                    # this flit ends a packet with an error
        good = Signal()

        with m.If(fire):
            with m.If(flit.head):
                m.d.comb += fault.eq(Mux(low != self.node, K["dest"], 0) | Mux(up_ok, 0, K["word"])
                                     | Mux(in_pkt, K["framing"], 0))
                # an open packet that never got its tail, or a one-flit packet (too short): an error
                m.d.comb += pkt_err.eq(in_pkt | flit.tail)
                m.d.sync += [in_pkt.eq(~flit.tail), idx.eq(1), xacc.eq(flit.data), bad.eq(fault != 0)]
                with m.If(flit.tail):
                    m.d.comb += fault.eq(K["length"] | Mux(low != self.node, K["dest"], 0))
                    m.d.sync += bad.eq(0)
            with m.Elif(~in_pkt):
                m.d.comb += [fault.eq(K["framing"]), pkt_err.eq(1)]
            with m.Else():
                with m.If(flit.tail):
                    m.d.comb += fault.eq(Mux((idx < 3) | (idx != length - 1), K["length"], 0)
                                         | Mux(flit.data != (xacc ^ check_salt(W)), K["check"], 0))
                    m.d.comb += [pkt_err.eq(bad | (fault != 0)), good.eq(~bad & (fault == 0))]
                    m.d.sync += [in_pkt.eq(0), bad.eq(0)]
                    with m.If(idx >= 2):                  # src/seq are known: resynchronise
                        m.d.comb += [wr.addr.eq(src), wr.data.eq(seq + 1), wr.en.eq(src < N)]
                with m.Else():
                    with m.Switch(idx):
                        with m.Case(1):
                            m.d.comb += fault.eq(Mux(f_src >= N, K["source"], 0)
                                                 | Mux((f_src < N) & (f_seq != rd.data), K["sequence"], 0)
                                                 | Mux(f_len < MIN_LENGTH, K["length"], 0)
                                                 | Mux(up_ok, 0, K["word"]))
                            m.d.sync += [src.eq(f_src), seq.eq(f_seq), length.eq(f_len)]
                        with m.Case(2):
                            m.d.comb += fault.eq(Mux(up_ok, 0, K["word"]))
                            m.d.sync += ts.eq(low)
                        with m.Default():
                            pad = Cat(src, idx, seq)
                            m.d.comb += fault.eq(Mux(up_ok & (low == pad), 0, K["word"])
                                                 | Mux(idx >= length - 1, K["length"], 0))
                    m.d.sync += [xacc.eq(xacc ^ flit.data), idx.eq(Mux(idx == 15, 15, idx + 1)),
                                 bad.eq(bad | (fault != 0))]

        m.d.sync += kinds.eq(kinds | fault)
        # the result pulses are registered (one cycle after the tail): no path from the network's
        # crossbar through the checks into the demo's totals
        m.d.comb += self.error_kinds.eq(kinds)
        # latency: the tail was ejected in the cycle before this one
        m.d.sync += [self.error.eq(pkt_err), self.done.eq(good), self.latency.eq(self.now - 1 - ts)]
        if self.count_packets:
            with m.If(fire & flit.tail & (in_pkt | flit.head)):
                m.d.sync += self.received.eq(self.received + 1)
            with m.If(pkt_err):
                m.d.sync += self.errors.eq(self.errors + 1)
        return m

    def _backpressure(self, m) -> None:
        """``ready``: always, or de-asserted ``stall_rate`` cycles in 256 by a 32-bit LFSR."""
        if self.stall_rate:
            lfsr = Signal(32, init=self.seed)
            m.d.sync += lfsr.eq((lfsr >> 1) ^ Mux(lfsr[0], LFSR_TAPS, 0))
            m.d.comb += self.inp.ready.eq(lfsr[24:32] >= self.stall_rate)
        else:
            m.d.comb += self.inp.ready.eq(1)
