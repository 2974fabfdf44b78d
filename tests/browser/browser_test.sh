#!/usr/bin/env bash
# The HTML replay in headless Chromium: `crowd demo` records 50,000 agents (5,000 with
# CROWD_TEST_SCALE=small) and writes its replay; viewer_check.mjs opens it and checks that it
# plays. Exits 77 (skipped) when chromium or node is missing: tools/deps.sh test installs both.
# usage: browser_test.sh CROWD_BINARY
set -u
crowd=$1
here=$(cd "$(dirname "$0")" && pwd)
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
