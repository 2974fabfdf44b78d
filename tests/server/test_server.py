#!/usr/bin/env python3
"""Drives crowd-server with a scripted client and checks its deltas against the library's state.

1. Lockstep session: a seeded script of adds, removes, goal changes, teleports and bad commands
   interleaved with steps. The client applies every tick line's deltas to its own copy of the
   world; after each batch of steps it asks for a full dump (read from the library) and requires
   its copy to be exactly equal. Errors must come exactly for the commands that should fail.
2. The same script on 1 and 2 threads gives byte-identical output (hashes included).
3. Walls: a wall added between ticks holds an agent seeking straight past it ("route":
   "straight") on its side until the wall is removed, while an agent with a routed goal (the
   default) walks round it; refused walls (over an agent, repeated points, malformed) and stale
   wall ids are errors on exactly their lines; dumps and the final line list the live walls.
4. Exit sets: an agent whose goal names an exit set heads for the exit nearest by walking
   distance (not the one nearest in a straight line, behind a wall); a set in use cannot be
   removed; a goal given a point again lets it go; dumps list the live sets.
5. Real-time mode ticks on its clock: N tick lines, no faster than the rate allows.
Usage: test_server.py PATH_TO_CROWD_SERVER
"""
import json
import random
import subprocess
import sys
import time

server = sys.argv[1]
passed = failed = 0


def check(ok, what):
    global passed, failed
    print(("PASS: " if ok else "FAIL: ") + what)
    if ok:
        passed += 1
    else:
        failed += 1
    return ok


