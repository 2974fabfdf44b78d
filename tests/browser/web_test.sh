#!/usr/bin/env bash
# The WebAssembly build against the native one (issue 38): the state hashes of every built-in
# scene (with and without churn) and every scenario file, first from the .wasm under node, then
# in headless Chromium with the demo pages (web_check.mjs), from file:// and one of them from a
# static server on the loopback (python3 -m http.server). Exits 77 (skipped) when chromium or
# node is missing: tools/deps.sh test installs both.
# usage: web_test.sh CROWD_BINARY WEB_DIR [AGENTS TICKS]   (WEB_DIR: built by tools/web.sh)
set -u
crowd=$1
web=$2
agents=${3:-2000}
ticks=${4:-150}
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../..
for tool in chromium node; do
  if ! command -v "$tool" >/dev/null; then
    echo "web: $tool is not installed (tools/deps.sh test installs it); skipped"
    exit 77
  fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for s in separation crossing mixed queue waypoints tube groups plaza town; do
  for churn in "" --churn; do
    h=$("$crowd" hash --scene "$s" --agents "$agents" --ticks "$ticks" --threads 1 $churn)
    echo "scene $s${churn:+ $churn}: ${h#state-hash: }"
  done
done >"$tmp/native"
for f in "$src"/tools/scenarios/*.json; do
  h=$("$crowd" run "$f" --ticks "$ticks" --threads 1 --hash | sed -n 's/^state-hash: //p')
  echo "file $(basename "$f"): $h"
done >>"$tmp/native"
node "$src/tools/web/node_hashes.mjs" "$web" "$src/tools/scenarios" "$agents" "$ticks" >"$tmp/node"
rc=0
if diff "$tmp/native" "$tmp/node" >"$tmp/diff"; then
  echo "web: node: $(wc -l <"$tmp/native") of $(wc -l <"$tmp/native") state hashes equal native ($agents agents, $ticks ticks)"
else
  echo "FAIL: the .wasm under node differs from native:"; cat "$tmp/diff"; rc=1
fi
# A static server on the loopback for one page (python3's http.server, on a free port).
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$web" "$port" >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$tmp"' EXIT
CROWD_WEB_HTTP=http://127.0.0.1:$port \
  node "$here/web_check.mjs" "$web" "$tmp/native" "$agents" "$ticks" ${CROWD_WEB_SCREENSHOTS:-} || rc=1
exit $rc
