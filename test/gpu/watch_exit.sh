#!/usr/bin/env bash
# Runs a command with its output in LOG and exits as it does -- unless it hangs: once LOG holds
# the program's last line (RESULT_LINE, an extended regular expression: "^result:" unless set) and
# the command has not exited EXIT_S seconds later (or it runs past LIMIT_S in all), every thread of every process in its tree is written to LOG.stacks
# (where it waits in the kernel, and its backtrace where gdb or cuda-gdb can attach), the tree is
# killed, and the script says so and exits 124. A program that does not end is the failure this
# catches; the stacks are what says why.
#   watch_exit.sh LOG LIMIT_S COMMAND...        (EXIT_S: 30, RESULT_LINE: ^result: unless set)
set -uo pipefail
log="$1"
limit="$2"
shift 2
exit_s="${EXIT_S:-30}"
marker="${RESULT_LINE:-^result:}"
# The program keeps this script's standard input (a background job would get /dev/null).
exec 3<&0
"$@" <&3 3<&- >"$log" 2>&1 &
pid=$!
exec 3<&-
start=$SECONDS
result_at=""
while kill -0 "$pid" 2>/dev/null; do
  if [[ -z "$result_at" ]] && grep -qE "$marker" "$log" 2>/dev/null; then
    result_at=$SECONDS
  fi
  if { [[ -n "$result_at" ]] && ((SECONDS - result_at > exit_s)); } || ((SECONDS - start > limit)); then
    tree() { echo "$1"; for c in $(pgrep -P "$1"); do tree "$c"; done; }
    pids=$(tree "$pid")
    debugger=$(command -v gdb || command -v cuda-gdb || true)
    {
      for p in $pids; do
        echo "== process $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-200)"
        for t in /proc/"$p"/task/*; do
          echo "thread ${t##*/} $(cat "$t/comm" 2>/dev/null) waits in $(cat "$t/wchan" 2>/dev/null)"
        done
        [[ -n "$debugger" ]] &&
          timeout 60 "$debugger" -batch -p "$p" -ex "thread apply all bt 30" 2>&1 | grep -v "^\[New LWP"
      done
    } >"$log.stacks" 2>&1
    for p in $pids; do kill -9 "$p" 2>/dev/null; done
    wait "$pid" 2>/dev/null
    if [[ -n "$result_at" ]]; then
      echo "HANG: the program printed its result and had not exited $exit_s s later; its threads' stacks: $log.stacks"
    else
      echo "HANG: still running after $limit s; its threads' stacks: $log.stacks"
    fi
    exit 124
  fi
  sleep 1
done
wait "$pid"
