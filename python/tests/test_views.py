"""World.columns: zero-copy read-only views, their validity across steps and changes, and the
memory they keep alive (a world outlives no view unsafely)."""

import gc
import os
import subprocess
import sys
import textwrap
import weakref

import numpy as np
import pytest

import crowdstep


def make(n=3000, threads=2):
    w = crowdstep.World(threads=threads, world_tag=4)
    rng = np.random.default_rng(8)
    ids = w.add_agents(rng.uniform(-40, 40, (n, 2)), goals=rng.uniform(-40, 40, (n, 2)))
    return w, ids


def test_views_are_the_engine_columns():
    w, ids = make()
    w.step(ticks=2)
    c = w.columns
    assert c.valid and len(c) == w.count
    x, y, vx, vy, idx = c.x, c.y, c.vx, c.vy, c.id
    assert x.dtype == np.float32 and idx.dtype == np.uint32
    assert not x.flags.writeable and not x.flags.owndata
    with pytest.raises(ValueError):
        x[0] = 1.0
    # Rows are in cell order; id says which agent each row is.
    handles = c.ids()
    assert sorted(handles.tolist()) == sorted(ids.tolist())
    assert np.array_equal(crowdstep.index_of(handles), idx)
    assert np.array_equal(w.positions(handles), np.stack([x, y], axis=1))
    assert np.array_equal(w.velocities(handles), np.stack([vx, vy], axis=1))
    assert np.array_equal(w.headings(handles), np.stack([c.hx, c.hy], axis=1))
    # The same array object while valid: no copy per access.
    assert c.x is x
    w.close()


def test_views_turn_stale_at_a_step_and_at_any_change():
    w, ids = make()
    for change in (
        lambda: w.step(),
        lambda: w.set_position(ids[0], (1.0, 2.0)),
        lambda: w.set_goal(ids[1], (5.0, 5.0)),
        lambda: w.add_agents([[60.0, 60.0]]),
        lambda: w.remove_agents(ids[2]),
        lambda: w.add_obstacle([[100, 100], [101, 100], [101, 101]]),
    ):
        c = w.columns
        x = c.x
        kept = x.copy()
        assert c.valid
        change()
        assert not c.valid
        with pytest.raises(crowdstep.StaleViewError) as info:
            c.y
        assert isinstance(info.value, crowdstep.Error)
        with pytest.raises(crowdstep.StaleViewError):
            c.x  # even the array it handed out before
        assert len(x) == len(kept)  # an array taken earlier stays readable (stale values)
        fresh = w.columns
        assert fresh.valid and len(fresh.x) == w.count
    # Reads leave views valid.
    c = w.columns
    w.positions(ids[3:5]), w.state_hash(), w.count, w.route(ids[3]), w.save()
    assert c.valid
    w.close()
    assert not c.valid


def test_view_keeps_world_memory_alive():
    w, ids = make(threads=1)
    c = w.columns
    x = c.x
    ref = weakref.ref(w)
    expected = x.copy()
    del w, c
    gc.collect()
    assert ref() is not None  # the array holds the world
    assert np.array_equal(x, expected)
    del x
    gc.collect()
    assert ref() is None


def test_close_with_live_views_is_safe():
    w, ids = make(threads=1)
    x = w.columns.x
    expected = x.copy()
    w.close()
    assert w.closed
    assert np.array_equal(x, expected)  # its memory freed only when x goes


def test_growth_never_frees_under_a_view():
    # In a child process with glibc's MALLOC_PERTURB_, which fills freed memory: an array whose
    # buffer the engine had freed would change.
    code = textwrap.dedent(
        """
        import numpy as np, crowdstep
        w = crowdstep.World(threads=1, capacity=16)
        w.add_agents(np.random.default_rng(1).uniform(-9, 9, (16, 2)))
        x = w.columns.x
        before = x.copy()
        w.add_agents(np.random.default_rng(2).uniform(20, 900, (200000, 2)))  # storage grows
        w.step(ticks=2)
        assert np.array_equal(x, before), "freed under a view"
        w.close()
        assert np.array_equal(x, before)
        del x
        print("ok")
        """
    )
    env = dict(os.environ, MALLOC_PERTURB_="165")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_handles_of_indices():
    w, ids = make(n=10, threads=1)
    idx = crowdstep.index_of(ids)
    assert np.array_equal(w.handles(idx), ids)
    w.remove_agents(ids[3])
    h = w.handles(idx)
    assert h[3] == 0 and np.array_equal(np.delete(h, 3), np.delete(ids, 3))
    w.close()


def test_empty_world_columns():
    with crowdstep.World(threads=1) as w:
        c = w.columns
        assert len(c.x) == 0 and c.id.dtype == np.uint32
