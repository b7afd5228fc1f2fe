#!/usr/bin/env bash
# Prints why each skipped test was skipped, grouped by reason, from CTest's log of the last run
# (BUILD/Testing/Temporary/LastTest.log). ctest's own summary says only "(Skipped)".
# Usage: test/skip_summary.sh BUILD_DIR
set -euo pipefail
log="${1:?usage: skip_summary.sh BUILD_DIR}/Testing/Temporary/LastTest.log"
[ -f "$log" ] || exit 0
awk '
  / Testing: / { name = $3; reason = ""; last = ""; next_is_reason = 0; in_out = 0; next }
  /^Output:$/ { in_out = 1; next }
  /^<end of output>$/ { in_out = 0; next }
  in_out && next_is_reason { reason = $0; next_is_reason = 0; next }
  in_out && /: Skipped$/ { if (reason == "") next_is_reason = 1; next }
  in_out && /^SKIPPED / { if (reason == "") reason = substr($0, 9); next }
  in_out && /^SKIP: / { if (reason == "") reason = substr($0, 7); next }
  in_out && NF { last = $0 }
  /Skip regular expression found|Skip return code/ {
    if (reason == "") reason = (last != "" ? substr(last, 1, 160) : "(the test printed no reason)")
    count[reason]++
    names[reason] = names[reason] (count[reason] <= 4 ? " " name : "")
    total++
  }
  END {
    if (total == 0) exit
    printf "%d test(s) skipped, by reason:\n", total
    for (r in count) {
      more = count[r] > 4 ? sprintf(" ... and %d more", count[r] - 4) : ""
      printf "  %3d  %s\n       %s%s\n", count[r], r, names[r], more
    }
  }' "$log"
