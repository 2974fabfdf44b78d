// The frame of every demo page: loads the engine (crowd.js) with a scenario or a world the page
// builds, steps it in real time (times a speed), draws agents to scale with their heading, the
// obstacles and the page's own layers, turns pointer input into world coordinates and shows
// ms per tick. window.demo is the page's state for a person at the console and for the browser
// test (tests/browser/web_check.mjs): ready, error, ticks, hash(), pause(), stepTicks(n).
(function () {
  "use strict";
  // Colors by agent kind (tools/crowd/build.h's agent_kind), plain agents for worlds without.
  const KIND_COLORS = ["#9aa5b1", "#4fc3f7", "#81c784", "#e57373", "#ffb74d", "#ba68c8",
                       "#f06292", "#ffee58", "#aed581"];

  class Demo {
    constructor(opts) {
      this.opts = opts;
      this.ready = false;
      this.error = null;
      this.ticks = 0;
      this.speed = opts.speed || 2;
      this.paused = new URLSearchParams(location.search).has("paused");
      this.framesDrawn = 0;
      this.stepMsAvg = 0;
      this.drawMsAvg = 0;
      this.obstacleList = [];
      this.camera = { cx: 0, cy: 0, scale: 10 };
      this.acc = 0;
      this.last = null;
      window.demo = this;
      window.addEventListener("error", (e) => { this.error = String(e.message); });
    }

    async start() {
      try {
        this.side = document.getElementById("side");
        this.canvas = document.getElementById("view");
        this.ctx = this.canvas.getContext("2d");
        this.statsEl = document.getElementById("stats");
        this.crowd = await CrowdWeb.load();
        this.reset();
        this.opts.controls?.(this);
        this.pointer();
        window.addEventListener("resize", () => this.resize());
        this.resize();
        this.ready = true;
        requestAnimationFrame((t) => this.frame(t));
      } catch (e) {
        this.error = String(e && e.message || e);
        if (this.statsEl) this.statsEl.textContent = "error: " + this.error;
        console.error(e);
      }
    }

    // Builds the world again: the page's scenario file, or its build(crowd) function.
    reset() {
      const o = this.opts;
      if (o.scenario) this.crowd.scenario(o.scenario, self.CROWD_DATA.scenarios[o.scenario]);
      else o.build(this.crowd, this);
      this.ticks = 0;
      this.refreshObstacles();
      o.setup?.(this);
      this.fit();
    }

    refreshObstacles() { this.obstacleList = this.crowd.obstacles(); }

    // Fits the camera to the agents, obstacles and the page's own points (opts.bounds).
    fit() {
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      const add = (x, y) => { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); };
      const c = this.crowd.columns();
      for (let i = 0; i < c.count; i++) add(c.x[i], c.y[i]);
      for (const o of this.obstacleList) for (const [x, y] of o.points) add(x, y);
      for (const [x, y] of this.opts.bounds?.(this) || []) add(x, y);
      if (!isFinite(x0)) { x0 = -10; x1 = 10; y0 = -10; y1 = 10; }
      this.box = [x0 - 3, y0 - 3, x1 + 3, y1 + 3];
      this.resize();
    }

    resize() {
      const r = this.canvas.getBoundingClientRect();
      this.canvas.width = Math.max(1, Math.round(r.width));
      this.canvas.height = Math.max(1, Math.round(r.height));
      if (!this.box) return;
      const [x0, y0, x1, y1] = this.box;
      this.camera.cx = (x0 + x1) / 2;
      this.camera.cy = (y0 + y1) / 2;
      this.camera.scale = Math.min(this.canvas.width / (x1 - x0), this.canvas.height / (y1 - y0));
    }

    // World (y up) to canvas pixels and back.
    sx(x) { return (x - this.camera.cx) * this.camera.scale + this.canvas.width / 2; }
    sy(y) { return (this.camera.cy - y) * this.camera.scale + this.canvas.height / 2; }
    world(px, py) {
      return [(px - this.canvas.width / 2) / this.camera.scale + this.camera.cx,
              this.camera.cy - (py - this.canvas.height / 2) / this.camera.scale];
    }

    pointer() {
      const o = this.opts, cv = this.canvas;
      let down = null;
      const at = (e) => {
        const r = cv.getBoundingClientRect();
        return this.world(e.clientX - r.left, e.clientY - r.top);
      };
      cv.addEventListener("pointerdown", (e) => {
        const p = at(e);
        down = { p, moved: false, dragging: !!o.onDown?.(this, p, e) };
        cv.setPointerCapture?.(e.pointerId);
      });
      cv.addEventListener("pointermove", (e) => {
        const p = at(e);
        o.onHover?.(this, p, e);
        if (!down) return;
        if (Math.hypot(p[0] - down.p[0], p[1] - down.p[1]) * this.camera.scale > 3) down.moved = true;
        if (down.moved) o.onDrag?.(this, p, down.p, e);
      });
      cv.addEventListener("pointerup", (e) => {
        if (!down) return;
        const p = at(e);
        if (down.moved) o.onDragEnd?.(this, p, down.p, e);
        else o.onClick?.(this, p, e);
        down = null;
      });
      cv.addEventListener("contextmenu", (e) => { e.preventDefault(); o.onRightClick?.(this, at(e), e); });
    }

    pause() { this.paused = true; }
    play() { this.paused = false; this.last = null; }
    hash() { return this.crowd.hash(); }
    stepTicks(n) {
      this.crowd.step(n);
      this.ticks += n;
      this.opts.afterStep?.(this);
      this.draw();
      return this.crowd.hash();
    }

    frame(t) {
      const dt = this.last === null ? 0 : Math.min(0.1, (t - this.last) / 1000);
      this.last = t;
      if (!this.paused) {
        this.acc += dt * this.speed;
        let n = 0;
        while (this.acc >= 0.1 && n < 8) {
          const t0 = performance.now();
          this.crowd.step(1);
          const ms = performance.now() - t0;
          this.stepMsAvg = this.stepMsAvg ? this.stepMsAvg * 0.95 + ms * 0.05 : ms;
          this.ticks++;
          this.acc -= 0.1;
          n++;
        }
        if (n === 8) this.acc = 0;
        if (n) this.opts.afterStep?.(this);
      }
      this.draw();
      requestAnimationFrame((tt) => this.frame(tt));
    }

    draw() {
      const t0 = performance.now();
      const ctx = this.ctx, cv = this.canvas, s = this.camera.scale;
      const c = this.crowd.columns();
      // Large crowds at a small scale: every disc is a few pixels, written straight into an image
      // (the browser's vector path rasterizes thousands of arcs slowly); obstacles and the page's
      // layers are drawn over it.
      const pixels = c.count > 1000 && 0.3 * s < 4;
      if (pixels) this.drawAgentPixels(c);
      else {
        ctx.fillStyle = "#111418";
        ctx.fillRect(0, 0, cv.width, cv.height);
      }
      // Obstacles: walls as lines, solids filled.
      ctx.lineWidth = Math.max(1.5, 0.15 * s);
      ctx.strokeStyle = "#8a96a3";
      ctx.fillStyle = "#39424e";
      for (const o of this.obstacleList) {
        ctx.beginPath();
        o.points.forEach(([x, y], j) => (j ? ctx.lineTo(this.sx(x), this.sy(y)) : ctx.moveTo(this.sx(x), this.sy(y))));
        if (o.kind === 1) { ctx.closePath(); ctx.fill(); }
        ctx.stroke();
      }
      this.opts.drawUnder?.(this, ctx);
      if (!pixels) this.drawAgents(ctx, c);
      this.opts.drawOver?.(this, ctx);
      const ms = performance.now() - t0;
      this.drawMsAvg = this.drawMsAvg ? this.drawMsAvg * 0.95 + ms * 0.05 : ms;
      this.framesDrawn++;
      if (this.framesDrawn % 10 === 0 || this.paused) this.showStats();
    }

    // Every agent a disc of its radius and a line from its centre along its heading, batched by
    // color into one path each.
    drawAgents(ctx, c) {
      const s = this.camera.scale;
      const byColor = new Map();
      const colorOf = this.opts.colorOf || ((d, id) => KIND_COLORS[Math.max(0, d.crowd.kind(id))]);
      for (let i = 0; i < c.count; i++) {
        const col = colorOf(this, c.id[i]);
        let list = byColor.get(col);
        if (!list) byColor.set(col, (list = []));
        list.push(i);
      }
      ctx.lineWidth = Math.max(1, 0.06 * s);
      ctx.strokeStyle = "#111418";
      for (const [col, list] of byColor) {
        ctx.fillStyle = col;
        ctx.beginPath();
        for (const i of list) {
          const x = this.sx(c.x[i]), y = this.sy(c.y[i]), r = Math.max(1, c.r[i] * s);
          ctx.moveTo(x + r, y);
          ctx.arc(x, y, r, 0, 6.283185307179586);
        }
        ctx.fill();
      }
      ctx.beginPath();
      for (let i = 0; i < c.count; i++) {
        const x = this.sx(c.x[i]), y = this.sy(c.y[i]), r = Math.max(1, c.r[i] * s);
        ctx.moveTo(x, y);
        ctx.lineTo(x + c.hx[i] * r, y - c.hy[i] * r);
      }
      ctx.stroke();
    }

    // The same picture as drawAgents, pixel by pixel: each disc of its radius, a dark line from
    // its centre along its heading.
    drawAgentPixels(c) {
      const cv = this.canvas, w = cv.width, h = cv.height, s = this.camera.scale;
      if (!this.image || this.image.width !== w || this.image.height !== h) {
        this.image = this.ctx.createImageData(w, h);
        this.pix = new Uint32Array(this.image.data.buffer);
      }
      const pix = this.pix;
      pix.fill(0xff181411); // #111418 as ABGR
      const colorOf = this.opts.colorOf || ((d, id) => KIND_COLORS[Math.max(0, d.crowd.kind(id))]);
      const abgr = new Map();
      const ox = w / 2 - this.camera.cx * s, oy = h / 2 + this.camera.cy * s;
      for (let i = 0; i < c.count; i++) {
        const col = colorOf(this, c.id[i]);
        let v = abgr.get(col);
        if (v === undefined) {
          const n = parseInt(col.slice(1), 16);
          v = (0xff000000 | (n & 0xff) << 16 | (n & 0xff00) | (n >> 16 & 0xff)) >>> 0;
          abgr.set(col, v);
        }
        const x = c.x[i] * s + ox, y = oy - c.y[i] * s, r = Math.max(0.8, c.r[i] * s), r2 = r * r;
        const x0 = Math.max(0, Math.floor(x - r)), x1 = Math.min(w - 1, Math.ceil(x + r));
        const y0 = Math.max(0, Math.floor(y - r)), y1 = Math.min(h - 1, Math.ceil(y + r));
        for (let py = y0; py <= y1; py++) {
          const dy = py + 0.5 - y, row = py * w;
          for (let px = x0; px <= x1; px++) {
            const dx = px + 0.5 - x;
            if (dx * dx + dy * dy <= r2) pix[row + px] = v;
          }
        }
        if (r >= 1.5) {
          for (let k = 0; k <= r; k++) {
            const px = Math.floor(x + c.hx[i] * k), py = Math.floor(y - c.hy[i] * k);
            if (px >= 0 && px < w && py >= 0 && py < h) pix[py * w + px] = 0xff181411;
          }
        }
      }
      this.ctx.putImageData(this.image, 0, 0);
    }

    showStats() {
      const extra = this.opts.stats?.(this) || "";
      this.statsEl.textContent =
        `agents     ${this.crowd.count()}\n` +
        `tick       ${this.ticks} (${(this.ticks * 0.1).toFixed(1)} s)\n` +
        `ms/tick    ${this.stepMsAvg.toFixed(2)}\n` +
        `ms/draw    ${this.drawMsAvg.toFixed(2)}\n` +
        `state hash ${this.crowd.hash()}\n` + extra;
    }

    // ---- controls in the side panel ------------------------------------------------------------
    label(text, el) {
      const l = document.createElement("label");
      l.textContent = text;
      this.side.insertBefore(l, this.statsEl);
      this.side.insertBefore(el, this.statsEl);
      return el;
    }
    select(text, id, options, value, onChange) {
      const el = document.createElement("select");
      el.id = id;
      for (const [v, name] of options) el.add(new Option(name, v, false, String(v) === String(value)));
      el.addEventListener("change", () => onChange(el.value));
      return this.label(text, el);
    }
    slider(text, id, min, max, step, value, onChange) {
      const el = document.createElement("input");
      Object.assign(el, { type: "range", id, min, max, step, value });
      const l = this.label(`${text}: ${value}`, el);
      el.addEventListener("input", () => {
        l.previousSibling.textContent = `${text}: ${el.value}`;
        onChange(Number(el.value));
      });
      return el;
    }
    button(text, id, onClick) {
      const el = document.createElement("button");
      el.id = id;
      el.textContent = text;
      el.addEventListener("click", onClick);
      this.side.insertBefore(el, this.statsEl);
      return el;
    }
    common() {
      this.select("speed", "speed", [[1, "1x real time"], [2, "2x"], [4, "4x"], [6, "6x (a tick a frame)"]],
                  this.speed, (v) => { this.speed = Number(v); });
      this.button("pause / play", "play", () => (this.paused ? this.play() : this.pause()));
      this.button("restart", "restart", () => this.reset());
    }
  }

  // Draw helpers for the pages.
  Demo.prototype.circle = function (ctx, x, y, r, stroke, fill) {
    ctx.beginPath();
    ctx.arc(this.sx(x), this.sy(y), Math.max(2, r * this.camera.scale), 0, 6.283185307179586);
    if (fill) { ctx.fillStyle = fill; ctx.fill(); }
    if (stroke) { ctx.strokeStyle = stroke; ctx.stroke(); }
  };
  Demo.prototype.polyline = function (ctx, pts, stroke, width, closed) {
    ctx.beginPath();
    pts.forEach(([x, y], j) => (j ? ctx.lineTo(this.sx(x), this.sy(y)) : ctx.moveTo(this.sx(x), this.sy(y))));
    if (closed) ctx.closePath();
    ctx.strokeStyle = stroke;
    ctx.lineWidth = width;
    ctx.stroke();
  };

  window.Demo = Demo;
})();
