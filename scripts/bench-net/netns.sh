#!/usr/bin/env bash
# A far-away server on this machine, for scripts/bench.sh --rtt: a network namespace joined to
# the host by a link that adds a round-trip time. Needs root, gcc and iproute2.
#
#   scripts/bench-net/netns.sh up RTT_MS   make the namespace and the link (RTT_MS added per round trip)
#   scripts/bench-net/netns.sh down        stop the link, delete the namespace
#   scripts/bench-net/netns.sh status      what is up, and the round trip a TCP connect measures
#
#   host: iwr-h 10.213.78.1/30  <-- delaylink, RTT_MS/2 each way -->  iwr-n 10.213.78.2/30 in netns imgwarm-rtt
#
# The kernel has no sch_netem here, so `tc netem` cannot add the delay; delaylink.c (compiled
# with gcc on first use into .bench/net/) forwards packets between two TUN devices and holds
# each one for RTT_MS/2. Both ends are the kernel's TCP, so connects and slow start pay the
# round trip. Start servers in the namespace with `ip netns exec imgwarm-rtt ...` on 10.213.78.2.
#
# Safety: `up` first adds the route `unreachable 10.213.78.0/30 metric 4242` and never removes
# it, so whenever the link is down, traffic for 10.213.78.2 fails here instead of following the
# default route off the machine. Nothing here uses any other non-loopback address.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
state=${IMGWARM_NET_STATE:-$(cd "$here/../.." && pwd)/.bench/net}
ns=imgwarm-rtt
host_dev=iwr-h; ns_dev=iwr-n
net=10.213.78.0/30; host_addr=10.213.78.1; ns_addr=10.213.78.2
mtu=1500
bin=$state/delaylink
pid_file=$state/delaylink.pid

usage() { sed -n '2,18p' "$0"; exit 2; }

link_pid() {  # prints the pid of our delaylink if it is running
  [ -s "$pid_file" ] || return 1
  local pid; pid=$(cat "$pid_file")
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = delaylink ] && echo "$pid"
}
# (Outputs are captured before matching: with pipefail, `ip ... | grep -q` can fail when grep
# exits before ip has written everything.)
ns_exists() { [ -e "/run/netns/$ns" ]; }   # where `ip netns add` keeps its namespaces
routed_through_link() { local r; r=$(ip route get "$ns_addr" 2>/dev/null) || return 1; [[ "$r" == *" dev $host_dev "* ]]; }
guarded() { [ -n "$(ip route show exact "$net" type unreachable)" ]; }
guard() { guarded || ip route add unreachable "$net" metric 4242; }

connect_ms() {  # median of 5 TCP connects to a closed port: the RST comes back after one round trip
  python3 - "$ns_addr" <<'PY'
import socket, statistics, sys, time
samples = []
for _ in range(5):
    s = socket.socket(); s.settimeout(5)
    start = time.perf_counter()
    try: s.connect((sys.argv[1], 9))
    except ConnectionRefusedError: pass
    samples.append((time.perf_counter() - start) * 1000)
    s.close()
print("%.1f" % statistics.median(samples))
PY
}

up() {
  local rtt=$1
  [[ "$rtt" =~ ^[0-9]+([.][0-9]+)?$ ]] || usage
  guard
  if ns_exists || link_pid >/dev/null; then echo "netns.sh: $ns is already up; run 'netns.sh down' first" >&2; exit 1; fi
  mkdir -p "$state"
  if [ ! -x "$bin" ] || [ "$here/delaylink.c" -nt "$bin" ]; then
    gcc -O2 -Wall -Wextra -pthread -o "$bin.new" "$here/delaylink.c" && mv "$bin.new" "$bin"
  fi
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  rm -f "$pid_file"
  setsid "$bin" --a "$host_dev" --b "$ns_dev" --rtt-ms "$rtt" --pid-file "$pid_file" \
    </dev/null >"$state/delaylink.log" 2>&1 &
  for _ in $(seq 1 50); do link_pid >/dev/null && break; sleep 0.1; done
  link_pid >/dev/null || { cat "$state/delaylink.log" >&2; ip netns del "$ns"; exit 1; }
  ip link set "$ns_dev" netns "$ns"
  sysctl -qw "net.ipv6.conf.$host_dev.disable_ipv6=1" || true
  ip link set "$host_dev" mtu "$mtu" txqueuelen 10000 up
  ip addr add "$host_addr/30" dev "$host_dev"
  ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$ns_dev.disable_ipv6=1" || true
  ip -n "$ns" link set "$ns_dev" mtu "$mtu" txqueuelen 10000 up
  ip -n "$ns" addr add "$ns_addr/30" dev "$ns_dev"
  # The namespace's own TCP settings. The default send buffer ceiling (4 MB, skb overhead
  # included) holds about one 40 ms round trip at 50 MB/s, so one connection from a server in
  # here would be limited by its send buffer rather than by the link; 16 MB lifts that.
  ip netns exec "$ns" sysctl -qw net.ipv4.tcp_wmem="4096 16384 16777216"
  routed_through_link || { echo "netns.sh: $ns_addr is not routed through $host_dev; taking it down" >&2; down; exit 1; }
  echo "netns.sh: $host_dev $host_addr <-> $ns_dev $ns_addr (netns $ns), +$rtt ms per round trip, delaylink pid $(link_pid)"
}

down() {
  local pid
  if pid=$(link_pid); then
    kill -TERM "$pid"
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    tail -n 2 "$state/delaylink.log" | sed 's/^/netns.sh: /'
  fi
  if ns_exists; then
    # Only what was started inside our namespace runs there (nginx from scripts/bench.sh).
    for pid in $(ip netns pids "$ns"); do kill -TERM "$pid" 2>/dev/null || true; done
    ip netns del "$ns"
  fi
  rm -f "$pid_file"
  echo "netns.sh: $ns down (the guard route for $net stays)"
}

status() {
  if ns_exists; then echo "netns $ns: present"; else echo "netns $ns: absent"; fi
  local pid
  if pid=$(link_pid); then echo "delaylink: pid $pid ($(head -n 1 "$state/delaylink.log"))"; else echo "delaylink: not running"; fi
  if guarded; then echo "guard route: unreachable $net metric 4242"; else echo "guard route: missing"; fi
  if routed_through_link; then
    echo "TCP connect to $ns_addr (median of 5): $(connect_ms) ms"
    echo "congestion control in $ns: $(ip netns exec "$ns" sysctl -n net.ipv4.tcp_congestion_control)"
  fi
}

[ "$(id -u)" -eq 0 ] || { echo "netns.sh: needs root" >&2; exit 1; }
case "${1:-}" in
  up) [ $# -eq 2 ] || usage; up "$2" ;;
  down) down ;;
  status) status ;;
  *) usage ;;
esac
