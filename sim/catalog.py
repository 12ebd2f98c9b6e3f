"""The network catalog: one name for every network, used by every command (docs/networks.md).

A :class:`NetworkSpec` is a family and its parameters, written in one grammar::

    hypercube:n=6                         enhanced:n=6,k=0
    metacube:k=1,m=2[,shortest=1]         pdn:set=0,1,3,9[,routing=adaptive|availability][,prefer=backward]
    pdn:delta=4[,zero_free=1]             pdn:product=2,2          pdn:set=0,1,3,bipartite=1
    hin:level1=bh:3,level2=ccc:2[,nodes=64][,r=2][,routing=balanced|least_used]
    hin:level1=bh:2,level2=bh:2,level3=bh:2   (any number of levels: level4=..., each joins the interface
                                               nodes of the level below; nodes= sizes the top level)
    anynet:file=PATH[,routing=port_order|updown|hops]   (a BookSim anynet file: a user's network, docs/anynet.md)

plus the router options any family takes (sim/router_config.py ``SPEC_KEYS``): ``depth=N``, ``payload=W``,
``queues=fifo|voq``, ``pipeline=0|1``, ``broadcast=0|1``, ``faults=0|1``, ``arbitration=round_robin|fair``,
``fifo_memory=0|1``, ``counters=on|off|dsp``, ``loopback=0|1``. A
token without ``=`` continues the previous value (``set=0,1,3,9``). A bare family name takes the family's
defaults; a preset name (:data:`PRESETS`) stands for its spec, a path ending in ``.anynet`` for
``anynet:file=PATH``. ``cubenoc generate pdn --set 0,1,3,9`` and
the other family flags are a shorthand for the same spec (:meth:`NetworkSpec.from_flags`).

:meth:`NetworkSpec.build` returns ``(topology, routing)``: the one place a network is made from a name.
The limits on a network's size live here too (:data:`ADDRESS_BITS`): the Verilog's head flit carries a
16-bit destination, the model's tables are sized by the node count.

Over 400 lines: the one place a name becomes a network holds the grammar, every family's keys and the
commands' network lists together.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cubenoc.errors import CubenocError, require_int

from .anynet_file import read_anynet
from .broadcast.metacube import router_broadcast_refusal
from .router_config import SPEC_KEYS, RouterConfig, field_value, spec_value
from .routing.anynet import MinimalTableRouting
from .routing.hierarchical import BalancedHierarchicalRouting, HierarchicalRouting
from .routing.hypercube import EcubeRouting
from .routing.metacube import MetacubeRouting
from .routing.pdn import AdaptivePDNRouting, BipartitePDNRouting, DimensionOrderPDNRouting, ObliviousPDNRouting
from .topology.hierarchical import hierarchical_from_spec
from .topology.hypercube import EnhancedHypercube, Hypercube
from .topology.metacube import Metacube
from .topology.pdn import BipartitePDN, PerfectDifferenceNetwork, ProductPDN, parse_pds, registry_set, zero_free

#: largest node address, in bits, per use: the router's destination field is 16 bits wide (docs/router.md,
#: "Flit"); the model runs up to 2^20 nodes (Q_20 / Q(20, 0) peak at ~3 GB; other families are bounded by
#: their route tables' size, docs/simulator.md "Large networks")
ADDRESS_BITS = {"rtl": 16, "model": 20}

#: the most levels a HIN spec may name: with clusters of at least 2 nodes, 16 levels fill the 16-bit address
MAX_HIN_LEVELS = 16
#: family -> {key: (kind, default, help)}; kind: int, bool, str or a tuple of the allowed words
FAMILIES: dict[str, dict[str, tuple]] = {
    "hypercube": {"n": ("int", 4, "dimension")},
    "enhanced": {"n": ("int", 4, "dimension"), "k": ("int", 0, "skip parameter, 0..n-2")},
    "metacube": {"k": ("int", None, "class bits, 1..4"), "m": ("int", None, "cluster dimension"),
                 "shortest": ("bool", False, "skip classes with nothing to correct")},
    "pdn": {"set": ("str", None, "a perfect difference set, e.g. 0,1,3,9 (0-free sets allowed)"),
            "delta": ("int", None, "the registry's normal-form set of this order"),
            "zero_free": ("bool", False, "the 0-free PDN of the set plus 1 (Definition 4)"),
            "product": ("str", None, "product of registry PDNs of these orders, e.g. 2,2"),
            "bipartite": ("bool", False, "the bipartite host/switch form"),
            "routing": (("oblivious", "adaptive", "availability"), "oblivious",
                        "Algorithm 1, Algorithm 2 (preferred candidate) or Algorithm 2 selected at run time"),
            "prefer": (("forward", "backward"), "forward", "adaptive: the preferred first chord")},
    "hin": {"level1": ("str", "bh:3", "cluster network bh:d or cc:n"),
            "level2": ("str", "bh:2", "level-2 network bh, br, cc or ccc, optionally :SIZE"),
            "level3": ("str", None, "level-3 network bh, br, cc or ccc:SIZE, joining the level-2 interface nodes "
                       f"(spec keys level4 .. level{MAX_HIN_LEVELS} likewise)"),
            "nodes": ("int", None, "total nodes (sizes the top level when it has no :SIZE)"),
            "r": ("int", 1, "parallel level-2 links per level-2 edge (1-16)"),
            "routing": (("ecube", "balanced", "least_used"), "ecube",
                        "e-cube, Sec. IV-B candidates (fixed pick) or least-used selection at run time")},
    "anynet": {"file": ("str", None, "a BookSim anynet file, one line per router: router R node R router R1 "
                        "router R2 ... (docs/anynet.md)"),
               "routing": (("auto", "port_order", "updown", "hops"), "auto",
                           "shortest paths: lowest port first on one VC where acyclic, VCs by up*/down* turns, "
                           "or VCs by hop count; auto: port_order if acyclic, else updown")},
}
#: hin levels beyond level3: spec keys (and ``NetworkSpec.of`` parameters) only, no command-line flags
HIN_LEVELS = {f"level{i}": ("str", None, f"level-{i} network, as level3") for i in range(4, MAX_HIN_LEVELS + 1)}
#: router options every family takes: the fields of sim/router_config.py (``SPEC_KEYS``), defaults those of
#: the generic router (a target's default applies where a command knows the target)
ROUTER_KEYS: dict[str, tuple] = {key: (kind, spec_value(key, getattr(RouterConfig(), name)), text)
                                 for key, (name, kind, text) in SPEC_KEYS.items()}
#: older spellings still read: key -> canonical key
ALIASES = {"replication": "r", "zero-free": "zero_free"}

#: named networks used by the benchmarks, the tests and the examples
PRESETS = {
    "q4": "hypercube:n=4",
    "q6": "hypercube:n=6",
    "q60": "enhanced:n=6,k=0",
    "pdn13": "pdn:set=0,1,3,9",
    "pdn7": "pdn:set=0,1,3",
    "mc12": "metacube:k=1,m=2",
    "hin-bh3-bh2": "hin:level1=bh:3,level2=bh:2",
    "hin-bh3-ccc2": "hin:level1=bh:3,level2=ccc:2",
}

# ---- the networks each command and benchmark runs by default (their lists, in one place) ----------------
#: ``cubenoc prove --family F``: each family's default network (the smallest whose routers show its shapes)
PROVE_NETWORKS = {"hypercube": "hypercube:n=2", "enhanced": "enhanced:n=3,k=0", "pdn": "pdn:set=0,1,3",
                  "metacube": "metacube:k=1,m=1"}
#: ``cubenoc synth-report --family F``: each family's default networks (the sizes the family issues verify)
SYNTH_NETWORKS = {
    "hypercube": ("hypercube:n=3", "hypercube:n=4", "hypercube:n=5", "hypercube:n=6"),
    "enhanced": ("enhanced:n=3,k=0", "enhanced:n=4,k=0", "enhanced:n=5,k=0", "enhanced:n=6,k=0"),
    "metacube": ("metacube:k=1,m=1", "metacube:k=1,m=2"),
    "pdn": ("pdn:set=0,1,3", "pdn:set=0,1,3,9", "pdn:delta=4", "pdn:delta=5", "pdn:set=1,2,4"),
    "hin": ("hin:level1=bh:3,level2=bh:2", "hin:level1=bh:3,level2=cc:4", "hin:level1=bh:3,level2=br:4",
            "hin:level1=bh:1,level2=ccc:2"),
}
#: ``cubenoc bench families``: the networks of docs/families.md's table, by the label its rows carry
FAMILY_BENCH_NETWORKS = {
    "PDN {0,1,3} (7)": "pdn:set=0,1,3",
    "PDN {0,1,3,9} (13)": "pdn:set=0,1,3,9",
    "PDN delta=4 (21)": "pdn:delta=4",
    "PDN delta=5 (31)": "pdn:delta=5",
    "0-free PDN {1,2,4} (7)": "pdn:set=1,2,4",
    "0-free PDN {3,4,6} (7, degenerate)": "pdn:set=3,4,6",
    "2-D PDN 7x7 (49)": "pdn:product=2,2",
    "BH(3)/BH(2) (32)": "hin:level1=bh:3,level2=bh:2",
    "BH(3)/CC(4) (32)": "hin:level1=bh:3,level2=cc:4",
    "BH(3)/BR(4) (32)": "hin:level1=bh:3,level2=br:4",
    "BH(3)/CCC(2) (64)": "hin:level1=bh:3,level2=ccc:2",
    "MC(1,1) (8)": "metacube:k=1,m=1",
    "MC(1,2) (32)": "metacube:k=1,m=2",
    "MC(2,1) (64)": "metacube:k=2,m=1",
}
#: ``cubenoc bench fair-area``: one network per family whose fair arbiter differs from round robin
FAIR_AREA_NETWORKS = ("enhanced:n=4,k=0", "pdn:set=0,1,3,9", "metacube:k=1,m=2")
#: ``cubenoc bench sim-speed``: the simulator's networks, 64 to 16,384 nodes
SIM_SPEED_NETWORKS = ("hypercube:n=6", "enhanced:n=6,k=0", "hypercube:n=10", "hypercube:n=14", "metacube:k=2,m=3")

GRAMMAR = ("FAMILY:key=value,... e.g. hypercube:n=6, enhanced:n=6,k=0, metacube:k=1,m=2, pdn:set=0,1,3,9, "
           "pdn:delta=4, hin:level1=bh:3,level2=ccc:2,routing=balanced, anynet:file=my.anynet; router options depth=2, queues=voq, pipeline=1, "
           "broadcast=1, counters=off, loopback=0 ...; presets " + ", ".join(PRESETS) + " (docs/networks.md)")


def _keys(family: str) -> dict[str, tuple]:
    return FAMILIES[family] | (HIN_LEVELS if family == "hin" else {}) | ROUTER_KEYS


def _value(family: str, key: str, raw):
    kind, _, _ = _keys(family)[key]
    what = f"{family} {key}"
    if kind == "int":
        return require_int(raw, what)
    if kind == "bool":
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise CubenocError(f"{what} is 0 or 1, got {raw!r}")
    if isinstance(kind, tuple):
        word = str(raw).strip().lower().replace("-", "_")
        if word not in kind:
            raise CubenocError(f"{what} must be one of {', '.join(kind)}, got {raw!r}")
        return word
    return str(raw).strip()


@dataclass(frozen=True)
class NetworkSpec:
    """A family and its explicitly given parameters, in the family's key order (defaults: :meth:`get`)."""

    family: str
    params: tuple = ()      # ((key, value), ...) in the family's key order

    # ---- construction ----------------------------------------------------------------------------------
    @classmethod
    def parse(cls, text) -> "NetworkSpec":
        """``pdn:set=0,1,3,9`` (the grammar above), a bare family name or a preset name."""
        if isinstance(text, NetworkSpec):
            return text
        text = str(text).strip()
        if text.lower() in PRESETS:
            text = PRESETS[text.lower()]
        if text.split(",", 1)[0].lower().endswith(".anynet") and not text.lower().startswith("anynet:"):
            text = "anynet:file=" + text            # a path to an anynet file (and keys) stands for its spec
        fam, _, rest = text.partition(":")
        fam = fam.strip().lower()
        if fam not in FAMILIES:
            raise CubenocError(f"unknown network {text!r}: a spec is {GRAMMAR}")
        raw: dict[str, str] = {}
        last = None
        if ":" in text and not rest.strip():
            raise CubenocError(f"{text!r}: nothing after the colon; give key=value pairs ({fam}:...) or the bare "
                               f"family name")
        for tok in (t.strip() for t in rest.split(",")) if rest.strip() else ():
            if not tok:
                raise CubenocError(f"empty parameter (two commas, or a comma at the start or end) in {text!r}: "
                                   f"a spec is key=value pairs separated by single commas")
            if "=" in tok:
                key, _, val = tok.partition("=")
                last = ALIASES.get(key.strip().lower(), key.strip().lower())
                if last in raw:
                    raise CubenocError(f"{fam} parameter {last} given twice in {text!r}")
                raw[last] = val.strip()
            elif last is not None:
                raw[last] += "," + tok
            else:
                raise CubenocError(f"network parameters are key=value pairs, got {tok!r} in {text!r} ({GRAMMAR})")
        return cls.of(fam, **raw)

    @classmethod
    def of(cls, family: str, **params) -> "NetworkSpec":
        """From keyword parameters (``None`` means absent); unknown keys are an error naming the allowed ones."""
        family = str(family).lower()
        if family not in FAMILIES:
            raise CubenocError(f"network family must be one of {', '.join(FAMILIES)}, got {family!r}")
        keys = _keys(family)
        params = {ALIASES.get(k, k): v for k, v in params.items() if v is not None}
        if family == "hin" and ("d" in params or "size" in params):     # the older hin:d=3,level2=bh,size=3
            d, size = params.pop("d", None), params.pop("size", None)
            if d is not None:
                params["level1"] = f"bh:{require_int(d, 'hin d', 1)}"
            l2 = str(params.get("level2", "bh"))
            params["level2"] = f"{l2}:{size}" if size is not None and ":" not in l2 else l2
        extra = sorted(set(params) - set(keys))
        if extra:
            raise CubenocError(f"{family} takes parameters {', '.join(keys)}; got {', '.join(extra)}")
        vals = {k: _value(family, k, params[k]) for k in keys if k in params}
        spec = cls(family, tuple(vals.items()))
        spec._check()
        return spec

    @classmethod
    def from_flags(cls, family: str, args, **defaults) -> "NetworkSpec":
        """The family flags of a command (``--n 6 --k 0``, ``--set``, ``--level1`` ...) as a spec: each key
        of the family read from the attribute of the same name (``None`` or absent: the default)."""
        params = dict(defaults)
        for key in _keys(str(family).lower()) if str(family).lower() in FAMILIES else ():
            for attr in (key, {"r": "replication", "set": "pds"}.get(key, key)):
                v = getattr(args, attr, None)
                if v is not None and v is not False and not (key == "queues" and v == "fifo"):
                    params[key] = v
                    break
        return cls.of(family, **params)

    def replace(self, **params) -> "NetworkSpec":
        """This spec with some parameters changed (``None`` removes one)."""
        merged = dict(self.params) | params
        return NetworkSpec.of(self.family, **merged)

    # ---- reading -----------------------------------------------------------------------------------------
    def get(self, key: str):
        keys = _keys(self.family)
        if key not in keys:
            raise KeyError(key)
        return dict(self.params).get(key, keys[key][1])

    def router_fields(self) -> dict:
        """The router options this spec gives explicitly, as :class:`RouterConfig` fields."""
        return {SPEC_KEYS[k][0]: field_value(k, v) for k, v in self.params if k in SPEC_KEYS}

    def router_config(self, base: RouterConfig | None = None) -> RouterConfig:
        """``base`` (default: the generic router; a command passes its target's default) with this spec's
        router options over it."""
        return (base or RouterConfig()).replace(**self.router_fields())

    def with_config(self, config: RouterConfig) -> "NetworkSpec":
        """This network with ``config``'s options as spec keys (those that differ from the generic router)."""
        base = RouterConfig()
        return self.without_router().replace(**{key: spec_value(key, getattr(config, name))
                                                for key, (name, _, _) in SPEC_KEYS.items()
                                                if getattr(config, name) != getattr(base, name)})

    def without_router(self) -> "NetworkSpec":
        """The network alone: this spec without its router options."""
        return NetworkSpec(self.family, tuple((k, v) for k, v in self.params if k not in SPEC_KEYS))

    @property
    def queues(self) -> str:
        return self.get("queues")

    @property
    def pipeline(self) -> bool:
        return self.get("pipeline")

    @property
    def broadcast(self) -> bool:
        return self.get("broadcast")

    @property
    def routing(self) -> str | None:
        return self.get("routing") if "routing" in FAMILIES[self.family] else None

    @property
    def selection(self) -> bool:
        """A routing function whose candidate is picked at run time (adaptive selection)."""
        return self.routing in ("availability", "least_used")

    def __str__(self) -> str:
        def fmt(v):
            return str(int(v)) if isinstance(v, bool) else str(v)
        return self.family + (":" + ",".join(f"{k}={fmt(v)}" for k, v in self.params) if self.params else "")

    def _check(self) -> None:
        f = self.family
        if f == "enhanced" and not 0 <= self.get("k") <= max(0, self.get("n") - 2):
            raise CubenocError(f"enhanced k must be in 0..n-2 = 0..{self.get('n') - 2}, got {self.get('k')}")
        if f == "metacube" and (self.get("k") is None or self.get("m") is None):
            raise CubenocError("metacube needs k (class bits, 1..4) and m (cluster dimension), e.g. metacube:k=1,m=2")
        if f == "metacube":
            require_int(self.get("k"), "k (class bits)", 1, 4)
            require_int(self.get("m"), "m (cluster dimension)", 1)
            if self.get("broadcast"):
                raise CubenocError(router_broadcast_refusal(str(self)))
        if f == "anynet" and not self.get("file"):
            raise CubenocError("anynet needs file=PATH, a BookSim anynet file (e.g. anynet:file=examples/q4.anynet; "
                               "docs/anynet.md)")
        if f == "pdn":
            given = [k for k in ("set", "delta", "product") if dict(self.params).get(k) is not None]
            if len(given) != 1:
                raise CubenocError(f"pdn needs exactly one of set=S, delta=D or product=D1,D0 "
                                   f"(e.g. pdn:set=0,1,3,9), got {', '.join(given) or 'none'}")

    def address_bits(self) -> int | None:
        """Node address bits known without building the topology (the families whose size grows fastest)."""
        if self.family in ("hypercube", "enhanced"):
            return self.get("n")
        if self.family == "metacube":
            k, m = self.get("k"), self.get("m")
            return m * (1 << min(k, 8)) + k
        return None

    # ---- building -----------------------------------------------------------------------------------------
    def build(self, purpose: str = "rtl"):
        """``(topology, routing)``; ``purpose`` (``rtl`` or ``model``) sets the size limit (:data:`ADDRESS_BITS`)."""
        limit = ADDRESS_BITS[purpose]
        if self.family in ("hypercube", "enhanced"):
            require_int(self.get("n"), "n", 1 if self.family == "hypercube" else 2, limit)
        bits = self.address_bits()
        if bits is not None and bits > limit:
            raise CubenocError(f"{self}: {bits}-bit node addresses, the {'Verilog router' if purpose == 'rtl' else 'model'}"
                               f" takes at most {limit} ({1 << limit} nodes)")
        if self.family == "pdn" and self.get("bipartite"):
            raise CubenocError(f"{self}: the bipartite PDN (Parhami and Rakov, Fig. 2b) is analysed (cubenoc analyze "
                               "pdn), not simulated or built: its switch nodes send and receive nothing, and the "
                               "model and the Verilog top give every node traffic; use the plain PDN (drop bipartite)")
        topo, routing = _BUILDERS[self.family](self)
        if topo.num_nodes > (1 << limit):
            raise CubenocError(f"{self}: {topo.num_nodes} nodes, the {purpose} limit is {1 << limit}")
        return topo, routing

    def label(self, topo=None) -> str:
        """``Q(6, 0)``, ``PDN {0,1,3,9} adaptive``: the topology's name plus what differs from the default."""
        topo = topo if topo is not None else self.build("model")[0]
        out = repr(topo)
        if self.routing is not None and dict(self.params).get("routing") is not None:
            out += f" {self.routing}"
        if self.queues != "fifo":
            out += f" {self.queues}"
        if self.pipeline:
            out += " pipelined"
        return out

    def short_label(self, topo=None) -> str:
        """The papers' short name, as the synthesis and proof tables print it: ``Q(6)``, ``Q(6, 0)``,
        ``MC(1,2)``, ``PDN {0,1,3,9} (13)``, ``0-free PDN {1,2,4} (7)``, ``PDN product 2,2 (49)``,
        ``BH(3)/CCC(2) (64)``; plus what :meth:`label` adds for a non-default routing or router option."""
        topo = topo if topo is not None else self.build("model")[0]
        f = self.family
        if f == "hypercube":
            name = f"Q({self.get('n')})"
        elif f == "enhanced":
            name = f"Q({self.get('n')}, {self.get('k')})"
        elif f == "metacube":
            name = f"MC({self.get('k')},{self.get('m')})"
        elif f == "pdn" and self.get("product") is not None:
            name = f"PDN product {self.get('product')} ({topo.num_nodes})"
        elif f == "pdn":
            pds = getattr(topo, "pds", None) or pdn_set(self)
            name = (f"{'0-free ' if getattr(topo, 'zero_free', False) else ''}"
                    f"{'bipartite ' if self.get('bipartite') else ''}PDN {{{','.join(map(str, pds))}}} ({topo.num_nodes})")
        elif f == "anynet":
            name = f"anynet {Path(self.get('file')).name} ({topo.num_nodes})"
        else:
            levels = hin_levels(self)
            name = "/".join(f"{p.split(':')[0].upper()}({p.split(':')[1]})" if ":" in p else p.upper() for p in levels)
            name += f" ({topo.num_nodes})"
        return name + self.label(topo)[len(repr(topo)):]


