#!/usr/bin/env bash
# Benchmarks imgwarm against curl --parallel, wget2 and aria2c on the same list and the same nginx
# on loopback, and times clean, path and the fully cached second run. Not a test; CI never runs it.
#
#   scripts/bench.sh [--files N] [--concurrency C] [--runs R] [--protocol http1|h2|both|none]
#                    [--output-fs disk|tmpfs] [--out DIR] [--imgwarm BINARY]
#                    [--clean-files N] [--skip-clean] [--skip-memory]
#
# --imgwarm BINARY benchmarks that binary instead of building one with `swift build -c release`.
#
# Needs root (or sudo) once to install nginx, aria2, wget2, curl, ImageMagick from Debian's packages.
# The image corpus is generated once (deterministically) under .bench/ and reused.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

files=10000
concurrency=16
imgwarm=""
runs=3
protocol=both
out=""
clean_files=200000
skip_clean=0
skip_memory=0
output_fs=disk
while [ $# -gt 0 ]; do
  case "$1" in
    --files) files=$2; shift 2 ;;
    --concurrency) concurrency=$2; shift 2 ;;
    --imgwarm) imgwarm=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --protocol) protocol=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --clean-files) clean_files=$2; shift 2 ;;
    --skip-clean) skip_clean=1; shift ;;
    --skip-memory) skip_memory=1; shift ;;
    --output-fs) output_fs=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

# ---- dependencies -------------------------------------------------------------------------
need=()
command -v nginx >/dev/null || need+=(nginx-light)
command -v aria2c >/dev/null || need+=(aria2)
command -v wget2 >/dev/null || need+=(wget2)
command -v curl >/dev/null || need+=(curl)
[ -x /usr/bin/convert-im6.q16 ] || need+=(imagemagick)
[ -x /usr/bin/time ] || need+=(time)
command -v openssl >/dev/null || need+=(openssl)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${need[@]}"
fi
bash scripts/install-deps.sh >/dev/null

if [ -z "$imgwarm" ]; then
  source scripts/env.sh
  echo "== building imgwarm (release)"
  swift build -c release --product imgwarm 2>&1 | tail -n 1
  imgwarm="$(swift build -c release --show-bin-path)/imgwarm"
fi
[ -x "$imgwarm" ] || { echo "no imgwarm binary at $imgwarm" >&2; exit 2; }

bench=$root/.bench
work=${out:-$(mktemp -d "${TMPDIR:-/tmp}/imgwarm-bench.XXXXXX")}
mkdir -p "$bench" "$work"
if [ "$output_fs" = tmpfs ]; then
  mkdir -p "$work/runs"
  mount -t tmpfs -o size=8g tmpfs "$work/runs" || { echo "--output-fs tmpfs needs root" >&2; exit 2; }
fi

# ---- corpus ---------------------------------------------------------------------------------
# 200 distinct images in the mix of a CDN: 150 JPEG, 20 PNG, 20 WebP, 8 GIF, 2 large JPEGs.
corpus=$bench/corpus
C=/usr/bin/convert-im6.q16
if [ ! -f "$corpus/.done" ]; then
  echo "== generating the image corpus (once)"
  rm -rf "$corpus"; mkdir -p "$corpus"
  for i in $(seq 0 149); do $C -seed $((i + 1)) -size 360x270 plasma:fractal -blur 0x1.5 -quality 82 -strip "$corpus/$i.jpg"; done
  for i in $(seq 150 169); do $C -seed $((i + 1)) -size 220x220 plasma:fractal -blur 0x6 -colors 64 -strip "$corpus/$i.png"; done
  for i in $(seq 170 189); do $C -seed $((i + 1)) -size 400x300 plasma:fractal -blur 0x2 -quality 80 "$corpus/$i.webp"; done
  for i in $(seq 190 197); do $C -seed $((i + 1)) -size 160x120 plasma:fractal -blur 0x4 -colors 32 "$corpus/$i.gif"; done
  for i in 198 199; do $C -seed $((i + 1)) -size 2400x1800 plasma:fractal -quality 90 -strip "$corpus/$i.jpg"; done
  touch "$corpus/.done"
fi
sources=($(cd "$corpus" && ls | sort -n))

