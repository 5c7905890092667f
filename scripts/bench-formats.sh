#!/usr/bin/env bash
# Several formats in one prefetch (issue 54): what one run that stores every URL into several
# formats' folders costs, against one format and against one run per format. Not a test; CI
# never runs it.
#
#   scripts/bench-formats.sh [--files N] [--runs R] [--rtt MS] [--only rtt|loopback]
#                            [--formats LIST] [--protocol h2|http1] [--imgwarm BINARY] [--out DIR]
#
# Two parts, each two commands A and B timed in turn, interleaved (A B, then B A, A B, ...: R
# rounds, default 5, after a warm-up round that is not counted), every run into a new, empty
# caches root (--cache-dir; each format's folder is where its library keeps it under the root),
# the dirty pages of the runs before written out (sync) first, the ratio A/B taken pair by pair:
#
#   rtt       nginx in a network namespace behind a link that adds MS milliseconds of round trip
#             (--rtt, default 40; scripts/bench-net/netns.sh, needs root), N files (default 2000):
#             A  imgwarm prefetch --cache-format LIST        (default sdwebimage,glide,flutter)
#             B  imgwarm prefetch --cache-format FIRST       (the list's first format alone)
#             goal: A's wall time at most 1.3x B's (the median of the pairs' ratios)
#   loopback  nginx on 127.0.0.1, N files (default 10000):
#             A  imgwarm prefetch --cache-format LIST        (one run)
#             B  imgwarm prefetch --cache-format F, for each F of LIST in turn, each into a new
#                root of its own (B's wall time is theirs together, one after the other)
#             goal: A faster than B (the median of the pairs' ratios below 1)
#
# Both parts run unless --only names one. imgwarm runs with its defaults (parallelism auto) over
# HTTPS and HTTP/2 (--protocol http1: plain HTTP/1.1), --quiet, and its state in each root (the
# default place). The same deterministic image corpus and server set-up as scripts/bench.sh
# (scripts/bench-net/common.sh): files under .bench/, generated once. After each part, the last
# round's caches are checked with `imgwarm verify` (every key a hit in every format), and one more
# run of A counts the requests the server answered: one a URL, whatever the number of formats.
#
# Prints, for each part, a markdown table for docs/performance.md: wall time min, median and max,
# CPU time (user + system) and peak memory (the largest process) medians, the pairs' ratios, and
# the verdict against the goal. --imgwarm BINARY times that binary instead of building one as
# scripts/install.sh does; --out DIR keeps the work folder there (default a new one under TMPDIR):
# every run's caches stay until the part ends (a new folder a run: deleting and recreating files
# in one place measures the file system's history, see scripts/bench.sh), about
# (R + 1) x 2 x formats x N x 27 KB for the loopback part (9.6 GB at the defaults), and the
# script says if that does not fit. A signal (Ctrl-C) stops the run under way, the server and the
# link. Until prefetch takes several formats, --formats with one format (A and B are then the
# same command) checks the plumbing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bench=$root/.bench
export LC_ALL=C   # a decimal point in $EPOCHREALTIME and awk's figures
# shellcheck source=scripts/bench-net/common.sh
source scripts/bench-net/common.sh   # the corpus, the site, the server and the link (bench.sh's too)

files=""
runs=5
rtt=40
only=""
formats=sdwebimage,glide,flutter
protocol=h2
imgwarm=""
out=""
server=nginx
usage() { sed -n '2,41p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --files) files=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --rtt) rtt=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --formats) formats=$2; shift 2 ;;
    --protocol) protocol=$2; shift 2 ;;
    --imgwarm) imgwarm=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "bench-formats.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
fail() { echo "bench-formats.sh: $*" >&2; exit 2; }
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || fail "--runs takes a whole number, at least 1"
[ -z "$files" ] || [[ "$files" =~ ^[1-9][0-9]*$ ]] || fail "--files takes a whole number, at least 1"
[[ "$rtt" =~ ^[0-9]+$ ]] || fail "--rtt takes whole milliseconds"
case "$only" in "") parts=(rtt loopback) ;; rtt|loopback) parts=("$only") ;; *) fail "--only takes rtt or loopback" ;; esac
case "$protocol" in h2|http1) ;; *) fail "--protocol takes h2 or http1" ;; esac
[[ "$formats" =~ ^[a-z0-9.]+(,[a-z0-9.]+)*$ ]] || fail "--formats takes names separated by commas (sdwebimage,glide,flutter)"
IFS=, read -r -a format_list <<< "$formats"
first=${format_list[0]}
if [[ " ${parts[*]} " == *" rtt "* ]] && [ "$(id -u)" -ne 0 ]; then
  fail "the rtt part needs root (a network namespace and TUN devices); --only loopback runs without it"
