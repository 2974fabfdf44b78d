"""The behaviors through the Python API: obstacles, paths, queues, leaders and followers, exit
sets and routes, each doing what the C API documents."""

import numpy as np
import pytest

import crowdstep


@pytest.fixture
def world():
    w = crowdstep.World(threads=2, world_tag=6)
    yield w
    w.close()


def test_agent_def_round_trip(world):
    a = world.add_agent((1.0, 2.0), (9.0, 9.0), mode="seek", radius=0.4, max_speed=2.0,
                        user_data=77, route="straight")
    d = world.agent(a)
    assert d["position"] == (1.0, 2.0) and d["radius"] == pytest.approx(0.4)
    assert d["goal"]["mode"] == "seek" and d["goal"]["route"] == "straight"
    assert d["user_data"] == 77 and d["max_speed"] == 2.0
    world.set_goal(a)  # no target: cleared
    assert world.agent(a)["goal"]["mode"] == "none"
    world.set_limits(a, 3.0, 4.0)
    world.set_walls(a, weight=2.0, look_ahead=0.5)
    d = world.agent(a)
    assert (d["max_speed"], d["max_force"], d["wall_weight"]) == (3.0, 4.0, 2.0)


def test_goal_forms(world):
    # The default goal walks the pedestrian model; 'literal' is the spec's. Two files of agents
    # behind a slow leader: the pedestrians keep a gap behind the one ahead, so the two worlds part.
    p = world.add_agent((0.0, 0.0), (50.0, 0.0), mode="seek")
    q = world.add_agent((0.0, 5.0), (50.0, 5.0), mode="seek", form="literal")
    assert world.agent(p)["goal"]["form"] == "pedestrian"
    assert world.agent(q)["goal"]["form"] == "literal"
    world.set_goal(p, (50.0, 0.0), mode="seek", form="literal")
    assert world.agent(p)["goal"]["form"] == "literal"
    with pytest.raises((ValueError, crowdstep.Error)):
        world.set_goal(p, (50.0, 0.0), form="bogus")
    assert world.agent(p)["goal"]["form"] == "literal"
    with crowdstep.World(threads=1) as a, crowdstep.World(threads=1) as b:
        starts = np.array([[float(i), 0.0] for i in range(6)], dtype=np.float32)
        a.add_agents(starts, (100.0, 0.0), mode="seek")
        b.add_agents(starts, (100.0, 0.0), mode="seek", form="literal")
        a.step(ticks=50)
        b.step(ticks=50)
        assert a.state_hash() != b.state_hash()


def test_obstacles_and_routes(world):
    wall = world.add_obstacle([[5, -10], [5, 10]], kind="wall")
    block = world.add_obstacle([[20, 20], [24, 20], [24, 24]])
    assert world.obstacles() == [wall, block] and world.obstacle_count == 2
    assert world.obstacle_points(wall).tolist() == [[5, -10], [5, 10]]
    a = world.add_agent((0.0, 0.0), (10.0, 0.0))
    world.step()
    r = world.route(a)
    assert r["state"] == "routed"
    assert r["aim"][1] == pytest.approx(10, abs=1.0)  # round the wall's end
    assert r["distance"] > 20
    world.step(ticks=400)
    assert np.linalg.norm(world.positions([a])[0] - (10, 0)) < 0.5
    world.remove_obstacle(block)
    with pytest.raises(crowdstep.StaleObstacleError):
        world.remove_obstacle(block)
    assert world.nav_stats()["grid_w"] > 0


def test_exit_sets(world):
    exits = world.create_exits([[-20, 0], [20, 0]])
    ids = world.add_agents([[-5, 0], [5, 0]], exits=exits, mode="arrive")
    world.step(ticks=300)
    p = world.positions(ids)
    assert p[0][0] < -19 and p[1][0] > 19
    assert world.exits_points(exits).shape == (2, 2)


def test_paths(world):
    path = world.create_path([[0, 0], [10, 0], [10, 10]])
    a = world.add_agent((0.0, -1.0))
    world.set_path(a, path, kind="waypoints", mode="one_shot")
    assert world.path_state(a)["state"] == "following"
    world.step(ticks=300)
    assert world.path_state(a)["state"] == "finished"
    assert np.linalg.norm(world.positions([a])[0] - (10, 10)) < 1.0
    assert world.path_points(path).shape == (3, 2) and world.path_count == 1
    world.replace_path(path, [[0, 0], [5, 5]])
    world.destroy_path(path)
    assert world.path_state(a)["state"] == "detached"
    world.clear_path(a)


def test_queue_arrivals_remove(world):
    ids = world.add_agents([[-10, 0], [-12, 0], [-14, 0]])
    for a in ids:
        world.set_queue(a, (0, 0), on_arrival="remove")
    arrived = []
    for _ in range(400):
        world.step()
        got, where = world.arrivals()
        arrived += got.tolist()
        assert where.shape == (len(got), 2)
    assert arrived == ids.tolist()  # in file order
    assert world.count == 0


def test_leader_and_followers(world):
    leader = world.add_agent((0.0, 0.0), (40.0, 0.0), max_speed=1.3)
    followers = world.add_agents(np.array([[-2.0, y] for y in range(-3, 3)]))
    world.set_formation(leader, "line", spacing=1.5)
    for f in followers:
        world.follow(f, leader, target="slot")
    assert sorted(world.followers(leader).tolist()) == sorted(followers.tolist())
    world.step(ticks=150)
    lp = world.positions([leader])[0]
    fp = world.positions(followers)
    assert np.all(np.linalg.norm(fp - lp, axis=1) < 8)
    s = world.follow_state(followers[0])
    assert s["state"] == "active" and s["leader"] == leader
    fallback = world.add_agent((0.0, 10.0))
    world.set_fallback(leader, fallback)
    world.remove_agents(leader)
    assert world.follow_state(followers[0])["leader"] == fallback
    world.unfollow(followers[0])
    assert world.follow_state(followers[0])["state"] == "none"


def test_world_properties(world):
    assert world.dt == pytest.approx(0.1)
    world.threads = 1
    assert world.threads == 1
    world.max_neighbors = 8
    assert world.max_neighbors == 8
    with pytest.raises(crowdstep.BadCountError):
        world.max_neighbors = -1
    world.add_agents(np.zeros((1, 2)))
    world.step()
    prof = world.profile()
    assert prof["agents"] == 1 and "neighbor" in prof["phase_ms"]
    assert repr(world).startswith("<crowdstep.World")
