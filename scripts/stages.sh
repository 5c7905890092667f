# Stages with verdicts, for scripts/test.sh (sourced): each stage runs whatever the others did,
# and `report_stages` ends the output with one verdict line a stage, then the totals, and
# returns 1 when any stage failed. A skipped stage says why and is never counted as passed.
#   stage NAME COMMAND...     runs COMMAND; passed or failed by its exit status
#   stage_or_skip NAME COMMAND...
#                             the same, but a COMMAND that exits 77 (automake's "skipped") is
#                             recorded as skipped, for the reason its last standard-output line
#                             `skipped: REASON` gives (failed without one): for a stage that
#                             finds out only by trying that it cannot run here (test-slurm.sh)
#   skip_stage NAME REASON    records NAME as skipped
#   stage_failed NAME...      true when one of the NAMEs failed
#   report_stages             the verdicts; 1 when any stage failed

stage_names=()
stage_verdicts=()

stage() {
  local name=$1
  shift
  echo "== stage $name: $*"
  "$@"
  local status=$?
  stage_names+=("$name")
  if [ "$status" -eq 0 ]; then stage_verdicts+=("passed"); else stage_verdicts+=("failed (exit $status)"); fi
  return 0
}

stage_or_skip() {
  local name=$1 output status reason
  shift
  echo "== stage $name: $*"
  output=$(mktemp "${TMPDIR:-/tmp}/stage-output.XXXXXX") || output=/dev/null
  # Standard output through tee (for the reason), standard error as it is.
  "$@" | tee "$output"
  status=${PIPESTATUS[0]}
  stage_names+=("$name")
  reason=$(sed -n 's/^skipped: //p' "$output" | tail -n 1)
  if [ "$status" -eq 77 ] && [ -n "$reason" ]; then
    stage_verdicts+=("skipped ($reason)")
  elif [ "$status" -eq 77 ]; then
    stage_verdicts+=("failed (exit 77 without a 'skipped: REASON' line)")
  elif [ "$status" -eq 0 ]; then
    stage_verdicts+=("passed")
  else
    stage_verdicts+=("failed (exit $status)")
  fi
  [ "$output" = /dev/null ] || rm -f "$output"
  return 0
}

skip_stage() {
  stage_names+=("$1")
  stage_verdicts+=("skipped ($2)")
}

stage_failed() {
  local name index
  for name in "$@"; do
    for index in "${!stage_names[@]}"; do
      [ "${stage_names[$index]}" = "$name" ] && [[ "${stage_verdicts[$index]}" == failed* ]] && return 0
    done
  done
  return 1
}

report_stages() {
  local index passed=0 failed=0 skipped=0
  echo
  echo "== verdicts"
  for index in "${!stage_names[@]}"; do
    printf 'stage %-8s %s\n' "${stage_names[$index]}" "${stage_verdicts[$index]}"
    case "${stage_verdicts[$index]}" in
      passed) passed=$((passed + 1)) ;;
      failed*) failed=$((failed + 1)) ;;
      *) skipped=$((skipped + 1)) ;;
    esac
  done
  echo "stages: $passed passed, $failed failed, $skipped skipped"
  [ "$failed" -eq 0 ]
}
