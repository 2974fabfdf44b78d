#!/usr/bin/env bash
# Installs what is missing, builds crowdstep and runs every test:
#  1. the Criterion suite on the Release build tuned for this CPU (gcc);
#  2. the same suite under AddressSanitizer + UndefinedBehaviorSanitizer;
#  3. a clang build (warnings as errors) of the library, tools, tests and benchmarks;
#  4. determinism: state hashes equal across thread counts and between the -march=native and the
#     portable x86-64 builds, for the built-in scenes and for a scenario file.
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

echo "== Release (gcc, native)"
build build/release -DCMAKE_BUILD_TYPE=Release
ctest --test-dir build/release --output-on-failure

echo "== ASan + UBSan"
build build/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCROWD_SANITIZE=ON -DCROWD_BUILD_BENCH=OFF
ASAN_OPTIONS=detect_leaks=1 CROWD_TEST_SCALE=small ctest --test-dir build/asan --output-on-failure

echo "== clang"
build build/clang -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++

echo "== portable x86-64 build"
build build/portable -DCMAKE_BUILD_TYPE=Release -DCROWD_NATIVE=OFF -DCROWD_BUILD_TESTS=OFF -DCROWD_BUILD_BENCH=OFF

echo "== determinism across builds and thread counts"
export OMP_WAIT_POLICY=passive # 8 threads on a small machine: idle threads must not spin
fail=0
for scene in separation crossing mixed queue waypoints tube groups plaza; do
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
# The same through a scenario file and `crowd run --hash`.
ref=""
for bin in build/release/crowd build/portable/crowd; do
  for t in 1 2 3 8; do
    h=$("$bin" run tools/scenarios/crossing.json --ticks 200 --threads "$t" --hash | grep '^state-hash:')
    [ -z "$ref" ] && ref=$h
    if [ "$h" != "$ref" ]; then
      echo "MISMATCH crossing.json $bin threads=$t: $h (expected $ref)"; fail=1
    fi
  done
done
echo "crossing.json: $ref (native and portable, 1/2/3/8 threads)"
[ "$fail" -eq 0 ] || { echo "determinism: 0 passed, 1 failed"; exit 1; }
echo "determinism: 1 passed, 0 failed"
