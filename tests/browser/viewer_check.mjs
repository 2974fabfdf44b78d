// Opens a crowd replay in headless Chromium and checks that it plays: frames render, change over
// time, pause, scrub, zoom and pan work, and the page logs no errors. Talks the DevTools protocol
// over --remote-debugging-pipe (file descriptors 3 and 4), so it needs no npm package and no port.
// With CHECK_FIELD=1 in the environment the replay must hold a navigation field (crowd run
// --field): it is drawn under the agents, and the field control and the g key switch it.
// usage: node viewer_check.mjs REPLAY.html FRAMES AGENTS OBSTACLES [SCREENSHOT.png]
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [file, framesArg, agentsArg, obstaclesArg, shotPath] = process.argv.slice(2);
const wantFrames = Number(framesArg), wantAgents = Number(agentsArg);
const wantObstacles = Number(obstaclesArg);
const BACKGROUND = 0x181411; // #111418 as r | g << 8 | b << 16
let pass = 0, fail = 0;
const check = (cond, what) => {
  if (cond) pass++;
  else { fail++; console.log("FAIL: " + what); }
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const profile = fs.mkdtempSync(path.join(os.tmpdir(), "crowd-chromium-"));
const chrome = spawn("chromium", [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
  `--user-data-dir=${profile}`, "--remote-debugging-pipe", "--window-size=1280,800",
  "about:blank",
], { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
let chromeLog = "";
chrome.stderr.on("data", (d) => { chromeLog = (chromeLog + d).slice(-4000); });

// ---- the protocol: JSON messages separated by NUL bytes ----------------------------------------
let nextId = 1, inbox = Buffer.alloc(0);
const pending = new Map(), events = [];
chrome.stdio[4].on("data", (chunk) => {
  inbox = Buffer.concat([inbox, chunk]);
  for (let i; (i = inbox.indexOf(0)) >= 0;) {
    const msg = JSON.parse(inbox.subarray(0, i).toString("utf8"));
    inbox = inbox.subarray(i + 1);
    if (msg.id && pending.has(msg.id)) {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`${p.method}: ${msg.error.message}`));
      else p.resolve(msg.result);
    } else if (msg.method) {
      events.push(msg);
    }
  }
});
let session;
function send(method, params = {}, toBrowser = false) {
  const id = nextId++;
  const msg = { id, method, params };
  if (!toBrowser) msg.sessionId = session;
  chrome.stdio[3].write(JSON.stringify(msg) + "\0");
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject, method }));
}
async function evaluate(expr) {
  const r = await send("Runtime.evaluate", { expression: expr, returnByValue: true, awaitPromise: true });
  if (r.exceptionDetails) throw new Error("evaluate: " + JSON.stringify(r.exceptionDetails));
  return r.result.value;
}
async function until(expr, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await evaluate(expr);
    if (v) return v;
    if (Date.now() > end) throw new Error("timed out waiting for " + what);
    await sleep(100);
  }
}

// Pixels of the canvas: how many differ from the background, and a hash of all of them.
const PIXELS = `(() => {
  // Read through a copy made for reading, so the viewer's own canvas is never read back.
  const c = document.getElementById("view");
  const copy = new OffscreenCanvas(c.width, c.height);
  const cc = copy.getContext("2d", { willReadFrequently: true });
  cc.drawImage(c, 0, 0);
  const d = cc.getImageData(0, 0, c.width, c.height).data;
  let lit = 0, h = 2166136261;
  for (let i = 0; i < d.length; i += 4) {
    const v = d[i] | (d[i + 1] << 8) | (d[i + 2] << 16);
    if (v !== ${BACKGROUND}) lit++;
    h = Math.imul(h ^ v, 16777619);
  }
  const v = window.crowdViewer;
  return { lit, hash: h >>> 0, frame: v.frame, drawn: v.framesDrawn, playing: v.playing,
           scale: v.camera.scale, cx: v.camera.cx, speed: v.speed };
})()`;

// Errors fail the test; warnings are printed for a person to judge.
function pageMessages(levels) {
  const out = [];
  for (const e of events) {
    if (e.method === "Runtime.exceptionThrown" && levels.includes("error"))
      out.push("exception: " + (e.params.exceptionDetails.exception?.description ||
                                e.params.exceptionDetails.text));
    else if (e.method === "Runtime.consoleAPICalled" && levels.includes(e.params.type))
      out.push(`console.${e.params.type}: ` + e.params.args.map((a) => a.value ?? a.description).join(" "));
    else if (e.method === "Log.entryAdded" && levels.includes(e.params.entry.level))
      out.push(`log ${e.params.entry.level}: ${e.params.entry.text}`);
  }
  return out;
}

