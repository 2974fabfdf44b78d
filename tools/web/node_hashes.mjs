// The .wasm's state hashes under node, in the form of `crowd hash` and `crowd run --hash`, for a
// comparison with the native command (tools/test.sh's web stage).
// usage: node node_hashes.mjs WEB_DIR SCENARIO_DIR AGENTS TICKS
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const [dir, scenarios, agentsArg, ticksArg] = process.argv.slice(2);
const agents = Number(agentsArg), ticks = Number(ticksArg);
const { load } = createRequire(import.meta.url)(path.resolve(dir, "crowd.js"));
const crowd = await load(fs.readFileSync(path.join(dir, "crowd.wasm")));
for (const s of ["separation", "crossing", "mixed", "queue", "waypoints", "tube", "groups", "plaza", "town"]) {
  for (const churn of [false, true]) {
    crowd.scene(s, agents, 1, churn);
    crowd.step(ticks);
    console.log(`scene ${s}${churn ? " --churn" : ""}: ${crowd.hash()}`);
  }
}
for (const f of fs.readdirSync(scenarios).filter((f) => f.endsWith(".json")).sort()) {
  crowd.scenario(f, fs.readFileSync(path.join(scenarios, f), "utf8"));
  crowd.step(ticks);
  console.log(`file ${f}: ${crowd.hash()}`);
}
