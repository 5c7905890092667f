#!/usr/bin/env bash
# A real scheduler in the tests: starts a one-node Slurm cluster (Debian's slurm-wlm 22.05 and
# munge, which scripts/install-deps.sh installs) whose config, munge key and socket, state, spool,
# logs and pid files are all in a private temporary folder (no systemd, nothing written under
# /etc, /run or /var), serves Tests/Fixtures/images on a loopback port (imgwarm-testserver
# --request-log), and runs an array job of 3 tasks, each `imgwarm prefetch --shard auto` of one
# list of 24 URLs into a cache of its own. Then `imgwarm merge` puts the three caches into one and
# `imgwarm verify` checks it against the list.
#
# The array is --array=0-4:2 (task ids 0, 2, 4): SLURM_ARRAY_TASK_MIN and _STEP matter, so a
# --shard auto that took the task id for the shard number would fail. It passes when every task
# exits 0 and its report names its own shard (task 0: 1/3, task 2: 2/3, task 4: 3/3) and the
# Slurm job array as where it came from (totals.shard.scheduler, with its task id), the shards
# together fetch every URL, the merged cache holds every URL (verify: every key a hit, no miss),
# and the server saw each URL exactly once and nothing else. A second array, --array=1,2,7 (Slurm
# gives its tasks MIN 1, MAX 7, STEP 1, COUNT 3), checks every task refuses --shard auto (exit 2,
# "not evenly spaced") and makes no cache.
#
#   scripts/test-slurm.sh                              # the debug build's binaries, glide
#   scripts/test-slurm.sh --cache-format sdwebimage .build/release
#
# BIN_DIR holds imgwarm and imgwarm-testserver, built beforehand (default: `swift build
# --show-bin-path`, the debug build). --cache-format defaults to glide: a journal, where merge
# writes one index out of three (okhttp, picasso and coil1 prefetch with --freshness 7d, so that
# verify finds their entries fresh).
#
# Exit status: 0 passed; 1 the cluster ran and a check failed; 2 a usage error or a missing
# binary; 77 skipped: the cluster cannot start here (not root, a missing command, a daemon that
# exits or does not bring the node to idle within IMGWARM_SLURM_START_TIMEOUT seconds, default
# 30). A skip prints one line `skipped: REASON` on standard output, saying exactly why
# (scripts/test.sh's slurm stage records it); it is never a pass.
#
# Every daemon, and the server, is this script's own background child, stopped by its PID at the
# end whatever happened (TERM, KILL after 10 s, then waited for); an unfinished job is cancelled
# first. The folder is removed after a pass, and kept otherwise, its path and the logs' tails
# printed on standard error.
#
# Environment: IMGWARM_SLURM_PORT=N uses SlurmctldPort N and SlurmdPort N+1 (default: two free
# ports picked at random in 20000-29999); IMGWARM_SLURM_START_TIMEOUT=SECONDS (default 30).
set -euo pipefail
umask 022
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
  echo "usage: scripts/test-slurm.sh [--cache-format NAME] [BIN_DIR]" >&2
  exit 2
}
format=glide
bin=""
while [ $# -gt 0 ]; do
  case $1 in
    --cache-format)
      [ $# -ge 2 ] || usage
      format=$2
      shift 2
      ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' && exit 0 ;;
    --)
      shift
      break
      ;;
    -*) usage ;;
    *) break ;;
  esac
