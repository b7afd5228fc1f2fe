#!/usr/bin/env bash
# Every line `roofline report --host` prints fits the width it was given: the header, the
# platform lines, the kernel table and the host table with their notes, at 80 and 120 columns;
# and with no $COLUMNS and no terminal (output into a pipe, no controlling terminal), 100.
#   widths.sh ROOFLINE FIXTURE_DIR
set -uo pipefail
R="$1"
fixtures="$2"
fail=0
longest() { awk '{ if (length($0) > n) { n = length($0); line = $0 } } END { print n + 0 "\t" line }'; }
for f in h100_host_step h200_host_steady h100_torch_ops h100_torch_transformer h100_train_step; do
  for w in 80 120; do
    read -r n line < <(COLUMNS=$w "$R" report "$fixtures/$f.rfl" --host 2>&1 | longest)
    if ((n > w)); then
      echo "FAIL: $f at $w columns: a line of $n: $line"; fail=1
    fi
  done
  read -r n line < <(env -u COLUMNS setsid "$R" report "$fixtures/$f.rfl" --host 2>&1 | longest)
  if ((n > 100)); then
    echo "FAIL: $f in a pipe without a terminal: a line of $n (want 100): $line"; fail=1
  fi
done
[[ $fail == 0 ]] && echo "report --host: every line fits 80, 120, and 100 in a pipe without a terminal"
exit $fail