fi

# ---- dependencies and the binary ------------------------------------------------------------
need=()
command -v nginx >/dev/null || need+=(nginx-light)
command -v curl >/dev/null || need+=(curl)
[ -x /usr/bin/convert-im6.q16 ] || need+=(imagemagick)
[ -x /usr/bin/time ] || need+=(time)
command -v openssl >/dev/null || need+=(openssl)
if [[ " ${parts[*]} " == *" rtt "* ]]; then
  command -v gcc >/dev/null || need+=(gcc)
  command -v ip >/dev/null || need+=(iproute2)
fi
bench_install "${need[@]}"
bash scripts/install-deps.sh >/dev/null
[ -n "$imgwarm" ] || bench_build_imgwarm
[ -x "$imgwarm" ] || fail "no imgwarm binary at $imgwarm"

work=${out:-$(mktemp -d "${TMPDIR:-/tmp}/imgwarm-bench-formats.XXXXXX")}
mkdir -p "$bench" "$work"
work=$(cd "$work" && pwd)
ngx=""
trap bench_server_stop EXIT   # the server by its pid, and the namespace if this run made it
# A timed run goes on in the background (its pid in running) so that a signal stops it, and what
# it started, by their pids, before the EXIT trap stops the server.
running=""
kill_tree() { local child; for child in $(pgrep -P "$1"); do kill_tree "$child"; done; kill -TERM "$1" 2>/dev/null || true; }
on_signal() { [ -z "$running" ] || kill_tree "$running"; exit "$1"; }
trap 'on_signal 129' HUP
trap 'on_signal 130' INT
trap 'on_signal 143' TERM

# Before any set-up: does this binary's prefetch take the formats at all?
: > "$work/empty.txt"
if ! "$imgwarm" prefetch --cache-format "$formats" --cache-dir "$work/preflight" --dry-run --quiet \
    "$work/empty.txt" >/dev/null 2>"$work/preflight.txt"; then
  echo "bench-formats.sh: $imgwarm prefetch --cache-format $formats refuses:" >&2
  sed 's/^/   /' "$work/preflight.txt" >&2
  echo "   (a prefetch that takes several formats is issue 54's; --formats $first checks the plumbing)" >&2
  exit 2
fi
rm -rf "$work/preflight"

bench_corpus

# ---- measuring ------------------------------------------------------------------------------
# median (of an even count: the middle two's mean); stat3: min, median and max.
median() { stat3 | awk '{print $2}'; }
stat3() {
  sort -g | awk '{a[NR] = $1} END {
    m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
    printf "%s %s %s\n", a[1], m, a[NR] }'
}
declare -A wall cpu rss
# timed NAME CMD...: one run of CMD after a sync; sets last_wall and, unless a warm-up, adds the
# run's wall time (a monotonic clock is not in bash: $EPOCHREALTIME, microseconds), CPU time and
# peak memory to NAME's samples. A failed run ends the script: its figures would mean nothing.
timed() {
  local name=$1 start end u s m status=0; shift
  sync
  start=$EPOCHREALTIME
  /usr/bin/time -f '%U %S %M' -o "$work/time" "$@" >"$work/stdout" 2>"$work/stderr" &
  running=$!
  wait "$running" || status=$?
  end=$EPOCHREALTIME
  running=""
  if [ "$status" -ne 0 ]; then
    echo "bench-formats.sh: a run of '$name' failed (exit status $status): $*" >&2
    tail -n 5 "$work/stderr" | sed 's/^/   /' >&2
    exit 1
  fi
  read -r u s m < <(tail -n 1 "$work/time")
  last_wall=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f", b - a}')
  [ "$counted" -eq 1 ] || return 0
  wall[$name]+="$last_wall"$'\n'
  cpu[$name]+="$(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.2f", u + s}')"$'\n'
  rss[$name]+="$m"$'\n'
}
# one_by_one ROOT IMGWARM LIST FORMATS [OPTION...]: what a user does without several formats in
# one run: one prefetch per format, in turn, each into ROOT/FORMAT (a caches root of its own).
# shellcheck disable=SC2016   # expanded by the inner bash
one_by_one='root=$1 imgwarm=$2 list=$3; IFS=, read -r -a fs <<< "$4"; shift 4
for f in "${fs[@]}"; do "$imgwarm" prefetch --cache-format "$f" --cache-dir "$root/$f" --quiet "$@" "$list" || exit; done'

