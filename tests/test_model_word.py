"""The model's flit words (sim/model/word.py): one definition, consistent offsets, local words round-trip."""
import numpy as np
import pytest

from cubenoc.errors import CubenocError

from cubenoc.sim.model import word


def test_model_fields_contiguous_and_fit_int64():
    pos = 0
    for name, width in word.MODEL_FIELDS:
        assert word.OFFSET[name] == pos and word.WIDTH[name] == width > 0
        pos += width
    assert pos <= 64
    assert word.MAX_FLITS << word.FLIT_SHIFT <= np.iinfo(np.int64).max + 1   # the sign bit stays clear
    masks = [((1 << w) - 1) << word.OFFSET[n] for n, w in word.MODEL_FIELDS]
    assert all(a & b == 0 for i, a in enumerate(masks) for b in masks[i + 1:])    # no overlap
    assert (word.HEAD, word.TAIL, word.ROUTE_SHIFT, word.BCAST_SHIFT) == (0, 1, 2, 2 + word.ROUTE_BITS)
    assert word.HT_MASK == (1 << word.HEAD) | (1 << word.TAIL)


def test_field_orders_match_the_link_and_local_flits():
    assert word.LINK_FIELDS[:3] == tuple(n for n, _ in word.MODEL_FIELDS[:3])
    assert word.LOCAL_FIELDS == tuple(n for n in word.LINK_FIELDS if n != "route")


def test_local_pack_round_trips():
    rng = np.random.default_rng(0)
    for _ in range(200):
        h, t, d = int(rng.integers(2)), int(rng.integers(2)), int(rng.integers(0, 1 << 63)) << 1
        w = word.pack_local(h, t, d)
        assert word.unpack_local(w) == (h, t, d)
    arr = word.pack_local(np.array([1, 0], dtype=object), np.array([0, 1], dtype=object),
                          np.array([1 << 40, 5], dtype=object))
    assert [word.unpack_local(int(x)) for x in arr] == [(1, 0, 1 << 40), (0, 1, 5)]


def test_route_entry_and_width_check():
    assert word.route_entry(3, 5) & word.PORT_MASK == 3 and word.route_entry(3, 5) >> word.PORT_BITS == 5
    word.check_route_width(word.ROUTE_BITS)
    with pytest.raises(CubenocError, match="at most 29 bits"):
        word.check_route_width(word.ROUTE_BITS + 1)


def test_word_offsets_agree_with_the_rtl_struct_layouts():
    """The model's word and the cocotb bench's local word lay their fields out as rtl/flit.py's StructLayouts."""
    from cubenoc.rtl.flit import link_flit_layout, local_flit_layout
    from cubenoc.sim.broadcast.hypercube import BinomialBroadcast
    from cubenoc.sim.routing.hypercube import EcubeRouting
    from cubenoc.sim.routing.metacube import MetacubeRouting
    from cubenoc.sim.topology.hypercube import Hypercube
    from cubenoc.sim.topology.metacube import Metacube
    q3, mc = Hypercube(3), Metacube(1, 1)
    for layout in (link_flit_layout(EcubeRouting(q3), 32), link_flit_layout(MetacubeRouting(mc), 20),
                   link_flit_layout(EcubeRouting(q3), 32, BinomialBroadcast(q3))):
        assert [name for name, _ in layout][:len(word.LINK_FIELDS)] == list(word.LINK_FIELDS)
        for name in ("head", "tail", "route"):          # the model word's fields at the same offsets
            assert layout[name].offset == word.OFFSET[name]
        assert layout["route"].width <= word.ROUTE_BITS
    for w in (16, 32, 64):
        local = local_flit_layout(w)
        assert [name for name, _ in local] == list(word.LOCAL_FIELDS)
        assert {name: local[name].offset for name in word.LOCAL_FIELDS} == word.local_offsets(w)
        assert local.size == word.local_offsets(w)["data"] + w
