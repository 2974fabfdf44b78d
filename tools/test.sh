#!/usr/bin/env bash
# Installs what is missing, builds crowdstep and runs every test:
#  1. the Criterion suite on the Release build tuned for this CPU (gcc);
#  2. the same suite under AddressSanitizer + UndefinedBehaviorSanitizer;
#  3. a clang build (warnings as errors) of the library, tools, tests and benchmarks, and the
#     suite on it;
#  4. a bounded libFuzzer run of every fuzz target (clang, ASan + UBSan), seeded from real data;
#  5. determinism: state hashes equal across thread counts and between the -march=native and the
#     portable x86-64 builds, for the built-in scenes (the walled town among them) and for four
#     scenario files (three with walls, two of them routed);
#  6. the MPI build (-DCROWD_MPI=ON): a world split across 1, 2, 3, 4 and 7 ranks (7 more than
#     this machine's cores) gives the one-process state hash for every scene it supports, with
#     churn, also with the split cut before every step (bisection and strips) and with a
#     neighbor cap, and the split world's cases (tests/dist/).
#  7. (after 1) the Python package's pytest suite (python/tests) on the Release build's module:
#     the API against `crowd run --hash`, errors, column views, worlds and threads, the examples.
#  8. (after 5) the WebAssembly build (tools/web.sh): the state hashes of every built-in scene and
#     scenario file under node and in headless Chromium equal the native ones, and the demo pages
#     load, step, take scripted clicks and drags and play (tests/browser/web_test.sh).
# The suites include the crowd command's tests: the command line (tests/cli) and its HTML replay in
# headless Chromium (tests/browser).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh test
jobs=$(nproc)

build() { # dir, cmake args...
  local dir=$1; shift
  cmake -S . -B "$dir" "$@" >/dev/null
  cmake --build "$dir" -j"$jobs" >/dev/null
}

# The Python package is built against Debian's python3 and numpy (tools/deps.sh).
python=(-DCROWD_BUILD_PYTHON=ON -DPython3_EXECUTABLE=/usr/bin/python3)

echo "== Release (gcc, native)"
build build/release -DCMAKE_BUILD_TYPE=Release -DCROWD_BUILD_TESTS=ON -DCROWD_BUILD_BENCH=ON -DCROWD_BUILD_TOOLS=ON "${python[@]}"
ctest --test-dir build/release --output-on-failure

echo "== Python package (pytest)"
PYTHONPATH=build/release/python CROWD_BIN=build/release/crowd OMP_WAIT_POLICY=passive \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider python/tests

echo "== ASan + UBSan"
build build/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCROWD_SANITIZE=ON -DCROWD_BUILD_BENCH=OFF
ASAN_OPTIONS=detect_leaks=1 CROWD_TEST_SCALE=small ctest --test-dir build/asan --output-on-failure

echo "== clang"
build build/clang -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ "${python[@]}"
ctest --test-dir build/clang --output-on-failure

echo "== fuzzing (bounded)"
# Each target runs for FUZZ_SECONDS (default 20) or FUZZ_RUNS executions, whichever ends first,
# on a corpus kept in the build tree between runs. A crash fails the test command; its input is
# written to build/fuzz/artifacts/ and belongs, once fixed, in tests/fuzz/regressions/<target>/.
cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_COMPILER=clang++ -DCROWD_FUZZ=ON -DCROWD_BUILD_BENCH=OFF -DCROWD_BUILD_TOOLS=OFF >/dev/null
fuzz_targets=(snapshot scenario recording) # one per crowd_fuzz_target() in tests/fuzz/CMakeLists.txt
cmake --build build/fuzz -j"$jobs" --target "${fuzz_targets[@]/#/fuzz_}" fuzz_snapshot_seeds \
  fuzz_recording_seeds >/dev/null
