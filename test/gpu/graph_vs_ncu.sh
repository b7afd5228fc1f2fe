#!/usr/bin/env bash
# A program whose every step is one CUDA graph launch (test/gpu/injected_app.cu --graph-steps:
# kernels, a memset, a fork onto a second stream and the join, a copy), unmodified under
# `roofline run` with no flags, against Nsight Compute with --graph-profiling node, launch by
# launch (test/gpu/ncu_oracle.py: the same kernel at each position, FP32 and FP64 FLOPs equal,
# bytes and time as ratios). Every kernel node of the step must have a record with counters.
#   graph_vs_ncu.sh ROOFLINE_CLI INJECTED_APP OUT_DIR
# Skips, saying so, without a CUDA device or without ncu on the PATH.
set -uo pipefail
cli="$1"
app="$2"
out="$3"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$out"
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIPPED no CUDA device"
  exit 0
fi
if ! command -v ncu >/dev/null 2>&1; then
  echo "SKIPPED ncu (Nsight Compute) is not on the PATH: no oracle"
  exit 0
fi
metrics="$(python3 -c "import sys; sys.path.insert(0, '$here'); import ncu_oracle; print(','.join(ncu_oracle.METRICS))")"

"$cli" run -o "$out/graph_steps.rfl" -- "$app" 12 --graph-steps >"$out/run.log" 2>&1 ||
  { cat "$out/run.log"; echo "FAIL roofline run"; exit 1; }
"$cli" report "$out/graph_steps.rfl" --group-by launch --csv "$out/ours.csv" >"$out/report.txt" ||
  { echo "FAIL the recording does not read back"; exit 1; }
grep -E "^records|^coverage" "$out/report.txt"
ncu --csv --page raw --print-units base --print-kernel-base mangled --clock-control none \
  --cache-control none --graph-profiling node --nvtx --nvtx-include "step 5/" \
  --metrics "$metrics" "$app" 8 --graph-steps >"$out/ncu.csv" 2>"$out/ncu.err" ||
  { tail -5 "$out/ncu.err"; echo "FAIL ncu"; exit 1; }
python3 "$here/ncu_oracle.py" "$out/ours.csv" "$out/ncu.csv" || { echo "FAIL against ncu"; exit 1; }
python3 - "$out/ours.csv" <<'EOF' || exit 1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
first = rows[0]["iteration"]
step = [r for r in rows if r["iteration"] == first]
kinds = sorted(r["name"].split("<")[1].split(">")[0] for r in step if "<" in r["name"])
if len(step) != 3 or kinds != ["double", "float", "float"] or any(r["measured"] != "1" for r in step):
    sys.exit(f"FAIL one step's records: {[(r['name'], r['measured'], r['note']) for r in step]}")
print(f"graph steps: the 3 kernel nodes of step {first} measured, scope {step[0]['scope']}")
EOF
echo "graph steps: every kernel node measured and equal to ncu --graph-profiling node"
