#!/usr/bin/env bash
# Benchmarks imgwarm against curl --parallel, wget2 and aria2c on the same list and the same nginx,
# and times clean, path and the fully cached second run. Not a test; CI never runs it.
#
#   scripts/bench.sh [--files N] [--concurrency C] [--runs R] [--protocol http1|h2|both|none]
#                    [--rtt MS] [--output-fs disk|tmpfs] [--out DIR] [--imgwarm BINARY]
#                    [--baseline BINARY] [--capacity K [--service-time S] [--capacity-files N]]
#                    [--clean-files N] [--skip-clean] [--skip-memory] [--skip-index] [--skip-state] [--quick]
#                    [--server nginx|node] [--conversion N]
#
# Without --rtt, nginx listens on loopback and every tool gets the same parallelism C (default 16):
# imgwarm --concurrency C, curl --parallel-max C, wget2 --max-threads C, aria2c -j C; a row
# "curl, bodies discarded" (the same curl writing to /dev/null) shows the transfers alone.
# --rtt MS serves the same files from nginx in a network namespace behind a link that adds MS
# milliseconds of round trip (scripts/bench-net/netns.sh; needs root), and every tool runs with
# its own default parallelism: imgwarm without --concurrency, curl --parallel without
# --parallel-max (50), wget2 without --max-threads (5), aria2c without -j (5). --files defaults
# to 2000 there, and the table gets "link bound" and "one transfer" rows, with a column for each
# (see link_bound and one_transfer).
# --imgwarm BINARY benchmarks that binary instead of building one as scripts/install.sh does.
# --baseline BINARY adds a row "imgwarm (baseline)": that binary (e.g. the previous release) run
# with the same options, interleaved with the others, to show a regression or none.
# --capacity K adds a small origin on loopback (imgwarm-testserver --capacity: K requests served
# at a time, each held --service-time S seconds, default 0.05, the rest queued) and times
# imgwarm with its defaults against imgwarm --max-per-host K on --capacity-files N of the images
# (default 400), interleaved; after the first second of each run the server's peaks start anew,
# and the table shows the most requests it held at once (queued and served) and the most
# connections open at once from then on (issue 26: defaults within 1.1x, at most 2K held).
#
# --quick times only imgwarm, curl and the baseline (with --rtt also "imgwarm --concurrency 200",
# what HTTP/2's defaults should not be slower than: issue 37), and skips path, list reading, clean
# and memory. --server node serves the files from scripts/bench-net/server.mjs (Node's http and
# http2 modules, 2 processes) instead of nginx, where nginx is not installed.
#
# --conversion N (issue 55) times seeding a cache from another library's: a source cache of N
# entries in kingfisher7 (Kingfisher 7's folder; under .bench/, made once from the corpus with
# --offline JSON Lines "file" lines, again when 6 days old, before its 7-day expiry) converted into
# kingfisher (Kingfisher 8's) by prefetch --from-cache, with --offline (A) and without (C: every
# line is in the source, so nothing is requested either), against downloading the same N images
# from the loopback server into kingfisher (B; HTTP/1.1, imgwarm's defaults): R rounds after a
# warm-up round, interleaved, each run into a new caches root on disk (even with --output-fs
# tmpfs) after a sync; min/median/max, the ratios to B round by round, a markdown table. Then
# verify (every key a hit in the last round's caches) and a listing of the source before and
# after (names, sizes, modification, access and change times, a folder's access time aside:
# unchanged). Room: (3R + 4) x N x 27 KB (100,000: about 35 GB at R=3), the runs' folders removed
# at the end. `--protocol none --quick --files 200 --conversion 100000` times only it. Not with
# --rtt.
#
# Needs root (or sudo) once to install nginx, aria2, wget2, curl, ImageMagick (and for --rtt gcc
# and iproute2) from Debian's packages. The image corpus is generated once (deterministically)
# under .bench/ and reused.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bench=$root/.bench
# shellcheck source=scripts/bench-net/common.sh
source scripts/bench-net/common.sh   # the corpus, the site, the server and the link (bench-formats.sh's too)

files=10000
files_given=0
concurrency=16
concurrency_given=0
rtt=""
imgwarm=""
runs=3
protocol=both
out=""
clean_files=200000
skip_clean=0
skip_memory=0
quick=0
server=nginx
skip_index=0
skip_state=0
output_fs=disk
baseline=""
capacity=""
service_time=0.05
capacity_files=400
conversion=""
while [ $# -gt 0 ]; do
  case "$1" in
    --files) files=$2; files_given=1; shift 2 ;;
    --concurrency) concurrency=$2; concurrency_given=1; shift 2 ;;
    --rtt) rtt=$2; shift 2 ;;
    --imgwarm) imgwarm=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    --capacity) capacity=$2; shift 2 ;;
    --service-time) service_time=$2; shift 2 ;;
    --capacity-files) capacity_files=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --protocol) protocol=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --clean-files) clean_files=$2; shift 2 ;;
    --skip-clean) skip_clean=1; shift ;;
    --skip-memory) skip_memory=1; shift ;;
    --quick) quick=1; skip_clean=1; skip_memory=1; skip_index=1; skip_state=1; shift ;;
    --server) server=$2; shift 2 ;;
    --skip-index) skip_index=1; shift ;;
    --skip-state) skip_state=1; shift ;;
    --output-fs) output_fs=$2; shift 2 ;;
    --conversion) conversion=$2; shift 2 ;;
    -h|--help) sed -n '2,51p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
if [ -n "$rtt" ]; then
  [[ "$rtt" =~ ^[0-9]+$ ]] || { echo "--rtt takes whole milliseconds" >&2; exit 2; }
  [ "$concurrency_given" -eq 0 ] || { echo "--rtt runs every tool at its own default parallelism; --concurrency is for loopback" >&2; exit 2; }
  [ "$(id -u)" -eq 0 ] || { echo "--rtt needs root (a network namespace and TUN devices)" >&2; exit 2; }
  [ "$files_given" -eq 1 ] || files=2000
