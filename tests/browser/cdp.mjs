// Headless Chromium driven over the DevTools protocol on --remote-debugging-pipe (file
// descriptors 3 and 4): no npm package and no port. The plumbing of web_check.mjs (the same as
// viewer_check.mjs's).
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function launch({ width = 1280, height = 800 } = {}) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "crowd-chromium-"));
  const chrome = spawn("chromium", [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    `--user-data-dir=${profile}`, "--remote-debugging-pipe", `--window-size=${width},${height}`,
    "about:blank",
  ], { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
  let log = "";
  chrome.stderr.on("data", (d) => { log = (log + d).slice(-4000); });
  let nextId = 1, inbox = Buffer.alloc(0), session;
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
  const send = (method, params = {}, toBrowser = false) => {
    const id = nextId++;
    const msg = { id, method, params };
    if (!toBrowser) msg.sessionId = session;
    chrome.stdio[3].write(JSON.stringify(msg) + "\0");
    return new Promise((resolve, reject) => pending.set(id, { resolve, reject, method }));
  };
  const evaluate = async (expr) => {
    const r = await send("Runtime.evaluate", { expression: expr, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error("evaluate: " + JSON.stringify(r.exceptionDetails));
    return r.result.value;
  };
  const until = async (expr, ms, what) => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await evaluate(expr);
      if (v) return v;
      if (Date.now() > end) throw new Error("timed out waiting for " + what);
      await sleep(100);
    }
  };
  const open = async () => {
    const { targetId } = await send("Target.createTarget", { url: "about:blank" }, true);
    ({ sessionId: session } = await send("Target.attachToTarget", { targetId, flatten: true }, true));
    await send("Runtime.enable");
    await send("Log.enable");
    await send("Page.enable");
    await send("Emulation.setDeviceMetricsOverride", { width, height, deviceScaleFactor: 1, mobile: false });
  };
  // Errors the page reported since `from` (an index into events).
  const messages = (levels, from = 0) => {
    const out = [];
    for (const e of events.slice(from)) {
      if (e.method === "Runtime.exceptionThrown" && levels.includes("error"))
        out.push("exception: " + (e.params.exceptionDetails.exception?.description || e.params.exceptionDetails.text));
      else if (e.method === "Runtime.consoleAPICalled" && levels.includes(e.params.type))
        out.push(`console.${e.params.type}: ` + e.params.args.map((a) => a.value ?? a.description).join(" "));
      else if (e.method === "Log.entryAdded" && levels.includes(e.params.entry.level))
        out.push(`log ${e.params.entry.level}: ${e.params.entry.text}`);
    }
    return out;
  };
  // Waits for the browser to exit, then removes the profile (a leftover is not a failure).
  const close = () => new Promise((resolve) => {
    const cleanup = () => {
      try { fs.rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }); } catch {}
      resolve();
    };
    if (chrome.exitCode !== null || chrome.signalCode !== null) return cleanup();
    chrome.once("exit", () => setTimeout(cleanup, 200));
    try { chrome.kill("SIGKILL"); } catch { cleanup(); }
  });
  return { send, evaluate, until, open, messages, close, events, log: () => log, pending };
}
