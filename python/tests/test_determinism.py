"""Same results as C: scenario files give `crowd run --hash`'s state hash on any thread count."""

import subprocess

import numpy as np
import pytest

import crowdstep

TICKS = 60


def c_hash(crowd_bin, path, ticks):
    out = subprocess.run(
        [crowd_bin, "run", str(path), "--ticks", str(ticks), "--hash", "--threads", "1"],
        check=True, capture_output=True, text=True,
    ).stdout
    line = next(l for l in out.splitlines() if l.startswith("state-hash:"))
    return int(line.split()[1], 16)


# Plain crowds; walls and routed queues to a point (evacuation); an exit set (shop); rooms and
# exits (building); routed waypoint legs (town-patrol); followers and formations; queues.
@pytest.mark.parametrize(
    "name",
    ["crossing", "evacuation", "shop", "building", "town-patrol", "follow-leader", "queue",
     "waypoints", "tube"],
)
def test_scenario_hash_equals_crowd_run(root, crowd_bin, name):
    path = root / "tools" / "scenarios" / f"{name}.json"
    expected = c_hash(crowd_bin, path, TICKS)
    for threads in (1, 2, 3):
        with crowdstep.load_scenario(path, threads=threads) as world:
            world.step(ticks=TICKS)
            assert world.state_hash() == expected, (name, threads)
            assert world.tick == TICKS


def test_scenario_info(root):
    with crowdstep.load_scenario(root / "tools/scenarios/building.json") as world:
        info = world.scenario
        assert info["name"] == "building"
        assert info["agents"] == world.count > 0
        assert info["ticks"] > 0
        for exits in info["exits"].values():
            assert world.exits_points(exits).shape[1] == 2


def test_scenario_errors_raise_value_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x", "crowds": [{"count": -1}]}')
    with pytest.raises(ValueError, match="bad.json"):
        crowdstep.load_scenario(bad)
    with pytest.raises(ValueError):
        crowdstep.load_scenario(tmp_path / "missing.json")


def build_mixed(threads):
    """Every behavior through the Python API; the same calls give the same world."""
    world = crowdstep.World(threads=threads, world_tag=7, seed=11)
    rng = np.random.default_rng(5)
    world.add_obstacle([[-2, -2], [2, -2], [2, 2], [-2, 2]])
    world.add_obstacle([[-30, 20], [30, 20]], kind="wall")
    n = 2000
    pos = rng.uniform(-25, 25, (n, 2))
    pos = pos[(np.abs(pos).max(axis=1) > 3.5) & (np.abs(pos[:, 1] - 20) > 1)]
    corners = np.array([[-22, -22], [22, -22], [22, 18], [-22, 18]], np.float32)
    ids = world.add_agents(pos[:1000], goals=corners[np.arange(1000) % 4], mode="arrive")
    world.add_agents(pos[:1000] * 0.5 + 60, goals=-pos[:1000], route="straight")
    doors = world.create_exits([[-25, 0], [25, 0]])
    world.add_agents(pos[1000:1400], exits=doors, mode="seek")
    rest = world.add_agents(pos[1400:])
    path = world.create_path([[-10, -10], [10, -10], [10, 10], [-10, 10]])
    for a in rest[:100]:
        world.set_path(a, path, kind="waypoints", mode="loop")
    for a in rest[100:150]:
        world.set_queue(a, (0, -15), on_arrival="respawn", start_min=(-20, -20), start_max=(-15, -15))
    leader = rest[150]
    world.set_goal(leader, (20, 15))
    world.set_formation(leader, "wedge", spacing=1.2)
    for a in rest[151:160]:
        world.follow(a, leader, target="slot")
    return world, ids


def test_api_world_same_on_any_thread_count():
    hashes = set()
    for threads in (1, 2, 4):
        world, _ = build_mixed(threads)
        world.step(ticks=40)
        hashes.add(world.state_hash())
        world.close()
    assert len(hashes) == 1


def test_snapshot_continues_bit_identically():
    world, ids = build_mixed(2)
    world.step(ticks=10)
    data = world.save()
    with crowdstep.World.load(data, threads=1) as copy:
        assert copy.state_hash() == world.state_hash()
        assert np.array_equal(copy.positions(ids), world.positions(ids))
        copy.step(ticks=20)
        world.step(ticks=20)
        assert copy.state_hash() == world.state_hash()
    world.close()
