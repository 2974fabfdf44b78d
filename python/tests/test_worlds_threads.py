"""Many worlds in one process, and threads: each world steps the same alone, interleaved or on
its own Python thread, and a step releases the GIL."""

import threading
import time

import numpy as np

import crowdstep


def build(seed, threads=1):
    w = crowdstep.World(threads=threads, world_tag=seed, seed=seed)
    rng = np.random.default_rng(seed)
    w.add_agents(rng.uniform(-30, 30, (1500, 2)), goals=rng.uniform(-30, 30, (1500, 2)))
    return w


def reference(seed, ticks):
    with build(seed) as w:
        w.step(ticks=ticks)
        return w.state_hash()


def test_many_worlds_interleaved():
    seeds = list(range(1, 21))
    expected = [reference(s, 12) for s in seeds]
    worlds = [build(s, threads=1 + s % 3) for s in seeds]
    for _ in range(12):
        for w in worlds:
            w.step()
    assert [w.state_hash() for w in worlds] == expected
    assert len(set(expected)) == len(expected)
    for w in worlds:
        w.close()


def test_worlds_on_python_threads():
    seeds = [31, 32, 33, 34]
    expected = {s: reference(s, 30) for s in seeds}
    got = {}

    def run(s):
        with build(s, threads=1) as w:
            for _ in range(30):
                w.step()
            got[s] = w.state_hash()

    ts = [threading.Thread(target=run, args=(s,)) for s in seeds]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert got == expected


def test_one_world_from_several_threads_is_serialized():
    w = build(40, threads=1)
    expected_ticks = 4 * 10

    stale = []

    def run():
        for _ in range(10):
            w.step()
            c = w.columns
            try:
                c.x.sum()
            except crowdstep.StaleViewError:  # another thread stepped in between: never silent
                stale.append(1)

    ts = [threading.Thread(target=run) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert w.tick == expected_ticks
    assert w.state_hash() == reference(40, expected_ticks)
    w.close()


def test_step_releases_the_gil():
    w = crowdstep.World(threads=1)
    rng = np.random.default_rng(3)
    w.add_agents(rng.uniform(-100, 100, (100000, 2)), goals=[0.0, 0.0])
    done = threading.Event()
    spins = 0

    def stepper():
        w.step(ticks=10)
        done.set()

    t = threading.Thread(target=stepper)
    start = time.perf_counter()
    t.start()
    while not done.is_set():
        spins += 1
        time.sleep(0.001)
    t.join()
    elapsed = time.perf_counter() - start
    # The main thread ran throughout the steps (with the GIL held, it would wait till the end).
    assert spins > 5, (spins, elapsed)
    w.close()
