#!/usr/bin/env bash
# The test command: runs every stage and reports each, whatever the others did:
#   deps      installs the missing Debian packages (scripts/install-deps.sh)
#   format    checks the formatting (swift format, configured by .swift-format)
#   build     builds imgwarm and its tests
#   tests     runs every unit and integration test (swift test)
#   slurm     a one-node Slurm cluster runs an array job of `imgwarm prefetch --shard auto`, then
#             merge and verify (scripts/test-slurm.sh); skipped, saying why, where the cluster
#             cannot start
#   install   checks scripts/install.sh and the Debian package (scripts/test-install.sh)
# The output ends with each stage's verdict: passed, failed, or skipped with the reason (a stage
# whose prerequisite failed, that a filter leaves out, or that cannot run on this machine; never
# counted as passed), then "stages: N passed, N failed, N skipped" (scripts/stages.sh). A failed
# stage does not stop the others; the script exits 1 when any stage failed, 0 otherwise.
#   scripts/test.sh                 # every stage
#   scripts/test.sh --filter Clean  # extra arguments go to `swift test`; slurm and install are skipped
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
source scripts/stages.sh

stage deps bash scripts/install-deps.sh
swift --version
# Formatting is a habit, not a chore: `swift format -i -r -p Sources Tests Package.swift` fixes it.
stage format swift format lint --strict -r -p Sources Tests Package.swift
stage build swift build --build-tests
if stage_failed build; then
  skip_stage tests "the build failed"
else
  # --disable-xctest: the tests are Swift Testing only; XCTest would print "Executed 0 tests" first.
  stage tests swift test --skip-build --disable-xctest "$@"
fi
# The stages after the tests need the whole run and the build: true when stage NAME may run,
# else it is recorded as skipped, saying why.
runs_after_tests() {
  if [ "$filter" != "" ]; then
    skip_stage "$1" "a filter was given: $filter"
  elif stage_failed build; then
    skip_stage "$1" "the build failed"
  else
    return 0
  fi
  return 1
}
filter="$*"
# The debug build's imgwarm and imgwarm-testserver; exit 77 and its `skipped: REASON` line
# when the cluster cannot start here (not root, no slurmctld, a daemon that fails).
runs_after_tests slurm && stage_or_skip slurm bash scripts/test-slurm.sh
# scripts/install.sh and the .deb, end to end (a release build; skipped parts say why).
runs_after_tests install && stage install bash scripts/test-install.sh
report_stages
