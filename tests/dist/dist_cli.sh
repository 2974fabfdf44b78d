#!/usr/bin/env bash
# The crowd command under mpiexec (the MPI build): `crowd run --hash --record` on K ranks prints
# the one-process state hash on rank 0 alone and writes a recording byte-identical to the
# one-process one; `crowd scale --ranks` reports every rank of every rank count, started alone (it
# starts itself under mpiexec) and with the same hash on every count, in its table and its JSON.
# usage: dist_cli.sh CROWD_BINARY SOURCE_DIR MPIEXEC
set -u
crowd=$1
src=$2
mpiexec=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_WAIT_POLICY=passive
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

for scenario in formations evacuation; do
  file=$src/tools/scenarios/$scenario.json
  one=$("$crowd" run "$file" --ticks 120 --threads 1 --hash --record "$tmp/one.rec" | grep '^state-hash')
  for k in 2 3; do
    out=$("$mpiexec" -n "$k" "$crowd" run "$file" --ticks 120 --threads 1 --hash --record "$tmp/split.rec")
    hashes=$(grep -c '^state-hash' <<<"$out")
    if [ "$hashes" = 1 ] && [ "$(grep '^state-hash' <<<"$out")" = "$one" ] &&
        grep -q "^ranks: $k$" <<<"$out"; then ok; else bad "$scenario on $k ranks: $out (one process: $one)"; fi
    if cmp -s "$tmp/one.rec" "$tmp/split.rec"; then ok; else bad "$scenario: the recording on $k ranks differs"; fi
  done
done

out=$("$crowd" scale --agents 3000 --scene groups --ranks 1,2,3 --ticks 5 --warmup 1 --threads 1 \
  --json "$tmp/ranks.json")
rc=$?
rows=$(grep -cE '^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$' <<<"$out")
counts=$(grep -c 'imbalance (most agents on a rank / mean)' <<<"$out")
if [ "$rc" = 0 ] && [ "$rows" = 6 ] && [ "$counts" = 3 ] &&
    grep -q 'state-hash on every rank count: equal' <<<"$out"; then ok; else bad "crowd scale --ranks (rc $rc, $rows rank rows): $out"; fi
# The JSON holds the table's figures: one entry per rank count, one row per rank, the same hash.
if python3 - "$tmp/ranks.json" <<'PY'; then ok; else bad "crowd scale --ranks --json"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "crowdstep-scale-ranks/2" and d["threads_per_rank"] == 1
(size,) = d["sizes"]
assert size["agents"] == 3000 and size["hashes_equal"] is True
counts = size["rank_counts"]
assert [c["ranks"] for c in counts] == [1, 2, 3]
assert len({c["state_hash"] for c in counts}) == 1
for c in counts:
    assert len(c["per_rank"]) == c["ranks"]
    assert round(sum(r["agents"] for r in c["per_rank"])) >= 2990
    assert c["split"] == "bisection" and len(c["load_imbalance_by_tick"]) == d["ticks"]
    assert c["load_imbalance_most"] >= c["load_imbalance_median"] >= 1.0
    assert len(c["agents_by_tick"]) == d["ticks"]
PY
# Strips, cut before every tick: the same state as bisection.
out2=$("$crowd" scale --agents 3000 --scene groups --ranks 1,3 --ticks 5 --warmup 1 --threads 1 \
  --split strips --rebalance 1)
h1=$(grep -o 'state-hash [0-9a-f]*' <<<"$out" | sort -u)
h2=$(grep -o 'state-hash [0-9a-f]*' <<<"$out2" | sort -u)
if [ -n "$h1" ] && [ "$h1" = "$h2" ] && grep -q 'strips cut again before 5 of 5 ticks' <<<"$out2"; then
  ok; else bad "crowd scale --split strips --rebalance 1: $out2"; fi
if "$crowd" scale --agents 100 --split tiles --ranks 1 >/dev/null 2>&1; then
  bad "--split tiles is accepted"
else ok; fi
if "$crowd" scale --agents 100 --ranks 1,2 --svg "$tmp/x.svg" >/dev/null 2>&1; then
  bad "--svg with --ranks is accepted"
else ok; fi
if MPIEXEC=/nonexistent "$crowd" scale --agents 100 --ranks 1,2 --ticks 1 >/dev/null 2>"$tmp/err"; then
  bad "a missing launcher"
elif [ "$(cat "$tmp/err")" = "crowd scale: cannot start mpiexec for 2 ranks" ]; then ok; else bad "a missing launcher: $(cat "$tmp/err")"; fi

echo "dist_cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
