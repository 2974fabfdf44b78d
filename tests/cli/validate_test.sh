#!/usr/bin/env bash
# crowd validate's command line: help, usage errors, and one quick case writing its report and
# plot. The cases themselves are separate ctest tests (validate_<case>, tests/CMakeLists.txt).
# usage: validate_test.sh CROWD_BINARY
set -u
crowd=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { fail=1; echo "FAIL: $*"; }

out=$("$crowd" validate --help) || bad "validate --help exits non-zero"
[[ "$out" == "usage: crowd validate"* ]] || bad "validate --help: '${out:0:80}'"
"$crowd" validate --list | grep -q '^rimea1 ' || bad "validate --list lacks rimea1"

err=$("$crowd" validate --case nope -o "$tmp/x" 2>&1 >/dev/null)
rc=$?
[ "$rc" -eq 2 ] || bad "--case nope: rc $rc (want 2)"
[ "$err" = "crowd validate: --case: unknown case 'nope' (try crowd validate --list)" ] ||
  bad "--case nope: '$err'"
err=$("$crowd" validate --bogus 2>&1 >/dev/null)
[ $? -eq 2 ] && [ "$err" = "crowd validate: unknown option '--bogus' (try crowd validate --help)" ] ||
  bad "--bogus: '$err'"

# A passing case: exit 0, its line, a report with its table row and an SVG plot; the output
# directory is created with its parents.
out=$("$crowd" validate --case rimea1 -o "$tmp/a/b") || bad "rimea1: non-zero exit"
grep -q '^PASS rimea1 ' <<<"$out" || bad "rimea1: no PASS line in '$out'"
grep -q '^| \[rimea1\](#rimea1) | .* | PASS |$' "$tmp/a/b/report.md" || bad "rimea1: no table row"
grep -q '^## Out of scope' "$tmp/a/b/report.md" || bad "report lacks the out-of-scope section"
head -c 200 "$tmp/a/b/rimea1.svg" | grep -q '<svg' || bad "rimea1.svg is not an SVG"

# An unwritable output: exit 1 with one line.
touch "$tmp/file"
err=$("$crowd" validate --case rimea1 -o "$tmp/file/sub" 2>&1 >/dev/null)
[ $? -eq 1 ] && [[ "$err" == "crowd validate: $tmp/file/sub: cannot create the directory"* ]] ||
  bad "unwritable output: '$err'"

[ $fail -eq 0 ] && echo "validate command line: ok"
exit $fail
