#!/usr/bin/env bash
# Times `imgwarm clean` on a cache of N small files against `find -printf | sort`, with peak RSS
# (GNU time's "Maximum resident set size"). Not a test; CI never runs it.
#   scripts/bench-clean.sh [N files, default 1000000] [imgwarm binary, default the release build]
# The cache is made on /dev/shm (tmpfs) and removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
count=${1:-1000000}
imgwarm=${2:-}
if [ -z "$imgwarm" ]; then
  # Built as scripts/install.sh builds it (see scripts/bench.sh).
  swift build -c release --static-swift-stdlib --disable-local-rpath -Xlinker -z -Xlinker now \
    --product imgwarm 2>&1 | tail -n 1
  imgwarm="$(swift build -c release --show-bin-path)/imgwarm"
fi
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time)" >&2; exit 1; }
root=$(mktemp -d /dev/shm/imgwarm-bench-clean.XXXXXX)
trap 'rm -rf "$root"' EXIT
cache="$root/cache"

make_cache() {
  rm -rf "$cache"; mkdir -p "$cache"
  python3 - "$cache" "$count" <<'PY'
import os, sys
folder, count = sys.argv[1], int(sys.argv[2])
base = 1_700_000_000
for i in range(count):
    path = os.path.join(folder, "%032x.jpg" % (i * 2654435761 % (1 << 128)))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, b"\xff" * (100 + (i * 37) % 3000))
    os.close(fd)
    t = base + (i * 7919) % count
    os.utime(path, (t, t))
PY
}

declare -A wall rss
measure() {
  local name=$1; shift
  /usr/bin/time -f '%e %M' -o "$root/time" "$@" > /dev/null
  read -r wall["$name"] rss["$name"] < "$root/time"
}

echo "== making $count files in $cache"
make_cache
# One byte below the allocated size: the trim goes to below half of it, about half the files.
total=$(find "$cache" -maxdepth 1 -type f -printf '%b\n' | awk '{s += $1 * 512} END {printf "%.0f", s}')
max=$(( total - 1 ))
measure "find | sort (scan only)" sh -c "find '$cache' -maxdepth 1 -type f -printf '%A@ %b %p\n' | sort -n"
measure "imgwarm clean --dry-run" "$imgwarm" clean --disk-cache-path "$cache" --max-age never --max-size "$max" --dry-run --quiet
trimmed=$("$imgwarm" clean --disk-cache-path "$cache" --max-age never --max-size "$max" --dry-run --quiet --report - \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["totals"]["removedFiles"])')
measure "imgwarm clean --dry-run --report" "$imgwarm" clean --disk-cache-path "$cache" --max-age never --max-size "$max" --dry-run --quiet --report "$root/report.json"
measure "imgwarm clean (trim)" "$imgwarm" clean --disk-cache-path "$cache" --max-age never --max-size "$max" --quiet
left=$(find "$cache" -maxdepth 1 -type f | wc -l)
make_cache
measure "find|sort|rm (trim)" sh -c "find '$cache' -maxdepth 1 -type f -printf '%A@ %p\n' | sort -n | head -n $trimmed | cut -d' ' -f2 | xargs rm -f"
printf '\n%-36s %9s %10s\n' "clean, $count files ($trimmed trimmed, $left left)" "wall s" "peak RSS"
for name in "find | sort (scan only)" "imgwarm clean --dry-run" "imgwarm clean --dry-run --report" "imgwarm clean (trim)" "find|sort|rm (trim)"; do
  printf '%-36s %9s %8d MB\n' "$name" "${wall[$name]}" $(( ${rss[$name]} / 1024 ))
done
