"""Every failing status raises crowdstep.Error (its subclass per status, carrying the status
name) and leaves the world as it was: same state hash, same agents, same ids."""

import numpy as np
import pytest

import crowdstep


@pytest.fixture
def world():
    w = crowdstep.World(threads=1, world_tag=3, max_agents=1000)
    w.add_obstacle([[0, 0], [4, 0], [4, 4], [0, 4]])
    rng = np.random.default_rng(1)
    w.ids = w.add_agents(rng.uniform(10, 30, (200, 2)), goals=[40.0, 40.0])
    w.path = w.create_path([[10, 10], [20, 10], [20, 20]])
    w.step(ticks=3)
    yield w
    w.close()


def snapshot(w):
    return w.state_hash(), w.count, w.agents().tolist(), w.tick


def expect(w, exc, status, fn, *args, **kw):
    before = snapshot(w)
    with pytest.raises(exc) as info:
        fn(*args, **kw)
    assert isinstance(info.value, crowdstep.Error)
    assert info.value.status == status
    assert status in str(info.value)
    assert snapshot(w) == before


def test_status_classes():
    assert issubclass(crowdstep.StaleHandleError, crowdstep.Error)
    assert crowdstep.StaleHandleError.status == "CROWD_ERR_STALE_HANDLE"
    assert crowdstep.errors_by_status["CROWD_ERR_INSIDE_OBSTACLE"] is crowdstep.InsideObstacleError
    assert crowdstep.BadRadiusError.code == 4


def test_world_def_errors():
    with pytest.raises(crowdstep.BadDtError):
        crowdstep.World(dt=-1.0)
    with pytest.raises(crowdstep.BadThreadsError):
        crowdstep.World(threads=100000)


def test_batch_add_is_all_or_nothing(world):
    n = 500
    pos = np.random.default_rng(2).uniform(50, 80, (n, 2))
    radius = np.full(n, 0.3, np.float32)
    radius[321] = -1.0
    expect(world, crowdstep.BadRadiusError, "CROWD_ERR_BAD_RADIUS", world.add_agents, pos, radius=radius)
    bad = pos.copy()
    bad[400] = (2, 2)  # inside the solid
    expect(world, crowdstep.InsideObstacleError, "CROWD_ERR_INSIDE_OBSTACLE", world.add_agents, bad)
    bad[400] = (np.nan, 0)
    expect(world, crowdstep.NotFiniteError, "CROWD_ERR_NOT_FINITE", world.add_agents, bad)
    bad[400] = (2e6, 0)
    expect(world, crowdstep.OutOfRangeError, "CROWD_ERR_OUT_OF_RANGE", world.add_agents, bad)
    # max_agents 1000 with 200 in: 801 do not fit, 800 do.
    expect(world, crowdstep.CapacityError, "CROWD_ERR_CAPACITY", world.add_agents,
           np.random.default_rng(3).uniform(50, 80, (801, 2)))
    expect(world, crowdstep.InvalidEnumError, "CROWD_ERR_INVALID_ENUM", world.add_agents, pos,
           goals=[0, 0], mode="sideways")
    expect(world, crowdstep.BadSpeedError, "CROWD_ERR_BAD_SPEED", world.add_agents, pos, max_speed=0)
    ids = world.add_agents(np.random.default_rng(3).uniform(50, 80, (800, 2)))
    assert len(ids) == 800 and world.count == 1000


def test_handle_errors(world):
    gone = world.ids[5]
    world.remove_agents([gone])
    expect(world, crowdstep.StaleHandleError, "CROWD_ERR_STALE_HANDLE", world.positions, [world.ids[0], gone])
    # Nothing removed unless every id is live, and given once.
    expect(world, crowdstep.StaleHandleError, "CROWD_ERR_STALE_HANDLE", world.remove_agents,
           [world.ids[0], world.ids[1], gone])
    expect(world, crowdstep.StaleHandleError, "CROWD_ERR_STALE_HANDLE", world.remove_agents,
           [world.ids[0], world.ids[1], world.ids[0]])
    expect(world, crowdstep.NullHandleError, "CROWD_ERR_NULL_HANDLE", world.set_position, 0, (1, 1))
    with crowdstep.World(threads=1, world_tag=9) as other:
        foreign = other.add_agents([[0.0, 0.0]])[0]
    expect(world, crowdstep.ForeignHandleError, "CROWD_ERR_FOREIGN_HANDLE", world.set_velocity, foreign, (1, 0))
    assert gone not in world and world.ids[0] in world


