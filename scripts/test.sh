#!/usr/bin/env bash
# The test command: installs the missing Debian packages, builds imgwarm and runs every test,
# then checks scripts/install.sh and the Debian package (scripts/test-install.sh).
#   scripts/test.sh                 # all tests
#   scripts/test.sh --filter Clean  # extra arguments go to `swift test`
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

bash scripts/install-deps.sh
swift --version
swift build
swift test "$@"
# scripts/install.sh and the .deb, end to end (a release build; skipped parts say why).
if [ $# -eq 0 ]; then bash scripts/test-install.sh; fi