mkdir -p build/fuzz/artifacts build/fuzz/seeds/{snapshot,scenario,recording}
build/fuzz/tests/fuzz/fuzz_snapshot_seeds build/fuzz/seeds/snapshot
cp tools/scenarios/*.json tests/fuzz/seeds/scenario/*.json build/fuzz/seeds/scenario/
build/fuzz/tests/fuzz/fuzz_recording_seeds build/fuzz/seeds/recording tools/scenarios/*.json
for target in "${fuzz_targets[@]}"; do
  mkdir -p build/fuzz/corpus/$target build/fuzz/seeds/$target
  kept=tests/fuzz/regressions/$target
  [ -d "$kept" ] || kept=""
  log=build/fuzz/artifacts/$target.log
  if ! build/fuzz/tests/fuzz/fuzz_$target -max_total_time="${FUZZ_SECONDS:-20}" \
      -runs="${FUZZ_RUNS:-500000}" -timeout=10 -max_len=65536 -print_final_stats=1 \
      -artifact_prefix=build/fuzz/artifacts/ build/fuzz/corpus/$target build/fuzz/seeds/$target \
      $kept >"$log" 2>&1; then
    tail -40 "$log"; echo "fuzz $target: crash (input in build/fuzz/artifacts/)"; exit 1
  fi
  echo "fuzz $target: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$log"), no crash"
done

echo "== portable x86-64 build"
build build/portable -DCMAKE_BUILD_TYPE=Release -DCROWD_NATIVE=OFF -DCROWD_BUILD_TESTS=OFF -DCROWD_BUILD_BENCH=OFF

echo "== determinism across builds and thread counts"
export OMP_WAIT_POLICY=passive # 8 threads on a small machine: idle threads must not spin
fail=0
for scene in separation crossing mixed queue waypoints tube groups plaza town; do
  ref=""
  for bin in build/release/crowd build/portable/crowd; do
    for t in 1 2 3 8; do
      h=$("$bin" hash --scene "$scene" --agents 20000 --ticks 300 --threads "$t" --churn)
      [ -z "$ref" ] && ref=$h
      if [ "$h" != "$ref" ]; then
        echo "MISMATCH $scene $bin threads=$t: $h (expected $ref)"; fail=1
      fi
    done
  done
  echo "$scene: $ref (native and portable, 1/2/3/8 threads)"
done
# The neighbor cap's pass (scalar, per agent) on a dense scene with every behavior.
ref=""
for bin in build/release/crowd build/portable/crowd; do
  for t in 1 2 3 8; do
    h=$("$bin" hash --scene plaza --agents 20000 --ticks 100 --threads "$t" --churn --max-neighbors 6)
    [ -z "$ref" ] && ref=$h
    if [ "$h" != "$ref" ]; then
      echo "MISMATCH plaza --max-neighbors 6 $bin threads=$t: $h (expected $ref)"; fail=1
    fi
  done
done
echo "plaza, neighbor cap 6: $ref (native and portable, 1/2/3/8 threads)"
# The same through scenario files (walls; routed goals to an exit set; routed waypoint legs) and
# `crowd run --hash`.
for file in crossing shop building town-patrol; do
  ref=""
  for bin in build/release/crowd build/portable/crowd; do
    for t in 1 2 3 8; do
      h=$("$bin" run tools/scenarios/$file.json --ticks 200 --threads "$t" --hash | grep '^state-hash:')
      [ -z "$ref" ] && ref=$h
      if [ "$h" != "$ref" ]; then
        echo "MISMATCH $file.json $bin threads=$t: $h (expected $ref)"; fail=1
      fi
    done
  done
  echo "$file.json: $ref (native and portable, 1/2/3/8 threads)"
done
[ "$fail" -eq 0 ] || { echo "determinism: 0 passed, 1 failed"; exit 1; }
echo "determinism: 1 passed, 0 failed"

echo "== WebAssembly build and its pages (node, headless Chromium)"
tools/web.sh build/web >/dev/null
bash tests/browser/web_test.sh build/release/crowd build/web

echo "== MPI build: one world on 1, 2, 3, 4 and 7 ranks"
build build/mpi -DCMAKE_BUILD_TYPE=Release -DCROWD_MPI=ON -DCROWD_BUILD_BENCH=OFF
ctest --test-dir build/mpi --output-on-failure -R '^dist_'
# `crowd hash` under mpiexec against the plain build's one process, with churn (in the town, walls
# too); 7 ranks oversubscribe this machine.
fail=0
for scene in separation crossing mixed queue waypoints tube groups plaza town; do
  churn=--churn
  ref=$(build/release/crowd hash --scene "$scene" --agents 5000 --ticks 100 --threads 1 $churn)
  for k in 1 2 3 4 7; do
    for t in 1 2; do
      [ "$t" = 2 ] && [ "$k" -gt 3 ] && continue
      h=$(mpiexec -n "$k" build/mpi/crowd hash --scene "$scene" --agents 5000 --ticks 100 --threads "$t" $churn)
      if [ "$h" != "$ref" ]; then
        echo "MISMATCH $scene ranks=$k threads=$t: $h (expected $ref)"; fail=1
      fi
    done
  done
  echo "$scene: $ref (1 process; 1/2/3/4/7 ranks x 1 thread, 1/2/3 ranks x 2 threads)"
done
[ "$fail" -eq 0 ] || { echo "rank counts: 0 passed, 1 failed"; exit 1; }
echo "rank counts: 1 passed, 0 failed"