fi
if [ -n "$conversion" ]; then
  [[ "$conversion" =~ ^[1-9][0-9]*$ ]] || { echo "--conversion takes a number of entries, at least 1" >&2; exit 2; }
  [ -z "$rtt" ] || { echo "--conversion's download is from loopback: not with --rtt" >&2; exit 2; }
  [ "$files" -ge 200 ] || { echo "--conversion serves the corpus's 200 images: --files at least 200" >&2; exit 2; }
fi

# ---- dependencies -------------------------------------------------------------------------
need=()
if [ "$server" = node ]; then command -v node >/dev/null || need+=(nodejs)
else command -v nginx >/dev/null || need+=(nginx-light); fi
if [ "$quick" -eq 0 ]; then
  command -v aria2c >/dev/null || need+=(aria2)
  command -v wget2 >/dev/null || need+=(wget2)
fi
command -v curl >/dev/null || need+=(curl)
[ -x /usr/bin/convert-im6.q16 ] || need+=(imagemagick)
[ -x /usr/bin/time ] || need+=(time)
command -v openssl >/dev/null || need+=(openssl)
if [ -n "$rtt" ]; then
  command -v gcc >/dev/null || need+=(gcc)
  command -v ip >/dev/null || need+=(iproute2)
fi
bench_install "${need[@]}"
bash scripts/install-deps.sh >/dev/null

[ -n "$imgwarm" ] || bench_build_imgwarm
[ -x "$imgwarm" ] || { echo "no imgwarm binary at $imgwarm" >&2; exit 2; }
[ -z "$baseline" ] || [ -x "$baseline" ] || { echo "no baseline binary at $baseline" >&2; exit 2; }
if [ -n "$capacity" ]; then
  source scripts/env.sh
  echo "== building imgwarm-testserver (release) for --capacity"
  swift build -c release --product imgwarm-testserver 2>&1 | tail -n 1
  testserver="$(swift build -c release --show-bin-path)/imgwarm-testserver"
fi

work=${out:-$(mktemp -d "${TMPDIR:-/tmp}/imgwarm-bench.XXXXXX")}
mkdir -p "$bench" "$work"
ngx=$work/nginx
rm -f "$ngx/nginx.pid"   # a folder given with --out may hold one from an earlier run
# On any exit: stop nginx (waiting for it, so the namespace empties), take the delayed link
# down (netns.sh leaves its guard route in place; it prints the packets forwarded and dropped),
# unmount the tmpfs.
cleanup() {
  bench_server_stop
  if [ "$output_fs" = tmpfs ]; then umount "$work/runs" 2>/dev/null || true; fi
}
trap cleanup EXIT
if [ "$output_fs" = tmpfs ]; then
  mkdir -p "$work/runs"
  mount -t tmpfs -o size=8g tmpfs "$work/runs" || { echo "--output-fs tmpfs needs root" >&2; exit 2; }
fi

# ---- corpus and site: N files, hard links to the corpus (scripts/bench-net/common.sh) -------
bench_corpus
bench_site "$files"
echo "== $files files, $((total_bytes / files)) bytes on average"

# ---- nginx, on loopback or behind the delayed link (scripts/bench-net/common.sh) ---------------
server_locations=""
if [ -n "$rtt" ]; then
  # One large file of random bytes to measure what the link carries (see link_bound).
  [ -s "$bench/link-100M.bin" ] || head -c 100000000 /dev/urandom > "$bench/link-100M.bin"
  # And one file as large as the N images together, for the "one transfer" row (see one_transfer).
  [ "$(stat -c %s "$bench/link-same-$files.bin" 2>/dev/null || echo 0)" -eq "$total_bytes" ] \
    || head -c "$total_bytes" /dev/urandom > "$bench/link-same-$files.bin"
  server_locations="location ~ ^/link-(100M|same-[0-9]+)\.bin\$ { root $bench; }"
fi
bench_server_start

