"""Every router option in one place: :class:`RouterConfig`, the table of options that do not combine
(:data:`NOT_BUILT`), the spec keys and flags that set each field, and each FPGA target's default
(:data:`TARGETS`).

A config is validated where it is made (``RouterConfig(...)``: each field's range, then every pair of
options against :data:`NOT_BUILT`); what also depends on the routing function (a run-time selection counts
as adaptive, per-output queues and the pipelined router and broadcast need one VC) is
:meth:`RouterConfig.check`, called once by the network plan (:mod:`cubenoc.sim.network_plan`). The router (RTL),
the model, the cocotb benches, the formal harness and every command take a config, never the options as
keyword arguments.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, fields, replace

from cubenoc.errors import CubenocError, require_int
from cubenoc.option import ARBITRATIONS, INTERFACES, QUEUES, ROUTER_OPTIONS  # the words, with the options

from .broadcast.fork import broadcast_algorithm_for
from .broadcast.metacube import router_broadcast_refusal
from .model.word import DEST_WIDTH, MAX_PAYLOAD
from .routing.base import is_adaptive
from .topology.metacube import Metacube

#: FIFO storage behind the head register: flip-flops, memory arrays (distributed RAM), the platform's pick
#: (memory on a Lattice family with distributed RAM, rtl/router/fifo.py), iCE40 block RAM
FIFO_MEMORIES = (False, True, None, "block")
#: the four 16-bit status counters: in flip-flops, not built (they read 0), in the iCE40's SB_MAC16 blocks
COUNTER_KINDS = (True, False, "dsp")
#: INTERFACES, the network's per-node ports: the router's local flit streams, or AXI4-Stream (docs/ip.md: a
#: network interface per node frames each AXI4-Stream frame as one packet, tdest the destination, tid the source)


@dataclass(frozen=True)
class RouterConfig:
    """The options of one router (docs/router.md); every router of a network shares one config."""

    payload_width: int = 32          # W, data bits of a flit (>= 16: a head carries the 16-bit destination)
    fifo_depth: int = 4              # flits per input FIFO (per VC)
    faults: bool = False             # link_fault/node_fault inputs, discarded counter (adaptive route stage)
    broadcast: object = False        # False, True (the family's algorithm) or a BroadcastAlgorithm
    queues: str = "fifo"             # one FIFO per input (per VC), or per-output queues ("voq")
    arbitration: str = "round-robin"  # or "fair" (weighted by the sources behind each input)
    pipeline: bool = False           # two registered stages per hop
    counters: bool | str = True      # COUNTER_KINDS
    fifo_memory: bool | str | None = False   # FIFO_MEMORIES
    loopback: bool = True            # the local -> local turn (False: a packet to its own node is dropped)
    interface: str = "native"        # INTERFACES: the top's per-node ports (rtl/axis_ni.py)

    def __post_init__(self):
        if isinstance(self.payload_width, bool) or not isinstance(self.payload_width, int) or \
                not DEST_WIDTH <= self.payload_width <= MAX_PAYLOAD:
            raise CubenocError(f"payload width must be an integer of at least {DEST_WIDTH} and at most {MAX_PAYLOAD} "
                               f"bits (the destination travels in data[0:{DEST_WIDTH}]), got {self.payload_width!r}")
        require_int(self.fifo_depth, "fifo depth", 1, 64)
        for name in ("faults", "pipeline", "loopback"):
            if not isinstance(getattr(self, name), bool):
                raise CubenocError(f"{name} must be True or False, got {getattr(self, name)!r}")
        _one_of("queues", self.queues, QUEUES)
        _one_of("arbitration", self.arbitration, ARBITRATIONS)
        _one_of("interface", self.interface, INTERFACES)
        if self.interface == "axis" and self.payload_width % 8:
            raise CubenocError(f"the AXI4-Stream interface carries whole bytes in tdata: payload width must be a "
                               f"multiple of 8, got {self.payload_width}")
        if self.interface == "axis" and self.broadcast and self.fifo_depth < 2:
            raise CubenocError("a broadcast packet fits one FIFO and an AXI4-Stream frame is a header and at least one "
                               f"beat: broadcast with interface=axis needs FIFO depth 2 or more, got {self.fifo_depth}")
        if self.fifo_memory not in FIFO_MEMORIES or type(self.fifo_memory) not in (bool, str, type(None)):
            raise CubenocError(f"FIFO memory must be False, True, None or 'block', got {self.fifo_memory!r}")
        if self.counters not in COUNTER_KINDS or type(self.counters) not in (bool, str):
            raise CubenocError(f"counters must be True, False or 'dsp', got {self.counters!r}")
        self._refuse(_features(self))

    # ---- derived -----------------------------------------------------------------------------------------
    def replace(self, **changes) -> "RouterConfig":
        """This config with some fields changed (validated again)."""
        return replace(self, **changes)

    @property
    def has_broadcast(self) -> bool:
        return self.broadcast is not False and self.broadcast is not None

    def candidate_stage(self, routing) -> bool:
        """The candidate route stage (docs/router.md "Adaptive selection and run-time faults"): run-time
        faults, or adaptive routing (:func:`~.routing.base.is_adaptive`)."""
        return self.faults or is_adaptive(routing)

    def as_dict(self) -> dict:
        """Every field, as JSON takes it (a broadcast algorithm by its name): what a result records of the
        routers it ran or measured."""
        return {f.name: _word(v) if f.name == "broadcast" and not isinstance(v, bool) else v
                for f in fields(self) for v in [getattr(self, f.name)]}

    def route_at_write(self, routing) -> bool:
        """docs/router.md "Route at the write": oblivious unicast routing with one FIFO per input (or VC)."""
        return not self.candidate_stage(routing) and not self.has_broadcast and self.queues == "fifo"

    def check(self, routing) -> "RouterConfig":
        """The rules that need the routing function (a run-time selection is adaptive; one-VC options)."""
        self._refuse(_features(self, routing))
        if self.has_broadcast and routing.num_vcs != 1:
            if isinstance(routing.topology, Metacube):      # the catalog's metacube routing: say why and what else
                raise CubenocError(router_broadcast_refusal(f"{routing.topology!r} with {routing.name} routing"))
        for feature, name in ((self.queues == "voq", "per-output queues (--queues voq)"),
                              (self.pipeline, "the pipelined router (--pipeline)"),
                              (self.has_broadcast, "broadcast")):
            if feature and routing.num_vcs != 1:
                raise CubenocError(f"{name} takes a one-VC routing function, {routing.name} has "
                                   f"{routing.num_vcs} VCs")
        return self

    def broadcast_algorithm(self, topology):
        """The broadcast algorithm the routers fork with (None without broadcast)."""
        if not self.has_broadcast:
            return None
        if self.broadcast is True:
            return broadcast_algorithm_for(topology)
        return self.broadcast

    def describe(self) -> str:
        """What differs from the generic router, in words (``depth 2, pipelined, no loopback``)."""
        words = {"payload_width": lambda v: f"W = {v}", "fifo_depth": lambda v: f"depth {v}",
                 "faults": lambda v: "run-time faults",
                 "broadcast": lambda v: "broadcast" if v is True else f"broadcast ({_word(v)})",
                 "queues": lambda v: f"{v} queues", "arbitration": lambda v: f"{v} arbitration",
                 "pipeline": lambda v: "pipelined",
                 "fifo_memory": lambda v: {True: "FIFOs in memory", None: "FIFOs in memory where the platform has "
                                           "distributed RAM", "block": "FIFOs in block RAM"}[v],
                 "counters": lambda v: "no status counters" if v is False else "status counters in DSP blocks",
                 "loopback": lambda v: "no loopback", "interface": lambda v: f"{v} interface"}
        base = RouterConfig()
        return ", ".join(words[f.name](getattr(self, f.name)) for f in fields(self)
                         if getattr(self, f.name) != getattr(base, f.name)) or "the generic router"

    def _refuse(self, on: dict[str, str]) -> None:
        for a, b in NOT_BUILT:
            if a in on and b in on:
                raise CubenocError(f"{on[a]} cannot take {on[b]}" + (f" ({BUILT_FOR[a]})" if a in BUILT_FOR else ""))


def _one_of(name, value, allowed):
    if value not in allowed:
        raise CubenocError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")


def _word(v) -> str:
    return v.name if hasattr(v, "name") and not isinstance(v, (bool, str, int)) else str(v)


def _features(c: RouterConfig, routing=None) -> dict[str, str]:
    """The options a config turns on that some other option refuses, each with the words that name it."""
    on = {"broadcast": "broadcast" if c.has_broadcast else None,
          "faults": "faults=True (run-time faults)" if c.faults else None,
          "selection": (f"a run-time selection ({routing.name} routing: adaptive selection)"
                        if routing is not None and is_adaptive(routing) else None),
          "voq": "queues='voq' (per-output queues)" if c.queues == "voq" else None,
          "pipeline": "pipeline=True (the pipelined router)" if c.pipeline else None,
          "no-loopback": "loopback=False (--no-loopback)" if not c.loopback else None,
          "fair": "arbitration='fair'" if c.arbitration == "fair" else None}
    return {k: v for k, v in on.items() if v}


#: which option each restricted option is built for (said once in its refusals)
BUILT_FOR = {
    "voq": "per-output queues (--queues voq) are built for unicast oblivious routing only",
    "pipeline": "the pipelined router (--pipeline) is built for unicast oblivious routing with one FIFO per input only",
    "no-loopback": "--no-loopback is built for unicast oblivious routing with one FIFO per input only",
    "fair": "--arbitration fair is built for unicast routers with a fixed route and one FIFO per input only",
    "broadcast": "broadcast routers are built for oblivious unicast routing only",
}
#: pairs of options that are not built together: (option, the option it cannot take)
NOT_BUILT = tuple((a, b) for a, bs in {
    "voq": ("broadcast", "faults", "selection"),
    "pipeline": ("voq", "broadcast", "faults", "selection"),
    "no-loopback": ("voq", "broadcast", "faults", "selection"),
    "fair": ("voq", "pipeline", "broadcast", "faults", "selection"),
    "broadcast": ("faults", "selection"),
}.items() for b in bs)


# ---- spec keys and command flags: the one map onto the config's fields ------------------------------------
#: spec key (``enhanced:n=4,k=0,depth=2,pipeline=1``) -> (field, kind, help); kinds as in sim/catalog.py. Made
#: from the option registry (cubenoc/options.py), where each router option's flag, spec key and help are defined.
def _spec_keys() -> dict[str, tuple]:
    def kind(k):
        return {int: "int", "flag": "bool", "bool": "bool"}.get(k) or tuple(w.replace("-", "_") for w in k)
    return {o.spec: (o.field, kind(o.kind), o.help) for o in ROUTER_OPTIONS}


SPEC_KEYS: dict[str, tuple] = _spec_keys()


def field_value(key: str, value):
    """A spec key's parsed value as the config field's value (``counters=off`` -> False)."""
    if key == "arbitration":
        return str(value).replace("_", "-")
    if key == "counters":
        return {"on": True, "off": False, "dsp": "dsp"}[value]
    return value


def spec_value(key: str, value):
    """A config field's value as the spec key ``key`` writes it (the inverse of :func:`field_value`)."""
    if key == "arbitration":
        return str(value).replace("-", "_")
    if key == "counters":
        return {True: "on", False: "off", "dsp": "dsp"}[value]
    return value


