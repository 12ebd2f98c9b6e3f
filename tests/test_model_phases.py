"""The model's unit phases (sim/model/phases.py), called from Python as the RTL unit tests call them."""
import numpy as np

from cubenoc.sim.model import phases as K


def test_rr_pick_is_the_first_request_from_the_pointer():
    rng = np.random.default_rng(1)
    for _ in range(300):
        n = int(rng.integers(1, 9))
        req, ptr = int(rng.integers(0, 1 << n)), int(rng.integers(0, n))
        want = next((j % n for j in range(ptr, ptr + n) if (req >> (j % n)) & 1), -1)
        assert K.rr_pick(req, ptr, n) == want


def test_source_step_framing():
    I, F, D = K.IDLE, K.FORWARD, K.DROP
    assert K.source_step(I, 1, 0, True, True) == (True, True, 1, F, 1, 0, 0)     # head accepted
    assert K.source_step(I, 1, 1, True, False) == (False, False, 0, I, 0, 0, 0)  # FIFO full: waits
    assert K.source_step(I, 1, 0, False, False) == (True, False, 0, D, 0, 1, 0)  # dest out of range
    assert K.source_step(I, 0, 1, True, True) == (True, False, 0, I, 0, 0, 1)    # malformed
    assert K.source_step(F, 1, 1, True, True) == (True, True, 0, I, 0, 0, 1)     # head inside a packet
    assert K.source_step(D, 0, 1, True, True) == (True, False, 0, I, 0, 0, 0)    # end of a drop


def test_lock_and_fifo():
    assert K.lock_after(-1, 3, 1, 0) == 3 and K.lock_after(3, 3, 0, 1) == -1 and K.lock_after(3, 2, 0, 0) == 3
    assert K.lock_after(-1, 3, 1, 1) == -1
    first, buf, fhead, fcnt = np.zeros(1, np.int64), np.zeros((1, 1), np.int64), np.array([0]), np.array([0])
    K.fifo_push(first, buf, fhead, fcnt, 0, 7)
    K.fifo_push(first, buf, fhead, fcnt, 0, 8)
    assert first[0] == 7 and fcnt[0] == 2
    K.fifo_pop(first, buf, fhead, fcnt, 0)
    assert first[0] == 8 and fcnt[0] == 1


def test_head_register_fifo_is_a_fifo():
    """The model's FIFO (a head register and D - 1 entries behind it, as rtl/router/fifo.py HeadFifo)
    against a Python list, random pushes and pops at depths 1..5 (edge order: pop, then push)."""
    rng = np.random.default_rng(7)
    for depth in range(1, 6):
        first, buf = np.zeros(2, np.int64), np.zeros((2, depth - 1), np.int64)
        fhead, fcnt = np.zeros(2, np.int8), np.zeros(2, np.int8)
        ref, word, pops = [], 100, 0
        for _ in range(400):
            if ref and rng.random() < 0.5:
                K.fifo_pop(first, buf, fhead, fcnt, 1)
                ref.pop(0)
                pops += 1
            if len(ref) < depth and rng.random() < 0.5:
                K.fifo_push(first, buf, fhead, fcnt, 1, word)
                ref.append(word)
                word += 1
            assert fcnt[1] == len(ref) and fcnt[0] == 0
            if ref:
                assert first[1] == ref[0]
        assert pops > 50