# ---- helpers ----------------------------------------------------------------------------------
# measure NAME CMD...: runs CMD once to warm up, then $runs times; prints the median wall time,
# CPU time and peak RSS. Each run gets a fresh $dest (set by the caller's prepare function).
declare -A wall cpu rss
# Each run writes into a new folder (reached through the symlink $work/out-TOOL): deleting and
# recreating 10,000 files in one place makes ext4's inode allocator skip the recently deleted
# inodes one by one, which would measure the file system's history rather than the tool.
run_serial=0
# On tmpfs, which has no such history, the previous run's folder goes first: 10,000 images a run,
# 7 tools and --runs 5 would not fit in its 8 GB.
fresh() {  # fresh TOOL: points $work/out-TOOL at a new, empty folder
  run_serial=$((run_serial + 1))
  if [ "$output_fs" = tmpfs ] && [ -L "$work/out-$1" ]; then rm -rf "$(readlink "$work/out-$1")"; fi
  mkdir -p "$work/runs/$1-$run_serial"
  [ -L "$work/out-$1" ] || rm -rf "$work/out-$1"
  ln -sfn "$work/runs/$1-$run_serial" "$work/out-$1"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
words() { tr -s ' ' '\n' <<< "$1"; }   # the samples of a string "1.2 1.3 ", one a line
measure() {
  local name=$1; shift
  local times=() cpus=() rsss=()
  for r in $(seq 0 "$runs"); do
    prepare
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || { echo "$name failed:"; tail -5 "$work/stderr"; }
    read -r e u s m < "$work/time"
    [ "$r" -eq 0 ] && continue   # warm-up
    times+=("$e"); cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.2f", u + s}')"); rsss+=("$m")
  done
  wall[$name]=$(printf '%s\n' "${times[@]}" | median)
  cpu[$name]=$(printf '%s\n' "${cpus[@]}" | median)
  rss[$name]=$(printf '%s\n' "${rsss[@]}" | median)
}
verify() {  # verify NAME EXPECTED-LIST ("md5  path" lines)
  if md5sum -c --quiet "$2" >"$work/verify" 2>&1; then echo "   $1: all $files files byte-exact"
  else echo "   $1: MISMATCH"; head -5 "$work/verify"; fi
}
(cd "$corpus" && md5sum -- *) | awk '{print $2, $1}' | sort > "$work/corpus.md5"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
table() {  # with --rtt, also "link bound" and "one transfer" rows and a column for each
  local title=$1; shift
  printf '\n%s\n' "$title"
  printf '%-30s %9s %9s %10s %9s %9s' tool "wall s" "CPU s" "peak RSS" "files/s" "vs curl"
  if [ -n "$link_bound" ]; then printf ' %9s %9s' "vs bound" "vs 1 xfer"; fi
  printf '\n'
  local base=${wall[curl]}
  for name in "$@"; do
    local w=${wall[$name]}
    printf '%-30s %9s %9s %8d MB %9s %9s' "$name" "$w" "${cpu[$name]}" $(( ${rss[$name]} / 1024 )) \
      "$(awk -v f="$files" -v w="$w" 'BEGIN {printf "%.0f", f / w}')" "$(ratio "$w" "$base")"
    if [ -n "$link_bound" ]; then printf ' %9s %9s' "$(ratio "$w" "$link_bound")" "$(ratio "$w" "$one_transfer")"; fi
    printf '\n'
  done
  if [ -n "$link_bound" ]; then
    printf '%-30s %9s %9s %10s %9s %9s %9s %9s\n' "link bound" "$link_bound" - - \
      "$(awk -v f="$files" -v w="$link_bound" 'BEGIN {printf "%.0f", f / w}')" "$(ratio "$link_bound" "$base")" 1.00 \
      "$(ratio "$link_bound" "$one_transfer")"
    printf '%-30s %9s %9s %10s %9s %9s %9s %9s\n' "one transfer, same bytes" "$one_transfer" - - \
      "$(awk -v f="$files" -v w="$one_transfer" 'BEGIN {printf "%.0f", f / w}')" "$(ratio "$one_transfer" "$base")" \
      "$(ratio "$one_transfer" "$link_bound")" 1.00
  fi
}

# ---- the link (--rtt only) ----------------------------------------------------------------------
# link_bound: the time no tool can beat on this link, for the "link bound" row and "vs bound":
#   total bytes of the N files / link throughput + one round trip (the TCP connect).
# The throughput is measured once per run: curl fetches 100 MB of random bytes over HTTP/1.1
# through the link, and throughput = bytes / (time_total - time_starttransfer), i.e. after the
# first byte (slow start's ramp is in it; at 100 MB it costs a few percent). The round trip is
# the median TCP connect time of 5 curl requests. The bound leaves out TLS's handshake and each
# request's own round trip, and assumes the link is always full: a floor, not a target.
# one_transfer (per protocol, in run_protocol): what the link gives one client that needs no
# parallelism at all: curl fetching a single file as large as the N images together, over the
# same protocol, on a fresh connection (connect, TLS, the request's round trip and TCP's slow
# start included), median of 3. Many files cannot beat it by much: only by opening several
# connections, whose slow starts ramp up side by side.
link_bound=""
one_transfer=""
if [ -n "$rtt" ]; then
  connect_s=$(for _ in 1 2 3 4 5; do curl -s -o /dev/null -w '%{time_connect}\n' "http://$host:$port1/img/0.jpg"; done | median)
  read -r link_size link_total link_first < <(curl -s -o /dev/null \
    -w '%{size_download} %{time_total} %{time_starttransfer}\n' "http://$host:$port1/link-100M.bin")
  [ "${link_size:-0}" -eq 100000000 ] || { echo "measuring the link failed (got ${link_size:-nothing} bytes)" >&2; exit 1; }
  link_bps=$(awk -v b="$link_size" -v t="$link_total" -v f="$link_first" 'BEGIN {printf "%.0f", b / (t - f)}')
  link_bound=$(awk -v b="$total_bytes" -v r="$link_bps" -v c="$connect_s" 'BEGIN {printf "%.2f", b / r + c}')
  printf '== link: +%s ms; TCP connect %.1f ms (median of 5); 100 MB over HTTP/1.1 at %.1f MB/s; bound for %s files: %s s\n' \
    "$rtt" "$(awk -v c="$connect_s" 'BEGIN {print c * 1000}')" "$(awk -v r="$link_bps" 'BEGIN {print r / 1e6}')" "$files" "$link_bound"
fi

