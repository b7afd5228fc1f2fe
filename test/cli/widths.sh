#!/usr/bin/env bash
# Every line `roofline report --host` prints fits the width it was given: the header, the
# platform lines, the kernel table and the host table with their notes, at 80 and 120 columns;
# and with no $COLUMNS and no terminal (output into a pipe, no controlling terminal), 100. Each
# report must succeed and print both tables.
#   widths.sh ROOFLINE FIXTURE_DIR
set -uo pipefail
R="$1"
fixtures="$2"
fail=0
longest() { awk '{ if (length($0) > n) { n = length($0); line = $0 } } END { print n + 0 "\t" line }'; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# The report into $out; a failed report, or one with no kernel and no host table, fails the row.
report() {
  local what="$1"
  shift
  "$@" >"$out" 2>&1
  local rc=$?
  if ((rc != 0)); then
    echo "FAIL: $what: the report exited with status $rc: $(head -3 "$out")"; fail=1; return 1
  fi
  if ! grep -Eq "^ +# +kernel " "$out" || ! grep -q "^host time per scope" "$out"; then
    echo "FAIL: $what: no kernel table and host table in $(wc -l <"$out") lines"; fail=1; return 1
  fi
}
for f in h100_host_step h200_host_steady h100_torch_ops h100_torch_transformer h100_train_step; do
  for w in 80 120; do
    report "$f at $w columns" env COLUMNS=$w "$R" report "$fixtures/$f.rfl" --host || continue
    read -r n line < <(longest <"$out")
    if ((n > w)); then
      echo "FAIL: $f at $w columns: a line of $n: $line"; fail=1
    fi
  done
  report "$f in a pipe" env -u COLUMNS setsid "$R" report "$fixtures/$f.rfl" --host || continue
  read -r n line < <(longest <"$out")
  if ((n > 100)); then
    echo "FAIL: $f in a pipe without a terminal: a line of $n (want 100): $line"; fail=1
  fi
done
[[ $fail == 0 ]] && echo "report --host: every line fits 80, 120, and 100 in a pipe without a terminal"
exit $fail
