#!/usr/bin/env bash
# Installs what is missing, builds crowdstep (Release) and runs the default demo.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh build
cmake -S . -B build/run -DCMAKE_BUILD_TYPE=Release -DCROWD_BUILD_TESTS=OFF -DCROWD_BUILD_BENCH=OFF >/dev/null
cmake --build build/run -j"$(nproc)" >/dev/null
build/run/crowd demo "$@"