# ---- targets: each one's measured best router ----------------------------------------------------------
@dataclass(frozen=True)
class Target:
    """A target's default router, the yosys goal (boards/synth.py ``SYNTH_GOALS``) its rows were measured
    with for the one-cycle and the pipelined router, and why."""

    name: str
    config: RouterConfig
    synth: str                   # one cycle per hop
    synth_pipelined: str         # ``pipeline=True``: the router built for clock speed
    why: str

    def goal(self, config: RouterConfig) -> str:
        return self.synth_pipelined if config.pipeline else self.synth


#: target -> its default, each the best row measured by ``cubenoc synth-report --family hypercube --n 4
#: --targets up5k ecp5-25f --json --seed 1 2 3 4 5`` (Q(4)'s 5-port router, W = 32; medians over the seeds;
#: the figures are in docs/performance.md "Router options"). ``generic`` (no FPGA: ``generate`` without
#: ``--target``) keeps every feature.
TARGETS: dict[str, Target] = {
    "generic": Target("generic", RouterConfig(), "speed", "speed",
                      "no FPGA known: the full router (status counters in flip-flops, loopback, FIFOs in "
                      "flip-flops); a synthesis tool may map them as it likes"),
    "up5k": Target("up5k", RouterConfig(loopback=False, counters="dsp"), "balanced", "speed",
                   "the counters in three of the UP5K's eight SB_MAC16 blocks cost no LUT4; without the local -> "
                   "local turn every local input and output mux is one source smaller (a packet a node sends to "
                   "itself is dropped and counted in dropped: address another node, or pass --loopback)"),
    "ecp5": Target("ecp5", RouterConfig(fifo_memory=True, counters=False, loopback=False), "area", "speed",
                   "the FIFO entries behind each head register in distributed RAM (TRELLIS_DPR16X4) and no status "
                   "counters (the ECP5 has no cheap counter: they cost about a fifth of the router's LUT4s; the "
                   "status outputs read 0, pass --counters on to build them); no local -> local turn (as up5k)"),
    # gowin (the Tang Nano 9K's GW1NR-9C), `cubenoc synth-report --family hypercube --n 4 --targets gowin --seed 1 2 3
    # --jobs 2` plus the flags of each row (W = 32, medians of seeds 1-3; YoWASP yosys 0.70, nextpnr-himbaechel 0.11.1):
    #   --no-fifo-memory --counters on --loopback --synth speed (the generic router)
    #                                                             1377 LUT4, 933 FF, 64 ALU,  0 LUTRAM, 63.6 MHz
    #   --synth speed                                              722 LUT4, 129 FF,  0 ALU, 53 LUTRAM, 71.5 MHz
    #   (none: this default, --synth area)                         605 LUT4, 129 FF,  0 ALU, 53 LUTRAM, 94.0 MHz
    "gowin": Target("gowin", RouterConfig(fifo_memory=True, counters=False, loopback=False), "area", "speed",
                    "the ECP5's choices on the Gowin LUT4 fabric: FIFO entries in shadow SRAM (RAM16SDP4), no status "
                    "counters, no local -> local turn: 56 % fewer LUT4s and 48 % more clock than the generic router"),
}