done
[ $# -le 1 ] || usage
[ $# -eq 0 ] || bin=$1
[[ $format =~ ^[a-z0-9.]+$ ]] || { echo "test-slurm: --cache-format: not a format name: $format" >&2; exit 2; }
start_timeout=${IMGWARM_SLURM_START_TIMEOUT:-30}
[[ $start_timeout =~ ^[1-9][0-9]{0,3}$ ]] || { echo "test-slurm: IMGWARM_SLURM_START_TIMEOUT: not a number of seconds: $start_timeout" >&2; exit 2; }
port=${IMGWARM_SLURM_PORT:-}
if [ -n "$port" ] && { ! [[ $port =~ ^[1-9][0-9]{3,4}$ ]] || [ "$port" -gt 65534 ]; }; then
  echo "test-slurm: IMGWARM_SLURM_PORT: not a port from 1000 to 65534: $port" >&2
  exit 2
fi
if [ -z "$bin" ]; then
  cd "$root"
  source scripts/env.sh
  bin=$(swift build --show-bin-path)
fi
for program in imgwarm imgwarm-testserver; do
  [ -x "$bin/$program" ] || { echo "test-slurm: no $program in $bin (build it first: swift build --product $program)" >&2; exit 2; }
done
bin=$(cd "$bin" && pwd)

started=$EPOCHREALTIME
seconds_since() { awk -v from="$1" -v to="$EPOCHREALTIME" 'BEGIN { printf "%.1f", to - from }'; }
# The skip line goes to standard output, where scripts/test.sh's stage reads it.
skip() {
  echo "skipped: $*"
  exit 77
}

# --- can a cluster start here at all?
[ "$(id -u)" -eq 0 ] || skip "not root: slurmd runs as root here (SlurmdUser=root), and so does this cluster"
for command in munged mungekey slurmctld slurmd sbatch sinfo squeue scancel ps python3 timeout; do
  command -v "$command" >/dev/null || skip "$command is not on PATH (Debian's munge and slurm-wlm, python3 and procps: scripts/install-deps.sh installs them)"
done
node=$(hostname -s 2>/dev/null) || node=""
[[ $node =~ ^[A-Za-z0-9][A-Za-z0-9-]{0,62}$ ]] || skip "hostname -s gives '$node', not a node name slurm.conf can hold"

# Slurm variables of an enclosing job (or SBATCH_* defaults) would change what sbatch does.
while read -r variable; do
  case $variable in SLURM_* | SBATCH_* | SQUEUE_* | SINFO_* | SCANCEL_*) unset "$variable" ;; esac
done < <(compgen -e)
# The other schedulers' task variables (a CI job running this stage under GitLab's parallel, say)
# would reach the tasks through sbatch and make --shard auto refuse two disagreeing schedulers.
unset JOB_COMPLETION_INDEX CI_NODE_INDEX CI_NODE_TOTAL CIRCLE_NODE_INDEX CIRCLE_NODE_TOTAL \
  BUILDKITE_PARALLEL_JOB BUILDKITE_PARALLEL_JOB_COUNT CLOUD_RUN_TASK_INDEX CLOUD_RUN_TASK_COUNT \
  AWS_BATCH_JOB_ARRAY_INDEX
# The loopback server, never a proxy.
unset http_proxy https_proxy all_proxy HTTPS_PROXY ALL_PROXY

work=$(mktemp -d "${TMPDIR:-/tmp}/imgwarm-slurm.XXXXXX") || skip "mktemp -d could not make a private folder in ${TMPDIR:-/tmp}"
declare -A pids=()
job_id=""
job_done=""
sbatch_pid=""

# running PID: the process exists and has not exited (a child that exited stays a zombie until
# waited for, and `kill -0` still sees it).
running() {
  local state
  state=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [[ $state != Z* ]]
}

stop_children() {
  local name pid deadline
  local -a signalled=()
  for name in slurmd slurmctld munged server; do
    pid=${pids[$name]:-}
    [ -n "$pid" ] || continue
    kill -TERM "$pid" 2>/dev/null || true
    signalled+=("$name")
  done
  deadline=$((SECONDS + 10))
  for name in "${signalled[@]}"; do
    pid=${pids[$name]}
    while running "$pid" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.1; done
    if running "$pid"; then
      echo "test-slurm: $name (pid $pid) still runs 10 s after SIGTERM: SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
    unset "pids[$name]"
  done
}

cleanup() {
  local status=$? file deadline
  trap '' INT TERM
  if [ -n "$sbatch_pid" ] && running "$sbatch_pid"; then
    kill -TERM "$sbatch_pid" 2>/dev/null || true
    wait "$sbatch_pid" 2>/dev/null || true
  fi
  # squeue lists the job's tasks until they end (pending, running or completing).
  if [ -n "$job_id" ] && [ -z "$job_done" ] && [ -n "${pids[slurmctld]:-}" ] &&
    [ -n "$(timeout 5 squeue -h -j "$job_id" 2>/dev/null)" ]; then
    echo "test-slurm: cancelling job $job_id" >&2
    timeout 10 scancel "$job_id" 2>/dev/null || true
    deadline=$((SECONDS + 15))
    while [ "$SECONDS" -lt "$deadline" ] && [ -n "$(timeout 5 squeue -h -j "$job_id" 2>/dev/null)" ]; do sleep 0.5; done
  fi
  stop_children
  if [ "$status" -eq 0 ]; then
    rm -rf "$work"
    return
  fi
  for file in "$work"/logs/* "$work"/jobs/* "$work"/sbatch.err; do
    [ -s "$file" ] || continue
    echo "--- ${file#"$work"/} (last 10 lines)" >&2
    tail -n 10 "$file" >&2
  done
  echo "test-slurm: the cluster's folder is kept: $work" >&2
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$work"/{logs,state,spool,run,jobs,caches,reports,status}
mkdir -m 0711 "$work/munge"
# munged refuses a socket folder without execute permission for all.
chmod 0711 "$work"
[[ $work =~ ^[A-Za-z0-9/._-]+$ ]] || skip "the private folder $work (from TMPDIR) has characters slurm.conf cannot hold"
socket=$work/munge/munge.socket.2
[ "${#socket}" -le 100 ] || skip "the munge socket's path would be ${#socket} bytes, over a socket address's 108 (a shorter TMPDIR helps)"

if [ -z "$port" ]; then
  # Two consecutive ports where nothing listens (a connection to them is refused).
  for _ in $(seq 1 50); do
    candidate=$((20000 + RANDOM % 9999))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null &&
      ! (exec 3<>"/dev/tcp/127.0.0.1/$((candidate + 1))") 2>/dev/null; then
      port=$candidate
      break
    fi
  done
  [ -n "$port" ] || skip "no two free consecutive ports found in 20000-29999 in 50 tries"
fi

conf=$work/slurm.conf
: >"$work/plugstack.conf"
cat >"$conf" <<EOF
# A one-node cluster for scripts/test-slurm.sh; everything in $work.
ClusterName=imgwarm
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/logs/slurmctld.log
SlurmdLogFile=$work/logs/slurmd.log
PlugStackConfig=$work/plugstack.conf
# No cgroups, no accounting.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
# sbatch --wait polls after 2 s, 8 s, 32 s unless MinJobAge <= 4; the scheduler waits
# batch_sched_delay (3 s) between starts.
MinJobAge=4
SchedulerParameters=batch_sched_delay=0
NodeName=$node NodeAddr=127.0.0.1 CPUs=2 Sockets=1 CoresPerSocket=2 State=UNKNOWN
PartitionName=imgwarm Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
# The clients read no -f: they find the configuration here (without it they ask DNS).
export SLURM_CONF=$conf

# daemon_exited NAME: NAME's process ended before the node was idle: a skip, saying how and why.
daemon_exited() {
  local name=$1 pid=${pids[$1]} status=0 last
  wait "$pid" || status=$?
  unset "pids[$name]"
  last=$(cat "$work/logs/$name.log" "$work/logs/$name.out" 2>/dev/null | grep -aiE 'error|fatal' | tail -n 1 | tr -d '\r') || true
  skip "$name exited with status $status before node $node was idle${last:+ (its log: $last)}"
}

echo "== a one-node Slurm cluster in $work (ports $port, $((port + 1)))"
mungekey --create --keyfile="$work/munge/munge.key" >"$work/logs/mungekey.out" 2>&1 ||
  skip "mungekey --create failed: $(tail -n 1 "$work/logs/mungekey.out")"
chmod 0600 "$work/munge/munge.key"
munged -F --key-file="$work/munge/munge.key" --socket="$socket" --pid-file="$work/run/munged.pid" \
  --seed-file="$work/munge/munged.seed" --log-file="$work/logs/munged.log" >"$work/logs/munged.out" 2>&1 &
pids[munged]=$!
deadline=$((SECONDS + start_timeout))
until [ -S "$socket" ]; do
  running "${pids[munged]}" || daemon_exited munged
  [ "$SECONDS" -lt "$deadline" ] || skip "munged made no socket at $socket within $start_timeout s"
  sleep 0.05
done
slurmctld -D -f "$conf" >"$work/logs/slurmctld.out" 2>&1 &
pids[slurmctld]=$!
slurmd -D -f "$conf" -N "$node" >"$work/logs/slurmd.out" 2>&1 &
pids[slurmd]=$!
state=""
until [ "$state" = idle ]; do
  for name in munged slurmctld slurmd; do running "${pids[$name]}" || daemon_exited "$name"; done
  [ "$SECONDS" -lt "$deadline" ] || skip "node $node was not idle within $start_timeout s (sinfo says: ${state:-nothing})"
  sleep 0.1
  state=$(timeout 5 sinfo -h -N -n "$node" -o %T 2>"$work/logs/sinfo.err") || state=""
done
echo "   node $node idle after $(seconds_since "$started") s"

# --- from here on the cluster runs: a failed check is a failure.
failures=()
check() {
  echo "   FAILED: $*" >&2
  failures+=("$*")
}

"$bin/imgwarm-testserver" --fixtures "$root/Tests/Fixtures/images" --port-file "$work/server.port" \
  --request-log "$work/requests.log" >"$work/logs/server.log" 2>&1 &
pids[server]=$!
for _ in $(seq 1 100); do [ -s "$work/server.port" ] && break; sleep 0.05; done
[ -s "$work/server.port" ] || { echo "test-slurm: FAILED: imgwarm-testserver did not start" >&2; exit 1; }
server_port=$(cat "$work/server.port")
[[ $server_port =~ ^[0-9]+$ ]] || { echo "test-slurm: FAILED: imgwarm-testserver's port file says '$server_port'" >&2; exit 1; }

images=(photo.jpg gradient.png anim.gif icon.bmp sticker.webp scan.tiff progressive.jpg favicon.ico)
count=24
list=$work/list.txt
for ((n = 0; n < count; n++)); do
  echo "http://127.0.0.1:$server_port/img/${images[n % ${#images[@]}]}?n=$n"
done >"$list"
sed "s#^http://127\.0\.0\.1:$server_port#GET #" "$list" | sort >"$work/expected-requests"

options=(--cache-format "$format")
case $format in okhttp | picasso | coil1) options+=(--freshness 7d) ;; esac
cat >"$work/job.sh" <<'EOF'
#!/bin/bash
# One task of the array: shard auto of the list, into a cache and a report of its own.
# Arguments: IMGWARM WORK LIST PREFETCH-OPTIONS...
imgwarm=$1 work=$2 list=$3
shift 3
task=$SLURM_ARRAY_TASK_ID
echo "task $task: SLURM_ARRAY_TASK_MIN=$SLURM_ARRAY_TASK_MIN SLURM_ARRAY_TASK_STEP=${SLURM_ARRAY_TASK_STEP-unset} SLURM_ARRAY_TASK_COUNT=${SLURM_ARRAY_TASK_COUNT-unset} on $(hostname -s)"
status=0
"$imgwarm" prefetch --shard auto "$@" --cache-dir "$work/caches/task-$task" \
  --report "$work/reports/task-$task.json" "$list" || status=$?
echo "$status" >"$work/status/task-$task"
exit "$status"
EOF
chmod 0755 "$work/job.sh"

echo "== sbatch --wait --array=0-4:2: imgwarm prefetch --shard auto ${options[*]}, $count URLs"
job_started=$EPOCHREALTIME
sbatch_status=0
timeout 300 sbatch --wait --parsable --array=0-4:2 --job-name=imgwarm-shards --chdir="$work" \
  --output="$work/jobs/task-%a.out" --error="$work/jobs/task-%a.err" \
  "$work/job.sh" "$bin/imgwarm" "$work" "$list" "${options[@]}" >"$work/sbatch.out" 2>"$work/sbatch.err" &
sbatch_pid=$!
# Waiting here, not in the foreground, lets a signal's trap run at once.
for _ in $(seq 1 300); do
  [ -s "$work/sbatch.out" ] && break
  running "$sbatch_pid" || break
  sleep 0.1
done
job_id=$(head -n 1 "$work/sbatch.out" 2>/dev/null | cut -d';' -f1) || job_id=""
wait "$sbatch_pid" || sbatch_status=$?
sbatch_pid=""
job_seconds=$(seconds_since "$job_started")
echo "   job ${job_id:-?}: sbatch exited $sbatch_status after $job_seconds s"
if [ "$sbatch_status" -eq 0 ]; then
  job_done=yes
else
  # The end cancels the job if some task still runs.
  if [ "$sbatch_status" -eq 124 ]; then
    check "sbatch --wait: the job was not done in 300 s"
  else
    check "sbatch --wait exited $sbatch_status (the highest exit status of the tasks)"
  fi
fi

# Reads FILE's values at dotted paths, one line each ("null" when absent).
json_fields() {
  python3 - "$@" <<'EOF'
import json, sys
try:
    value = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    value = None
for path in sys.argv[2:]:
    found = value
    for part in path.split("."):
        found = found.get(part) if isinstance(found, dict) else None
    print("null" if found is None else found)
EOF
}

downloaded_total=0
sources=()
shard=1
for task in 0 2 4; do
  sources+=("$work/caches/task-$task")
  status=$(cat "$work/status/task-$task" 2>/dev/null) || status="none (the task did not run to its end)"
  if [ ! -s "$work/reports/task-$task.json" ]; then
    check "task $task exited $status and wrote no report (jobs/task-$task.err says why)"
    shard=$((shard + 1))
    continue
  fi
  mapfile -t fields < <(json_fields "$work/reports/task-$task.json" options.shard totals.lines totals.downloaded \
    totals.otherShard totals.failed totals.shard.scheduler.id totals.shard.scheduler.variables.SLURM_ARRAY_TASK_ID)
  echo "   task $task: exit $status, shard ${fields[0]} (scheduler ${fields[5]}, SLURM_ARRAY_TASK_ID=${fields[6]})," \
    "${fields[2]} downloaded, ${fields[3]} of other shards"
  [ "$status" = 0 ] || check "task $task exited $status"
  [ "${fields[0]}" = "$shard/3" ] || check "task $task's report names shard ${fields[0]}, not $shard/3"
  if [ "${fields[5]}" != slurm ] || [ "${fields[6]}" != "$task" ]; then
    check "task $task's report says its shard came from scheduler ${fields[5]}, SLURM_ARRAY_TASK_ID=${fields[6]}"
  fi
  [ "${fields[1]}" = "$count" ] || check "task $task read ${fields[1]} lines, not $count"
  if [[ ${fields[2]} =~ ^[0-9]+$ && ${fields[3]} =~ ^[0-9]+$ ]]; then
    downloaded_total=$((downloaded_total + fields[2]))
    [ $((fields[2] + fields[3])) -eq "$count" ] || check "task $task: ${fields[2]} downloaded + ${fields[3]} of other shards is not $count"
  fi
  [ "${fields[4]}" = 0 ] || check "task $task: ${fields[4]} failed"
  shard=$((shard + 1))
done
[ "$downloaded_total" -eq "$count" ] || check "the shards downloaded $downloaded_total URLs together, not $count"

echo "== imgwarm merge of the 3 tasks' caches, imgwarm verify of the list"
merge_status=0
"$bin/imgwarm" merge --cache-format "$format" --cache-dir "$work/merged" --report "$work/reports/merge.json" \
  "${sources[@]}" 2>"$work/logs/merge.err" || merge_status=$?
sed 's/^/   /' "$work/logs/merge.err"
[ "$merge_status" -eq 0 ] || check "imgwarm merge exited $merge_status"
verify_status=0
"$bin/imgwarm" verify --quiet --cache-format "$format" --cache-dir "$work/merged" \
  --report "$work/reports/verify.json" "$list" >"$work/reports/verify.txt" 2>&1 || verify_status=$?
mapfile -t fields < <(json_fields "$work/reports/verify.json" totals.keys totals.hits totals.misses totals.stale)
echo "   verify: exit $verify_status, ${fields[0]} keys, ${fields[1]} hits, ${fields[2]} misses, ${fields[3]} stale"
[ "$verify_status" -eq 0 ] || check "imgwarm verify exited $verify_status (its output: $work/reports/verify.txt)"
[ "${fields[1]}" = "$count" ] || check "verify: ${fields[1]} hits, not $count"
[ "${fields[2]}" = 0 ] || check "verify: ${fields[2]} misses"

sort "$work/requests.log" >"$work/requests.sorted"
if cmp -s "$work/expected-requests" "$work/requests.sorted"; then
  echo "   the server saw each of the $count URLs once, and nothing else"
else
  check "the server's requests are not each URL once (< expected, > seen): $(diff "$work/expected-requests" "$work/requests.sorted" | grep '^[<>]' | head -n 5 | tr '\n' ' ')"
fi

# A real array whose indexes are not evenly spaced: every task refuses --shard auto (exit 2,
# naming the Slurm variables) instead of numbering shards from ids 1, 2, 7.
cat >"$work/uneven.sh" <<'EOF'
#!/bin/bash
# Arguments: IMGWARM WORK LIST
echo "SLURM_ARRAY_TASK_ID=$SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_MIN=${SLURM_ARRAY_TASK_MIN-unset} SLURM_ARRAY_TASK_MAX=${SLURM_ARRAY_TASK_MAX-unset} SLURM_ARRAY_TASK_STEP=${SLURM_ARRAY_TASK_STEP-unset} SLURM_ARRAY_TASK_COUNT=${SLURM_ARRAY_TASK_COUNT-unset}"
status=0
"$1" prefetch --shard auto --dry-run --cache-dir "$2/caches/uneven-$SLURM_ARRAY_TASK_ID" "$3" || status=$?
echo "$status" >"$2/status/uneven-$SLURM_ARRAY_TASK_ID"
EOF
chmod 0755 "$work/uneven.sh"
echo "== sbatch --wait --array=1,2,7: imgwarm prefetch --shard auto refuses an array not evenly spaced"
uneven_status=0
timeout 120 sbatch --wait --quiet --array=1,2,7 --job-name=imgwarm-uneven --chdir="$work" \
  --output="$work/jobs/uneven-%a.out" --error="$work/jobs/uneven-%a.err" \
  "$work/uneven.sh" "$bin/imgwarm" "$work" "$list" >"$work/sbatch-uneven.out" 2>&1 || uneven_status=$?
[ "$uneven_status" -ne 124 ] || check "sbatch --wait: the uneven job was not done in 120 s"
for task in 1 2 7; do
  status=$(cat "$work/status/uneven-$task" 2>/dev/null) || status="none"
  echo "   task $task: $(head -n 1 "$work/jobs/uneven-$task.out" 2>/dev/null), exit $status"
  [ "$status" = 2 ] || check "uneven task $task exited $status, not 2"
  grep -q "not evenly spaced" "$work/jobs/uneven-$task.err" 2>/dev/null ||
    check "uneven task $task did not say the array is not evenly spaced (jobs/uneven-$task.err)"
done
[ ! -e "$work/caches/uneven-1" ] || check "an uneven task made its cache folder"

echo "== $(seconds_since "$started") s in all, the array job $job_seconds s"
if [ ${#failures[@]} -gt 0 ]; then
  echo "test-slurm: FAILED: ${#failures[@]} checks" >&2
  exit 1
fi
echo "test-slurm: passed"
