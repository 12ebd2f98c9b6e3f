"""AXI4-Stream frames as the network's packets: the rule of the per-node network interface
(rtl/axis_ni.py, docs/ip.md), in Python for its unit test and the cocotb kit.

A frame of L beats entering ``s<vv>_axis`` becomes a packet of L + 1 flits: a header flit (head) whose data
is :func:`header_word` (the destination in ``data[0:16]``, where the source interface reads it, and the
source node in ``data[16:16+b]``), then the L beats unchanged (tail on the ``tlast`` beat). The receiving
interface takes the header off and shows the source in ``m<vv>_axis_tid`` for the frame's beats.
``tdest`` is ``b`` bits wide (b = :func:`node_width`), one more with broadcast routers, whose all-ones
``tdest`` is the broadcast destination 0xFFFF.
"""
from __future__ import annotations

import numpy as np

from cubenoc.errors import CubenocError

from .broadcast.fork import BROADCAST_DEST
from .model.stimulus import StimulusBuilder
from .model.word import DEST_WIDTH

SRC_LSB = DEST_WIDTH          # the header flit: data[0:16] destination, data[16:16+b] source
DROP_DEST = BROADCAST_DEST - 1  # a too-long broadcast frame's header: out of range, dropped whole


def ingress_depth(fifo_depth: int, broadcast: bool) -> int:
    """Entries of a node's ingress queue (rtl/axis_ni.py): 2, or the routers' FIFO depth D with broadcast
    routers (a broadcast frame is stored whole: at most D - 1 beats behind its header)."""
    return int(fifo_depth) if broadcast else 2


def node_width(num_nodes: int) -> int:
    """Bits of a node number (tid, and tdest without broadcast)."""
    return max(1, (num_nodes - 1).bit_length())


def dest_width(num_nodes: int, broadcast: bool) -> int:
    """Bits of tdest: a node number, one more with broadcast routers (all ones: broadcast)."""
    return node_width(num_nodes) + int(bool(broadcast))


def check_payload(payload_width: int, num_nodes: int) -> None:
    need = SRC_LSB + node_width(num_nodes)
    if payload_width < need:
        raise CubenocError(f"the AXI4-Stream interface carries the source in the header flit's data[{SRC_LSB}:{need}]: "
                           f"payload width must be at least {need} bits for {num_nodes} nodes, got {payload_width}")


def network_dest(tdest: int, num_nodes: int, broadcast: bool) -> int:
    """The 16-bit destination the header carries for ``tdest``."""
    if broadcast and tdest == (1 << dest_width(num_nodes, True)) - 1:
        return BROADCAST_DEST
    return int(tdest)


def header_word(tdest: int, src: int, num_nodes: int, broadcast: bool = False) -> int:
    return network_dest(tdest, num_nodes, broadcast) | (int(src) << SRC_LSB)


def header_source(word: int, num_nodes: int) -> int:
    """The source node of a header flit's data (what ``tid`` shows)."""
    return (int(word) >> SRC_LSB) & ((1 << node_width(num_nodes)) - 1)


def frame_flits(src: int, tdest: int, beats, num_nodes: int, broadcast: bool = False) -> list[tuple[int, int, int]]:
    """The flits ``(head, tail, data)`` of a frame (``beats``: its tdata words, tlast on the last)."""
    beats = [int(b) for b in beats]
    if not beats:
        raise CubenocError("an AXI4-Stream frame has at least one beat")
    return [(1, 0, header_word(tdest, src, num_nodes, broadcast))] + \
        [(0, int(j == len(beats) - 1), b) for j, b in enumerate(beats)]


def ingress_flits(src: int, frames, num_nodes: int, broadcast: bool = False, fifo_depth: int = 4) -> list:
    """What node ``src``'s interface writes into its router for ``frames`` ``[(tdest, beats), ...]``: each
    frame's :func:`frame_flits`, but a broadcast frame of more than D - 1 beats (``fifo_depth`` D: a broadcast
    packet fits a FIFO) gets :data:`DROP_DEST` in its header, and the router's source interface drops it."""
    out = []
    for tdest, beats in frames:
        flits = frame_flits(src, tdest, beats, num_nodes, broadcast)
        if network_dest(tdest, num_nodes, broadcast) == BROADCAST_DEST and len(beats) > fifo_depth - 1:
            flits[0] = (1, 0, DROP_DEST | (int(src) << SRC_LSB))
        out += flits
    return out


def frames_stimulus(num_nodes: int, data_width: int, frames, eject_ready=None, broadcast: bool = False):
    """A model :class:`~cubenoc.sim.model.stimulus.Stimulus` for AXI4-Stream frames ``[(src, tdest, [(release,
    tdata), ...]), ...]`` (per source in offer order; a beat's release is the first cycle ``tvalid`` showed it):
    the header flit is released with the first beat."""
    b = StimulusBuilder(num_nodes, data_width)
    release = [[] for _ in range(num_nodes)]
    for src, tdest, beats in frames:
        flits = frame_flits(src, tdest, [d for _, d in beats], num_nodes, broadcast)
        b.raw(src, flits, beats[0][0], dst=network_dest(tdest, num_nodes, broadcast))
        release[src] += [beats[0][0]] + [r for r, _ in beats]
    stim = b.build(eject_ready)
    stim.release = np.array([r for per_node in release for r in per_node], dtype=np.int64)
    return stim
