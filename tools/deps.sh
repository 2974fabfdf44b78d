#!/usr/bin/env bash
# Installs the Debian packages crowdstep needs that are missing.
# Usage: tools/deps.sh [build|python|web|test]
set -euo pipefail
need=(gcc g++ make cmake pkg-config libgomp1 libcjson-dev)
# The Python package (python/, tools/python.sh): Debian's python3 with its headers and numpy;
# pytest for its tests and matplotlib for its examples.
python_need=(python3 python3-dev python3-numpy python3-pytest python3-matplotlib)
# The WebAssembly build (tools/web.sh): clang for wasm32-wasi with lld, wasi-libc and the
# compiler runtime for wasm32; nodejs writes the pages' embedded data and runs the hash check.
web_need=(clang lld wasi-libc libclang-rt-dev-wasm32 nodejs)
if [ "${1:-build}" = web ]; then
  need+=("${web_need[@]}")
fi
if [ "${1:-build}" = python ]; then
  need+=("${python_need[@]}")
fi
if [ "${1:-build}" = test ]; then
  # chromium and nodejs: the replay page's browser test; bsdutils: `script`, a terminal for the
  # progress bar test; librecast-dev: the DetourCrowd baseline of the benchmarks; clang's OpenMP
  # runtime (libomp-dev) and libFuzzer (libclang-rt-dev) for the clang and fuzz builds; python3 for
  # the server test's scripted client and the benchmark report; MPICH for the MPI build
  # (-DCROWD_MPI=ON: crowd_dist and its tests under mpiexec).
  need+=(libcriterion-dev libbenchmark-dev clang librecast-dev python3 chromium nodejs bsdutils
         libomp-dev libclang-rt-dev mpich libmpich-dev "${python_need[@]}" "${web_need[@]}")
fi
missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
