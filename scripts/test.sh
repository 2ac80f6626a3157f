#!/usr/bin/env bash
# test.sh: install what the tests need, build heapprof in build/ and run the
# whole test suite (unit, integration, behaviour, external: bdwgc's gctest
# and w3m). Ends with one line "N passed, N failed" (timeouts count as
# failed) and exits non-zero if anything failed.
#   scripts/test.sh         every suite but 'slow' (what CI runs)
#   scripts/test.sh --all   also the 'slow' suite: ECL under ldv=precise
#                           (tests/external/test_precise.py, about 6 minutes)
#                           and the retainer profile on Inkscape, nix and
#                           GNU poke (tests/external/test_programs.py), which
#                           it installs (install-deps.sh --all)
set -euo pipefail

suites=(--no-suite slow)
deps=--test
if [ "${1:-}" = "--all" ]; then
    suites=()
    deps=--all
elif [ $# -gt 0 ]; then
    echo "usage: scripts/test.sh [--all]" >&2
    exit 2
fi

cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/install-deps.sh "$deps"

if [ -f build/build.ninja ]; then
    meson setup --reconfigure build
else
    meson setup build
fi
if ! meson compile -C build; then
    echo "test.sh: the build failed; no tests were run" >&2
    echo "0 passed, 0 failed"
    exit 1
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
meson test -C build --print-errorlogs --num-processes 2 "${suites[@]}" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e

# meson's summary block: "Ok:  N", "Expected Fail:  N", "Fail:  N", ...
count() {
    local n
    n=$(sed -n "s/^$1:[[:space:]]*\([0-9][0-9]*\)[[:space:]]*$/\1/p" "$log" | tail -n 1)
    echo "${n:-0}"
}
ok=$(count 'Ok')
xfail=$(count 'Expected Fail')
fail=$(count 'Fail')
xpass=$(count 'Unexpected Pass')
timeout=$(count 'Timeout')

passed=$((ok + xfail))
failed=$((fail + xpass + timeout))
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
    echo "test.sh: meson test exited $rc without a failed test in its summary" >&2
fi
echo "$passed passed, $failed failed"
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
