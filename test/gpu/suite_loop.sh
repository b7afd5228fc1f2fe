#!/usr/bin/env bash
# Runs the GPU test suite (ctest -L gpu) again and again on an H100 80GB HBM3, with a crash handler
# preloaded into every test process (test/gpu/crash_backtrace.c: signal, address, backtrace), and
# counts the runs, failures and crashes. Intermittent crashes show up here, not in a single run.
#
#   test/gpu/suite_loop.sh BUILD_DIR RUNS [SECONDS] [LOG_DIR] [CTEST_ARGS...]
#
# Stops after RUNS suite runs or once SECONDS have passed (no new run starts after that). Logs go
# to LOG_DIR (default BUILD_DIR/suite_loop): the log of each failed run and crashes.txt with every
# backtrace.
set -uo pipefail
build="${1:?usage: suite_loop.sh BUILD_DIR RUNS [SECONDS] [LOG_DIR] [CTEST_ARGS...]}"
runs="${2:?usage: suite_loop.sh BUILD_DIR RUNS [SECONDS] [LOG_DIR] [CTEST_ARGS...]}"
budget="${3:-0}"
logs="${4:-$build/suite_loop}"
shift $(($# < 4 ? $# : 4))
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$logs"
build="$(cd "$build" && pwd)"
handler="$build/crash_backtrace.so"
cc -shared -fPIC -O1 -g -o "$handler" "$root/test/gpu/crash_backtrace.c" || exit 2
export CRASH_LOG="$logs/crashes.txt"
start=$SECONDS
done_runs=0 failed_runs=0 crashed_runs=0
for ((i = 1; i <= runs; ++i)); do
  if ((budget > 0 && SECONDS - start >= budget)); then
    break
  fi
  log="$logs/run$i.log"
  t0=$SECONDS
  LD_PRELOAD="$handler" ctest --test-dir "$build" -L gpu --output-on-failure "$@" >"$log" 2>&1
  rc=$?
  summary="$(grep -E 'tests passed|No tests were found' "$log" | tail -1)"
  crash=""
  if grep -qE '=== CRASH|SEGFAULT|Child aborted|Exception: ' "$log"; then
    crash=" CRASH"
    crashed_runs=$((crashed_runs + 1))
  fi
  ((rc != 0)) && failed_runs=$((failed_runs + 1))
  done_runs=$((done_runs + 1))
  echo "run $i: rc $rc, $((SECONDS - t0)) s: ${summary:-no summary}${crash}"
  grep -E '(Failed|SEGFAULT|Exception|Child aborted|Timeout) ' "$log" | sed 's/^/    /'
  ((rc == 0)) && [[ -z "$crash" ]] && rm -f "$log" # keep the logs of failed runs only
done
echo "suite_loop: $done_runs runs, $failed_runs failed, $crashed_runs with a crash"
[[ -s "$CRASH_LOG" ]] && echo "suite_loop: backtraces in $CRASH_LOG"
exit $((crashed_runs > 0 || failed_runs > 0))