class Client:
    def __init__(self, threads):
        self.p = subprocess.Popen([server, "--lockstep", "--threads", str(threads)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.lines = []  # everything the server wrote, in order
        self.state = {}  # id -> [x, y, vx, vy], from deltas only
        self.ref_to_id = {}
        self.errors = []
        self.walls_added = []  # [ref, id] pairs, in order
        self.walls_removed = []
        self.exits_added = []
        self.exits_removed = []
        self.max_x = {}  # id -> largest x seen in the deltas

    def send(self, obj):
        self.p.stdin.write((obj if isinstance(obj, str) else json.dumps(obj)) + "\n")

    def read(self):
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError("server closed its output")
        self.lines.append(line)
        return json.loads(line)

    def apply(self, msg):
        for ref, aid in msg["added"]:
            self.ref_to_id[ref] = aid
        for aid in msg["removed"]:
            self.state.pop(aid, None)
        self.walls_added += msg.get("walls_added", [])
        self.walls_removed += msg.get("walls_removed", [])
        self.exits_added += msg.get("exits_added", [])
        self.exits_removed += msg.get("exits_removed", [])
        for aid, x, y, vx, vy in msg["changed"]:
            self.state[aid] = [x, y, vx, vy]
            self.max_x[aid] = max(self.max_x.get(aid, x), x)

    def step(self, n):
        self.send({"cmd": "step", "n": n})
        ticks = 0
        while ticks < n:
            msg = self.read()
            if "error" in msg:
                self.errors.append(msg)
            else:
                self.apply(msg)
                ticks += 1
        return msg["tick"]

    def dump(self):
        self.send({"cmd": "dump"})
        while True:
            msg = self.read()
            if "error" in msg:
                self.errors.append(msg)
            else:
                return msg["dump"]

    def finish(self):
        self.p.stdin.close()
        line = self.p.stdout.readline()
        self.lines.append(line)
        self.p.wait(timeout=30)
        return json.loads(line)["final"]


def session(threads, seed=7):
    """Runs the scripted session; returns (client, expected error lines, dumps)."""
    rng = random.Random(seed)
    c = Client(threads)
    line = 0
    expect_errors = []
    dumps = []

    def send(obj, fails=False):
        nonlocal line
        line += 1
        if fails:
            expect_errors.append(line)
        c.send(obj)

    modes = ["seek", "arrive", "flee", "none"]
    next_ref = 0
    for _ in range(60):
        send({"cmd": "add", "ref": next_ref, "x": rng.uniform(-15, 15), "y": rng.uniform(-15, 15),
              "vx": rng.uniform(-1, 1), "vy": rng.uniform(-1, 1),
              "goal": {"mode": rng.choice(modes), "x": rng.uniform(-15, 15),
                       "y": rng.uniform(-15, 15)}})
        next_ref += 1
    line += 1
    c.step(3)
    removed = []
    for rnd in range(25):
        live = sorted(c.state)
        for _ in range(rng.randint(1, 6)):
            op = rng.random()
            if op < 0.2 and live:
                aid = live.pop(rng.randrange(len(live)))
                send({"cmd": "remove", "id": aid})
                removed.append(aid)
            elif op < 0.4 and live:
                send({"cmd": "teleport", "id": rng.choice(live), "x": rng.uniform(-20, 20),
                      "y": rng.uniform(-20, 20)})
            elif op < 0.6 and live:
                send({"cmd": "set_goal", "id": rng.choice(live), "mode": rng.choice(modes),
                      "x": rng.uniform(-15, 15), "y": rng.uniform(-15, 15)})
            elif op < 0.8:
                send({"cmd": "add", "ref": next_ref, "x": rng.uniform(-15, 15),
                      "y": rng.uniform(-15, 15)})
                next_ref += 1
            else:
                bad = rng.randrange(8)
                if bad == 0 and removed:
                    send({"cmd": "teleport", "id": rng.choice(removed), "x": 0, "y": 0}, True)
                elif bad == 1:
                    send("{not json", True)
                elif bad == 2:
                    send({"cmd": "add", "ref": next_ref, "max_speed": -1}, True)
                elif bad == 3:
                    send({"cmd": "fly"}, True)
                elif bad == 5:  # an unknown key is an error, not ignored
                    send({"cmd": "add", "ref": next_ref, "x": 1, "z": 2}, True)
                elif bad == 6:  # also inside the goal object
                    send({"cmd": "add", "ref": next_ref, "goal": {"mode": "seek", "speed": 3}},
                         True)
                elif bad == 7:  # beyond the valid coordinate range
                    send({"cmd": "add", "ref": next_ref, "x": 2e6}, True)
                else:
                    send({"cmd": "set_goal", "id": live[0] if live else 1, "mode": "wander"}, True)
        line += 1
        c.step(rng.randint(1, 4))
        if rnd % 5 == 4:
            line += 1
            dumps.append((c.dump(), {k: list(v) for k, v in c.state.items()}))
    final = c.finish()
    return c, expect_errors, dumps, final


def as_map(agents):
    return {a[0]: a[1:] for a in agents}


c1, expect, dumps, final1 = session(1)
check(len(dumps) == 5, "five dumps taken")
for i, (dump, mine) in enumerate(dumps):
    check(as_map(dump["agents"]) == mine,
          f"dump {i} (tick {dump['tick']}, {len(mine)} agents): deltas rebuild the library's state")
check(as_map(final1["agents"]) == c1.state, "final state equals the deltas' state")
check(final1["tick"] == dumps[-1][0]["tick"] and final1["hash"] == dumps[-1][0]["hash"],
      "the final line repeats the last dump's tick and hash (nothing ran after it)")
got = [e["line"] for e in c1.errors]
check(got == expect, f"errors exactly on the failing commands ({len(expect)}): {got[:8]}")
check(any("stale agent handle" in e["error"] for e in c1.errors), "stale handles are reported")
check(any(e["error"] == 'add: unknown key "z"' for e in c1.errors), "unknown keys are reported")
check(any(e["error"] == 'add: unknown key "speed"' for e in c1.errors),
      "unknown keys inside a goal are reported")
check(any("valid range" in e["error"] for e in c1.errors), "out-of-range values are reported")
check(len(c1.state) > 40, f"a crowd remains ({len(c1.state)} agents)")

c2, _, _, final2 = session(2)
check(c1.lines == c2.lines, "1 and 2 threads: byte-identical output")
check(final1["hash"] == final2["hash"], f"same final hash {final1['hash']}")

# Walls between ticks.
w = Client(1)
w.send({"cmd": "add", "ref": 0, "x": 0, "y": 0,
        "goal": {"mode": "seek", "x": 10, "y": 0, "route": "straight"}})  # 1
w.send({"cmd": "add", "ref": 1, "x": 0, "y": 5})  # 2
w.send({"cmd": "add_wall", "ref": 100, "points": [[5, -5], [5, 5]]})  # 3
w.send({"cmd": "add_wall", "ref": 101, "kind": "polygon",
        "points": [[-1, 4], [1, 4], [1, 6], [-1, 6]]})  # 4: agent 1 stands inside
w.send({"cmd": "add_wall", "ref": 102, "points": [[0, -9], [3, -9], [3, -9]]})  # 5: repeated
w.send({"cmd": "add_wall", "ref": 103, "points": [[0, 0], [1]]})  # 6: malformed
w.send({"cmd": "add", "ref": 2, "x": 2, "y": -3, "goal": {"mode": "arrive", "x": 8, "y": -3}})  # 7
w.send({"cmd": "step", "n": 80})  # 8
ticks = 0
while ticks < 80:
    msg = w.read()
    if "error" in msg:
        w.errors.append(msg)
    else:
        w.apply(msg)
        ticks += 1
a0, a2 = w.ref_to_id[0], w.ref_to_id[2]
check(w.walls_added and w.walls_added[0][0] == 100, f"wall ref 100 reported added: {w.walls_added}")
check(len(w.walls_added) == 1, "only the valid wall was added")
wall_id = w.walls_added[0][1] if w.walls_added else 0
check(w.max_x.get(a0, 99) <= 5 - 0.3 + 1e-4,
      f"the agent seeking straight stays on its side of the wall (max x {w.max_x.get(a0)})")
check(w.state[a0][0] > 4.0, f"and reaches it ({w.state[a0][0]:.3f})")
check(w.state[a2][0] > 5.3,
      f"the agent with a routed goal walks round the wall ({w.state[a2][0]:.3f}, {w.state[a2][1]:.3f})")
d = w.dump()  # 9
check(d["walls"] == [[wall_id, "wall", [[5, -5], [5, 5]]]], f"dump lists the wall: {d['walls']}")
check(d["exits"] == [], f"dump lists no exit set: {d['exits']}")
w.send({"cmd": "remove_wall", "id": wall_id})  # 10
w.send({"cmd": "remove_wall", "id": wall_id})  # 11: stale
w.step(60)  # 12
check(w.walls_removed == [wall_id], "the removal is reported")
check(w.state[a0][0] > 5.3, f"without the wall the agent walks on ({w.state[a0][0]:.3f})")
fw = w.finish()
got = [e["line"] for e in w.errors]
check(got == [4, 5, 6, 11], f"wall errors on lines 4, 5, 6, 11: {got} {[e['error'] for e in w.errors]}")
check(fw["walls"] == [], "no wall left at the end")

# Exit sets: two exits, the one nearer in a straight line behind a wall (both within the reach
# of the navigation grid, 5 m around the wall).
e = Client(1)
e.send({"cmd": "add_wall", "ref": 1, "points": [[0, -10], [0, 10]]})  # 1
e.send({"cmd": "add_exits", "ref": 7, "points": [[1, 0], [-5, -6]]})  # 2
e.send({"cmd": "add_exits", "ref": 8, "points": []})  # 3: no points
e.step(1)  # 4
check(len(e.exits_added) == 1 and e.exits_added[0][0] == 7,
      f"exit set ref 7 reported added: {e.exits_added}")
eid = e.exits_added[0][1] if e.exits_added else 0
e.send({"cmd": "add", "ref": 0, "x": -1, "y": 0, "goal": {"mode": "arrive", "exits": eid}})  # 5
e.send({"cmd": "remove_exits", "id": eid})  # 6: in use
e.step(160)  # 7
ag = e.ref_to_id[0]
x, y = e.state[ag][0], e.state[ag][1]
check(abs(x + 5) < 0.5 and abs(y + 6) < 0.5,
      f"the agent arrives at the exit nearest by walking distance, not behind the wall ({x:.2f}, {y:.2f})")
d = e.dump()  # 8
check(d["exits"] == [[eid, [[1, 0], [-5, -6]]]], f"dump lists the exit set: {d['exits']}")
e.send({"cmd": "set_goal", "id": ag, "x": -3, "y": 5})  # 9: a point again
e.send({"cmd": "remove_exits", "id": eid})  # 10
e.send({"cmd": "remove_exits", "id": eid})  # 11: stale
e.send({"cmd": "add", "ref": 1, "x": -5, "y": 0, "goal": {"mode": "seek", "exits": eid}})  # 12
e.step(20)  # 13
check(e.exits_removed == [eid], f"the removal is reported: {e.exits_removed}")
check(e.state[ag][1] > -4.5, f"the agent heads for its point again ({e.state[ag][1]:.2f})")
fe = e.finish()
got = [(m["line"], m["error"]) for m in e.errors]
check([g[0] for g in got] == [3, 6, 11, 12], f"exit set errors on lines 3, 6, 11, 12: {got}")
check(len(got) == 4 and "in use" in got[1][1] and "stale" in got[2][1] and "stale" in got[3][1],
      f"in use, then stale: {got}")
check(fe["exits"] == [], "no exit set left at the end")

# A goal's form: "pedestrian" (the default) and "literal" are taken, anything else refused.
g = Client(1)
g.send({"cmd": "add", "ref": 0, "x": 0, "y": 0,
        "goal": {"mode": "seek", "x": 9, "y": 0, "form": "literal"}})  # 1
g.send({"cmd": "add", "ref": 1, "x": 0, "y": 3,
        "goal": {"mode": "seek", "x": 9, "y": 3, "form": "quick"}})  # 2: refused
g.step(1)  # 3
gid = g.ref_to_id[0]
g.send({"cmd": "set_goal", "id": gid, "mode": "seek", "x": 9, "y": 0, "form": "pedestrian"})  # 4
g.send({"cmd": "set_goal", "id": gid, "mode": "seek", "x": 9, "y": 0, "form": 3})  # 5: refused
g.step(20)  # 6
check(g.state[gid][0] > 1.0, f"the agent walks toward its goal ({g.state[gid][0]:.2f})")
g.finish()
got = [m["line"] for m in g.errors]
check(got == [2, 5], f"form errors on lines 2 and 5: {got}")

# Real-time mode: 12 ticks at 100 Hz, commands arriving while it runs.
t0 = time.monotonic()
p = subprocess.Popen([server, "--rate", "100", "--ticks", "12"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, text=True)
p.stdin.write(json.dumps({"cmd": "add", "ref": 5, "x": 1, "y": 2,
                          "goal": {"mode": "seek", "x": 10, "y": 2}}) + "\n")
p.stdin.flush()
out, _ = p.communicate(timeout=30)
elapsed = time.monotonic() - t0
msgs = [json.loads(x) for x in out.splitlines()]
ticks = [m for m in msgs if "tick" in m]
check(len(ticks) == 12 and msgs[-1]["final"]["tick"] == 12, "real-time: 12 tick lines, then final")
check(elapsed >= 0.11, f"real-time: 12 ticks at 100 Hz took {elapsed:.3f} s (>= 0.11)")
check(any(m["added"] == [[5, 1]] for m in ticks), "real-time: the add was applied between ticks")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
