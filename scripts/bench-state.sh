#!/usr/bin/env bash
# A run's fixed cost against the state database's history (issue 50): a 1,000-line hits-only
# prefetch whose state database remembers H URLs (default 300,000, about 80 MB) against the same
# run whose database remembers only that cache, interleaved, R rounds (default 5) after a warm-up;
# prints each one's median wall time and their ratio (target: at most 1.5x). Not a test; CI never
# runs it. scripts/bench.sh runs it (skip with --skip-state).
#
#   scripts/bench-state.sh [--imgwarm BINARY] [--history H] [--runs R] [--out DIR]
#
# Without --imgwarm it uses the release build (swift build -c release, as scripts/install.sh).
# The cache is 1,000 copies of one JPEG under SDWebImage's names for keys on 127.0.0.1:1 (nothing
# listens there: a miss would fail the run, and the script says so). The history rows are what
# a prefetch records for a download (scripts/bench-state.sh writes them with Python's sqlite3).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
imgwarm=""
history=300000
runs=5
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --imgwarm) imgwarm=$2; shift 2 ;;
    --history) history=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-state.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$history$runs" in *[!0-9]*) echo "bench-state.sh: --history and --runs take whole numbers" >&2; exit 2 ;; esac
if [ -z "$imgwarm" ]; then
  source scripts/env.sh
  swift build -c release --product imgwarm >/dev/null
  imgwarm=$root/.build/release/imgwarm
fi
work=${out:-$(mktemp -d /tmp/imgwarm-bench-state.XXXXXX)}
mkdir -p "$work"

rm -rf "$work/cache" "$work"/history.sqlite* "$work"/plain.sqlite*
mkdir -p "$work/cache"
seq 1 1000 | sed 's|^|http://127.0.0.1:1/state-bench/|; s|$|.jpg|' > "$work/list.txt"
"$imgwarm" path --disk-cache-path "$work/cache" - < "$work/list.txt" \
  | python3 -c 'import sys, shutil
for line in sys.stdin: shutil.copyfile(sys.argv[1], line.rstrip("\n"))' "$root/Tests/Fixtures/images/valid/photo.jpg"

# Both databases come from a run of imgwarm (its schema); the history is added to one.
for db in history plain; do
  "$imgwarm" prefetch --disk-cache-path "$work/cache" --state "$work/$db.sqlite" --quiet "$work/list.txt" \
    || { echo "bench-state.sh: the hits-only run failed: the cache is not all hits" >&2; exit 1; }
done
python3 - "$work/history.sqlite" "$history" <<'PY'
import sqlite3, sys, hashlib
db = sqlite3.connect(sys.argv[1])
rows = ((f"https://cdn.example.com/history/photo-{i}.jpg?w=640",
         hashlib.md5(str(i).encode()).hexdigest() + ".jpg", 20_000 + i % 5000, "jpeg", 640, 480,
         f'"{i:x}"', None, 1.7e9 + i, 1.7e9 + i) for i in range(int(sys.argv[2])))
db.executemany("INSERT INTO entries(key, file_name, size, format, width, height, etag, last_modified,"
               " fetched_at, validated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
db.commit()
db.close()
PY

python3 - "$imgwarm" "$work" "$runs" <<'PY'
import os, statistics, subprocess, sys, time
imgwarm, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
times = {"history": [], "plain": []}
for round in range(runs + 1):
    for db in ("history", "plain"):
        start = time.perf_counter()
        subprocess.run([imgwarm, "prefetch", "--disk-cache-path", f"{work}/cache", "--state", f"{work}/{db}.sqlite",
                        "--quiet", f"{work}/list.txt"], check=True)
        if round > 0:
            times[db].append(time.perf_counter() - start)
size = os.path.getsize(f"{work}/history.sqlite") / 1e6
h, p = statistics.median(times["history"]), statistics.median(times["plain"])
print(f"state database history: 1,000 hits, {runs} rounds interleaved, medians")
print(f"  with a history ({size:.0f} MB): {h:.4f} s   without: {p:.4f} s   ratio {h / p:.2f}x (target <= 1.5x)")
PY
echo "work folder: $work"
