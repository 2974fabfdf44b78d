#!/usr/bin/env bash
# Installs the build into a temporary prefix and builds a consumer against it through pkg-config
# and through find_package (shared and static), then checks that the shared library exports
# exactly the functions the headers declare with CROWD_API.
# Usage: check_install.sh BUILD_DIR CONSUMER_DIR LIBDIR C_COMPILER
set -euo pipefail
build=$1 consumer=$2 libdir=$3 cc=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
pass=0 fail=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; fail=$((fail + 1)); }

cmake --install "$build" --prefix "$prefix" >/dev/null
for f in include/crowd/crowd.h include/crowd/snapshot.h "$libdir/libcrowd.a" "$libdir/libcrowd.so" \
         "$libdir/pkgconfig/crowdstep.pc" "$libdir/cmake/crowdstep/crowdstepConfig.cmake"; do
  [ -e "$prefix/$f" ] && ok "installed $f" || bad "missing $f"
done

# Exported symbols == CROWD_API declarations.
nm -D --defined-only "$prefix/$libdir/libcrowd.so" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sort >"$tmp/exported"
sed -n 's/^CROWD_API .*[ *]\(crowd_[a-z0-9_]*\)(.*/\1/p' "$prefix"/include/crowd/*.h | sort >"$tmp/declared"
if [ -s "$tmp/declared" ] && diff -u "$tmp/declared" "$tmp/exported"; then
  ok "libcrowd.so exports exactly the $(wc -l <"$tmp/declared") CROWD_API functions"
else
  bad "exported symbols differ from the CROWD_API declarations (- declared, + exported)"
fi

# pkg-config, shared library.
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
# shellcheck disable=SC2046
"$cc" -std=c17 -Wall -Werror "$consumer/consumer/main.c" -o "$tmp/consumer_pc" \
  $(pkg-config --cflags --libs crowdstep) -Wl,-rpath,"$prefix/$libdir"
out_pc=$("$tmp/consumer_pc") && ok "pkg-config consumer runs: $out_pc" || bad "pkg-config consumer"

# find_package, both libraries.
cmake -S "$consumer/consumer" -B "$tmp/cbuild" -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/cbuild" >/dev/null
out_shared=$("$tmp/cbuild/consumer_shared") && ok "find_package consumer (crowdstep::crowd) runs" \
  || bad "find_package shared consumer"
out_static=$("$tmp/cbuild/consumer_static") && ok "find_package consumer (crowdstep::crowd_static) runs" \
  || bad "find_package static consumer"
readelf -d "$tmp/cbuild/consumer_shared" | grep -q 'NEEDED.*libcrowd\.so' \
  && ok "crowdstep::crowd links the shared library" || bad "crowdstep::crowd is not the shared library"
readelf -d "$tmp/cbuild/consumer_static" | grep -q 'NEEDED.*libcrowd' \
  && bad "crowdstep::crowd_static links libcrowd.so" || ok "crowdstep::crowd_static is linked in"
[ -n "$out_pc" ] && [ "$out_pc" = "$out_shared" ] && [ "$out_pc" = "$out_static" ] \
  && ok "all three consumers agree" || bad "consumers disagree: '$out_pc' '$out_shared' '$out_static'"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
