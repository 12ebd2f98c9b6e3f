"""Per-hop routing decisions: the one definition the model, the RTL generator and the tests share.

A routing function is bit-exact and local: at a node it looks only at the route header of the head flit
and returns the output port, the updated header and the virtual channel to use on the output link.
The local (ejection) port is ``topology.local_port(node)``. All routing state travels in the header,
whose layout (field names and widths, LSB first) is a :class:`HeaderLayout`; the RTL builds its
``amaranth.lib.data`` layout from the same object.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import NamedTuple

from cubenoc.errors import CubenocError

from ..topology.base import Topology


class HeaderLayout:
    """Named unsigned fields packed LSB first: ``HeaderLayout([("dest", 4), ("tag", 5)])``."""

    def __init__(self, fields):
        self.fields: list[tuple[str, int]] = [(str(n), int(w)) for n, w in fields]
        names = [n for n, _ in self.fields]
        if len(set(names)) != len(names):
            raise CubenocError(f"duplicate header field names in {names}")
        for name, width in self.fields:
            if width < 1:
                raise CubenocError(f"header field {name!r} must be at least 1 bit wide, got {width}")
        self._offsets = {}
        off = 0
        for name, width in self.fields:
            self._offsets[name] = (off, width)
            off += width
        self.width = off

    def __repr__(self) -> str:
        return f"HeaderLayout({self.fields!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, HeaderLayout) and other.fields == self.fields

    def __hash__(self) -> int:
        return hash(tuple(self.fields))

    def names(self) -> list[str]:
        return [n for n, _ in self.fields]

    def offset(self, name: str) -> tuple[int, int]:
        """``(lsb, width)`` of a field."""
        return self._offsets[name]

    def check(self, header: dict) -> dict:
        """Raise :class:`CubenocError` unless ``header`` has exactly these fields, each in range."""
        if set(header) != set(self._offsets):
            raise CubenocError(f"header fields must be {self.names()}, got {sorted(header)}")
        for name, width in self.fields:
            v = header[name]
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < (1 << width):
                raise CubenocError(f"header field {name!r} must be in 0..{(1 << width) - 1}, got {v!r}")
        return header

    def pack(self, header: dict) -> int:
        self.check(header)
        word = 0
        for name, _ in self.fields:
            off, _w = self._offsets[name]
            word |= header[name] << off
        return word

    def unpack(self, word: int) -> dict:
        if not 0 <= word < (1 << self.width):
            raise CubenocError(f"header word must be in 0..{(1 << self.width) - 1}, got {word}")
        return {name: (word >> off) & ((1 << w) - 1) for name, (off, w) in self._offsets.items()}

    def amaranth(self):
        """The same layout as an ``amaranth.lib.data.StructLayout`` (declaration order = LSB first)."""
        from amaranth.lib import data
        return data.StructLayout({name: width for name, width in self.fields})


#: the router's run-time selection looks at this many candidates (docs/router.md, "Adaptive selection")
MAX_CANDIDATES = 2


def hop_limit(num_nodes: int) -> int:
    """The most hops (or broadcast steps) any walk follows a packet before calling its route non-terminating:
    every family's routes are far shorter; an adaptive candidate set may wander."""
    return 4 * num_nodes + 8


def is_adaptive(routing) -> bool:
    """Adaptive routing: the function picks among its candidate hops at run time (its ``selection``,
    docs/router.md "Adaptive selection"); every other routing function is oblivious."""
    return getattr(routing, "selection", None) is not None


SELECTIONS = ("availability", "least_used")


def check_selection(selection):
    """``None`` or one of :data:`SELECTIONS`."""
    if selection is not None and selection not in SELECTIONS:
        raise CubenocError(f"selection must be None, 'availability' or 'least_used', got {selection!r}")
    return selection


class Hop(NamedTuple):
    """One routing decision: leave on ``port`` (the local port = eject) on virtual channel ``vc``
    carrying the updated ``header``."""
    port: int
    header: dict
    vc: int = 0


class RoutingFunction(ABC):
    """A deterministic (or, through :meth:`candidates`, adaptive) per-hop routing function."""

    #: short name used in docs, tests and the CLI
    name: str = "routing"
    #: virtual channels per link this function needs (the deadlock checker proves the assignment)
    num_vcs: int = 1
    #: run-time selection among the first two :meth:`candidates` (docs/router.md, "Adaptive selection"):
    #: None (the router takes :meth:`route`), "availability" (Parhami and Rakov Algorithm 2) or "least_used"
    #: (Dandamudi and Eager Sec. IV-B)
    selection: str | None = None

    def __init__(self, topology: Topology):
        self.topology = topology

    @property
    def layout(self) -> HeaderLayout:
        """The route header carried by head flits (a subclass sets ``self._layout``)."""
        return self._layout

    @abstractmethod
    def inject(self, src: int, dst: int) -> dict:
        """The header the source interface builds for a packet from ``src`` to ``dst``."""

    @abstractmethod
    def route(self, node: int, header: dict) -> Hop:
        """The decision at ``node`` for a head flit carrying ``header``."""

    def candidates(self, node: int, header: dict) -> list[Hop]:
        """Every hop the function may take here, in preference order (adaptive functions override)."""
        return [self.route(node, header)]

    def selection_candidates(self, node: int, header: dict) -> list[Hop]:
        """The (at most two) hops the router's run-time selection chooses from: ``candidates()[:2]``."""
        return self.candidates(node, header)[:MAX_CANDIDATES]

    def check_pair(self, src: int, dst: int) -> None:
        self.topology.check_node(src)
        self.topology.check_node(dst)

    def path(self, src: int, dst: int, max_hops: int | None = None) -> list[int]:
        """The nodes a packet visits from ``src`` to ``dst`` (both included), following :meth:`route`."""
        self.check_pair(src, dst)
        topo = self.topology
        limit = max_hops if max_hops is not None else hop_limit(topo.num_nodes)
        header = self.inject(src, dst)
        node, nodes = src, [src]
        for _ in range(limit):
            hop = self.route(node, header)
            if hop.port == topo.local_port(node):
                if node != dst:
                    raise AssertionError(f"{self.name}: packet {src}->{dst} ejected at {node}")
                return nodes
            far = topo.neighbor(node, hop.port)
            if far is None:
                raise AssertionError(f"{self.name}: packet {src}->{dst} routed to unconnected port "
                                     f"{hop.port} of node {node}")
            node, header = far[0], hop.header
            nodes.append(node)
        raise AssertionError(f"{self.name}: packet {src}->{dst} not delivered within {limit} hops")

    def hops(self, src: int, dst: int) -> int:
        return len(self.path(src, dst)) - 1
