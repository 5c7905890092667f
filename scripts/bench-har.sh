#!/usr/bin/env bash
# Peak memory of reading a big HAR capture as a list (issue 33, item 5): a generated HAR of
# ENTRIES entries, each with a base64 body of MB megabytes, read by `imgwarm prefetch --dry-run` and
# `--offline` (no request is made), against the same run on a one-entry HAR. The peak (imgwarm-peak: the
# process's own ru_maxrss) must not grow with the capture. Not a test; CI never runs it.
#   scripts/bench-har.sh [ENTRIES, default 80] [MB per body, default 3] [build folder, default .build/debug]
set -euo pipefail
cd "$(dirname "$0")/.."
entries=${1:-80}
megabytes=${2:-3}
bin=${3:-.build/debug}
[ -x "$bin/imgwarm" ] && [ -x "$bin/imgwarm-peak" ] || { echo "build imgwarm and imgwarm-peak into $bin first" >&2; exit 1; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
python3 - "$root" "$entries" "$megabytes" <<'PY'
import base64, json, os, sys
root, entries, megabytes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
import struct, zlib
# A valid PNG of random pixels (incompressible): about MB megabytes, so an offline run stores it.
side = int(((megabytes << 20) / 3) ** 0.5)
rows = b"".join(b"\x00" + os.urandom(side * 3) for _ in range(side))
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0))
       + chunk(b"IDAT", zlib.compress(rows, 1)) + chunk(b"IEND", b""))
body = base64.b64encode(png).decode()
def entry(i, text):
    content = {"size": len(png), "mimeType": "image/png"}
    if text: content.update({"text": body, "encoding": "base64"})
    return json.dumps({"startedDateTime": "2024-05-01T10:00:00Z",
        "request": {"method": "GET", "url": "http://127.0.0.1:9/img/%d.png" % i, "headers": []},
        "response": {"status": 200, "headers": [], "content": content, "redirectURL": ""}})
with open(os.path.join(root, "big.har"), "w") as f:
    f.write('{"log": {"version": "1.2", "entries": [' + ",".join(entry(i, True) for i in range(entries)) + "]}}")
with open(os.path.join(root, "small.har"), "w") as f:
    f.write('{"log": {"version": "1.2", "entries": [' + entry(0, False) + "]}}")
PY
# A dry run reads the capture and sniffs each body's first bytes; an offline run decodes every
# body into the run's scratch file, validates and stores it: both must stay flat.
for mode in dry-run offline; do
  for name in small big; do
    size=$(stat -c %s "$root/$name.har")
    rm -rf "$root/cache"
    start=$(date +%s.%N)
    "$bin/imgwarm-peak" "$bin/imgwarm" prefetch --$mode --quiet --disk-cache-path "$root/cache" \
      "$root/$name.har" 3>"$root/peak" 2>/dev/null || true
    end=$(date +%s.%N)
    printf '%-8s %-6s %12d bytes  %6.2f s  peak RSS %8d KiB\n' "$mode" "$name" "$size" "$(echo "$end - $start" | bc)" "$(cat "$root/peak")"
  done
done