// The recorded field: drawn under the agents by default, off and on again from its control and
// the keyboard, and readable at a point.
async function checkField() {
  const info = await evaluate("({ fields: crowdViewer.fields, mode: crowdViewer.field, " +
    "shown: getComputedStyle(document.getElementById('fieldctl')).display !== 'none', " +
    "key: getComputedStyle(document.getElementById('fieldkey')).display !== 'none' })");
  check(info.fields === 1, `one field in the recording (${info.fields})`);
  check(info.mode === "both" && info.shown && info.key, `the field is drawn with its control and key: ${JSON.stringify(info)}`);
  await evaluate("crowdViewer.pause()");
  await sleep(200);
  const on = await evaluate(PIXELS);
  await evaluate(`(() => { const e = document.getElementById('field'); e.value = 'off';
    e.dispatchEvent(new Event('change')); })()`);
  await sleep(300);
  const off = await evaluate(PIXELS);
  check(off.hash !== on.hash && off.lit < on.lit * 0.8,
        `switching the field off clears it (${on.lit} -> ${off.lit} lit pixels)`);
  await send("Input.dispatchKeyEvent", { type: "keyDown", key: "g", text: "g" });
  await send("Input.dispatchKeyEvent", { type: "keyUp", key: "g" });
  await sleep(300);
  const mode = await evaluate("crowdViewer.field");
  check(mode === "both", `the g key cycles the field's modes (off -> ${mode})`);
  const back = await evaluate(PIXELS);
  check(back.hash === on.hash, "the same picture with the field on again");
  const sample = await evaluate("crowdViewer.fieldAt(crowdViewer.camera.cx, crowdViewer.camera.cy)");
  check(sample && sample.state >= 1 && sample.state <= 4 && Number.isFinite(sample.distance),
        `a sample at the centre of the view: ${JSON.stringify(sample)}`);
  await evaluate("crowdViewer.play()");
}

