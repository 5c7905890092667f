#!/usr/bin/env bash
# The test command: installs the missing Debian packages, checks the formatting (swift format,
# configured by .swift-format), builds imgwarm and runs every test, then checks
# scripts/install.sh and the Debian package (scripts/test-install.sh).
#   scripts/test.sh                 # all tests
#   scripts/test.sh --filter Clean  # extra arguments go to `swift test`
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

bash scripts/install-deps.sh
swift --version
# Formatting is a habit, not a chore: `swift format -i -r -p Sources Tests Package.swift` fixes it.
swift format lint --strict -r -p Sources Tests Package.swift
swift build
# --disable-xctest: the tests are Swift Testing only; XCTest would print "Executed 0 tests" first.
swift test --disable-xctest "$@"
# scripts/install.sh and the .deb, end to end (a release build; skipped parts say why).
if [ $# -eq 0 ]; then bash scripts/test-install.sh; fi