def with_options(base: RouterConfig, changes: dict, routing=None) -> RouterConfig:
    """``base`` (a target's default) with the ``changes`` a user asked for. A field the user did not set
    that refuses one they did (the UP5K's ``loopback=False`` against ``queues="voq"``, or against a routing
    function with a run-time selection when ``routing`` is given) goes back to the generic router's value:
    a target's default never makes a buildable router unbuildable. The fewest fields are given up."""
    generic = RouterConfig()
    mine = [f.name for f in fields(base) if f.name not in changes and getattr(base, f.name) != getattr(generic, f.name)]
    first = None
    for k in range(len(mine) + 1):
        for drop in itertools.combinations(mine, k):
            try:
                cfg = base.replace(**changes, **{name: getattr(generic, name) for name in drop})
                return cfg if routing is None else cfg.check(routing)
            except CubenocError as exc:
                first = first or exc
    raise first


def target_default(target: str | None) -> RouterConfig:
    """The default config of ``target`` (None: ``generic``)."""
    return _target(target).config


def _target(target: str | None) -> Target:
    name = "generic" if target is None else FAMILY_OF.get(target, target)
    if name not in TARGETS:
        raise CubenocError(f"unknown target {target!r}: one of {', '.join(sorted(set(TARGETS) | set(FAMILY_OF)))}")
    return TARGETS[name]


#: synthesis targets (boards/synth.py) and FPGA families that share a target's default
FAMILY_OF: dict[str, str] = {"ecp5-25f": "ecp5", "ice40": "up5k"}


def target_names() -> list[str]:
    """Every name :func:`target_default` takes."""
    return sorted(set(TARGETS) | set(FAMILY_OF))


def target_synth(target: str | None, config: RouterConfig) -> str:
    """The yosys goal ``target``'s rows for ``config`` were measured with (boards/synth.py ``SYNTH_GOALS``)."""
    return _target(target).goal(config)
