// Checks a `crowd scale --json` document against the schema in tools/scenarios/README.md and
// against what the command was asked to do.
// usage: node check_scale.mjs FILE KIND SIZES THREADS TICKS
//   KIND scene|scenario, SIZES the expected agent counts ("600,1200"), THREADS "1,2,3".
import fs from "node:fs";

const [file, kind, sizesArg, threadsArg, ticksArg] = process.argv.slice(2);
const doc = JSON.parse(fs.readFileSync(file, "utf8"));
const sizes = sizesArg.split(",").map(Number);
const threads = threadsArg.split(",").map(Number);
const problems = [];
const expect = (cond, what) => { if (!cond) problems.push(what); };
const isNum = (v) => typeof v === "number" && Number.isFinite(v);
const isInt = (v) => Number.isInteger(v);
const near = (a, b) => Math.abs(a - b) <= 1e-3 * Math.max(1, Math.abs(b)) + 2e-4;
const exactKeys = (o, keys, where) => {
  const got = Object.keys(o).sort().join(",");
  expect(got === [...keys].sort().join(","), `${where}: keys ${got}, want ${[...keys].sort()}`);
};

const top = ["schema", "source", "ticks", "warmup", "cores", "phases", "sizes"];
exactKeys(doc, top, "document");
expect(doc.schema === "crowdstep-scale/1", "schema tag");
expect(doc.source && doc.source.kind === kind, "source.kind");
expect(typeof doc.source.name === "string" && doc.source.name.length > 0, "source.name");
exactKeys(doc.source, kind === "scenario" ? ["kind", "name", "file"] : ["kind", "name"], "source");
expect(doc.ticks === Number(ticksArg), "ticks");
expect(isInt(doc.warmup) && doc.warmup >= 0, "warmup");
expect(isInt(doc.cores) && doc.cores >= 1, "cores");
const phases = ["sort", "route", "neighbor", "leader", "path", "goal", "walls", "integrate", "clamp", "arrival"];
expect(JSON.stringify(doc.phases) === JSON.stringify(phases), "phases");
expect(Array.isArray(doc.sizes) && doc.sizes.length === sizes.length, "one entry per size");

(doc.sizes || []).forEach((z, s) => {
  const where = `sizes[${s}]`;
  exactKeys(z, kind === "scenario"
    ? ["agents", "agents_scale", "baseline_threads", "hashes_equal", "runs"]
    : ["agents", "baseline_threads", "hashes_equal", "runs"], where);
  expect(z.agents === sizes[s], `${where}.agents ${z.agents}, want ${sizes[s]}`);
  expect(z.baseline_threads === Math.min(...threads), `${where}.baseline_threads`);
  expect(z.hashes_equal === true, `${where}.hashes_equal (determinism across thread counts)`);
  expect(z.runs.length === threads.length, `${where}: one run per thread count`);
  const base = z.runs.find((r) => r.threads === z.baseline_threads);
  const hashes = new Set();
  z.runs.forEach((r, k) => {
    const w = `${where}.runs[${k}]`;
    exactKeys(r, ["threads", "oversubscribed", "ms_per_tick", "agent_steps_per_s", "speedup",
                  "efficiency", "phase_ms", "state_hash"], w);
    expect(r.threads === threads[k], `${w}.threads`);
    expect(r.oversubscribed === (r.threads > doc.cores), `${w}.oversubscribed`);
    exactKeys(r.ms_per_tick, ["median", "p95", "p99", "mean"], `${w}.ms_per_tick`);
    for (const v of Object.values(r.ms_per_tick)) expect(isNum(v) && v >= 0, `${w}.ms_per_tick`);
    expect(r.ms_per_tick.p95 >= r.ms_per_tick.median, `${w}: p95 >= median`);
    expect(r.ms_per_tick.p99 >= r.ms_per_tick.p95, `${w}: p99 >= p95`);
    exactKeys(r.phase_ms, phases, `${w}.phase_ms`);
    for (const p of phases) expect(isNum(r.phase_ms[p]) && r.phase_ms[p] >= 0, `${w}.phase_ms.${p}`);
    expect(isNum(r.agent_steps_per_s) && r.agent_steps_per_s > 0, `${w}.agent_steps_per_s`);
    if (r.ms_per_tick.median > 0.001)
      expect(Math.abs(r.agent_steps_per_s - z.agents / (r.ms_per_tick.median * 1e-3)) <=
             0.01 * r.agent_steps_per_s + 1, `${w}.agent_steps_per_s = agents / median`);
    expect(near(r.speedup, base.ms_per_tick.median / r.ms_per_tick.median),
           `${w}.speedup = baseline median / median`);
    expect(near(r.efficiency, r.speedup * z.baseline_threads / r.threads), `${w}.efficiency`);
    expect(/^[0-9a-f]{16}$/.test(r.state_hash), `${w}.state_hash`);
    hashes.add(r.state_hash);
  });
  expect(base && near(base.speedup, 1), `${where}: the baseline's speedup is 1`);
  expect(hashes.size === 1, `${where}: state hashes equal across thread counts`);
});

if (problems.length) {
  for (const p of problems) console.error("scale json: " + p);
  process.exit(1);
}
