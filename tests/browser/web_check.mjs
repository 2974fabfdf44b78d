// The WebAssembly pages (tools/web.sh's build/web) in headless Chromium, opened from file://:
//  - check.html: every built-in scene (with and without churn) and scenario file gives the
//    native state hash (NATIVE holds `crowd hash` / `crowd run --hash` lines: "NAME: HASH");
//  - each demo page loads, steps TICKS ticks with the native hash of its scenario file, then
//    takes scripted input (a click adds an agent, a drag moves a waypoint or a door, a drag draws
//    a wall) and the world changes accordingly, then plays;
//  - perf.html measures the agents a frame (one tick and the drawing) carries at 60 fps (printed,
//    not a pass/fail figure: it depends on the machine).
// Screenshots of every page go to SHOTS when given. With CROWD_WEB_HTTP (a static server's
// address for WEB_DIR) a page is also loaded from the server.
// usage: node web_check.mjs WEB_DIR NATIVE AGENTS TICKS [SHOTS]
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { launch, sleep } from "./cdp.mjs";

const [dir, nativeFile, agentsArg, ticksArg, shots] = process.argv.slice(2);
const agents = Number(agentsArg), ticks = Number(ticksArg);
const native = new Map(fs.readFileSync(nativeFile, "utf8").trim().split("\n").map((l) => {
  const k = l.lastIndexOf(": ");
  return [l.slice(0, k), l.slice(k + 2)];
}));
let pass = 0, fail = 0;
const check = (cond, what) => {
  if (cond) pass++;
  else { fail++; console.log("FAIL: " + what); }
};
const b = launch();
const url = (page, query) => pathToFileURL(path.resolve(dir, page)).href + (query ? "?" + query : "");

async function shot(name) {
  if (!shots) return;
  fs.mkdirSync(shots, { recursive: true });
  const s = await b.send("Page.captureScreenshot", { format: "png" });
  fs.writeFileSync(path.join(shots, name + ".png"), Buffer.from(s.data, "base64"));
}

async function mouse(type, [x, y], extra = {}) {
  await b.send("Input.dispatchMouseEvent", { type, x, y, button: "left", ...extra });
}
// A world point in the page's viewport.
const screen = (p) => b.evaluate(`(() => { const r = demo.canvas.getBoundingClientRect();
  return [r.left + demo.sx(${p[0]}), r.top + demo.sy(${p[1]})]; })()`);
async function click(p) {
  const s = await screen(p);
  await mouse("mouseMoved", s);
  await mouse("mousePressed", s, { clickCount: 1, buttons: 1 });
  await mouse("mouseReleased", s, { clickCount: 1 });
}
async function drag(from, to) {
  const a = await screen(from), z = await screen(to);
  await mouse("mouseMoved", a);
  await mouse("mousePressed", a, { clickCount: 1, buttons: 1 });
  for (let k = 1; k <= 5; k++)
    await mouse("mouseMoved", [a[0] + (z[0] - a[0]) * k / 5, a[1] + (z[1] - a[1]) * k / 5], { buttons: 1 });
  await mouse("mouseReleased", z, { clickCount: 1 });
}

async function checkPage() {
  const from = b.events.length;
  await b.send("Page.navigate", { url: url("check.html", `agents=${agents}&ticks=${ticks}`) });
  await b.until("window.crowdCheck && crowdCheck.done", 300000, "check.html");
  const r = await b.evaluate("crowdCheck");
  check(r.error === null, "check.html: " + r.error);
  let same = 0;
  for (const row of r.rows) {
    const want = native.get(row.name);
    if (want === row.hash) same++;
    else check(false, `${row.name}: browser ${row.hash}, native ${want}`);
  }
  check(r.rows.length === native.size && same === native.size,
        `check.html: ${same} of ${native.size} hashes equal native (${r.rows.length} computed)`);
  console.log(`web: check.html: ${same} of ${r.rows.length} state hashes equal native ` +
              `(${agents} agents, ${ticks} ticks)`);
  await shot("check");
  const errors = b.messages(["error", "assert"], from);
  check(errors.length === 0, "check.html logged errors:\n  " + errors.join("\n  "));
}

// A demo page: native hash after TICKS ticks, then the page's own interaction, then playing.
async function demoPage(page, file, interact) {
  const from = b.events.length;
  await b.send("Page.navigate", { url: url(page, "paused") });
  await b.until("window.demo && (demo.ready || demo.error)", 60000, page);
  check(await b.evaluate("demo.error") === null, `${page}: ${await b.evaluate("demo.error")}`);
  const h = await b.evaluate(`demo.stepTicks(${ticks})`);
  check(h === native.get("file " + file), `${page}: hash after ${ticks} ticks ${h}, native ${native.get("file " + file)}`);
  await interact();
  const before = await b.evaluate("({ ticks: demo.ticks, drawn: demo.framesDrawn })");
  await b.evaluate("demo.play()");
  await sleep(1500);
  const after = await b.evaluate("({ ticks: demo.ticks, drawn: demo.framesDrawn, error: demo.error })");
  check(after.ticks > before.ticks && after.drawn > before.drawn + 10,
        `${page} plays: ticks ${before.ticks} -> ${after.ticks}, frames ${before.drawn} -> ${after.drawn}`);
  await shot(page.replace(".html", ""));
  const errors = b.messages(["error", "assert"], from);
  check(errors.length === 0 && after.error === null, `${page} logged errors:\n  ` + errors.join("\n  "));
}

