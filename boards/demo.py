"""The on-board traffic demo: a network, a generator and a checker at every local port, LEDs and UART.

:class:`TrafficSystem` (no I/O pins; what the simulation test runs) holds the network of
:class:`cubenoc.rtl.network_top.Network`, one :class:`~cubenoc.boards.traffic_gen.TrafficGenerator` feeding each
``local_in`` and one :class:`~cubenoc.boards.traffic_gen.TrafficChecker` draining each ``local_out``, a
16-bit free-running cycle counter (the timestamps), and network-wide totals: ``sent``, ``received``,
``errors`` (since reset; ``enable`` low stops the generators starting packets, so that the network
drains) and a latency window (``lat_sum``/``lat_count`` of good packets since the
last ``clear_window``).

:class:`DemoTop` adds, for a board: a heartbeat LED (about 1 Hz), a traffic LED (lit while packets
arrive), an error LED (lit from the first error on), and once a second a UART line at 115200 baud::

    cubenoc EnhancedHypercube(n=2, k=0) W=16: sent 1234567 recv 1234563 err 0 lat 9.4

(packets sent and received since reset, bad packets, mean latency in cycles over the last second).
With ``safety=True`` (hypercube demos) a :class:`~cubenoc.boards.safety_demo.SafetyPanel` sits beside the
network: button inputs ``btn_select``/``btn_toggle``/``btn_clear`` inject node faults, ``level`` and
``selected_faulty`` drive LEDs, and the line goes on with `` sel 2 faults 0110 sl 1001`` (the selected
node, the fault bit and the SL(1) level of every node, node 0 first).
"""
from __future__ import annotations

from amaranth import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import Out

from cubenoc.errors import CubenocError, require_int

from ..rtl.network_top import Network
from ..sim.topology import Hypercube
from .traffic_gen import TIME_WIDTH, TrafficChecker, TrafficGenerator
from .uart import LineReporter, UartTx

LAT_SUM_WIDTH = 40


def _tree_sum(values):
    values = list(values)
    if not values:
        return 0
    while len(values) > 1:
        values = [values[i] + values[i + 1] if i + 1 < len(values) else values[i]
                  for i in range(0, len(values), 2)]
    return values[0]