# ---- site: N files, hard links to the corpus ---------------------------------------------
site=$bench/site-$files
if [ ! -f "$site/.done" ]; then
  rm -rf "$site"; mkdir -p "$site/img"
  for i in $(seq 0 $((files - 1))); do
    src=${sources[$((i % ${#sources[@]}))]}
    ln "$corpus/$src" "$site/img/$i.${src##*.}"
  done
  touch "$site/.done"
fi
total_bytes=$(find "$site/img" -type f -printf '%s\n' | awk '{s += $1} END {print s}')
echo "== $files files, $((total_bytes / files)) bytes on average"

# ---- nginx on loopback ------------------------------------------------------------------------
ngx=$work/nginx; mkdir -p "$ngx/logs"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$ngx/key.pem" -out "$ngx/cert.pem" -days 2 \
  -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null
port1=$((20000 + RANDOM % 20000)); port2=$((port1 + 1))
cat > "$ngx/nginx.conf" <<NGINX
worker_processes 2;
pid $ngx/nginx.pid;
error_log $ngx/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on; tcp_nopush on; tcp_nodelay on;
  keepalive_requests 1000000; keepalive_timeout 60;
  types { image/jpeg jpg; image/png png; image/webp webp; image/gif gif; }
  client_body_temp_path $ngx/tmp; proxy_temp_path $ngx/tmp; fastcgi_temp_path $ngx/tmp; uwsgi_temp_path $ngx/tmp; scgi_temp_path $ngx/tmp;
  server { listen 127.0.0.1:$port1; root $site; }
  server { listen 127.0.0.1:$port2 ssl http2; root $site;
           ssl_certificate $ngx/cert.pem; ssl_certificate_key $ngx/key.pem; http2_max_concurrent_streams 256; }
}
NGINX
mkdir -p "$ngx/tmp"
nginx -c "$ngx/nginx.conf" -p "$ngx"
trap 'nginx -c "$ngx/nginx.conf" -p "$ngx" -s stop 2>/dev/null || true; [ "$output_fs" = tmpfs ] && umount "$work/runs" 2>/dev/null || true' EXIT
sleep 0.3

# ---- helpers ----------------------------------------------------------------------------------
# measure NAME CMD...: runs CMD once to warm up, then $runs times; prints the median wall time,
# CPU time and peak RSS. Each run gets a fresh $dest (set by the caller's prepare function).
declare -A wall cpu rss
# Each run writes into a new folder (reached through the symlink $work/out-TOOL): deleting and
# recreating 10,000 files in one place makes ext4's inode allocator skip the recently deleted
# inodes one by one, which would measure the file system's history rather than the tool.
run_serial=0
fresh() {  # fresh TOOL: points $work/out-TOOL at a new, empty folder
  run_serial=$((run_serial + 1))
  mkdir -p "$work/runs/$1-$run_serial"
  [ -L "$work/out-$1" ] || rm -rf "$work/out-$1"
  ln -sfn "$work/runs/$1-$run_serial" "$work/out-$1"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
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

table() {
  local title=$1; shift
  printf '\n%s\n' "$title"
  printf '%-22s %9s %9s %10s %9s %9s\n' tool "wall s" "CPU s" "peak RSS" "files/s" "vs curl"
  local base=${wall[curl]}
  for name in "$@"; do
    local w=${wall[$name]}
    printf '%-22s %9s %9s %8d MB %9s %9s\n' "$name" "$w" "${cpu[$name]}" $(( ${rss[$name]} / 1024 )) \
      "$(awk -v f="$files" -v w="$w" 'BEGIN {printf "%.0f", f / w}')" "$(awk -v w="$w" -v b="$base" 'BEGIN {printf "%.2f", w / b}')"
  done
}

run_protocol() {
  local proto=$1 base scheme extra_curl=() extra_aria=() extra_imgwarm=() extra_wget2=()
  if [ "$proto" = http1 ]; then base="http://127.0.0.1:$port1"; extra_curl=(--http1.1)
  else base="https://127.0.0.1:$port2"; extra_curl=(--cacert "$ngx/cert.pem"); extra_aria=(--ca-certificate="$ngx/cert.pem")
       extra_imgwarm=(--cacert "$ngx/cert.pem"); extra_wget2=(--ca-certificate="$ngx/cert.pem"); fi
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

  echo "== $proto: $files URLs, concurrency $concurrency, $runs rounds after a warm-up round (tools interleaved)"
  local cmd_imgwarm=("$imgwarm" prefetch --concurrency "$concurrency" --disk-cache-path "$work/out-imgwarm/cache"
      --state "$work/out-imgwarm/state.sqlite" --quiet "${extra_imgwarm[@]}" "$list")
  local cmd_curl=(curl --parallel --parallel-max "$concurrency" -s "${extra_curl[@]}" -K "$curlcfg")
  # wget2 saves each URL under its basename in -P's folder and speaks HTTP/2 over TLS by itself.
  # The --no-* flags switch off work the others do not do: reading ~/.wget2rc, the HSTS/HPKP/OCSP
  # databases in ~ (--no-local-db, no .wget-hsts written), OCSP lookups, robots.txt, extended
  # attributes and the server's timestamps on every file. Its progress display is off by default.
  local cmd_wget2=(wget2 --max-threads "$concurrency" -q --no-config --no-local-db --no-hsts --no-hpkp --no-ocsp --no-robots
      --no-xattr --no-use-server-timestamps --progress=none -P "$work/out-wget2" "${extra_wget2[@]}" -i "$list")
  local cmd_aria=(aria2c -j "$concurrency" -i "$aria" -d "$work/out-aria2c" --quiet --allow-overwrite=true
      --auto-file-renaming=false --file-allocation=none --console-log-level=error "${extra_aria[@]}")
  declare -A samples_wall samples_cpu samples_rss
  for r in $(seq 0 "$runs"); do
    for tool in imgwarm curl wget2 aria2c "imgwarm (all cached)"; do
      case "$tool" in
        imgwarm) fresh imgwarm; cmd=("${cmd_imgwarm[@]}") ;;
        curl) fresh curl; cmd=("${cmd_curl[@]}") ;;
        wget2) fresh wget2; cmd=("${cmd_wget2[@]}") ;;
        aria2c) fresh aria2c; cmd=("${cmd_aria[@]}") ;;
        *) cmd=("${cmd_imgwarm[@]}") ;;   # the same cache again: every URL is a hit
      esac
      /usr/bin/time -f "%e %U %S %M" -o "$work/time" "${cmd[@]}" >/dev/null 2>"$work/stderr" || { echo "$tool failed:"; tail -5 "$work/stderr"; }
      read -r e u s m < "$work/time"
      [ "$r" -eq 0 ] && continue
      samples_wall[$tool]+="$e "; samples_cpu[$tool]+="$(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.2f", u + s}') "; samples_rss[$tool]+="$m "
    done
  done
  for tool in imgwarm curl wget2 aria2c "imgwarm (all cached)"; do
    wall[$tool]=$(printf '%s\n' ${samples_wall[$tool]} | median)
    cpu[$tool]=$(printf '%s\n' ${samples_cpu[$tool]} | median)
    rss[$tool]=$(printf '%s\n' ${samples_rss[$tool]} | median)
  done
  verify imgwarm "$imgexp"
  verify curl <(sed "s|out-TOOL|out-curl|" "$plain")
  verify wget2 <(sed "s|out-TOOL|out-wget2|" "$plain")
  verify aria2c <(sed "s|out-TOOL|out-aria2c|" "$plain")
  table "Results ($proto, $files files, concurrency $concurrency; median of $runs)" imgwarm curl wget2 aria2c "imgwarm (all cached)"
  rm -rf "$work/runs"/*
}

case "$protocol" in
  http1) run_protocol http1 ;;
  h2) run_protocol h2 ;;
  both) run_protocol http1; run_protocol h2 ;;
  none) ;;
esac

# ---- path -------------------------------------------------------------------------------------
seq 1 100000 | sed 's|^|https://cdn.example.com/images/photo-|; s|$|.jpg?w=640|' > "$work/keys.txt"
prepare() { :; }
measure path sh -c "'$imgwarm' path - < '$work/keys.txt' > /dev/null"
printf '\nimgwarm path - on 100,000 keys: %s s (CPU %s s, %d MB)\n' "${wall[path]}" "${cpu[path]}" $(( ${rss[path]} / 1024 ))

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
echo
echo "work folder: $work"
