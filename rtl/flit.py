"""Flit layouts of docs/router.md ("Flits and links"), built from a routing function's HeaderLayout.

Field order (LSB first) from ``sim/model/word.py`` (``LINK_FIELDS``, ``LOCAL_FIELDS``), the one definition the
model's flit word and the cocotb bench use too:

* link flit (router to router, and inside the input FIFOs), LSB first:
  ``head`` (1), ``tail`` (1), ``route`` (the routing function's header), ``data`` (W bits);
* local flit (the user's ``local_in``/``local_out`` streams): ``head``, ``tail``, ``data``; on an
  injected head flit ``data[0:DEST_WIDTH]`` is the destination node.

A V > 1 router adds a ``vc`` field (the VC seam); V = 1 routers have none.
"""
from __future__ import annotations

from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from cubenoc.errors import CubenocError

from ..sim.model.word import DEST_WIDTH, LINK_FIELDS, LOCAL_FIELDS
from ..sim.routing.base import RoutingFunction


def check_payload_width(payload_width: int) -> int:
    if isinstance(payload_width, bool) or not isinstance(payload_width, int) or payload_width < DEST_WIDTH:
        raise CubenocError(f"payload width must be an integer of at least {DEST_WIDTH} bits "
                           f"(the destination travels in data[0:{DEST_WIDTH}]), got {payload_width!r}")
    return payload_width


def link_flit_layout(routing: RoutingFunction, payload_width: int = 32, broadcast=None) -> data.StructLayout:
    """``head``, ``tail``, ``route`` (the header of ``routing``), ``data``; plus ``vc`` if V > 1. With a
    broadcast algorithm (docs/router.md "Broadcast and multicast") ``route`` is wide enough for the
    unicast header and the broadcast tag, and a ``bcast`` bit follows ``data``."""
    check_payload_width(payload_width)
    route = routing.layout.amaranth() if broadcast is None else max(routing.layout.width, broadcast.layout.width)
    shapes = {"head": 1, "tail": 1, "route": route, "data": payload_width}
    fields = {name: shapes[name] for name in LINK_FIELDS}          # the order of sim/model/word.py
    if routing.num_vcs > 1:
        fields["vc"] = range(routing.num_vcs)
    if broadcast is not None:
        fields["bcast"] = 1
    return data.StructLayout(fields)


def local_flit_layout(payload_width: int = 32) -> data.StructLayout:
    """``head``, ``tail``, ``data``: what the user injects and receives."""
    check_payload_width(payload_width)
    shapes = {"head": 1, "tail": 1, "data": payload_width}
    return data.StructLayout({name: shapes[name] for name in LOCAL_FIELDS})


class VCLinkSignature(wiring.Signature):
    """A link with V > 1 virtual channels (docs/router.md "Virtual channels"): ``valid``, ``payload`` (with
    ``vc``) and a V-bit ``ready`` (bit c: the receiver's VC-c FIFO has room)."""

    def __init__(self, layout: data.StructLayout, num_vcs: int):
        super().__init__({"valid": Out(1), "payload": Out(layout), "ready": In(num_vcs)})


class BroadcastLinkSignature(wiring.Signature):
    """A link of broadcast routers (docs/router.md "Broadcast and multicast"): a stream plus ``empty``
    (the receiver's input FIFO is empty), which a broadcast head waits for."""

    def __init__(self, layout: data.StructLayout):
        super().__init__({"valid": Out(1), "payload": Out(layout), "ready": In(1), "empty": In(1)})


class PipelineLinkSignature(wiring.Signature):
    """A link of pipelined routers (docs/router.md "Pipelined router"): a stream plus ``ready2`` (the
    receiver's input FIFO has room for two flits, registered), which a grant one cycle ahead of the
    transfer needs."""

    def __init__(self, layout: data.StructLayout):
        super().__init__({"valid": Out(1), "payload": Out(layout), "ready": In(1), "ready2": In(1)})


def link_signature(routing: RoutingFunction, payload_width: int = 32, broadcast=None,
                   pipeline: bool = False) -> wiring.Signature:
    """The link of ``routing``'s routers: :func:`link_signature_of` its flit layout."""
    return link_signature_of(link_flit_layout(routing, payload_width, broadcast), routing.num_vcs,
                             broadcast is not None, pipeline)


def link_signature_of(layout: data.StructLayout, num_vcs: int = 1, broadcast: bool = False,
                      pipeline: bool = False) -> wiring.Signature:
    """V = 1: a ``lib.stream`` of ``layout``; V > 1: :class:`VCLinkSignature`; broadcast routers:
    :class:`BroadcastLinkSignature`; pipelined: :class:`PipelineLinkSignature`."""
    if pipeline:
        return PipelineLinkSignature(layout)
    if broadcast:
        return BroadcastLinkSignature(layout)
    if num_vcs == 1:
        return stream.Signature(layout)
    return VCLinkSignature(layout, num_vcs)


def local_signature(payload_width: int = 32) -> stream.Signature:
    return stream.Signature(local_flit_layout(payload_width))