run_protocol() {
  local proto=$1 base extra_curl=() extra_aria=() extra_imgwarm=() extra_wget2=()
  if [ "$proto" = http1 ]; then base="http://$host:$port1"; extra_curl=(--http1.1)
  else base="https://$host:$port2"; extra_curl=(--cacert "$ngx/cert.pem"); extra_aria=(--ca-certificate="$ngx/cert.pem")
       extra_imgwarm=(--cacert "$ngx/cert.pem"); extra_wget2=(--ca-certificate="$ngx/cert.pem"); fi
  # Parallelism: the same C for every tool on loopback; each tool's own default with --rtt.
  local par_imgwarm=() par_curl=() par_wget2=() par_aria=() what="concurrency $concurrency"
  if [ -z "$rtt" ]; then
    par_imgwarm=(--concurrency "$concurrency"); par_curl=(--parallel-max "$concurrency")
    par_wget2=(--max-threads "$concurrency"); par_aria=(-j "$concurrency")
  else
    what="+$rtt ms round trip, every tool at its default parallelism"
  fi
  local list=$work/list-$proto.txt curlcfg=$work/curl-$proto.cfg aria=$work/aria-$proto.txt
  : > "$list"; : > "$curlcfg"; : > "$aria"
  local plain=$work/plain-expected-$proto.md5 imgexp=$work/imgwarm-expected-$proto.md5
  : > "$plain"
  declare -A srcmd5
  while read -r f m; do srcmd5[$f]=$m; done < "$work/corpus.md5"
  for i in $(seq 0 $((files - 1))); do
    src=${sources[$((i % ${#sources[@]}))]}; name="$i.${src##*.}"
    url="$base/img/$name"
    echo "$url" >> "$list"
    printf 'url = "%s"\noutput = "%s"\n' "$url" "$work/out-curl/$name" >> "$curlcfg"
    printf '%s\n  out=%s\n' "$url" "$name" >> "$aria"
    echo "${srcmd5[$src]}  $work/out-TOOL/$name" >> "$plain"
  done
  "$imgwarm" path --disk-cache-path "$work/out-imgwarm/cache" - < "$list" > "$work/imgwarm-paths-$proto"
  paste -d' ' <(awk '{print $1}' "$plain") "$work/imgwarm-paths-$proto" | awk '{print $1 "  " $2}' > "$imgexp"

  echo "== $proto: $files URLs, $what, $runs rounds after a warm-up round (tools interleaved)"
  if [ -n "$rtt" ]; then
    one_transfer=$(for _ in 1 2 3; do
      curl -s -o /dev/null "${extra_curl[@]}" -w '%{time_total} %{size_download}\n' "$base/link-same-$files.bin"
    done | awk -v n="$total_bytes" '$2 == n {print $1}' | median | awk 'NF {printf "%.2f", $1}')
    [ -n "$one_transfer" ] || { echo "fetching link-same-$files.bin failed" >&2; exit 1; }
    echo "   one transfer of the same $total_bytes bytes: $one_transfer s (median of 3)"
  fi
  local cmd_imgwarm=("$imgwarm" prefetch "${par_imgwarm[@]}" --disk-cache-path "$work/out-imgwarm/cache"
      --state "$work/out-imgwarm/state.sqlite" --quiet "${extra_imgwarm[@]}" "$list")
  local cmd_curl=(curl --parallel "${par_curl[@]}" -s "${extra_curl[@]}" -K "$curlcfg")
  # wget2 saves each URL under its basename in -P's folder and speaks HTTP/2 over TLS by itself.
  # The --no-* flags switch off work the others do not do: reading ~/.wget2rc, the HSTS/HPKP/OCSP
  # databases in ~ (--no-local-db, no .wget-hsts written), OCSP lookups, robots.txt, extended
  # attributes and the server's timestamps on every file. Its progress display is off by default.
  local cmd_wget2=(wget2 "${par_wget2[@]}" -q --no-config --no-local-db --no-hsts --no-hpkp --no-ocsp --no-robots
      --no-xattr --no-use-server-timestamps --progress=none -P "$work/out-wget2" "${extra_wget2[@]}" -i "$list")
  local cmd_aria=(aria2c "${par_aria[@]}" -i "$aria" -d "$work/out-aria2c" --quiet --allow-overwrite=true
      --auto-file-renaming=false --file-allocation=none --console-log-level=error "${extra_aria[@]}")
  declare -A samples_wall samples_cpu samples_rss
  # On loopback, a reference row: curl on the same list writing every body to /dev/null, i.e.
  # the transfers alone (no file created or written); a client that stores files can hardly beat
  # it. Its "vs curl" shows what the file writes cost curl.
  local tools=(imgwarm curl wget2 aria2c "imgwarm (all cached)")
  [ "$quick" -eq 1 ] && tools=(imgwarm curl)
  [ -n "$baseline" ] && tools+=("imgwarm (baseline)")
  local cmd_c200=("${cmd_imgwarm[@]:0:2}" --concurrency 200 "${cmd_imgwarm[@]:2}")
  [ "$quick" -eq 1 ] && [ -n "$rtt" ] && tools+=("imgwarm --concurrency 200")
  local cmd_baseline=("${cmd_imgwarm[@]}"); cmd_baseline[0]=$baseline
  # On loopback, --baseline also compares the two binaries' defaults (no --concurrency).
  local cmd_auto=("$imgwarm" prefetch --disk-cache-path "$work/out-imgwarm/cache"
      --state "$work/out-imgwarm/state.sqlite" --quiet "${extra_imgwarm[@]}" "$list")
  local cmd_auto_baseline=("${cmd_auto[@]}"); cmd_auto_baseline[0]=$baseline
  [ -n "$baseline" ] && [ -z "$rtt" ] && tools+=("imgwarm, defaults" "imgwarm, defaults (baseline)")
  [ -z "$rtt" ] && [ "$quick" -eq 0 ] && tools+=("curl, bodies discarded")
  sed 's|^output = .*|output = "/dev/null"|' "$curlcfg" > "$work/curl-null-$proto.cfg"
  local cmd_null=(curl --parallel "${par_curl[@]}" -s "${extra_curl[@]}" -K "$work/curl-null-$proto.cfg")
  for r in $(seq 0 "$runs"); do
    for tool in "${tools[@]}"; do
      case "$tool" in
        imgwarm) fresh imgwarm; cmd=("${cmd_imgwarm[@]}") ;;
        "imgwarm (baseline)") fresh imgwarm; cmd=("${cmd_baseline[@]}") ;;
        "imgwarm --concurrency 200") fresh imgwarm; cmd=("${cmd_c200[@]}") ;;
        "imgwarm, defaults") fresh imgwarm; cmd=("${cmd_auto[@]}") ;;
        "imgwarm, defaults (baseline)") fresh imgwarm; cmd=("${cmd_auto_baseline[@]}") ;;
        curl) fresh curl; cmd=("${cmd_curl[@]}") ;;
        "curl, bodies discarded") cmd=("${cmd_null[@]}") ;;
        wget2) fresh wget2; cmd=("${cmd_wget2[@]}") ;;
        aria2c) fresh aria2c; cmd=("${cmd_aria[@]}") ;;
        *) cmd=("${cmd_imgwarm[@]}") ;;   # the same cache again: every URL is a hit
      esac
      /usr/bin/time -f "%e %U %S %M" -o "$work/time" "${cmd[@]}" >/dev/null 2>"$work/stderr" || { echo "$tool failed:"; tail -5 "$work/stderr"; }
      read -r e u s m < <(tail -n 1 "$work/time")   # after "Command exited with non-zero status N"
      [ "$r" -eq 0 ] && continue
      samples_wall[$tool]+="$e "; samples_cpu[$tool]+="$(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.2f", u + s}') "; samples_rss[$tool]+="$m "
    done
  done
  for tool in "${tools[@]}"; do
    wall[$tool]=$(words "${samples_wall[$tool]}" | median)
    cpu[$tool]=$(words "${samples_cpu[$tool]}" | median)
    rss[$tool]=$(words "${samples_rss[$tool]}" | median)
  done
  verify imgwarm "$imgexp"
  if [ -n "$rtt" ]; then
    # What the adaptive limit settled on, from one more run's report (issue 26).
    fresh imgwarm
    "${cmd_imgwarm[@]:0:2}" --report "$work/hosts-$proto.json" "${cmd_imgwarm[@]:2}" >/dev/null 2>&1 || true
    python3 - "$work/hosts-$proto.json" <<'PY' || true
