#!/usr/bin/env bash
# The main job on an embedded default: installs what is missing, builds imgwarm in release mode,
# serves the bundled sample images on a loopback port, prefetches sample-lists/demo.txt into a
# temporary cache, and shows the summary, the report and `imgwarm stats`.
#   scripts/demo.sh            # keeps the temporary cache and prints where it is
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

bash scripts/install-deps.sh >/dev/null
echo "== building imgwarm (release)"
swift build -c release --product imgwarm 2>&1 | tail -n 1
swift build -c release --product imgwarm-testserver 2>&1 | tail -n 1
bin=$(swift build -c release --show-bin-path)

work=$(mktemp -d "${TMPDIR:-/tmp}/imgwarm-demo.XXXXXX")
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT

echo "== serving Tests/Fixtures/images on 127.0.0.1"
"$bin/imgwarm-testserver" --fixtures Tests/Fixtures/images --port-file "$work/port" 2>/dev/null &
server_pid=$!
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.05; done
[ -s "$work/port" ] || { echo "the demo server did not start" >&2; exit 1; }
port=$(cat "$work/port")
sed "s/127\.0\.0\.1:8080/127.0.0.1:$port/g" sample-lists/demo.txt > "$work/demo.txt"

echo "== imgwarm prefetch $work/demo.txt"
status=0
"$bin/imgwarm" prefetch --cache-dir "$work/caches" --report "$work/report.json" "$work/demo.txt" || status=$?
echo "   exit code $status (1: some URLs failed or were invalid, as the demo list intends)"
echo "   report: $work/report.json"

echo "== imgwarm stats"
"$bin/imgwarm" stats --cache-dir "$work/caches"

echo "== a second run: every image is a cache hit, no request"
"$bin/imgwarm" prefetch --cache-dir "$work/caches" "$work/demo.txt" 2>&1 | tail -n 1 || true
echo "== the cache stays in $work (remove it with: rm -rf $work)"
