// The engine's WebAssembly build (crowd.wasm, embedded in crowd_data.js) behind a small
// JavaScript API. A classic script, so pages work from file:// too; under node,
// require("./crowd.js") returns the same object.
//
//   const crowd = await CrowdWeb.load();            // one world per instance
//   crowd.scene("plaza", 5000, 1, false);           // as `crowd hash --scene plaza --agents 5000`
//   crowd.scenario("queue.json", text);             // as `crowd run queue.json`
//   crowd.step(200); crowd.hash();                  // "0123456789abcdef", as `--hash` prints it
//   const c = crowd.columns();                      // {count, x, y, hx, hy, id, r}: views into memory
(function (root) {
  "use strict";

  // The four WASI calls the C library makes: the clock, and writes to stdout/stderr (to the
  // console). Nothing else is imported.
  function wasi(getMemory) {
    const out = { 1: "", 2: "" };
    return {
      clock_time_get(id, precision, ptr) {
        const ns = id === 0 ? BigInt(Date.now()) * 1000000n
                            : BigInt(Math.round(performance.now() * 1e6));
        new DataView(getMemory().buffer).setBigUint64(ptr, ns, true);
        return 0;
      },
      fd_write(fd, iovs, n, written) {
        const dv = new DataView(getMemory().buffer);
        let total = 0;
        for (let i = 0; i < n; i++) {
          const p = dv.getUint32(iovs + 8 * i, true), len = dv.getUint32(iovs + 8 * i + 4, true);
          out[fd] = (out[fd] || "") + new TextDecoder().decode(new Uint8Array(getMemory().buffer, p, len));
          total += len;
        }
        for (let k; (k = out[fd].indexOf("\n")) >= 0;) {
          (fd === 2 ? console.warn : console.log)(out[fd].slice(0, k));
          out[fd] = out[fd].slice(k + 1);
        }
        dv.setUint32(written, total, true);
        return 0;
      },
      fd_close() { return 0; },
      fd_seek() { return 70; }, // ESPIPE
    };
  }

  function base64(s) {
    if (typeof Buffer !== "undefined") return new Uint8Array(Buffer.from(s, "base64"));
    const bin = atob(s), b = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) b[i] = bin.charCodeAt(i);
    return b;
  }

  class Crowd {
    constructor(instance) {
      this.e = instance.exports;
      this.e._initialize();
    }
    get memory() { return this.e.memory; }
    str(p) {
      const m = new Uint8Array(this.e.memory.buffer);
      let q = p;
      while (m[q]) q++;
      return new TextDecoder().decode(m.subarray(p, q));
    }
    // Calls fn with the strings (or Float32Arrays) copied into the instance's memory.
    withArgs(args, fn) {
      const ptrs = args.map((a) => {
        const bytes = typeof a === "string" ? new TextEncoder().encode(a + "\0")
                                            : new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
        const p = this.e.cw_alloc(bytes.length);
        new Uint8Array(this.e.memory.buffer).set(bytes, p);
        return [p, typeof a === "string" ? bytes.length - 1 : a.length];
      });
      try { return fn(...ptrs); } finally { for (const [p] of ptrs) this.e.cw_free(p); }
    }
    check(rc, what) {
      if (rc !== 0) throw new Error(`${what}: ${this.str(this.e.cw_error())}`);
    }
    statusText(s) { return this.str(this.e.cw_status_string(Math.abs(s))); }

    scene(name, agents, seed = 1, churn = false) {
      this.check(this.withArgs([name], ([p]) => this.e.cw_scene(p, agents, seed, churn ? 1 : 0)), name);
    }
    scenario(file, text, agentsScale = 1) {
      this.check(this.withArgs([file, text], ([f], [t, n]) => this.e.cw_scenario(f, t, n, agentsScale)), file);
    }
    empty(dt = 0.1, cellSize = 2.5) { this.check(this.e.cw_empty(dt, cellSize), "world"); }
    step(ticks = 1) { this.check(this.e.cw_step(ticks), "step"); }
    hash() { return this.str(this.e.cw_hash()); }
    stepMs() { return this.e.cw_step_ms(); }
    count() { return this.e.cw_agent_count(); }
    arrivals() { return this.e.cw_arrival_count(); }
    columns() {
      const at = this.e.cw_columns(); // first: it may grow the memory (a new buffer)
      const h = new Int32Array(this.e.memory.buffer, at, 8);
      const n = h[0], buf = this.e.memory.buffer;
      const f = (p) => new Float32Array(buf, p, n);
      return { count: n, x: f(h[1]), y: f(h[2]), hx: f(h[3]), hy: f(h[4]),
               id: new Uint32Array(buf, h[5], n), r: f(h[6]) };
    }

    // The demos' calls. Agents are named by index (the columns' id); adds return it.
    added(rc, what) {
      if (rc < 0) throw new Error(`${what}: ${this.statusText(rc)}`);
      return rc;
    }
    addAgent(x, y, { radius = 0.3, maxSpeed = 1.5, hx = 1, hy = 0 } = {}) {
      return this.added(this.e.cw_add_agent(x, y, radius, maxSpeed, hx, hy), "add agent");
    }
    tryAddAgent(x, y, opts) {
      const rc = this.e.cw_add_agent(x, y, opts?.radius ?? 0.3, opts?.maxSpeed ?? 1.5, 1, 0);
      return rc >= 0 ? rc : -1;
    }
    removeAgent(i) { return this.e.cw_remove_agent(i); }
    setPosition(i, x, y) { return this.e.cw_set_position(i, x, y); }
    setSpeed(i, maxSpeed, maxForce = 3) { return this.e.cw_set_speed(i, maxSpeed, maxForce); }
    setSeparation(i, radius, weight) { return this.e.cw_set_separation(i, radius, weight); }
    // mode: 0 none, 1 seek, 2 arrive, 3 flee
    setGoal(i, mode, x, y, { straight = false, exits = -1 } = {}) {
      return this.e.cw_set_goal(i, mode, x, y, straight ? 1 : 0, exits);
    }
    follow(follower, leader, { slot = true, behind = -1 } = {}) {
      return this.e.cw_follow(follower, leader, slot ? 1 : 0, behind);
    }
    // shape: 0 column, 1 line, 2 wedge, 3 block, 4 circle
    setFormation(leader, shape, spacing = 1.5, distance = 2, columns = 3) {
      return this.e.cw_set_formation(leader, shape, spacing, distance, columns);
    }
    // onArrival: 0 stop, 1 remove, 2 respawn in the rectangle start = [x0, y0, x1, y1]
    setQueue(i, gx, gy, { coneLength = 2.5, coneWidth = 0.6, arrivalRadius = 0.5, onArrival = 0,
                          start = [0, 0, 0, 0] } = {}) {
      return this.e.cw_set_queue(i, gx, gy, coneLength, coneWidth, arrivalRadius, onArrival, ...start);
    }
    // points: [[x, y], ...]
    flat(points) { return new Float32Array(points.flat()); }
    pathCreate(points) {
      return this.added(this.withArgs([this.flat(points)], ([p, n]) => this.e.cw_path_create(p, n / 2)), "path");
    }
    pathReplace(slot, points) {
      return this.withArgs([this.flat(points)], ([p, n]) => this.e.cw_path_replace(slot, p, n / 2));
    }
    // kind: 0 waypoints, 1 tube; mode: 0 one-shot, 1 loop, 2 ping-pong
    setPath(i, slot, { kind = 0, mode = 1, arriveRadius = 0.8, tubeRadius = 1, start = 0 } = {}) {
      return this.e.cw_set_path(i, slot, kind, mode, arriveRadius, tubeRadius, start);
    }
    // kind: 0 wall (open polyline), 1 solid polygon; the slot, or -1 when refused
    obstacleAdd(kind, points) {
      const rc = this.withArgs([this.flat(points)], ([p, n]) => this.e.cw_obstacle_add(kind, p, n / 2));
      return rc >= 0 ? rc : -1;
    }
    obstacleRemove(slot) { return this.e.cw_obstacle_remove(slot); }
    exitsCreate(points) {
      return this.added(this.withArgs([this.flat(points)], ([p, n]) => this.e.cw_exits_create(p, n / 2)), "exits");
    }

    // Scenario worlds (kinds, paths, obstacles) and edits of many agents at once.
    buf(n) { return new Float32Array(this.e.memory.buffer, this.e.cw_buf(), n); }
    kind(i) { return this.e.cw_kind(i); }
    agents() { return Array.from(this.buf(this.e.cw_agents()), (v) => v | 0); }
    obstacles() {
      const n = this.e.cw_obstacles(), out = [];
      const b = this.buf(65536);
      for (let k = 0, at = 0; k < n; k++) {
        const kind = b[at], count = b[at + 1], pts = [];
        for (let j = 0; j < count; j++) pts.push([b[at + 2 + 2 * j], b[at + 3 + 2 * j]]);
        out.push({ kind, points: pts });
        at += 2 + 2 * count;
      }
      return out;
    }
    scenarioPathCount() { return this.e.cw_scenario_path_count(); }
    scenarioPath(k) { return this.e.cw_scenario_path(k); }
    pathPoints(slot) {
      const n = this.e.cw_path_points(slot), b = this.buf(2 * n), out = [];
      for (let j = 0; j < n; j++) out.push([b[2 * j], b[2 * j + 1]]);
      return out;
    }
    // < 0 keeps the agents' own value
    pathEdit(slot, { kind = -1, mode = -1, arriveRadius = -1, tubeRadius = -1 } = {}) {
      return this.e.cw_path_edit(slot, kind, mode, arriveRadius, tubeRadius);
    }
    queueGoals() {
      const n = this.e.cw_queue_goals(), b = this.buf(2 * n), out = [];
      for (let j = 0; j < n; j++) out.push([b[2 * j], b[2 * j + 1]]);
      return out;
    }
    queueEdit(goal, to, { coneLength = -1, coneWidth = -1, arrivalRadius = -1 } = {}) {
      return this.e.cw_queue_edit(goal[0], goal[1], to[0], to[1], coneLength, coneWidth, arrivalRadius);
    }
    editAll({ wallWeight = -1, lookAhead = -1, maxSpeed = -1, separationWeight = -1 } = {}) {
      return this.e.cw_edit_all(wallWeight, lookAhead, maxSpeed, separationWeight);
    }
    addLike(like, x, y) { return this.e.cw_add_like(like, x, y); }
    setKind(i, kind) { return this.e.cw_set_kind(i, kind); }
  }

  async function load(bytes) {
    const data = bytes || base64(root.CROWD_DATA.wasm);
    let memory = null;
    const { instance } = await WebAssembly.instantiate(data, {
      wasi_snapshot_preview1: wasi(() => memory),
    });
    memory = instance.exports.memory;
    return new Crowd(instance);
  }

  const api = { load, Crowd };
  root.CrowdWeb = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof self !== "undefined" ? self : globalThis);
