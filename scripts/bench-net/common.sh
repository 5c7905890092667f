# shellcheck shell=bash disable=SC2034,SC2154
# Sourced by scripts/bench.sh and scripts/bench-formats.sh: what their benchmarks share, so that
# both serve the same files from the same server in the same way. Not a script of its own.
#
#   bench_install PACKAGE...   installs Debian's packages (as root, else through sudo); none: nothing
#   bench_build_imgwarm        builds imgwarm as scripts/install.sh does; sets imgwarm to the binary
#   bench_corpus               the 200 images, generated once (deterministically) under $bench/corpus;
#                              sets corpus and sources (their names, in order)
#   bench_site N               N files (hard links to the corpus, in turn) under $bench/site-N/img;
#                              sets site and total_bytes
#   bench_server_start         serves $site on $host:$port1 (HTTP/1.1) and $host:$port2 (HTTPS and
#                              HTTP/2, the certificate $ngx/cert.pem); with $rtt, from the network
#                              namespace behind the delayed link (scripts/bench-net/netns.sh up)
#   bench_server_stop          stops that server by its pid and, if bench_server_start made the
#                              namespace, takes it down (netns.sh down); for an EXIT trap, and safe
#                              to call again
#
# The caller sets root (the repository), bench ($root/.bench), and before bench_server_start:
# ngx (a folder of its own for the server's configuration, certificate, pid and logs), rtt
# (milliseconds, or empty for loopback), server (nginx, or node for scripts/bench-net/server.mjs)
# and optionally server_locations (more nginx locations: bench.sh's link files, bench-formats.sh's
# request count; node's server ignores them). bench_server_start sets host, port1, port2 and in_ns
# (the command prefix that runs in the namespace, or nothing). (Hence the shellcheck line above:
# SC2154, variables the caller sets; SC2034, variables set for the caller.)

bench_netns_ours=0

bench_install() {
  [ $# -gt 0 ] || return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "$@"
}

bench_build_imgwarm() {  # from the repository's folder, as the scripts run
  # shellcheck source=scripts/env.sh
  source "$root/scripts/env.sh"
  # Built as scripts/install.sh and the .deb build it (the Swift runtime linked in, symbols
  # bound at start): what users run, and 3 MB less resident memory than a build that loads the
  # runtime's shared libraries from /opt/swift.
  echo "== building imgwarm (release, as scripts/install.sh builds it)"
  swift build -c release --static-swift-stdlib --disable-local-rpath -Xlinker -z -Xlinker now \
    --product imgwarm 2>&1 | tail -n 1
  imgwarm="$(swift build -c release --show-bin-path)/imgwarm"
}

# 200 distinct images in the mix of a CDN: 150 JPEG, 20 PNG, 20 WebP, 8 GIF, 2 large JPEGs.
bench_corpus() {
  corpus=$bench/corpus
  local C=/usr/bin/convert-im6.q16 i
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
  mapfile -t sources < <(find "$corpus" -mindepth 1 -maxdepth 1 -type f ! -name '.*' -printf '%f\n' | sort -n)
}

# The site: N files, hard links to the corpus (needs bench_corpus first).
bench_site() {
  local files=$1 i src
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
}

# nginx, on loopback or behind the delayed link. Port 1 speaks HTTP/1.1, port 2 HTTPS with HTTP/2
# (http2_max_concurrent_streams 256, not nginx's default 128). The self-signed certificate is the
# test CA every tool is told to trust.
bench_server_start() {
  mkdir -p "$ngx/logs" "$ngx/tmp"
  rm -f "$ngx/nginx.pid"   # a folder given with --out may hold one from an earlier run
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$ngx/key.pem" -out "$ngx/cert.pem" -days 2 \
    -subj /CN=imgwarm-bench -addext subjectAltName=IP:127.0.0.1,IP:10.213.78.2 2>/dev/null
  in_ns=()
  if [ -n "$rtt" ]; then
    # The namespace is ours alone, so fixed ports; the address is the one netns.sh gives it. One
    # that is up already is another run's: left alone (bench_server_stop takes down only ours).
    host=10.213.78.2; port1=8080; port2=8443
    if [ -e /run/netns/imgwarm-rtt ]; then
      echo "the network namespace imgwarm-rtt is up already (another benchmark's?); 'scripts/bench-net/netns.sh down' takes it down" >&2
      exit 1
    fi
    bench_netns_ours=1
    "$root/scripts/bench-net/netns.sh" up "$rtt"
    in_ns=(ip netns exec imgwarm-rtt)
  else
    host=127.0.0.1; port1=$((20000 + RANDOM % 20000)); port2=$((port1 + 1))
  fi
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
  server { listen $host:$port1; root $site; ${server_locations:-} }
  server { listen $host:$port2 ssl http2; root $site; ${server_locations:-}
           ssl_certificate $ngx/cert.pem; ssl_certificate_key $ngx/key.pem; http2_max_concurrent_streams 256; }
}
NGINX
  if [ "${server:-nginx}" = node ]; then
    "${in_ns[@]}" node "$root/scripts/bench-net/server.mjs" "$site" "$bench" "$host" "$port1" "$port2" \
      "$ngx/cert.pem" "$ngx/key.pem" 2>"$ngx/logs/error.log" &
    echo $! > "$ngx/nginx.pid"
    sleep 1
  else
    "${in_ns[@]}" nginx -c "$ngx/nginx.conf" -p "$ngx"
    sleep 0.3
  fi
}

# Stops the server (waiting for it, so the namespace empties) and takes the delayed link down
# (netns.sh leaves its guard route in place; it prints the packets forwarded and dropped).
bench_server_stop() {
  if [ -n "${ngx:-}" ] && [ -s "$ngx/nginx.pid" ]; then
    local pid
    pid=$(cat "$ngx/nginx.pid")
    kill -TERM "$pid" 2>/dev/null || true   # nginx's master: what nginx -s stop sends it
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$ngx/nginx.pid"
  fi
  if [ "$bench_netns_ours" -eq 1 ]; then
    "$root/scripts/bench-net/netns.sh" down 2>&1 | sed 's/^/   /' || true
    bench_netns_ours=0
  fi
}
