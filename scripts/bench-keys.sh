#!/usr/bin/env bash
# `imgwarm keys detect` on COUNT URLs (six query parameters each) against an SDWebImage folder of
# COUNT entries made under `--key-filter drop-params:token,expires` (5 % of them under unrelated
# keys): wall time, CPU time and peak RSS (imgwarm-peak). docs/performance.md quotes it.
# Usage: scripts/bench-keys.sh [COUNT] [BIN]   (COUNT 100000, BIN .build/debug by default)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-100000}
bin=${2:-.build/debug}
[ -x "$bin/imgwarm" ] && [ -x "$bin/imgwarm-peak" ] || { echo "build imgwarm and imgwarm-peak into $bin first" >&2; exit 1; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
python3 - "$root" "$count" <<'PY'
import hashlib, os, sys
root, count = sys.argv[1], int(sys.argv[2])
cache = os.path.join(root, "cache")
os.mkdir(cache)
with open(os.path.join(root, "list.txt"), "w") as f:
    for i in range(count):
        base = "https://cdn.example.com/p/%d.jpg" % i
        f.write(base + "?w=640&h=480&token=t%d&expires=%d&sig=s%d&v=2\n" % (i, 1700000000 + i, i))
        key = base + "?w=640&h=480&sig=s%d&v=2" % i if i % 20 else "https://other.example.com/%d.jpg" % i
        open(os.path.join(cache, hashlib.md5(key.encode()).hexdigest() + ".jpg"), "w").close()
PY
# Wall time and the CPU time of the run (user + system): on a shared machine the second is the
# steadier figure.
TIMEFORMAT='%R %U %S'
{ time "$bin/imgwarm-peak" "$bin/imgwarm" keys detect --disk-cache-path "$root/cache" "$root/list.txt" \
  3>"$root/peak" >"$root/out" || true; } 2>"$root/time"
head -1 "$root/out"
read -r real user sys <"$root/time"
printf '%d URLs x %d entries  %6.2f s (CPU %6.2f s)  peak RSS %8d KiB\n' "$count" "$count" "$real" \
  "$(echo "$user + $sys" | bc)" "$(cat "$root/peak")"