def recorded(spec, config: RouterConfig) -> dict:
    """What a result says it measured: ``spec``, the network's catalog spec with the router options that
    differ from the generic router (None: a network the catalog does not name), and ``router_config``, every
    field of the resolved router configuration (:meth:`RouterConfig.as_dict`)."""
    return {"spec": None if spec is None else str(NetworkSpec.parse(spec).with_config(config)),
            "router_config": config.as_dict()}


def parse(text) -> NetworkSpec:
    """:meth:`NetworkSpec.parse`."""
    return NetworkSpec.parse(text)


# ---- builders: spec -> (topology, routing) ----------------------------------------------------------------
def _cube(spec):
    n = spec.get("n")
    topo = Hypercube(n) if spec.family == "hypercube" else EnhancedHypercube(n, spec.get("k"))
    return topo, EcubeRouting(topo)


def _metacube(spec):
    topo = Metacube(require_int(spec.get("k"), "k (class bits)", 1, 4), require_int(spec.get("m"), "metacube m", 1))
    return topo, MetacubeRouting(topo, shortest=spec.get("shortest"))


def pdn_set(spec) -> tuple[int, ...]:
    """The perfect difference set a pdn spec names (set=..., or delta=... from the registry)."""
    pds = parse_pds(spec.get("set")) if spec.get("set") is not None else \
        registry_set(require_int(spec.get("delta"), "pdn delta", 1, 32))
    return zero_free(pds) if spec.get("zero_free") else pds


