#!/usr/bin/env bash
# Builds the browser pages into build/web/ (issue 38): the library, the built-in scenes and the
# scenario loader compiled to WebAssembly from the same sources (Debian's clang for wasm32-wasi,
# wasi-libc, lld; single-threaded, OpenMP off), and the static pages around it. Serve the folder
# with any static server (python3 -m http.server -d build/web) or open build/web/index.html from
# the disk: the .wasm and the scenario files are also embedded in a script so file:// works.
# Usage: tools/web.sh [OUT_DIR]   (default build/web)
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh web
out=${1:-build/web}
obj=$out-obj # objects beside the folder, which holds only what is served
rm -rf "$obj"
mkdir -p "$obj/include/cjson" "$out"
# cJSON: Debian's header; the calls the scenario loader makes are in tools/web/cjson_subset.c.
cp /usr/include/cjson/cJSON.h "$obj/include/cjson/"

# The same determinism flags as the native build (CMakeLists.txt, CROWD_FP_FLAGS).
cflags=(--target=wasm32-wasi -std=c17 -O2 -msimd128 -fopenmp-simd
        -ffp-contract=off -fno-math-errno -fno-trapping-math -Wall -Wextra -Werror
        -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc -Itools/scenes -Itools/crowd
        -Itools/web/include -I"$obj/include")
sources=$(find src -name '*.c' -not -path 'src/dist/*' | sort)
sources+=" tools/scenes/scenes.c tools/scenes/groups.c tools/scenes/behaviors.c tools/scenes/town.c"
sources+=" tools/scenes/churn.c"
for f in build_behaviors json_index placement scenario_build scenario_fields scenario_obstacles \
         scenario_parse; do
  sources+=" tools/crowd/$f.c"
done
sources+=" $(ls tools/web/*.c | tr '\n' ' ')"
export obj
printf '%s\n' $sources | xargs -P2 -I{} sh -c \
  'o="$obj/$(echo {} | tr / _).o"; clang '"${cflags[*]}"' -c {} -o "$o"'
# A reactor: no main; the page calls _initialize, then the exported functions.
clang --target=wasm32-wasi -mexec-model=reactor -O2 -Wl,-z,stack-size=4194304 -Wl,--strip-all \
  "$obj"/*.o -o "$out/crowd.wasm"

# The pages, and two scripts that embed the .wasm and the scenario files for file://.
cp tools/web/pages/* "$out/"
node tools/web/embed.mjs "$out/crowd.wasm" tools/scenarios "$out/crowd_data.js"
echo "built $out: crowd.wasm $(stat -c %s "$out/crowd.wasm") bytes"
