#!/usr/bin/env bash
# The crowd command end to end: --help everywhere, one-line errors with non-zero exits for bad
# flags, files and outputs, the run summary, --hash across thread counts, recordings and their
# replays, the scaling profiler's JSON and SVG, every example scenario and the demo.
# usage: cli_test.sh CROWD_BINARY SOURCE_DIR
set -u
crowd=$1
src=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scenarios=$src/tools/scenarios
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# run CMD...: runs it, keeping rc, out and err.
run() {
  "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}
# expect_error RC MESSAGE CMD...: exit code RC, nothing on stdout, exactly MESSAGE on stderr.
expect_error() {
  local want_rc=$1 want=$2
  shift 2
  run "$@"
  if [ "$rc" -eq "$want_rc" ] && [ "$err" = "$want" ] && [ -z "$out" ]; then
    ok
  else
    bad "$*: rc $rc (want $want_rc), stderr '$err' (want '$want'), stdout '${out:0:200}'"
  fi
}
# expect_line REGEX: a line of the last stdout matches.
expect_line() {
  if grep -Eq "$1" <<<"$out"; then ok; else bad "no line /$1/ in: ${out:0:400}"; fi
}

# ---- help on every subcommand ------------------------------------------------------------------
for c in run demo view scale hash; do
  run "$crowd" "$c" --help
  if [ "$rc" -eq 0 ] && [ -z "$err" ] && [[ "$out" == "usage: crowd $c"* ]]; then ok; else bad "$c --help"; fi
done
run "$crowd" --help
if [ "$rc" -eq 0 ] && grep -q "run FILE" <<<"$out" && grep -q "scale" <<<"$out"; then ok; else bad "crowd --help"; fi
run "$crowd"
if [ "$rc" -eq 2 ] && [[ "$err" == "usage: crowd"* ]]; then ok; else bad "crowd without a command"; fi

# ---- bad flags: exit 2, one line -------------------------------------------------------------
crossing=$scenarios/crossing.json
expect_error 2 "crowd: unknown command 'frob' (try crowd --help)" "$crowd" frob
expect_error 2 "crowd run: missing the scenario file (try crowd run --help)" "$crowd" run
expect_error 2 "crowd run: unknown option '--bogus' (try crowd run --help)" "$crowd" run "$crossing" --bogus
expect_error 2 "crowd run: --ticks: expected an integer in [0, 100000000], got 'abc'" "$crowd" run "$crossing" --ticks abc
expect_error 2 "crowd run: --ticks needs a value" "$crowd" run "$crossing" --ticks
expect_error 2 "crowd run: --threads: expected an integer in [0, 256], got '-1'" "$crowd" run "$crossing" --threads -1
expect_error 2 "crowd run: --agents-scale: expected a number > 0 and <= 1e+06, got '0'" "$crowd" run "$crossing" --agents-scale 0
expect_error 2 "crowd run: --record-every: expected an integer in [1, 100000000], got '0'" "$crowd" run "$crossing" --record-every 0
expect_error 2 "crowd run: one scenario file at a time (got 'a.json' and 'b.json')" "$crowd" run a.json b.json
expect_error 2 "crowd view: missing the recording file (try crowd view --help)" "$crowd" view
expect_error 2 "crowd view: missing -o OUT.html (try crowd view --help)" "$crowd" view x.rec
expect_error 2 "crowd view: unknown option '--fast' (try crowd view --help)" "$crowd" view x.rec --fast
expect_error 2 "crowd scale: give either a scenario FILE or --agents N (try crowd scale --help)" "$crowd" scale
expect_error 2 "crowd scale: give either a scenario FILE or --agents N (try crowd scale --help)" "$crowd" scale "$crossing" --agents 100
expect_error 2 "crowd scale: --threads: expected a comma-separated list of at most 32 integers, got '1,,2'" "$crowd" scale --agents 100 --threads 1,,2
expect_error 2 "crowd scale: --threads: expected an integer in [1, 256], got '0'" "$crowd" scale --agents 100 --threads 0,1
expect_error 2 "crowd scale: --scene goes with --agents, not with a scenario file" "$crowd" scale "$crossing" --scene mixed
expect_error 2 "crowd scale: --agents-scale goes with a scenario file, not with --agents" "$crowd" scale --agents 10 --agents-scale 2
expect_error 2 "crowd demo: unknown argument '--frobnicate' (try crowd demo --help)" "$crowd" demo --frobnicate
expect_error 2 "crowd hash: --scene: expected separation, crossing, mixed, queue, waypoints, tube, groups, plaza or town, got 'nope'" "$crowd" hash --scene nope
expect_error 2 "crowd hash: unknown option '--fast' (try crowd hash --help)" "$crowd" hash --fast

# ---- bad files: exit 1, one line -------------------------------------------------------------
expect_error 1 "crowd run: $tmp/missing.json: No such file or directory" "$crowd" run "$tmp/missing.json"
printf '{\n  "world": {\n    "dt": 0\n  },\n  "crowds": []\n}\n' >"$tmp/bad.json"
expect_error 1 "crowd run: $tmp/bad.json:3:11: world.dt: expected a number in (0, 10], got 0" "$crowd" run "$tmp/bad.json"
printf '{"crowds": [{"count": 3, "area": {"kind": "grid", "center": [0, 0]},\n  "colour": "red"}]}\n' >"$tmp/bad2.json"
expect_error 1 "crowd run: $tmp/bad2.json:2:3: crowds[0]: unknown key \"colour\" in a crowd (expected one of: name, count, area, agent, goal, queue, path, followers)" "$crowd" run "$tmp/bad2.json"
printf '{"name": "a\xff", "crowds": []}\n' >"$tmp/bad3.json"
expect_error 1 "crowd run: $tmp/bad3.json:1:12: invalid UTF-8 (byte 0xff)" "$crowd" run "$tmp/bad3.json"
expect_error 1 "crowd scale: $tmp/bad.json:3:11: world.dt: expected a number in (0, 10], got 0" "$crowd" scale "$tmp/bad.json"
expect_error 1 "crowd demo: $tmp/bad.json:3:11: world.dt: expected a number in (0, 10], got 0" "$crowd" demo --scenario "$tmp/bad.json" -o "$tmp/d.html"
printf 'not a recording at all, no sir' >"$tmp/junk.rec"
expect_error 1 "crowd view: $tmp/junk.rec: not a crowd recording (bad magic number)" "$crowd" view "$tmp/junk.rec" -o "$tmp/j.html"
[ ! -e "$tmp/j.html" ] && ok || bad "view left an output behind after a bad recording"

# ---- unwritable outputs: exit 1, one line, nothing left behind -------------------------------
nowhere=$tmp/no/such/dir
expect_error 1 "crowd run: cannot write '$nowhere/x.rec': No such file or directory" "$crowd" run "$crossing" --ticks 1 --agents-scale 0.01 --record "$nowhere/x.rec"
expect_error 1 "crowd scale: cannot write '$nowhere/x.json': No such file or directory" "$crowd" scale --agents 50 --ticks 1 --json "$nowhere/x.json"
expect_error 1 "crowd scale: cannot write '$nowhere/x.svg': No such file or directory" "$crowd" scale --agents 50 --ticks 1 --svg "$nowhere/x.svg"
expect_error 1 "crowd demo: cannot write '$nowhere/x.html': No such file or directory" "$crowd" demo --ticks 1 --agents-scale 0.01 -o "$nowhere/x.html"

# ---- the run summary ---------------------------------------------------------------------------
# crossing.json holds 4000 + 1500 + 1500 + 1000 agents; at 0.05 that is 200 + 75 + 75 + 50.
run "$crowd" run "$crossing" --ticks 5 --agents-scale 0.05 --threads 1
if [ "$rc" -eq 0 ] && [ -z "$err" ]; then ok; else bad "run crossing: rc $rc, $err"; fi
expect_line '^scenario: crossing \(.*crossing\.json\)$'
expect_line '^agents: 400$'
expect_line '^threads: 1$'
expect_line '^ticks: 5 \(dt 0\.1 s, 0\.5 s simulated\)$'
expect_line '^ms/tick: median [0-9]+\.[0-9]{3}, p95 [0-9]+\.[0-9]{3}, p99 [0-9]+\.[0-9]{3}$'
expect_line '^agent-steps/s: [0-9]+\.[0-9]{2} M$'
expect_line '^phases \(median ms\): sort [0-9.]+, route [0-9.]+, neighbor [0-9.]+, leader [0-9.]+, path [0-9.]+, goal [0-9.]+, walls [0-9.]+, integrate [0-9.]+, clamp [0-9.]+, arrival [0-9.]+$'
if grep -q $'\r' "$tmp/out"; then bad "progress bar drawn although stdout is not a terminal"; else ok; fi
if grep -q 'state-hash' <<<"$out"; then bad "state hash printed without --hash"; else ok; fi
# On a terminal (script gives the command one) the progress bar is drawn.
if command -v script >/dev/null; then
  script -qec "$crowd run $crossing --ticks 20 --agents-scale 0.05" /dev/null >"$tmp/tty" 2>&1
  if grep -q '\[#' "$tmp/tty" && grep -q 'tick 20/20' "$tmp/tty"; then ok; else bad "no progress bar on a terminal: $(head -c 300 "$tmp/tty")"; fi
else
  bad "script (util-linux) is needed to test the progress bar on a terminal"
fi

# ---- --hash: the same state on every thread count, through the command -----------------------
ref=""
for t in 1 2 3 4; do
  run "$crowd" run "$crossing" --ticks 40 --agents-scale 0.2 --threads "$t" --hash
  h=$(grep -E '^state-hash: [0-9a-f]{16}$' <<<"$out")
  if [ "$rc" -ne 0 ] || [ -z "$h" ]; then bad "run --hash threads $t: $err"; continue; fi
  [ -z "$ref" ] && ref=$h
  if [ "$h" = "$ref" ]; then ok; else bad "threads $t: $h, threads 1: $ref"; fi
done
run "$crowd" run "$crossing" --ticks 41 --agents-scale 0.2 --threads 1 --hash
if [ "$(grep state-hash <<<"$out")" != "$ref" ]; then ok; else bad "one more tick left the hash unchanged"; fi
h1=$("$crowd" hash --scene mixed --agents 800 --ticks 30 --threads 1 --churn)
h2=$("$crowd" hash --scene mixed --agents 800 --ticks 30 --threads 2 --churn)
if [[ "$h1" =~ ^state-hash:\ [0-9a-f]{16}$ ]] && [ "$h1" = "$h2" ]; then ok; else bad "crowd hash: '$h1' vs '$h2'"; fi

# ---- record -> view round trip -----------------------------------------------------------------
run "$crowd" run "$crossing" --ticks 10 --agents-scale 0.05 --threads 1 --record "$tmp/r.rec" --record-every 3
# Frames at ticks 0, 3, 6 and 9.
expect_line "^recording: $tmp/r.rec \(4 frames, every 3 ticks, [0-9.]+ MB\)$"
run "$crowd" view "$tmp/r.rec" -o "$tmp/r.html"
if [ "$rc" -eq 0 ] && [ "$out" = "replay: $tmp/r.html (4 frames, up to 400 agents)" ]; then ok; else bad "view: rc $rc '$out' '$err'"; fi
# The page embeds exactly the recording's bytes.
sed -n 's/.*<script id="recording" type="application\/octet-stream">\([^<]*\)<\/script>.*/\1/p' "$tmp/r.html" | base64 -d >"$tmp/embedded.rec" 2>/dev/null
if cmp -s "$tmp/r.rec" "$tmp/embedded.rec"; then ok; else bad "the replay does not embed the recording byte for byte"; fi
if grep -Eq 'https?:|<link|src=' "$tmp/r.html"; then bad "the replay refers to something outside itself"; else ok; fi
# A corrupt or truncated recording is refused.
cp "$tmp/r.rec" "$tmp/c.rec"
printf '\x55' | dd of="$tmp/c.rec" bs=1 seek=200 conv=notrunc status=none
expect_error 1 "crowd view: $tmp/c.rec: checksum mismatch: the recording is corrupt" "$crowd" view "$tmp/c.rec" -o "$tmp/c.html"
head -c 1000 "$tmp/r.rec" >"$tmp/t.rec"
expect_error 1 "crowd view: $tmp/t.rec: truncated recording (no END chunk)" "$crowd" view "$tmp/t.rec" -o "$tmp/c.html"
# The same run recorded twice gives the same bytes (the recording is deterministic too).
"$crowd" run "$crossing" --ticks 10 --agents-scale 0.05 --threads 2 --record "$tmp/r2.rec" --record-every 3 >/dev/null
if cmp -s "$tmp/r.rec" "$tmp/r2.rec"; then ok; else bad "recordings differ between thread counts"; fi

# ---- the navigation field in a recording -------------------------------------------------------
building=$scenarios/building.json
expect_error 2 "crowd run: --field goes with --record" "$crowd" run "$building" --field auto
expect_error 2 "crowd run: --field-step goes with --record" "$crowd" run "$building" --field-step 2
expect_error 2 "crowd run: --field-step: expected a number > 0 and <= 1000, got '0'" "$crowd" run "$building" --record "$tmp/f.rec" --field-step 0
expect_error 1 "crowd run: --field: expected auto, X,Y (a point within 1e+06 m) or exits:NAME, got '3;4'" "$crowd" run "$building" --record "$tmp/f.rec" --field '3;4'
expect_error 1 "crowd run: --field: the scenario has no exit set 'doors'" "$crowd" run "$building" --record "$tmp/f.rec" --field exits:doors
printf '{"crowds": [{"count": 3, "area": {"kind": "grid", "center": [0, 0]}}]}\n' >"$tmp/plain.json"
expect_error 1 "crowd run: --field auto: the scenario has no routed goal, exit set, queue or waypoint path to draw a field for" "$crowd" run "$tmp/plain.json" --record "$tmp/f.rec" --field auto
[ ! -e "$tmp/f.rec" ] && ok || bad "a refused --field left a recording behind"
expect_error 1 "crowd run: --field: 1251 x 1251 samples at a step of 0.004 m, more than 1048576: give a larger --field-step" "$crowd" run "$tmp/plain.json" --record "$tmp/f.rec" --field 0,0 --field-step 0.004 --ticks 1
# Recording a field changes nothing in the run: the same state hash with and without it.
run "$crowd" run "$building" --ticks 30 --threads 2 --hash --record "$tmp/f.rec" --field auto --record-every 10
expect_line "^recording: $tmp/f.rec \(4 frames, every 10 ticks, [0-9.]+ MB\)$"
h_field=$(grep state-hash <<<"$out")
run "$crowd" run "$building" --ticks 30 --threads 2 --hash
if [ -n "$h_field" ] && [ "$(grep state-hash <<<"$out")" = "$h_field" ]; then ok; else bad "--field changed the run: '$h_field' vs '$(grep state-hash <<<"$out")'"; fi
if grep -q FELD "$tmp/f.rec"; then ok; else bad "no FELD chunk in a recording made with --field"; fi
run "$crowd" view "$tmp/f.rec" -o "$tmp/f.html"
if [ "$rc" -eq 0 ] && [ "$out" = "replay: $tmp/f.html (4 frames, up to 176 agents)" ]; then ok; else bad "view of a recording with a field: rc $rc '$out' '$err'"; fi
run "$crowd" run "$building" --ticks 1 --record "$tmp/f2.rec" --field exits:assembly --field-step 2
if [ "$rc" -eq 0 ] && grep -q 'exits assembly' "$tmp/f2.rec"; then ok; else bad "--field exits:NAME: rc $rc $err"; fi
run "$crowd" run "$building" --ticks 1 --record "$tmp/f3.rec" --field=-3.5,2
if [ "$rc" -ne 0 ]; then ok; else bad "--field=VALUE is not an option spelling"; fi
run "$crowd" run "$building" --ticks 1 --record "$tmp/f3.rec" --field -3.5,2
if [ "$rc" -eq 0 ] && grep -q 'goal \[-3.5, 2\]' "$tmp/f3.rec"; then ok; else bad "--field X,Y: rc $rc $err"; fi

# ---- scale: table, JSON schema, SVG ------------------------------------------------------------
cores=$(nproc)
over=$((cores + 1))
run "$crowd" scale --agents 600,1200 --threads "1,2,$over" --ticks 3 --warmup 1 --json "$tmp/s.json" --svg "$tmp/s.svg"
if [ "$rc" -eq 0 ]; then ok; else bad "scale --agents: rc $rc $err"; fi
expect_line '^crowd scale: scene separation, 3 ticks after 1 warm-up, [0-9]+ cores?$'
expect_line "^ +1200 +$over\* "
expect_line '^ +state hashes equal across thread counts$'
expect_line "^\* oversubscribed: more threads than the $cores cores?$"
if node "$here/check_scale.mjs" "$tmp/s.json" scene 600,1200 "1,2,$over" 3; then ok; else bad "scale JSON (scene)"; fi
if head -c 4 "$tmp/s.svg" | grep -q '<svg' && tail -n 1 "$tmp/s.svg" | grep -q '</svg>' &&
   [ "$(grep -c '<polyline' "$tmp/s.svg")" -eq 3 ] && grep -q 'oversubscribed' "$tmp/s.svg"; then
  ok
else
  bad "scale SVG"
fi
run "$crowd" scale "$crossing" --agents-scale 0.05,0.1 --threads 1,2 --ticks 2 --warmup 0 --json "$tmp/s2.json"
if [ "$rc" -eq 0 ] && node "$here/check_scale.mjs" "$tmp/s2.json" scenario 400,800 1,2 2; then ok; else bad "scale JSON (scenario): $err"; fi

# ---- every example scenario ------------------------------------------------------------------
# Each builds (queues, paths and leaders included) and runs for a few ticks.
for f in "$scenarios"/*.json; do
  run "$crowd" run "$f" --ticks 3 --agents-scale 0.02
  if [ "$rc" -eq 0 ] && grep -Eq '^agents: [0-9]+$' <<<"$out" && grep -q '^ms/tick: median' <<<"$out"; then
    ok
  else
    bad "$f: rc $rc, '$err'"
  fi
done
run "$crowd" run "$crossing" --ticks 3 --agents-scale 0.02
if [ "$rc" -eq 0 ]; then ok; else bad "crossing.json must run on the core library: $err"; fi
# Walls: the summary counts the obstacles (the shop has 6: walls, rails, counter, shelves); a
# scenario without any says nothing about them.
run "$crowd" run "$scenarios/shop.json" --ticks 3
expect_line '^obstacles: 6$'
run "$crowd" run "$crossing" --ticks 1 --agents-scale 0.02
if grep -q '^obstacles:' <<<"$out"; then bad "obstacles line without obstacles"; else ok; fi
# The navigation scenes: exit sets, routed goals and routed waypoint legs.
run "$crowd" run "$scenarios/building.json" --ticks 3
expect_line '^agents: 176$'
expect_line '^obstacles: 23$'
# Navigation settings the library would refuse are reported where they are written.
printf '{"world": {"nav": {"cell_size": 1}},\n "crowds": [{"count": 1, "area": {"kind": "grid", "center": [9, 9]}}]}\n' >"$tmp/nav.json"
expect_error 1 "crowd run: $tmp/nav.json:1:33: world.nav: expected a cell size below twice the clearance (0.6), got 1 (set a larger clearance too)" "$crowd" run "$tmp/nav.json" --ticks 1
# An obstacle the library refuses is reported at its position in the file.
printf '{"obstacles": [\n  {"kind": "polygon", "points": [[0, 0], [4, 4], [4, 0], [0, 4]]}],\n "crowds": [{"count": 1, "area": {"kind": "grid", "center": [9, 9]}}]}\n' >"$tmp/bow.json"
expect_error 1 "crowd run: $tmp/bow.json:2:3: obstacles[0]: cannot add the polygon: polygon edges cross each other" "$crowd" run "$tmp/bow.json" --ticks 1

# ---- the demo ----------------------------------------------------------------------------------
run "$crowd" demo --ticks 4 --agents-scale 0.01 --record-every 2 -o "$tmp/demo.html"
if [ "$rc" -eq 0 ] && [ -s "$tmp/demo.html" ]; then ok; else bad "demo: rc $rc $err"; fi
expect_line "^replay: $tmp/demo.html \(3 frames, every 2 ticks; open it in a browser\)$"
expect_line '^ms/tick: median '
# The demo runs the plaza scenario.
if grep -q 'built-in' <<<"$out"; then bad "demo fell back to the built-in crowd: $out"; else ok; fi
expect_line '^scenario: plaza '

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
