#!/usr/bin/env bash
# What the test suite costs, by two measures a busy machine does not change: the share of tests
# that start the imgwarm binary, and the CPU time (user + system) of `swift test`, the processes
# it starts included. Issue 49's proxies for "the suite runs in half the time".
#   scripts/test-cost.sh                # the suite as it runs: the engine in-process
#   scripts/test-cost.sh --binary-only  # every command line as the binary (how it ran before)
#   scripts/test-cost.sh --filter X     # only the tests X selects (after any --binary-only)
# Builds nothing: run `swift build --build-tests` first.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

if [ "${1:-}" = "--binary-only" ]; then
  export IMGWARM_TESTS_BINARY_ONLY=1
  shift
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export IMGWARM_TESTS_BINARY_STARTS="$work/starts"
: >"$IMGWARM_TESTS_BINARY_STARTS"

status=0
/usr/bin/time -f "%U %S %e" -o "$work/time" \
  swift test --skip-build --disable-xctest "$@" >"$work/log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  grep -E "✘|failed" "$work/log" | tail -20 >&2 || true
  echo "test-cost: the tests failed (exit $status); the numbers below count them anyway" >&2
fi

# "Test run with 845 tests in 185 suites passed after 425.1 seconds." (or "failed")
total=$(sed -nE 's/.*Test run with ([0-9]+) tests? in .*/\1/p' "$work/log" | tail -1)
starting=$(sort -u "$IMGWARM_TESTS_BINARY_STARTS" | grep -vc '^(outside a test)$' || true)
# GNU time writes "Command exited with non-zero status N" first when the tests failed.
read -r user system wall < <(tail -1 "$work/time")
awk -v s="$starting" -v t="${total:-0}" -v u="$user" -v y="$system" -v w="$wall" 'BEGIN {
  printf "tests starting the binary: %d of %d (%.1f %%)\n", s, t, t ? 100 * s / t : 0
  printf "CPU time: %.1f s (user %.1f s, system %.1f s); wall %.1f s\n", u + y, u, y, w
}'
exit "$status"
