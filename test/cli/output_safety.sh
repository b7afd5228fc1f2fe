#!/usr/bin/env bash
# `roofline report/compare` never lose a file: inputs are not overwritten, symlinks are followed,
# special files refused, '-' is standard output; every usage error exits 2 naming the problem.
#   output_safety.sh ROOFLINE FIXTURE.rfl
set -uo pipefail
R="$1"
fixture="$2"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
cd "$dir"
cp "$fixture" in.rfl
sum="$(cksum < in.rfl)"
fail=0
expect() { # expect CODE PATTERN -- command...
  local code="$1" pattern="$2"
  shift 3
  local err rc
  err="$("$@" 2>&1 >/dev/null)"
  rc=$?
  if [[ $rc -ne $code ]] || ! grep -qE -- "$pattern" <<<"$err"; then
    echo "FAIL: $* -> exit $rc (want $code), stderr: $err"
    fail=1
  fi
}
expect 2 "refusing to write the CSV to 'in.rfl': it is the input file" -- "$R" report in.rfl --csv in.rfl
expect 2 "it is the input file" -- "$R" report in.rfl --json ./in.rfl
ln -s in.rfl link.rfl
expect 2 "it is the input file 'in.rfl'" -- "$R" report in.rfl --chart link.rfl
expect 2 "it is the input file" -- "$R" compare in.rfl in.rfl --csv in.rfl
[[ "$(cksum < in.rfl)" == "$sum" ]] || { echo "FAIL: the input recording changed"; fail=1; }
mkfifo fifo
expect 2 "refusing to write 'fifo': a FIFO, not a regular file" -- "$R" report in.rfl --csv fifo
[[ -p fifo ]] || { echo "FAIL: the FIFO was replaced"; fail=1; }
mkdir sub
expect 2 "a directory" -- "$R" report in.rfl --json sub
ln -s target.csv out.csv
"$R" report in.rfl --csv out.csv >/dev/null || { echo "FAIL: writing through a symlink"; fail=1; }
[[ -L out.csv && -s target.csv ]] || { echo "FAIL: the symlink was replaced, not followed"; fail=1; }
"$R" report in.rfl --csv - 2>/dev/null >stdout.csv && head -1 stdout.csv | grep -q '^launch_index,' ||
  { echo "FAIL: --csv - does not write CSV to standard output"; fail=1; }
"$R" report in.rfl --json - 2>/dev/null | python3 -c 'import json,sys; json.load(sys.stdin)' ||
  { echo "FAIL: --json - does not write JSON alone to standard output"; fail=1; }
[[ ! -e ./- ]] || { echo "FAIL: a file named '-' was written"; fail=1; }
expect 2 "only one of them can write to standard output" -- "$R" report in.rfl --csv - --json -
expect 2 "only one of them can write to standard output" -- "$R" report in.rfl --host-csv - --json -
expect 2 "unknown command 'reprot'" -- "$R" reprot in.rfl
expect 2 "--top: Value -1 not in range" -- "$R" report in.rfl --top -1
expect 2 "--labels: Value 1000 not in range" -- "$R" report in.rfl --labels 1000
expect 2 "not expected: --bogus" -- "$R" report in.rfl --bogus
expect 2 "file is required" -- "$R" report
expect 1 "cannot open recording" -- "$R" report missing.rfl
exit $fail