class TrafficSystem(wiring.Component):
    def __init__(self, plan, *, rate: int = 64, max_length: int = 7, stall_rate: int = 0,
                 count_packets: bool = True):
        """``plan``: the network and its routers (the board demos' have W = 16); ``count_packets``: each
        generator and checker counts its packets (the board demos count network-wide totals instead)."""
        topology, config = plan.topology, plan.config
        self.topology, self.routing = topology, plan.routing
        self.payload_width = payload_width = config.payload_width
        self.fifo_depth = config.fifo_depth
        self.network = Network(plan)
        N = topology.num_nodes
        self.generators = [TrafficGenerator(v, N, payload_width=payload_width, rate=rate, max_length=max_length,
                                            count_packets=count_packets)
                           for v in range(N)]
        self.checkers = [TrafficChecker(v, N, payload_width=payload_width, stall_rate=stall_rate,
                                        count_packets=count_packets)
                         for v in range(N)]
        super().__init__({"sent": Out(32), "received": Out(32), "errors": Out(32),
                          "lat_sum": Out(LAT_SUM_WIDTH), "lat_count": Out(32), "clear_window": wiring.In(1),
                          "enable": wiring.In(1, init=1),
                          "error_kinds": Out(8), "activity": Out(1), "now": Out(TIME_WIDTH)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.network = net = self.network
        m.d.sync += self.now.eq(self.now + 1)
        for v, (gen, chk) in enumerate(zip(self.generators, self.checkers)):
            m.submodules[f"gen{v}"] = gen
            m.submodules[f"chk{v}"] = chk
            wiring.connect(m, gen.out, net.local_in[v])
            wiring.connect(m, net.local_out[v], chk.inp)
            m.d.comb += [gen.now.eq(self.now), chk.now.eq(self.now), gen.enable.eq(self.enable)]

        # network-wide totals: add this cycle's events (popcounts and a tree of latencies)
        done = [chk.done for chk in self.checkers]
        m.d.sync += [self.sent.eq(self.sent + _tree_sum(g.done for g in self.generators)),
                     self.received.eq(self.received + _tree_sum(done)),
                     self.errors.eq(self.errors + _tree_sum(c.error for c in self.checkers))]
        kinds = 0
        for chk in self.checkers:
            kinds = kinds | chk.error_kinds
        m.d.comb += [self.error_kinds.eq(kinds), self.activity.eq(Mux(sum(done) != 0, 1, 0))]
        lat_now, cnt_now = Signal(TIME_WIDTH + 8), Signal(16)      # one pipeline stage after the tree
        m.d.sync += [lat_now.eq(_tree_sum(Mux(c.done, c.latency, 0) for c in self.checkers)),
                     cnt_now.eq(_tree_sum(done))]
        with m.If(self.clear_window):
            m.d.sync += [self.lat_sum.eq(lat_now), self.lat_count.eq(cnt_now)]
        with m.Else():
            m.d.sync += [self.lat_sum.eq(self.lat_sum + lat_now), self.lat_count.eq(self.lat_count + cnt_now)]
        return m


class MeanTenths(wiring.Component):
    """Restoring divider: ``quotient = (10 * dividend) // divisor`` (0 if the divisor is 0), in
    ``10 * dividend``'s bit count of cycles after ``start``."""

    def __init__(self, dividend_width: int = LAT_SUM_WIDTH, divisor_width: int = 32):
        self.nw, self.dw = dividend_width + 4, divisor_width
        super().__init__({"dividend": wiring.In(dividend_width), "divisor": wiring.In(divisor_width),
                          "start": wiring.In(1), "quotient": Out(32), "done": Out(1, init=1)})

    def elaborate(self, platform):
        m = Module()
        num, den = Signal(self.nw), Signal(self.dw)
        rem = Signal(self.dw + 1)
        quo = Signal(self.nw)
        step = Signal(range(self.nw + 1))
        with m.If(self.start):
            m.d.sync += [num.eq((self.dividend << 3) + (self.dividend << 1)), den.eq(self.divisor),
                         rem.eq(0), quo.eq(0), step.eq(self.nw), self.done.eq(0)]
        with m.Elif(step != 0):
            trial = Signal(self.dw + 2)
            m.d.comb += trial.eq((rem << 1) | num[-1])
            fits = trial >= den
            m.d.sync += [num.eq(num << 1), step.eq(step - 1),
                         rem.eq(Mux(fits, trial - den, trial)), quo.eq((quo << 1) | fits)]
        with m.Elif(~self.done):
            sat = quo >= (1 << 32)
            m.d.sync += [self.done.eq(1),
                         self.quotient.eq(Mux(den == 0, 0, Mux(sat, (1 << 32) - 1, quo)))]
        return m


class DemoTop(wiring.Component):
    """Board-independent demo logic: :class:`TrafficSystem`, status and a periodic UART line.

    ``clk_freq`` (Hz) sets the heartbeat, the report period (``report_period`` seconds) and the UART
    divisor for ``baud``. Outputs: ``heartbeat``, ``traffic``, ``error`` (LED levels, active high),
    ``blink`` (all three on one LED: blinks at 1 Hz while packets arrive, at 4 Hz from the first error on,
    steady on when the network stalls) and ``tx`` (UART line)."""

    def __new__(cls, plan, *args, safety: bool = False, **kwargs):
        if safety:
            safety_dimension(plan.topology)      # refused before the object exists: no "never used" warning
        return super().__new__(cls, src_loc_at=1)

    def __init__(self, plan, *, clk_freq: float, rate: int = 64, baud: int = 115200, report_period: float = 1.0,
                 safety: bool = False, debounce_cycles: int | None = None):
        topology = plan.topology
        n_safety = safety_dimension(topology) if safety else None
        self.system = TrafficSystem(plan, rate=rate, count_packets=False)   # network-wide totals only (area)
        payload_width = self.system.payload_width
        self.clk_freq = float(clk_freq)
        self.divisor = require_int(round(self.clk_freq / baud), "UART divisor", 2, 1 << 20)
        self.report_cycles = max(1000, int(self.clk_freq * report_period))
        self.panel = None
        members = {"heartbeat": Out(1), "traffic": Out(1), "error": Out(1), "blink": Out(1), "tx": Out(1, init=1)}
        program = [f"cubenoc {topology!r} W={payload_width}: sent ", ("sent", False), " recv ", ("received", False),
                   " err ", ("errors", False), " lat ", ("latency", True)]
        if safety:      # fault-injection buttons and SL(1) levels (boards/safety_demo.py)
            from .safety_demo import BUTTONS, SafetyPanel, digits_program
            self.panel = SafetyPanel(n_safety, debounce_cycles=debounce_cycles or max(1, int(self.clk_freq // 1000) * 5))
            members.update({f"btn_{b}": wiring.In(1) for b in BUTTONS})
            members.update({"level": Out(self.panel.width), "selected_faulty": Out(1)})
            program += digits_program(self.panel)
        self.reporter = LineReporter(program + ["\r\n"])
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        m.submodules.system = sysm = self.system
        m.submodules.reporter = rep = self.reporter
        m.submodules.uart = uart = UartTx(self.divisor)
        m.submodules.mean = mean = MeanTenths()
        wiring.connect(m, rep.out, uart.data)
        m.d.comb += self.tx.eq(uart.tx)

        # heartbeat: toggles every half second
        half = max(1, int(self.clk_freq // 2))
        beat = Signal(range(half))
        with m.If(beat == half - 1):
            m.d.sync += [beat.eq(0), self.heartbeat.eq(~self.heartbeat)]
        with m.Else():
            m.d.sync += beat.eq(beat + 1)

        # traffic: lit for ~50 ms after any good packet; error: from the first error on
        hold = max(1, int(self.clk_freq // 20))
        stretch = Signal(range(hold + 1))
        with m.If(sysm.activity):
            m.d.sync += stretch.eq(hold)
        with m.Elif(stretch != 0):
            m.d.sync += stretch.eq(stretch - 1)
        m.d.comb += [self.traffic.eq(stretch != 0), self.error.eq(sysm.errors != 0)]
        # one LED: 4 Hz after an error, the 1 Hz heartbeat while packets arrive, steady on when stalled
        fast = Signal()
        with m.If((beat == half - 1) | (beat == half // 4) | (beat == half // 2) | (beat == 3 * half // 4)):
            m.d.sync += fast.eq(~fast)
        m.d.comb += self.blink.eq(Mux(self.error, fast, Mux(self.traffic, self.heartbeat, 1)))

        # once per report period: snapshot, start the divider, print a line
        tick = Signal(range(self.report_cycles))
        snap_sent, snap_recv, snap_err = Signal(32), Signal(32), Signal(32)
        fire = tick == self.report_cycles - 1
        m.d.sync += tick.eq(Mux(fire, 0, tick + 1))
        m.d.comb += [sysm.clear_window.eq(fire & ~rep.busy), mean.dividend.eq(sysm.lat_sum),
                     mean.divisor.eq(sysm.lat_count), mean.start.eq(fire & ~rep.busy)]
        with m.If(fire & ~rep.busy):
            m.d.sync += [snap_sent.eq(sysm.sent), snap_recv.eq(sysm.received), snap_err.eq(sysm.errors)]
        # the divider (44 cycles) is done long before the first characters are out
        started = Signal()
        m.d.sync += started.eq(fire & ~rep.busy)
        m.d.comb += [rep.start.eq(started), rep.values.sent.eq(snap_sent), rep.values.received.eq(snap_recv),
                     rep.values.errors.eq(snap_err), rep.values.latency.eq(mean.quotient)]
        if self.panel is not None:
            from .safety_demo import BUTTONS, digit_values
            m.submodules.panel = panel = self.panel
            m.d.comb += [getattr(panel, f"btn_{b}").eq(getattr(self, f"btn_{b}")) for b in BUTTONS]
            m.d.comb += [self.level.eq(panel.level), self.selected_faulty.eq(panel.selected_faulty)]
            snap_f, snap_l = Signal.like(panel.faults), Signal.like(panel.levels)
            snap_s = Signal.like(panel.selected)
            with m.If(fire & ~rep.busy):
                m.d.sync += [snap_f.eq(panel.faults), snap_l.eq(panel.levels), snap_s.eq(panel.selected)]
            for name, value in digit_values(panel, snap_f, snap_l, snap_s).items():
                m.d.comb += getattr(rep.values, name).eq(value)
        return m


def safety_dimension(topology) -> int:
    """n of an n-cube demo network (Wu's safety levels are defined on hypercubes)."""
    if type(topology) is not Hypercube or topology.n < 2:
        raise CubenocError(f"--safety needs a hypercube network (Wu's safety levels are defined on "
                           f"the n-cube), got {topology!r}; use --family hypercube --n N (N >= 2)")
    return topology.n