def _pdn(spec):
    if spec.get("product") is not None:
        try:
            orders = [int(t) for t in spec.get("product").split(",")]
        except ValueError:
            raise CubenocError(f"pdn product takes comma-separated orders like 2,2, got {spec.get('product')!r}") from None
        topo = ProductPDN(orders)
        return topo, DimensionOrderPDNRouting(topo)
    pds = pdn_set(spec)
    if spec.get("bipartite"):
        topo = BipartitePDN(pds)
        return topo, BipartitePDNRouting(topo)
    topo = PerfectDifferenceNetwork(pds)
    kind = spec.get("routing")
    if kind == "oblivious":
        return topo, ObliviousPDNRouting(topo)
    return topo, AdaptivePDNRouting(topo, prefer=spec.get("prefer"),
                                    selection="availability" if kind == "availability" else None)


def _hin(spec):
    levels = hin_levels(spec)
    for i, text in enumerate(levels[1:], start=2):
        if "," in text:
            raise CubenocError(f"hin level{i} is one family (bh, br, cc, ccc, optionally :SIZE), got {text!r}")
    topo = hierarchical_from_spec(*levels, num_nodes=spec.get("nodes"),
                                  replication=require_int(spec.get("r"), "hin r", 1, 16))
    kind = spec.get("routing")
    if kind == "ecube":
        return topo, HierarchicalRouting(topo)
    return topo, BalancedHierarchicalRouting(topo, selection="least_used" if kind == "least_used" else None)


def hin_levels(spec) -> list[str]:
    """The level specs of a hin spec, level 1 first: ``level1``, ``level2`` and every further ``levelN``,
    which must follow one another without a gap."""
    given = [i for i in range(3, MAX_HIN_LEVELS + 1) if spec.get(f"level{i}") is not None]
    if given and given != list(range(3, given[-1] + 1)):
        missing = next(i for i in range(3, given[-1]) if i not in given)
        raise CubenocError(f"hin levels must follow one another: level{given[-1]} is given but level{missing} "
                           f"is not")
    return [spec.get("level1"), spec.get("level2")] + [spec.get(f"level{i}") for i in given]


def _anynet(spec):
    topo = read_anynet(spec.get("file"))            # cached while the file is unchanged, and so its routings
    cache = topo.__dict__.setdefault("_routings", {})
    if spec.get("routing") not in cache:
        cache[spec.get("routing")] = MinimalTableRouting(topo, spec.get("routing"))
    return topo, cache[spec.get("routing")]


_BUILDERS = {"hypercube": _cube, "enhanced": _cube, "metacube": _metacube, "pdn": _pdn, "hin": _hin,
             "anynet": _anynet}
