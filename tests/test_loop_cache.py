"""sim/model/loop_cache.py: numba's disk cache of the model's loops is flushed when a stage module they
compiled in changes (numba itself checks only the file that defines a loop), and only then."""
from __future__ import annotations

from types import SimpleNamespace

from cubenoc.sim.model.loop_cache import drop_stale_loops


def _loops(folder, flushed):
    def loop(name):
        return SimpleNamespace(_cache=SimpleNamespace(_cache_path=str(folder), flush=lambda: flushed.append(name)))
    return [loop("a"), loop("b")]


def test_flushed_when_the_stages_change_and_only_then(tmp_path):
    flushed: list = []
    loops = _loops(tmp_path, flushed)
    drop_stale_loops(loops, ["phases"])              # no stamp yet: flush, then stamp
    assert flushed == ["a", "b"] and (tmp_path / "kernel.stages").is_file()
    drop_stale_loops(loops, ["phases"])              # the same sources: the cached loops stay
    assert flushed == ["a", "b"]
    drop_stale_loops(loops, ["phases", "stages"])    # other sources (an edited stage): flushed again
    assert flushed == ["a", "b", "a", "b"]


def test_a_numba_without_that_cache_object_is_left_alone(tmp_path):
    """A numba release whose dispatchers keep their cache elsewhere: nothing flushed, nothing raised."""
    drop_stale_loops([SimpleNamespace(), SimpleNamespace()], ["phases"])
    drop_stale_loops([SimpleNamespace(_cache=SimpleNamespace(_cache_path=str(tmp_path)))], ["phases"])
    assert not (tmp_path / "kernel.stages").exists()


def test_a_read_only_cache_is_left_alone(tmp_path):
    """flush() failing (a read-only cache folder): numba then compiles in memory; no error."""
    def refuse():
        raise PermissionError("read-only")
    loops = [SimpleNamespace(_cache=SimpleNamespace(_cache_path=str(tmp_path / "missing"), flush=refuse))]
    drop_stale_loops(loops, ["phases"])


def test_this_numba_has_the_cache_object_the_flush_uses():
    """With the numba installed, the guard above is not what runs: the real loops carry the cache object
    (a numba release that changes it fails here, not silently)."""
    from cubenoc.sim.model import kernel
    assert all(hasattr(run._cache, "flush") and run._cache._cache_path for run in kernel.LOOPS)