# pair PART NAME_A NAME_B: R + 1 rounds of A and B (the first a warm-up), in turn, A first in the
# even rounds and B first in the odd ones; each command is the function run_<PART>_a or _b,
# given a new, empty caches root. Sets ratios (A/B, pair by pair).
pair() {
  local part=$1 name_a=$2 name_b=$3 r side wall_a wall_b
  ratios=""
  for r in $(seq 0 "$runs"); do
    counted=$((r > 0))
    local order=(a b); [ $((r % 2)) -eq 0 ] || order=(b a)
    for side in "${order[@]}"; do
      last_root=$work/runs/$part/$r-$side
      mkdir -p "$last_root"
      if [ "$side" = a ]; then run_a "$name_a" "$last_root"; wall_a=$last_wall; root_a=$last_root
      else run_b "$name_b" "$last_root"; wall_b=$last_wall; root_b=$last_root; fi
    done
    printf '   round %d%s: %s %s s, %s %s s\n' "$r" "$([ "$r" -gt 0 ] || echo ' (warm-up)')" \
      "$name_a" "$wall_a" "$name_b" "$wall_b"
    [ "$counted" -eq 0 ] || ratios+="$(awk -v a="$wall_a" -v b="$wall_b" 'BEGIN {printf "%.3f", a / b}')"$'\n'
  done
}

# requests: the server's count of the requests it has read (nginx's stub_status), this one's
# included.
requests() { curl -s "http://$host:$port1/_bench/status" | awk '/^ *[0-9]+ +[0-9]+ +[0-9]+ *$/ {print $3}'; }

# report PART TITLE NAME_A NAME_B GOAL LIMIT: the markdown table and the verdict. The goal is
# met when A/B is below LIMIT (1.3: at most; 1: strictly) by both the median of the pairs' ratios
# and the ratio of the medians; when the two disagree, the machine was too noisy to say.
report() {
  local part=$1 title=$2 name_a=$3 name_b=$4 goal=$5 limit=$6 name wmin wmed wmax
  local rmin ratio_med rmax ratio_of_medians verdict pairs_meet medians_meet
  {
    printf '\n### %s\n\n' "$title"
    printf '| run | wall s, min | median | max | CPU s | peak RSS |\n|---|---:|---:|---:|---:|---:|\n'
    for name in "$name_b" "$name_a"; do
      read -r wmin wmed wmax < <(printf '%s' "${wall[$name]}" | stat3)
      printf '| %s | %.2f | **%.2f** | %.2f | %.2f | %.0f MB |\n' "$name" "$wmin" "$wmed" "$wmax" \
        "$(printf '%s' "${cpu[$name]}" | median)" "$(printf '%s' "${rss[$name]}" | median | awk '{print $1 / 1024}')"
    done
    read -r rmin ratio_med rmax < <(printf '%s' "$ratios" | stat3)
    printf '| ratio, pair by pair | %.2f× | **%.2f×** | %.2f× | | |\n' "$rmin" "$ratio_med" "$rmax"
    ratio_of_medians=$(awk -v a="$(printf '%s' "${wall[$name_a]}" | median)" \
      -v b="$(printf '%s' "${wall[$name_b]}" | median)" 'BEGIN {print a / b}')
    meets() { awk -v r="$1" -v l="$limit" 'BEGIN {exit !(l == 1 ? r < l : r <= l)}'; }
    pairs_meet=0; medians_meet=0
    if meets "$ratio_med"; then pairs_meet=1; fi
    if meets "$ratio_of_medians"; then medians_meet=1; fi
    case "$pairs_meet$medians_meet" in
      11) verdict="**met**" ;;
      00) verdict="**not met**" ;;
      *) verdict="**unclear**: the pairs and the medians disagree (a noisy machine: more --runs)" ;;
    esac
    printf '\nGoal: %s: %s (%.2f×, the median of %d pairs; the medians'"'"' ratio %.2f×).\n' \
      "$goal" "$verdict" "$ratio_med" "$runs" "$ratio_of_medians"
  } | tee -a "$work/tables.md"
}