def test_setter_errors(world):
    a, b = world.ids[0], world.ids[1]
    expect(world, crowdstep.InsideObstacleError, "CROWD_ERR_INSIDE_OBSTACLE", world.set_position, a, (1, 1))
    expect(world, crowdstep.BadRadiusError, "CROWD_ERR_BAD_RADIUS", world.set_radius, a, 0.0)
    expect(world, crowdstep.BadWeightError, "CROWD_ERR_BAD_WEIGHT", world.set_separation, a, 1.0, -1.0)
    expect(world, crowdstep.BadConeError, "CROWD_ERR_BAD_CONE", world.set_queue, a, (0, 0), cone_width=-1)
    expect(world, crowdstep.BadAreaError, "CROWD_ERR_BAD_AREA", world.set_queue, a, (0, 0),
           on_arrival="respawn", start_min=(5, 5), start_max=(0, 0))
    expect(world, crowdstep.InvalidEnumError,
           "CROWD_ERR_INVALID_ENUM", world.set_queue, a, (0, 0), on_arrival="vanish")
    expect(world, crowdstep.PathTooShortError, "CROWD_ERR_PATH_TOO_SHORT", world.create_path, [[0, 0]])
    expect(world, crowdstep.PathRepeatedPointError, "CROWD_ERR_PATH_REPEATED_POINT",
           world.create_path, [[0, 0], [0, 0]])
    expect(world, crowdstep.NullPathError, "CROWD_ERR_NULL_PATH", world.set_path, a, 0)
    expect(world, crowdstep.ObstacleSelfIntersectingError, "CROWD_ERR_OBSTACLE_SELF_INTERSECTING",
           world.add_obstacle, [[50, 50], [60, 60], [60, 50], [50, 60]])
    expect(world, crowdstep.InsideObstacleError, "CROWD_ERR_INSIDE_OBSTACLE", world.add_obstacle,
           [[5, 5], [40, 5], [40, 40], [5, 40]])  # would cover agents
    world.follow(b, a)
    expect(world, crowdstep.FollowCycleError, "CROWD_ERR_FOLLOW_CYCLE", world.follow, a, b)
    exits = world.create_exits([[-20, 0]])
    world.set_goal(a, exits=exits)
    expect(world, crowdstep.InUseError, "CROWD_ERR_IN_USE", world.destroy_exits, exits)
    expect(world, crowdstep.BadCountError, "CROWD_ERR_BAD_COUNT", world.step, ticks=-1)


def test_snapshot_errors(world):
    data = bytearray(world.save())
    with pytest.raises(crowdstep.SnapshotMagicError):
        crowdstep.World.load(b"nonsense" * 8)
    data[len(data) // 2] ^= 1
    with pytest.raises(crowdstep.SnapshotChecksumError) as info:
        crowdstep.World.load(bytes(data))
    assert info.value.status == "CROWD_ERR_SNAPSHOT_CHECKSUM"
    with pytest.raises(crowdstep.SnapshotTruncatedError):
        crowdstep.World.load(bytes(data[:100]))


def test_closed_world():
    w = crowdstep.World(threads=1)
    with w:
        w.add_agents([[0.0, 0.0]])
    assert w.closed
    with pytest.raises(crowdstep.ClosedError):
        w.step()
    with pytest.raises(crowdstep.ClosedError):
        w.columns
    w.close()  # idempotent


def test_batch_add_beyond_the_navigation_budget():
    # Room for one field of this small grid: a second destination is refused by the add itself,
    # after the agents before it were added; they are removed again.
    with crowdstep.World(threads=1, world_tag=5, nav_budget=6000) as w:
        w.add_obstacle([[0, 0], [4, 0], [4, 4], [0, 4]])
        w.add_agents([[10, 10]], goals=[20, 20])
        w.step()
        before = snapshot(w)
        with pytest.raises(crowdstep.CapacityError) as info:
            w.add_agents([[10, 12], [10, 14], [10, 16]], goals=[[20, 20], [20, 20], [-20, 20]])
        assert "agent 2" in str(info.value)
        assert snapshot(w) == before
        w.step()