import json, sys
for h in json.load(open(sys.argv[1]))["hosts"]:
    print("   imgwarm's limit for %s: final %s, peak %s; %d requests, median latency %s s, http2 %s"
          % (h["host"], h["finalLimit"], h["peakLimit"], h["requests"], h["medianLatencySeconds"], h["http2"]))
PY
  fi
  verify curl <(sed "s|out-TOOL|out-curl|" "$plain")
  if [ "$quick" -eq 0 ]; then
    verify wget2 <(sed "s|out-TOOL|out-wget2|" "$plain")
    verify aria2c <(sed "s|out-TOOL|out-aria2c|" "$plain")
  fi
  table "Results ($proto, $files files, $what; median of $runs)" "${tools[@]}"
  if [ -z "$rtt" ] && [ "$quick" -eq 0 ]; then
    # Peak memory of a downloading run by parallelism (the target: 40 MB up to 64), one run each.
    printf '\n%-26s %9s %10s\n' "imgwarm, $proto, $files files" "wall s" "peak RSS"
    for c in 1 16 64 auto; do
      fresh imgwarm
      /usr/bin/time -f "%e %M" -o "$work/time" "$imgwarm" prefetch --concurrency "$c" \
        --disk-cache-path "$work/out-imgwarm/cache" --state "$work/out-imgwarm/state.sqlite" --quiet \
        "${extra_imgwarm[@]}" "$list" >/dev/null 2>"$work/stderr" || { echo "imgwarm --concurrency $c failed:"; tail -5 "$work/stderr"; }
      read -r e m < "$work/time"
      printf '%-26s %9s %8d MB\n' "--concurrency $c" "$e" $((m / 1024))
    done
  fi
  rm -rf "$work/runs"/*
}

case "$protocol" in
  http1) run_protocol http1 ;;
  h2) run_protocol h2 ;;
  both) run_protocol http1; run_protocol h2 ;;
  none) ;;
esac

# ---- a small origin (--capacity) ----------------------------------------------------------------
if [ -n "$capacity" ]; then
  cap=$work/capacity; mkdir -p "$cap"; rm -f "$cap/port"
  "$testserver" --root "$site/img" --port-file "$cap/port" --capacity "$capacity" --service-time "$service_time" \
    2>"$cap/server.log" &
  cap_pid=$!
  for _ in $(seq 1 100); do [ -s "$cap/port" ] && break; sleep 0.05; done
  cap_port=$(cat "$cap/port")
  : > "$cap/list.txt"
  for i in $(seq 0 $((capacity_files - 1))); do
    src=${sources[$((i % ${#sources[@]}))]}; echo "http://127.0.0.1:$cap_port/img/$i.${src##*.}" >> "$cap/list.txt"
  done
  echo "== a small origin on loopback: $capacity requests at a time, $service_time s each; $capacity_files URLs, $runs rounds after a warm-up round"
  declare -A cap_wall cap_held cap_conn
  variants=("defaults" "--max-per-host $capacity")
  for r in $(seq 0 "$runs"); do
    for variant in "${variants[@]}"; do
      fresh imgwarm
      extra=(); [ "$variant" = defaults ] || extra=(--max-per-host "$capacity")
      curl -s -o /dev/null "http://127.0.0.1:$cap_port/_capacity/reset"
      /usr/bin/time -f "%e" -o "$cap/time" "$imgwarm" prefetch "${extra[@]}" --disk-cache-path "$work/out-imgwarm/cache" \
        --state "$work/out-imgwarm/state.sqlite" --quiet "$cap/list.txt" >/dev/null 2>"$cap/stderr" &
      run_pid=$!
      sleep 1
      curl -s -o /dev/null "http://127.0.0.1:$cap_port/_capacity/reset"
      wait "$run_pid" || { echo "imgwarm $variant failed:"; tail -5 "$cap/stderr"; }
      stats=$(curl -s "http://127.0.0.1:$cap_port/_capacity/stats")
      [ "$r" -eq 0 ] && continue
      cap_wall[$variant]+="$(cat "$cap/time") "
      cap_held[$variant]+="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["peakHeld"])' "$stats") "
      cap_conn[$variant]+="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["peakConnections"])' "$stats") "
    done
  done
  kill "$cap_pid" 2>/dev/null; wait "$cap_pid" 2>/dev/null || true
  printf '\n%-28s %9s %9s %14s %16s\n' "small origin (K=$capacity)" "wall s" "vs K" "held after 1 s" "conns after 1 s"
  base_wall=$(words "${cap_wall["--max-per-host $capacity"]}" | median)
  for variant in "${variants[@]}"; do
    w=$(words "${cap_wall[$variant]}" | median)
    held_max=$(words "${cap_held[$variant]}" | sort -n | tail -1)
    conn_max=$(words "${cap_conn[$variant]}" | sort -n | tail -1)
    printf '%-28s %9s %9s %14s %16s\n' "imgwarm $variant" "$w" "$(ratio "$w" "$base_wall")" "$held_max" "$conn_max"
  done
  echo "   (held: requests queued and served at once, the most over the runs; conns: connections open at once, the reset request's own included)"
fi

# ---- seeding from another cache (--conversion N, issue 55) ---------------------------------------
# A source cache of N entries in kingfisher7, each entry i the corpus's image i mod 200 under the
# URL https://img.bench.invalid/img/J.EXT?n=i (made once under .bench/ by prefetch --offline from
# JSON Lines "file" lines: no server, so its keys do not depend on this run's port). Timed: its
# conversion into kingfisher (prefetch --from-cache, with and without --offline: no request)
# against downloading the same N images, http://127.0.0.1:PORT/img/J.EXT?n=i, from the loopback
# server into kingfisher: R rounds after a warm-up round, A C B then B C A, each run into a new
# caches root.
if [ -n "$conversion" ]; then
  conv=$work/conversion
  conv_src=$bench/conversion-$conversion   # the source: its caches root is $conv_src/caches
  rm -rf "$conv"; mkdir -p "$conv/runs"
  conv_fail() { echo "conversion: $*" >&2; exit 1; }
  # The three lists, and the N entries' bytes together (for the room the runs need).
  (cd "$corpus" && stat -c '%n %s' -- "${sources[@]}") > "$conv/sources.txt"
  conv_bytes=$(awk -v n="$conversion" -v dl="http://$host:$port1" -v dir="$conv" '
    { name[NR - 1] = $1; size[NR - 1] = $2; count = NR }
    END {
      for (i = 0; i < n; i++) {
        j = i % count; ext = name[j]; sub(/^[^.]*\./, "", ext)
        path = "/img/" j "." ext "?n=" i
        printf "{\"url\": \"https://img.bench.invalid%s\", \"file\": \"%s\"}\n", path, name[j] > (dir "/source.jsonl")
        print "https://img.bench.invalid" path > (dir "/list.txt")
        print dl path > (dir "/list-http.txt")
        total += size[j]
      }
      printf "%.0f\n", total
    }' "$conv/sources.txt")
  conv_build=0
  if [ ! -f "$conv_src/.done" ] || [ -n "$(find "$conv_src/.done" -mmin +8640)" ]; then conv_build=1; fi
  # Room for every run's caches until the part ends (and the source, if it is made now), a tenth to spare.
  conv_need_kb=$(( (3 * (runs + 1) + conv_build) * conv_bytes * 11 / 10240 ))
  conv_free_kb=$(df -Pk "$conv" | awk 'NR == 2 {print $4}')
  [ "$conv_need_kb" -lt "$conv_free_kb" ] || conv_fail "the runs need about $((conv_need_kb / 1024)) MB in $conv, which has $((conv_free_kb / 1024)) MB free: a smaller N or fewer --runs, or --out elsewhere"
  if [ "$conv_build" -eq 1 ]; then
    # Kingfisher 7 takes an entry whose modification time (its expiry, 7 days after the store) is
    # past as a miss: a source older than 6 days is made again.
    echo "== conversion: making the source, $conversion entries in kingfisher7 (once; again when 6 days old)"
    rm -rf "$conv_src"; mkdir -p "$conv_src"
    /usr/bin/time -f '%e %U %S %M' -o "$conv/time" "$imgwarm" prefetch --offline --quiet --cache-format kingfisher7 \
      --cache-dir "$conv_src/caches" --files-root "$corpus" "$conv/source.jsonl" >"$conv/stdout" 2>"$conv/stderr" \
      || { tail -n 5 "$conv/stderr" >&2; conv_fail "making the source failed"; }
    read -r e u s m < <(tail -n 1 "$conv/time")
    printf '   made in %s s (CPU %.2f s, %d MB): prefetch --offline of %s JSON Lines "file" lines\n' \
      "$e" "$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')" $((m / 1024)) "$conversion"
    touch "$conv_src/.done"
  fi
  # Every key a hit in the source (verify leaves its access times as they were), then its listing.
  "$imgwarm" verify --cache-format kingfisher7 --cache-dir "$conv_src/caches" --quiet "$conv/list.txt" >"$conv/verify.txt" 2>&1 \
    || { head -n 5 "$conv/verify.txt" >&2; conv_fail "the source misses keys (rm -rf $conv_src makes it again)"; }
  # A folder's access time is left out: reading the folder for this listing moves it.
  conv_listing() {
    find "$conv_src/caches" \( -type d -printf '%P %y %T@ %C@\n' \) -o -printf '%P %y %s %T@ %A@ %C@\n' | LC_ALL=C sort
  }
  conv_listing > "$conv/source-before.txt"
  curl -sf -o /dev/null "$(head -n 1 "$conv/list-http.txt")" || conv_fail "the server does not answer at http://$host:$port1"

  conv_stat3() {  # min, median (of an even count: the middle two's mean) and max
    sort -g | awk '{a[NR] = $1} END {
      m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
      printf "%s %s %s\n", a[1], m, a[NR] }'
  }
  declare -A conv_wall conv_cpu conv_rss
  # conv_timed NAME COUNTED CMD...: one run after a sync; a failed run ends the script.
  conv_timed() {
    local name=$1 counted=$2 e u s m; shift 2
    sync
    /usr/bin/time -f '%e %U %S %M' -o "$conv/time" "$@" >"$conv/stdout" 2>"$conv/stderr" \
      || { tail -n 5 "$conv/stderr" >&2; conv_fail "a run of '$name' failed: $*"; }
    read -r e u s m < <(tail -n 1 "$conv/time")
    last_wall=$e
    [ "$counted" -eq 1 ] || return 0
    conv_wall[$name]+="$e"$'\n'
    conv_cpu[$name]+="$(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.2f", u + s}')"$'\n'
    conv_rss[$name]+="$m"$'\n'
  }
  # Three commands: A and C convert (C without --offline: every line is in the source, so it
  # requests nothing either, and a request to the .invalid host would fail the run), B downloads.
  declare -A conv_name conv_list conv_last conv_ratios
  conv_name[a]="conversion, --offline"; conv_list[a]=$conv/list.txt
  conv_name[c]="conversion, without --offline"; conv_list[c]=$conv/list.txt
  conv_name[b]="download from loopback"; conv_list[b]=$conv/list-http.txt
  conv_run() {  # conv_run SIDE ROUND: one timed run of A, B or C into a new caches root
    local side=$1 r=$2 dest=$conv/runs/$2-$1 offline=()
    mkdir -p "$dest"
    if [ "$side" = b ]; then
      conv_timed "${conv_name[b]}" $((r > 0)) "$imgwarm" prefetch --quiet --cache-format kingfisher \
        --cache-dir "$dest" "${conv_list[b]}"
    else
      [ "$side" = c ] || offline=(--offline)
      conv_timed "${conv_name[$side]}" $((r > 0)) "$imgwarm" prefetch "${offline[@]}" --quiet --from-cache "$conv_src/caches" \
        --from-format kingfisher7 --cache-format kingfisher --cache-dir "$dest" "${conv_list[$side]}"
    fi
    conv_last[$side]=$last_wall
  }
  echo "== conversion: $conversion entries, kingfisher7 -> kingfisher; A: imgwarm prefetch --offline --from-cache; C: the same without --offline; B: download (HTTP/1.1, defaults); $runs rounds after a warm-up round"
  for r in $(seq 0 "$runs"); do
    order=(a c b); [ $((r % 2)) -eq 0 ] || order=(b c a)
    for side in "${order[@]}"; do conv_run "$side" "$r"; done
    printf '   round %d%s: A %s s, C %s s, B %s s\n' "$r" "$([ "$r" -gt 0 ] || echo ' (warm-up)')" \
      "${conv_last[a]}" "${conv_last[c]}" "${conv_last[b]}"
    [ "$r" -eq 0 ] && continue
    for side in a c; do
      conv_ratios[$side]+="$(awk -v a="${conv_last[$side]}" -v b="${conv_last[b]}" 'BEGIN {printf "%.3f", a / b}')"$'\n'
    done
  done
  # The last round's caches: every key a hit; the source: as it was.
  for side in a c b; do
    if "$imgwarm" verify --cache-format kingfisher --cache-dir "$conv/runs/$runs-$side" "${conv_list[$side]}" >"$conv/verify.txt" 2>&1; then
      echo "   verify, round $runs's ${conv_name[$side]}: $(tail -n 1 "$conv/verify.txt")"
    else
      echo "   verify, round $runs's ${conv_name[$side]}: MISSES KEYS:"; tail -n 5 "$conv/verify.txt" | sed 's/^/     /'
    fi
  done
  conv_listing > "$conv/source-after.txt"
  if cmp -s "$conv/source-before.txt" "$conv/source-after.txt"; then
    echo "   the source after $((2 * (runs + 1))) conversions: unchanged ($(wc -l < "$conv/source-after.txt") names; sizes, modification, access and change times, the folders' access times aside)"
  else
    echo "   the source CHANGED ($(diff "$conv/source-before.txt" "$conv/source-after.txt" | grep -c '^[<>]') listing lines differ):"
    diff "$conv/source-before.txt" "$conv/source-after.txt" | head -n 6 | sed 's/^/     /'
  fi

  conv_kb=$(awk -v b="$conv_bytes" -v n="$conversion" 'BEGIN {printf "%.1f", b / n / 1000}')
  printf '\n### Seeding from another cache: %s entries of %s KB on average, kingfisher7 into kingfisher (%s rounds after a warm-up)\n\n' \
    "$conversion" "$conv_kb" "$runs"
  printf '| run | wall s, min | median | max | CPU s | peak RSS | entries/s |\n|---|---:|---:|---:|---:|---:|---:|\n'
  for side in b a c; do
    name=${conv_name[$side]}
    read -r wmin wmed wmax < <(printf '%s' "${conv_wall[$name]}" | conv_stat3)
    read -r _ cmed _ < <(printf '%s' "${conv_cpu[$name]}" | conv_stat3)
    read -r _ rmed _ < <(printf '%s' "${conv_rss[$name]}" | conv_stat3)
    printf '| %s | %.2f | **%.2f** | %.2f | %.2f | %.0f MB | %.0f |\n' "$name" "$wmin" "$wmed" "$wmax" "$cmed" \
      "$(awk -v k="$rmed" 'BEGIN {print k / 1024}')" "$(awk -v n="$conversion" -v w="$wmed" 'BEGIN {print n / w}')"
  done
  for side in a c; do
    read -r rmin rmed rmax < <(printf '%s' "${conv_ratios[$side]}" | conv_stat3)
    printf '| %s ÷ download, round by round | %.2f× | **%.2f×** | %.2f× | | | |\n' "${conv_name[$side]}" "$rmin" "$rmed" "$rmax"
  done
  rm -rf "$conv/runs"
fi

[ "$quick" -eq 1 ] && { echo; echo "work folder: $work"; exit 0; }
# ---- path -------------------------------------------------------------------------------------
seq 1 100000 | sed 's|^|https://cdn.example.com/images/photo-|; s|$|.jpg?w=640|' > "$work/keys.txt"
prepare() { :; }
measure path sh -c "'$imgwarm' path - < '$work/keys.txt' > /dev/null"
printf '\nimgwarm path - on 100,000 keys: %s s (CPU %s s, %d MB)\n' "${wall[path]}" "${cpu[path]}" $(( rss[path] / 1024 ))

# ---- list reading -----------------------------------------------------------------------------
# Reading a list on its own (issue 31): a dry run of 300,000 lines into a cache that does not
# exist reads, checks, keys and de-duplicates every line and classifies it with one failed stat.
seq 1 300000 | sed 's|^|https://cdn.example.com/images/photo-|; s|$|.jpg?w=640|' > "$work/list300k.txt"
measure "list reading" sh -c "'$imgwarm' prefetch --dry-run --quiet --disk-cache-path '$work/no-cache' '$work/list300k.txt' 2> /dev/null"
printf 'imgwarm prefetch --dry-run of 300,000 lines, no cache: %s s (CPU %s s, %d MB)\n' \
  "${wall[list reading]}" "${cpu[list reading]}" $(( rss["list reading"] / 1024 ))

# ---- clean ------------------------------------------------------------------------------------
if [ "$skip_clean" -eq 0 ]; then
  echo "== clean: a cache of $clean_files files"
  make_cache() {
    rm -rf "$work/clean"; mkdir -p "$work/clean"
    python3 - "$work/clean" "$clean_files" <<'PY'
import os, sys
folder, count = sys.argv[1], int(sys.argv[2])
base = 1_700_000_000
for i in range(count):
    path = os.path.join(folder, "%032x.jpg" % (i * 2654435761 % (1 << 128)))
    with open(path, "wb") as f:
        f.write(b"\xff" * (1000 + (i * 37) % 3000))
    t = base + (i * 7919) % count
    os.utime(path, (t, t))
PY
  }
  make_cache
  sync
  prepare() { :; }
  measure "find | sort (scan only)" sh -c "find '$work/clean' -maxdepth 1 -type f -printf '%A@ %b %p\n' | sort -n > /dev/null"
  measure "imgwarm clean --dry-run" "$imgwarm" clean --disk-cache-path "$work/clean" --max-age never --max-size 300M --dry-run --quiet
  # The shell pipeline deletes exactly as many of the oldest files as imgwarm's trim does.
  trimmed=$("$imgwarm" clean --disk-cache-path "$work/clean" --max-age never --max-size 300M --dry-run --quiet --report - \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["totals"]["removedFiles"])')
  prepare() { make_cache; sync; }
  measure "imgwarm clean (trim)" "$imgwarm" clean --disk-cache-path "$work/clean" --max-age never --max-size 300M --quiet
  prepare() { make_cache; sync; }
  measure "find|sort|rm (trim)" sh -c "find '$work/clean' -maxdepth 1 -type f -printf '%A@ %p\n' | sort -n | head -n $trimmed | cut -d' ' -f2 | xargs rm -f"
  printf '\n%-36s %9s %9s %10s\n' "clean, $clean_files files ($trimmed trimmed)" "wall s" "CPU s" "peak RSS"
  for name in "find | sort (scan only)" "imgwarm clean --dry-run" "imgwarm clean (trim)" "find|sort|rm (trim)"; do
    printf '%-36s %9s %9s %8d MB\n' "$name" "${wall[$name]}" "${cpu[$name]}" $(( ${rss[$name]} / 1024 ))
  done
fi

# ---- memory by list size ----------------------------------------------------------------------
if [ "$skip_memory" -eq 0 ]; then
  echo "== peak memory by list size (URLs all cached, so the run is pure bookkeeping)"
  printf '%-10s %9s %10s\n' lines "wall s" "peak RSS"
  for n in 10000 100000 1000000; do
    rm -rf "$work/mem"; mkdir -p "$work/mem/cache"
    # n keys whose (one-byte) files exist: a hit for every line.
    seq 1 "$n" | sed 's|^|http://127.0.0.1:1/m/|; s|$|.jpg|' > "$work/mem/list.txt"
    "$imgwarm" path --disk-cache-path "$work/mem/cache" - < "$work/mem/list.txt" \
      | python3 -c 'import sys
for line in sys.stdin: open(line.rstrip("\n"), "wb").write(b"x")' 
    /usr/bin/time -f "%e %M" -o "$work/time" "$imgwarm" prefetch --disk-cache-path "$work/mem/cache" --state "$work/mem/state.sqlite" --quiet "$work/mem/list.txt" || true
    read -r e m < "$work/time"
    printf '%-10s %9s %8d MB\n' "$n" "$e" $((m / 1024))
  done
fi
# ---- indexed formats (issue 39) ---------------------------------------------------------------
# The fill and the hits-only pass of sdwebimage, glide, coil and flutter at 100,000 lines and a
# Glide journal of 1,000,000 entries, against touch -a of the same files (scripts/bench-index.sh).
if [ "$skip_index" -eq 0 ]; then
  echo "== indexed formats: fill and hits-only pass (scripts/bench-index.sh)"
  scripts/bench-index.sh --out "$work/index"
fi

# ---- the state database's history (issue 50) ---------------------------------------------------
# A 1,000-line hits-only prefetch whose state remembers 300,000 URLs against the same run without
# that history (scripts/bench-state.sh).
if [ "$skip_state" -eq 0 ]; then
  echo "== the state database's history (scripts/bench-state.sh)"
  scripts/bench-state.sh --imgwarm "$imgwarm" --out "$work/state"
fi

echo
echo "work folder: $work"
