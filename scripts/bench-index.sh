#!/usr/bin/env bash
# The indexed formats at the file system's speed (issue 39): for each format, the first fill of a
# list of N lines from a loopback server, then R hits-only passes (every line cached), against
# `touch -a` of the same files through xargs in the same run (one utimensat a file: the least a
# hit costs). Then a Glide journal of BIG entries (made directly, not downloaded): a hits-only
# pass over it and `touch -a` of its files. Peak memory is imgwarm-peak's (the process's own
# ru_maxrss). Not a test; CI never runs it. scripts/bench.sh runs it (unless --skip-index).
#   scripts/bench-index.sh [--lines N] [--big N] [--runs R] [--formats "sdwebimage glide coil flutter"]
#                          [--bin DIR] [--out DIR]
# --bin DIR holds imgwarm, imgwarm-peak and imgwarm-testserver (default: the release build).
# --big 0 leaves the big journal out. The work folder (--out, default a new one under TMPDIR)
# is on disk, where the journal's fsyncs cost what they cost on a device's flash. On ext4
# without a journal (this machine's root) the inode allocator's scan of recent deletions can
# dominate a fill: --out on a journaled file system (docs/performance.md shows a loop mount).
set -euo pipefail
cd "$(dirname "$0")/.."
lines=100000
big=1000000
runs=3
formats="sdwebimage glide coil flutter"
bin=""
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --lines) lines=$2; shift 2 ;;
    --big) big=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --formats) formats=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
if [ -z "$bin" ]; then
  source scripts/env.sh
  swift build -c release --product imgwarm 2>&1 | tail -n 1
  swift build -c release --product imgwarm-peak 2>&1 | tail -n 1
  swift build -c release --product imgwarm-testserver 2>&1 | tail -n 1
  bin=$(swift build -c release --show-bin-path)
fi
for tool in imgwarm imgwarm-peak imgwarm-testserver; do
  [ -x "$bin/$tool" ] || { echo "no $tool in $bin" >&2; exit 2; }
done
work=${out:-$(mktemp -d "${TMPDIR:-/tmp}/imgwarm-bench-index.XXXXXX")}
mkdir -p "$work"
server_pid=""
trap '[ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# Runs a command; sets $secs (wall seconds) and $peak (KiB, imgwarm-peak's when the command is imgwarm).
timed() {
  local start end
  start=$(date +%s.%N)
  "$@" 3>"$work/peak" >/dev/null 2>"$work/stderr" || { echo "failed: $*" >&2; tail -5 "$work/stderr" >&2; }
  end=$(date +%s.%N)
  secs=$(echo "$end - $start" | bc)
  peak=$(cat "$work/peak" 2>/dev/null || echo 0)
}
imgwarm() { "$bin/imgwarm-peak" "$bin/imgwarm" "$@"; }
# The entry files of a cache folder (not the journal, not imgwarm's private folder).
entry_files() { find "$1" -maxdepth 1 -type f ! -name 'journal*' -print0; }
touch_files() { entry_files "$1" | xargs -0 touch -a; }

# ---- the site: N hard links to one fixture image, served on loopback -----------------------------
site=$work/site
if [ ! -f "$site/.done-$lines" ]; then
  rm -rf "$site"; mkdir -p "$site/img"
  python3 - "$site/img" "$lines" Tests/Fixtures/images/valid/photo.jpg <<'PY'
import os, shutil, sys
folder, count, source = sys.argv[1], int(sys.argv[2]), sys.argv[3]
# A file takes at most 65,000 links on ext4: one copy of the image every 50,000 names.
for i in range(count):
    original = os.path.join(folder, "..", "source-%d.jpg" % (i // 50000))
    if i % 50000 == 0:
        shutil.copyfile(source, original)
    os.link(original, os.path.join(folder, "%d.jpg" % i))
PY
  touch "$site/.done-$lines"
fi
rm -f "$work/port"
"$bin/imgwarm-testserver" --root "$site/img" --port-file "$work/port" 2>"$work/server.log" &
server_pid=$!
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port")
seq 0 $((lines - 1)) | sed "s|^|http://127.0.0.1:$port/img/|; s|\$|.jpg|" > "$work/list.txt"

printf '\n%-12s %12s %10s %14s %12s %10s %12s\n' "$lines lines" "fill s" "fill MB" "hits µs/line" "hits MB" "touch -a" "÷ touch -a"
# $runs hits-only passes of FORMAT over LIST into $cache, each followed by `touch -a` of the same
# files: sets h and t (the medians, seconds) and hits_peak (KiB).
hit_passes() {
  local format=$1 list=$2 hits=() touches=()
  hits_peak=0
  for _ in $(seq 1 "$runs"); do
    sync
    timed imgwarm prefetch --cache-format "$format" --disk-cache-path "$cache" --quiet "$list"
    hits+=("$secs"); [ "$peak" -gt "$hits_peak" ] && hits_peak=$peak
    sync
    timed touch_files "$cache"
    touches+=("$secs")
  done
  h=$(printf '%s\n' "${hits[@]}" | median)
  t=$(printf '%s\n' "${touches[@]}" | median)
}

for format in $formats; do
  cache=$work/cache-$format
  # imgwarm's private folder (the state database) goes too: it outlives the cache folder, and
  # would hold every earlier run's records (SQLite's check at the start reads them all).
  rm -rf "$cache" "$work/.imgwarm/cache-$format" "$work/libCachedImageData.db"
  timed imgwarm prefetch --cache-format "$format" --disk-cache-path "$cache" --quiet "$work/list.txt"
  fill=$secs fill_peak=$peak
  hit_passes "$format" "$work/list.txt"
  printf '%-12s %12.1f %10d %14.1f %12d %10.2f %12.1f\n' "$format" "$fill" $((fill_peak / 1024)) \
    "$(echo "$h * 1000000 / $lines" | bc -l)" $((hits_peak / 1024)) "$t" "$(echo "$h / $t" | bc -l)"
done

# ---- a Glide journal of BIG entries ---------------------------------------------------------------
if [ "$big" -gt 0 ]; then
  cache=$work/big-glide
  rm -rf "$cache" "$work/.imgwarm/big-glide"; mkdir -p "$cache"
  # The keys imgwarm gives the URLs (SHA-256 of the URL), each file one tiny GIF, the journal one
  # CLEAN line an entry.
  seq 0 $((big - 1)) | sed 's|^|http://127.0.0.1:1/big/|; s|$|.gif|' > "$work/big.txt"
  python3 - "$cache" "$work/big.txt" <<'PY'
import hashlib, os, sys
folder, listing = sys.argv[1], sys.argv[2]
gif = bytes.fromhex("47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b")
with open(listing) as urls, open(os.path.join(folder, "journal"), "w") as journal:
    journal.write("libcore.io.DiskLruCache\n1\n1\n1\n\n")
    for url in urls:
        key = hashlib.sha256(url.rstrip("\n").encode()).hexdigest()
        with open(os.path.join(folder, key + ".0"), "wb") as f:
            f.write(gif)
        journal.write("CLEAN %s %d\n" % (key, len(gif)))
PY
  hit_passes glide "$work/big.txt"
  printf '%-12s %12s %10s %14.1f %12d %10.2f %12.1f\n' "glide ${big}" "—" "—" \
    "$(echo "$h * 1000000 / $big" | bc -l)" $((hits_peak / 1024)) "$t" "$(echo "$h / $t" | bc -l)"
  printf '   journal after the passes: %d lines for %d entries\n' "$(wc -l < "$cache/journal")" "$big"
fi
echo "work folder: $work"
