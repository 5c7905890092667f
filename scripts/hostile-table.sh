#!/usr/bin/env bash
# The hostile table of docs/hardening.md: peak RSS of one `imgwarm prefetch` per body, in header
# and full validation, and how each ended. The bodies are the hostile fixtures plus large images
# made here (needs python3 and Debian's ImageMagick, `apt-get install imagemagick`); they are
# served by python3's http.server on 127.0.0.1.
#   scripts/hostile-table.sh                      # the binary of `swift build -c release`
#   IMGWARM=/path/to/imgwarm scripts/hostile-table.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
if [ -z "${IMGWARM:-}" ]; then
  swift build -c release --product imgwarm >/dev/null
  IMGWARM=$(swift build -c release --show-bin-path)/imgwarm
fi
C=/usr/bin/convert-im6.q16
[ -x "$C" ] || { echo "hostile-table: needs Debian's ImageMagick (apt-get install imagemagick)" >&2; exit 1; }
work=$(mktemp -d)
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
mkdir "$work/www"
cp Tests/Fixtures/images/hostile/{ztxt-bomb.png,lossless-10k.webp,huge-frame.jpg} Tests/Fixtures/images/valid/photo.jpg "$work/www/"
$C -seed 4 -size 4000x3000 plasma:fractal -quality 90 "$work/www/photo-12mp.jpg"
$C -size 6000x5000 gradient:red-blue -interlace JPEG -quality 90 "$work/www/progressive-30mp.jpg"
$C -size 10000x10000 gradient:red-blue -quality 90 "$work/www/photo-100mp.jpg"
python3 - "$work/www/white-100mp.png" <<'PY'
import struct, sys, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
w = h = 10000
co = zlib.compressobj(9)
rows = b"".join(co.compress(b"\x00" + b"\xff" * (3 * w)) for _ in range(h)) + co.flush()
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    + chunk(b"IDAT", rows) + chunk(b"IEND", b""))
PY
port=$((20000 + RANDOM % 20000))
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$work/www" >/dev/null 2>&1 &
server=$!
for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$port/photo.jpg" && break; sleep 0.1; done
printf '| body | size | mode | peak RSS | outcome |\n|---|---|---|---|---|\n'
for name in photo.jpg photo-12mp.jpg progressive-30mp.jpg photo-100mp.jpg huge-frame.jpg white-100mp.png ztxt-bomb.png lossless-10k.webp; do
  size=$(stat -c %s "$work/www/$name")
  for mode in header full; do
    run="$work/run-$name-$mode"
    mkdir "$run"
    status=0
    /usr/bin/time -f %M -o "$run/time" "$IMGWARM" prefetch --disk-cache-path "$run/cache" --state "$run/state.sqlite" \
      --quiet --validate "$mode" --report "$run/report.json" - <<<"http://127.0.0.1:$port/$name" >/dev/null 2>&1 || status=$?
    peak=$(( $(tail -1 "$run/time") / 1024 ))
    outcome=$(python3 -c "import json,sys
try:
    e = json.load(open(sys.argv[1]))['entries'][0]
    print(e['outcome'] + (' (' + e['errorClass'] + ')' if e.get('errorClass') else ''))
except Exception:
    print('no report, exit $status')" "$run/report.json")
    printf '| %s | %s | %s | %s MB | %s |\n' "$name" "$(numfmt --to=iec "$size")" "$mode" "$peak" "$outcome"
  done
done
