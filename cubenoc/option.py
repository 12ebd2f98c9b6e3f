"""One option's record (:class:`Option`) and the router's options: each flag that sets a field of
:class:`~cubenoc.sim.router_config.RouterConfig`, with its spec key (sim/router_config.py ``SPEC_KEYS`` is
made from :data:`ROUTER_OPTIONS`). A leaf module: the option registry (cubenoc/options.py) and the router
configuration both read it."""
from __future__ import annotations

from dataclasses import dataclass

#: word lists shared with sim/router_config.py
QUEUES = ("fifo", "voq")
ARBITRATIONS = ("round-robin", "fair")
INTERFACES = ("native", "axis")
COUNTERS = ("on", "off", "dsp")
SYNTH_GOALS = ("speed", "balanced", "area")
FORMATS = ("md", "json", "csv")


@dataclass(frozen=True)
class Option:
    """One option. ``kind``: a type (``int``, ``float``, ``str`` or a parsing function), ``"flag"`` (present or
    not), ``"bool"`` (``--x`` / ``--no-x``) or a tuple of the legal words."""

    name: str                       # the long flag without its dashes
    help: str
    kind: object = str
    default: object = None
    metavar: str | None = None
    table: str | None = None        # the config file table that may set it ([router], [traffic], [run], [output])
    spec: str | None = None         # the network spec key that sets the same router field
    field: str | None = None        # that RouterConfig field
    aliases: tuple = ()             # old spellings, still read
    also: tuple = ()                # (flag, value) pairs that stand for a value: --no-counters = --counters off
    short: str | None = None        # a one-letter spelling (-o)

    @property
    def dest(self) -> str:
        return self.name.replace("-", "_")

    @property
    def flag(self) -> str:
        return "--" + self.name


def _router(name, kind, help, field, **kw):
    return Option(name, help, kind, table="router", spec=name.replace("-", "_"), field=field, **kw)


#: the router options, in the order the help lists them
ROUTER_OPTIONS: tuple[Option, ...] = (
    _router("payload", int, "payload width W in bits, 16..1024 (default 32)", "payload_width"),
    _router("depth", int, "input FIFO depth in flits (default 4)", "fifo_depth", aliases=("fifo-depth",)),
    _router("queues", QUEUES, "one FIFO per input (per VC; default) or per-output queues chosen by lookahead "
            "routing (docs/router.md, VOQ)", "queues"),
    _router("pipeline", "flag", "the pipelined router: two registered stages per hop, 2 cycles/hop, for clock "
            "speed (docs/router.md)", "pipeline"),
    _router("broadcast", "flag", "routers fork broadcasts (dest 0xFFFF): Algorithm B/D (hypercube/enhanced), "
            "Algorithm 3 (pdn); not metacube, whose broadcast needs VCs (docs/router.md)", "broadcast"),
    _router("faults", "flag", "link_fault/node_fault inputs and discarded counters (run-time faults); always on "
            "with a run-time selection", "faults"),
    _router("arbitration", ARBITRATIONS, "output arbiters: round-robin (default) or fair (weighted by the sources "
            "behind each input; docs/router.md \"Arbitration\")", "arbitration"),
    _router("fifo-memory", "bool", "FIFO storage behind the head register as memory arrays, which FPGA tools map "
            "to distributed RAM (docs/router.md \"Input FIFO\")", "fifo_memory"),
    _router("counters", COUNTERS, "the four 16-bit status counters: in flip-flops (on), not built (off: the "
            "status outputs read 0) or in the iCE40's DSP blocks (dsp)", "counters",
            also=(("no-counters", "off"), ("dsp-counters", "dsp"))),
    _router("loopback", "bool", "the local->local turn; without it a packet addressed to its own node is "
            "dropped at its source and counted in dropped (docs/router.md \"Loopback\")", "loopback"),
    _router("interface", INTERFACES, "the per-node ports: native flit streams or AXI4-Stream with a network "
            "interface per node (docs/ip.md)", "interface"),
)
