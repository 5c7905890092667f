#!/usr/bin/env bash
# Long property-based fuzzing of the list parser, URL rules, JSON reader, file-name rule and
# structural checks, of the native image header readers against ImageMagick's ping, and of every
# image header reader with trap-prone integers (HeaderFuzzTests, 300 s here; CI runs
# the same tests briefly, with a fixed seed).
#   scripts/fuzz.sh                 # 300,000 iterations, random seed (printed)
#   scripts/fuzz.sh 1000000 12345   # iterations, seed (to reproduce a failure)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
iterations=${1:-300000}
seed=${2:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "fuzz: $iterations iterations, seed $seed"
IMGWARM_FUZZ_ITERATIONS=$iterations IMGWARM_FUZZ_SEED=$seed IMGWARM_FUZZ_SECONDS=${IMGWARM_FUZZ_SECONDS:-300} swift test --disable-xctest --filter "PropertyTests|NativeHeaderTests|HeaderFuzzTests"
