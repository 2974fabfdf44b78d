#!/usr/bin/env bash
# Runs the benchmark suite and writes its report.
#
#   tools/bench.sh              full run: every scenario, implementation, size and thread count,
#                               median of 5 repetitions; writes bench/RESULTS.md,
#                               bench/results.json and bench/scaling.svg
#   tools/bench.sh --quick      smoke run: 1,000 and 10,000 agents, a tenth of the ticks, 2
#                               repetitions; writes into build/bench/quick/
#
# Options: --repetitions N, --filter REGEX (Google Benchmark filter), --out DIR,
# --sizes N,N,... and --threads T,T,... (passed on as --crowd_sizes / --crowd_threads).
# Run it on a quiet machine: the suite measures wall time.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0 reps=5 filter="" out="" sizes="" threads=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --repetitions) reps=$2; shift ;;
    --filter) filter=$2; shift ;;
    --out) out=$2; shift ;;
    --sizes) sizes=$2; shift ;;
    --threads) threads=$2; shift ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

args=()
if [ "$quick" -eq 1 ]; then
  reps=2
  sizes=${sizes:-1000,10000}
  args+=(--crowd_ticks_scale=0.1)
  out=${out:-build/bench/quick}
fi
out=${out:-bench}
[ -n "$sizes" ] && args+=("--crowd_sizes=$sizes")
[ -n "$threads" ] && args+=("--crowd_threads=$threads")
[ -n "$filter" ] && args+=("--benchmark_filter=$filter")

tools/deps.sh test
cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DCROWD_BUILD_TESTS=OFF -DCROWD_BUILD_TOOLS=OFF >/dev/null
cmake --build build/bench -j"$(nproc)" --target crowd_bench >/dev/null
mkdir -p "$out"

# What the report needs about the machine and the tree, recorded in the JSON's context.
cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//; s/,/;/g')
isa=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' |
      grep -xE 'sse4_2|avx|avx2|fma|avx512f|avx512bw|avx512vl|avx512dq|avx512cd|avx512_vnni|avx512_bf16' |
      paste -sd' ' -)
cores=$(grep -c '^processor' /proc/cpuinfo)
per_core=$(lscpu 2>/dev/null | awk -F: '/Thread\(s\) per core/ {gsub(/ /, "", $2); print $2}')
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git status --porcelain 2>/dev/null | grep -qv '^??' && echo "+changes" || true)
context="cpu_model=${cpu},isa=${isa},logical_cpus=${cores},threads_per_core=${per_core:-?},commit=${commit}${dirty},repetitions=${reps},quick=${quick}"

build/bench/bench/crowd_bench \
  --benchmark_repetitions="$reps" \
  --benchmark_enable_random_interleaving=true \
  --benchmark_report_aggregates_only=true \
  --benchmark_out="$out/results.json" --benchmark_out_format=json \
  --benchmark_context="$context" \
  "${args[@]}"

python3 tools/bench_report.py "$out/results.json" --out "$out/RESULTS.md" --svg "$out/scaling.svg"
echo "wrote $out/RESULTS.md, $out/scaling.svg and $out/results.json"