async function main() {
  const { targetId } = await send("Target.createTarget", { url: "about:blank" }, true);
  ({ sessionId: session } = await send("Target.attachToTarget", { targetId, flatten: true }, true));
  await send("Runtime.enable");
  await send("Log.enable");
  await send("Page.enable");
  await send("Emulation.setDeviceMetricsOverride",
             { width: 1280, height: 800, deviceScaleFactor: 1, mobile: false });
  await send("Page.navigate", { url: pathToFileURL(path.resolve(file)).href });
  await until("document.readyState === 'complete' && !!window.crowdViewer && " +
              "(window.crowdViewer.ready || !!window.crowdViewer.error)", 60000, "the replay to load");
  const state = await evaluate("({ ready: crowdViewer.ready, error: crowdViewer.error, " +
                               "frames: crowdViewer.frames, agents: crowdViewer.agents, " +
                               "obstacles: crowdViewer.obstacles })");
  check(state.ready && state.error === null, "the replay loaded: " + state.error);
  check(state.frames === wantFrames, `frames ${state.frames}, want ${wantFrames}`);
  check(state.agents === wantAgents, `agents in the first frame ${state.agents}, want ${wantAgents}`);
  check(state.obstacles === wantObstacles,
        `obstacles in the recording ${state.obstacles}, want ${wantObstacles}`);

  // Playing: frames render and change over time.
  await until("crowdViewer.framesDrawn >= 3", 10000, "frames to render");
  const a = await evaluate(PIXELS);
  check(a.lit > Math.min(2000, wantAgents / 4), `agents drawn: ${a.lit} lit pixels`);
  await sleep(1500);
  const b = await evaluate(PIXELS);
  check(b.drawn > a.drawn + 5, `the animation runs (${a.drawn} -> ${b.drawn} draws)`);
  check(b.frame !== a.frame, `playback advances (frame ${a.frame} -> ${b.frame})`);
  check(b.hash !== a.hash, "the picture changes while playing");

  // Pause: nothing changes.
  await evaluate("document.getElementById('play').click()");
  await sleep(300);
  const p1 = await evaluate(PIXELS);
  await sleep(700);
  const p2 = await evaluate(PIXELS);
  check(!p1.playing && p1.hash === p2.hash && p1.frame === p2.frame, "pause holds the picture");

  // Scrub to the end of the recording farther from the paused frame: the recording is short, and
  // a frame or two apart its agents move less than a pixel at the fitted zoom.
  const target = p2.frame < wantFrames / 2 ? wantFrames - 1 : 0;
  await evaluate(`(() => { const s = document.getElementById('scrub');
    s.value = String(${target}); s.dispatchEvent(new Event('input')); })()`);
  await sleep(300);
  const s = await evaluate(PIXELS);
  check(s.frame === target, `scrub shows frame ${target} (${s.frame})`);
  check(s.hash !== p2.hash, "scrubbing changes the picture");

  // Zoom with the wheel and pan by dragging, through real input events.
  await send("Input.dispatchMouseEvent", { type: "mouseWheel", x: 640, y: 400, deltaX: 0, deltaY: -600 });
  await sleep(300);
  const z = await evaluate(PIXELS);
  check(z.scale > s.scale * 1.5, `the wheel zooms in (${s.scale.toFixed(2)} -> ${z.scale.toFixed(2)})`);
  check(z.hash !== s.hash, "zooming changes the picture");
  await send("Input.dispatchMouseEvent", { type: "mousePressed", x: 600, y: 400, button: "left", clickCount: 1 });
  await send("Input.dispatchMouseEvent", { type: "mouseMoved", x: 700, y: 420, button: "left", buttons: 1 });
  await send("Input.dispatchMouseEvent", { type: "mouseReleased", x: 700, y: 420, button: "left", clickCount: 1 });
  await sleep(300);
  const m = await evaluate(PIXELS);
  check(m.cx < z.cx, `dragging right pans the view (${z.cx.toFixed(2)} -> ${m.cx.toFixed(2)})`);
  check(m.hash !== z.hash, "panning changes the picture");

  // Speed, then play again from the fitted view.
  await evaluate(`(() => { const e = document.getElementById('speed'); e.value = '4';
    e.dispatchEvent(new Event('change')); document.getElementById('fit').click();
    document.getElementById('play').click(); })()`);
  await sleep(800);
  const f = await evaluate(PIXELS);
  check(f.speed === 4 && f.playing, "speed 4x and playing again");
  check(f.drawn > m.drawn, "rendering resumes");

  if (process.env.CHECK_FIELD) await checkField();

  if (shotPath) {
    const shot = await send("Page.captureScreenshot", { format: "png" });
    fs.writeFileSync(shotPath, Buffer.from(shot.data, "base64"));
  }
  const perf = await evaluate("({ avg: crowdViewer.avgDrawMs, n: crowdViewer.framesDrawn })");
  console.log(`browser: ${wantAgents} agents, ${perf.n} frames drawn, ` +
              `${perf.avg.toFixed(2)} ms per draw on average (not a test: depends on the machine)`);
  for (const w of pageMessages(["warning"])) console.log("browser: page warning: " + w);
  const errors = pageMessages(["error", "assert"]);
  check(errors.length === 0, "the page logged errors:\n  " + errors.join("\n  "));
}

const timer = setTimeout(() => { console.log("FAIL: the browser test timed out"); finish(1); }, 120000);
// Chromium's helper processes may still be writing into the profile for a moment after the kill:
// wait for the browser to exit, then remove the profile with retries; a leftover temporary
// directory is not a test failure.
let finishing = false;
function finish(code) {
  if (finishing) return;
  finishing = true;
  clearTimeout(timer);
  const cleanup = () => {
    try {
      fs.rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch (e) {
      console.log(`browser: could not remove the profile ${profile}: ${e.code}`);
    }
    process.exit(code);
  };
  if (chrome.exitCode !== null || chrome.signalCode !== null) return cleanup();
  chrome.once("exit", () => setTimeout(cleanup, 200));
  try { chrome.kill("SIGKILL"); } catch { cleanup(); }
}
chrome.on("exit", (code) => {
  if (pending.size && !finishing) {
    console.log(`FAIL: chromium exited (${code}) during the test; its last words:\n${chromeLog}`);
    finish(1);
  }
});
main().then(() => {
  console.log(`browser: ${pass} passed, ${fail} failed`);
  finish(fail ? 1 : 0);
}, (e) => {
  console.log("FAIL: " + e.message);
  console.log(`browser: ${pass} passed, ${fail + 1} failed`);
  finish(1);
});