# ---- one part ---------------------------------------------------------------------------------
# part rtt|loopback: the site, the server, the list, the pairs, the checks, the table.
part() {
  local part=$1 n tls=() base what
  if [ "$part" = rtt ]; then n=${files:-2000}; else n=${files:-10000}; fi
  bench_site "$n"
  # The previous part's server and link first.
  bench_server_stop
  ngx=$work/nginx-$part
  # bench_server_start reads rtt: the link's, or none on loopback.
  local rtt=$rtt
  [ "$part" = rtt ] || rtt=""
  server_locations="location = /_bench/status { stub_status; }"
  bench_server_start
  if [ "$protocol" = h2 ]; then base="https://$host:$port2"; tls=(--cacert "$ngx/cert.pem"); what="HTTPS + HTTP/2"
  else base="http://$host:$port1"; what="HTTP/1.1"; fi
  local list=$work/list-$part.txt i src
  for i in $(seq 0 $((n - 1))); do
    src=${sources[$((i % ${#sources[@]}))]}; echo "$base/img/$i.${src##*.}"
  done > "$list"
  curl -sf "${tls[@]}" -o /dev/null "$(head -n 1 "$list")" || fail "the server does not answer at $base"

  rm -rf "$work/runs/$part"   # an earlier run's, in a folder given with --out
  # Room for every run's caches until the part ends, with a tenth to spare.
  local fills need_kb free_kb
  if [ "$part" = rtt ]; then fills=$(( (runs + 1) * (${#format_list[@]} + 1) ))
  else fills=$(( (runs + 1) * 2 * ${#format_list[@]} )); fi
  need_kb=$(( fills * total_bytes * 11 / 10240 ))
  free_kb=$(df -Pk "$work" | awk 'NR == 2 {print $4}')
  [ "$need_kb" -lt "$free_kb" ] || fail "the $part part's caches need about $((need_kb / 1024)) MB in $work, which has $((free_kb / 1024)) MB free: fewer --files or --runs, or --out elsewhere"

  local name_a name_b goal limit title kb
  kb=$(awk -v b="$total_bytes" -v n="$n" 'BEGIN {printf "%.1f", b / n / 1000}')
  if [ "$part" = rtt ]; then
    name_a="$formats, one run"; name_b="$first alone"
    goal="$formats at most 1.3× $first alone (wall time)"; limit=1.3
    title="Several formats at +$rtt ms round trip ($what, $n images of $kb KB on average; $runs pairs after a warm-up)"
    run_b() { timed "$1" "$imgwarm" prefetch --cache-format "$first" --cache-dir "$2" --quiet "${tls[@]}" "$list"; }
  else
    name_a="$formats, one run"; name_b="one run per format, in turn"
    goal="one run of $formats faster than one run per format (wall time)"; limit=1
    title="Several formats on loopback ($what, $n images of $kb KB on average; $runs pairs after a warm-up)"
    run_b() {
      local f
      for f in "${format_list[@]}"; do mkdir -p "$2/$f"; done
      timed "$1" bash -c "$one_by_one" one-by-one "$2" "$imgwarm" "$list" "$formats" "${tls[@]}"
    }
  fi
  run_a() { timed "$1" "$imgwarm" prefetch --cache-format "$formats" --cache-dir "$2" --quiet "${tls[@]}" "$list"; }

  echo "== $part: $n URLs over $what; A: $name_a; B: $name_b; $runs rounds after a warm-up round (A and B interleaved)"
  [ "${#format_list[@]}" -gt 1 ] || echo "   (one format: A and B are the same command, a check of the script's plumbing)"
  pair "$part" "$name_a" "$name_b"

  # The last round's caches: every key a hit in every format (verify reads the folders only).
  if "$imgwarm" verify --cache-format "$formats" --cache-dir "$root_a" --quiet "$list" >"$work/verify.txt" 2>&1; then
    echo "   verify: A's caches ($formats) hold all $n keys"
  else echo "   verify: A's caches MISS keys:"; head -n 5 "$work/verify.txt" | sed 's/^/     /'; fi
  local f bad=0
  for f in "${format_list[@]}"; do
    if [ "$part" = rtt ]; then [ "$f" = "$first" ] || continue; broot=$root_b; else broot=$root_b/$f; fi
    "$imgwarm" verify --cache-format "$f" --cache-dir "$broot" --quiet "$list" >"$work/verify.txt" 2>&1 \
      || { bad=1; echo "   verify: B's $f cache MISSES keys:"; head -n 5 "$work/verify.txt" | sed 's/^/     /'; }
  done
  [ "$bad" -eq 1 ] || echo "   verify: B's caches hold all $n keys"
  # One more run of A, counting the requests the server read for it.
  local before after
  mkdir -p "$work/runs/$part/count"
  before=$(requests)
  "$imgwarm" prefetch --cache-format "$formats" --cache-dir "$work/runs/$part/count" --quiet "${tls[@]}" "$list" \
    >/dev/null 2>&1 || echo "   (the counted run failed)"
  after=$(requests)
  local asked=$((after - before - 1))
  echo "   requests for one run of A: $asked for $n URLs ($formats)$([ "$asked" -eq "$n" ] || echo ": NOT one a URL")"

  report "$part" "$title" "$name_a" "$name_b" "$goal" "$limit"
  rm -rf "$work/runs/$part"
}

for p in "${parts[@]}"; do part "$p"; done
bench_server_stop
echo
echo "tables: $work/tables.md"
echo "work folder: $work"