const count = () => b.evaluate("demo.crowd.count()");
// A point beside an agent (so neither in a wall nor outside the rooms).
const nearAgent = (kind) => b.evaluate(`(() => { const c = demo.crowd.columns();
  for (let r = 0; r < c.count; r++)
    if (${kind} < 0 || demo.crowd.kind(c.id[r]) === ${kind}) return [c.x[r] + 0.05, c.y[r] + 0.05];
})()`);

async function main() {
  await b.open();
  await checkPage();

  await demoPage("follow.html", "formations.json", async () => {
    const n = await count();
    await click(await nearAgent(7));
    await b.evaluate("demo.stepTicks(1)");
    check(await count() === n + 1, `follow.html: a click adds a follower (${n} -> ${await count()})`);
  });

  await demoPage("queue.html", "queue.json", async () => {
    const n = await count();
    await click(await nearAgent(4));
    check(await count() === n + 1, `queue.html: a click adds an agent to a queue (${n} -> ${await count()})`);
    const door = (await b.evaluate("demo.crowd.queueGoals()"))[1];
    const to = [door[0] - 4, door[1] + 3];
    await drag(door, to);
    const goals = await b.evaluate("demo.crowd.queueGoals()");
    check(!goals.some((g) => g[0] === door[0] && g[1] === door[1]) &&
          goals.some((g) => Math.hypot(g[0] - to[0], g[1] - to[1]) < 0.5),
          `queue.html: dragging a door moves its queue's goal (${door} -> ${JSON.stringify(goals)})`);
  });

  await demoPage("path.html", "waypoints.json", async () => {
    const slot = await b.evaluate("paths[0].slot");
    const p0 = (await b.evaluate(`demo.crowd.pathPoints(${slot})`))[1];
    const to = [p0[0] - 6, p0[1] + 5];
    const h0 = await b.evaluate("demo.hash()");
    await drag(p0, to);
    const p1 = (await b.evaluate(`demo.crowd.pathPoints(${slot})`))[1];
    check(Math.hypot(p1[0] - to[0], p1[1] - to[1]) < 0.5,
          `path.html: a drag moves the waypoint in the engine (${p0} -> ${p1}, wanted ${to})`);
    const n0 = (await b.evaluate(`demo.crowd.pathPoints(${slot})`)).length;
    await click([0, -36]);
    const n1 = (await b.evaluate(`demo.crowd.pathPoints(${slot})`)).length;
    check(n1 === n0 + 1, `path.html: a click adds a waypoint (${n0} -> ${n1})`);
    const h1 = await b.evaluate("demo.stepTicks(5)");
    check(h1 !== h0, "path.html: the world steps on from the edited path");
  });

  await demoPage("walls.html", "detour.json", async () => {
    const o0 = await b.evaluate("demo.crowd.obstacles().length");
    await drag([-30, -25], [-20, -25]);
    const o1 = await b.evaluate("demo.crowd.obstacles().length");
    check(o1 === o0 + 1, `walls.html: a drag draws a wall (${o0} -> ${o1} obstacles)`);
    await click([0, 20]);
    await b.evaluate("demo.stepTicks(1)");
  });

  await demoPage("evacuation.html", "evacuation.json", async () => {
    const n = await count();
    await click(await nearAgent(-1));
    check(await count() === n + 1, `evacuation.html: a click adds a person (${n} -> ${await count()})`);
  });

  // The same page from a static server (CROWD_WEB_HTTP: its address), as a person would serve it.
  if (process.env.CROWD_WEB_HTTP) {
    await b.send("Page.navigate", { url: process.env.CROWD_WEB_HTTP + "/follow.html?paused" });
    await b.until("window.demo && (demo.ready || demo.error)", 60000, "follow.html over http");
    const h = await b.evaluate(`demo.stepTicks(${ticks})`);
    check(h === native.get("file formations.json"), `follow.html over http: hash ${h}`);
  }

  // Agents at 60 fps: one tick and the drawing per frame.
  await b.send("Page.navigate", { url: url("perf.html", "measure&sizes=" + (process.env.CROWD_WEB_PERF_SIZES ||
    "5000,10000,20000,40000,60000,80000,100000,120000,150000,200000")) });
  await b.until("window.perf && (perf.done || !!demo.error)", 240000, "perf.html's measurement");
  const perf = await b.evaluate("perf");
  check(await b.evaluate("demo.error") === null, "perf.html: " + await b.evaluate("demo.error"));
  for (const r of perf.rows)
    console.log(`web: ${r.agents} agents: step ${r.step.toFixed(1)} ms + draw ${r.draw.toFixed(1)} ms = ` +
                `${r.frame.toFixed(1)} ms a frame, a frame every ${r.interval.toFixed(1)} ms (medians of 60)`);
  console.log(`web: ${perf.best} agents at 60 fps (work <= 16.7 ms a frame, frames every 16.7 ms) ` +
              "on this machine (not a test)");
  check(perf.rows.length > 0, "perf.html measured");
  await shot("perf");
}

const timer = setTimeout(() => { console.log("FAIL: the web test timed out"); done(1); }, 600000);
async function done(code) {
  clearTimeout(timer);
  await b.close();
  process.exit(code);
}
main().then(() => {
  console.log(`web: ${pass} passed, ${fail} failed`);
  done(fail ? 1 : 0);
}, (e) => {
  console.log("FAIL: " + e.message);
  console.log(`web: ${pass} passed, ${fail + 1} failed`);
  done(1);
});
