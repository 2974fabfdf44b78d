#!/usr/bin/env bash
# The HTML replay in headless Chromium: `crowd demo` records 50,000 agents (5,000 with
# CROWD_TEST_SCALE=small) and writes its replay; viewer_check.mjs opens it and checks that it
# plays. Then the building scenario recorded with its navigation field (crowd run --field auto):
# the field is drawn under the agents and switches off and on. Exits 77 (skipped) when chromium
# or node is missing: tools/deps.sh test installs both.
# usage: browser_test.sh CROWD_BINARY [SOURCE_DIR]
set -u
crowd=$1
here=$(cd "$(dirname "$0")" && pwd)
src=${2:-$here/../..}
for tool in chromium node; do
  if ! command -v "$tool" >/dev/null; then
    echo "browser: $tool is not installed (tools/deps.sh test installs it); skipped"
    exit 77
  fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scale=1
[ "${CROWD_TEST_SCALE:-}" = small ] && scale=0.1
# 20 ticks, every 2nd recorded: frames at ticks 0, 2, ..., 20.
if ! "$crowd" demo --ticks 20 --record-every 2 --agents-scale "$scale" -o "$tmp/replay.html" >"$tmp/out" 2>&1; then
  echo "FAIL: crowd demo: $(cat "$tmp/out")"
  echo "browser: 0 passed, 1 failed"
  exit 1
fi
agents=$(sed -n 's/^agents: \([0-9]*\).*$/\1/p' "$tmp/out")
obstacles=$(sed -n 's/^obstacles: \([0-9]*\)$/\1/p' "$tmp/out")
shot=${CROWD_BROWSER_SCREENSHOT:-}
node "$here/viewer_check.mjs" "$tmp/replay.html" 11 "$agents" "${obstacles:-0}" $shot
rc=$?
# 40 ticks, every 4th recorded: frames at ticks 0, 4, ..., 40.
if ! "$crowd" run "$src/tools/scenarios/building.json" --ticks 40 --record-every 4 --record "$tmp/nav.rec" \
    --field auto >"$tmp/out" 2>&1 || ! "$crowd" view "$tmp/nav.rec" -o "$tmp/nav.html" >>"$tmp/out" 2>&1; then
  echo "FAIL: crowd run --field: $(cat "$tmp/out")"
  echo "browser: 0 passed, 1 failed"
  exit 1
fi
agents=$(sed -n 's/^agents: \([0-9]*\).*$/\1/p' "$tmp/out")
obstacles=$(sed -n 's/^obstacles: \([0-9]*\)$/\1/p' "$tmp/out")
CHECK_FIELD=1 node "$here/viewer_check.mjs" "$tmp/nav.html" 11 "$agents" "$obstacles" || rc=1
exit $rc
