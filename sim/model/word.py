"""The flit words, defined once (docs/router.md "Flits and links").

* ``LINK_FIELDS`` / ``LOCAL_FIELDS``: the field order (LSB first) of the link flit and the local flit,
  as ``rtl/flit.py`` lays them out; the cocotb bench packs local flits with :func:`pack_local`.
* ``MODEL_FIELDS``: the model's int64 FIFO word, LSB first: ``head`` (1), ``tail`` (1), ``route`` (29),
  ``bcast`` (1), ``flit`` (32: the index into the stimulus arrays; the data never changes on its way,
  so it is looked up at the end). Stimuli have fewer than 2**31 flits, so the word stays positive.
* A route-table entry (sim/model/tables.py) is ``port | new_route << PORT_BITS`` (:func:`route_entry`).

Every kernel reads the offsets, masks and widths below; none writes a shift or mask of its own.
"""
from __future__ import annotations

from cubenoc.errors import CubenocError

LINK_FIELDS = ("head", "tail", "route", "data")
DEST_WIDTH = 16                       # on a head flit data[0:16] is the destination
MAX_PAYLOAD = 1024                    # payload width W: DEST_WIDTH..MAX_PAYLOAD bits
LOCAL_FIELDS = ("head", "tail", "data")
MODEL_FIELDS = (("head", 1), ("tail", 1), ("route", 29), ("bcast", 1), ("flit", 32))


def offsets(fields) -> dict[str, int]:
    """``{name: bit offset}`` of ``((name, width), ...)`` laid out LSB first, contiguous."""
    out, pos = {}, 0
    for name, width in fields:
        out[name] = pos
        pos += width
    return out


WIDTH = dict(MODEL_FIELDS)
OFFSET = offsets(MODEL_FIELDS)
HEAD = OFFSET["head"]                 # 0: ``w & 1`` is the head bit (HEAD_MASK)
TAIL = OFFSET["tail"]
ROUTE_SHIFT = OFFSET["route"]
ROUTE_BITS = WIDTH["route"]
ROUTE_MASK = (1 << ROUTE_BITS) - 1
BCAST_SHIFT = OFFSET["bcast"]
FLIT_SHIFT = OFFSET["flit"]
MAX_FLITS = 1 << (WIDTH["flit"] - 1)  # the sign bit stays clear
HEAD_MASK = 1 << HEAD
HT_MASK = (1 << TAIL) | HEAD_MASK     # head and tail bits, as the trace records them

PORT_BITS = 8                         # route-table entry: ``port | new_route << PORT_BITS``
PORT_MASK = (1 << PORT_BITS) - 1


def route_entry(port, new_route):
    """The route-table entry of a hop (ints or numpy arrays)."""
    return port | (new_route << PORT_BITS)


def check_route_width(width: int, what: str = "route header") -> int:
    """The model packs a routing header into the ``route`` field of its flit word."""
    if width > ROUTE_BITS:
        raise CubenocError(f"the model packs {what}s of at most {ROUTE_BITS} bits (the route field of its "
                           f"flit word, sim/model/word.py), got {width}")
    return width


def local_offsets(payload_width: int | None = None) -> dict[str, int]:
    """Bit offsets of the local flit's fields (``data`` last, ``payload_width`` bits)."""
    return offsets(zip(LOCAL_FIELDS, (1, 1, payload_width or 0)))


LOCAL = local_offsets()


def pack_local(head, tail, data):
    """A local flit word from its fields (ints, or numpy object arrays for wide data)."""
    return (data << LOCAL["data"]) | (tail << LOCAL["tail"]) | (head << LOCAL["head"])


def unpack_local(word) -> tuple:
    """``(head, tail, data)`` of a local flit word."""
    return (word >> LOCAL["head"]) & 1, (word >> LOCAL["tail"]) & 1, word >> LOCAL["data"]
