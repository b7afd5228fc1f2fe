#!/usr/bin/env bash
# A one-shot program (test/gpu/one_shot.cu: no NVTX range, no loop) unmodified under
# `roofline run --mode window` and under `roofline run` with no flags (iteration replay, whose
# windows measure the launches before a first step): its result bit for bit the unprofiled one's,
# every launch a record with counters, the FMA chains' FLOPs exact (calibration/expected.hpp),
# and -- where ncu is on the PATH -- every launch's FLOPs equal to Nsight Compute's
# (test/gpu/ncu_oracle.py), with the runs' times printed.
#   one_shot.sh ROOFLINE_CLI ONE_SHOT_APP OUT_DIR
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
now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.2f}')"; }
t0=$(now)
"$app" 8 >"$out/plain.txt" 2>&1 || { cat "$out/plain.txt"; echo "FAIL the unprofiled run"; exit 1; }
t1=$(now)
echo "times: unprofiled $(secs "$t0" "$t1") s"
plain=$(grep -o "result: .*" "$out/plain.txt")
for run in window default; do
  flags=()
  [[ $run == window ]] && flags=(--mode window)
  t1=$(now)
  ROOFLINE_LOG_LEVEL=info "$cli" run "${flags[@]}" -o "$out/$run.rfl" -- "$app" 8 \
    >"$out/$run.txt" 2>&1 || { tail -20 "$out/$run.txt"; echo "FAIL roofline run ($run)"; exit 1; }
  t2=$(now)
  grep -h "^\[roofline\] process\|window\|no step covers" "$out/$run.txt" | cut -c1-300
  profiled=$(grep -o "result: .*" "$out/$run.txt")
  [[ -n "$plain" && "$plain" == "$profiled" ]] ||
    { echo "FAIL $run: the result changed: '$plain' unprofiled, '$profiled' profiled"; exit 1; }
  "$cli" report "$out/$run.rfl" --group-by launch --csv "$out/$run.csv" >"$out/$run-report.txt" ||
    { echo "FAIL $run: the recording does not read back"; exit 1; }
  python3 - "$out/$run.csv" <<'PY' || { echo "FAIL $run"; exit 1; }
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
THREADS = 264 * 256
FLOPS = 2 * THREADS * 1024 * 4
errors = []
if len(rows) != 40:
    errors.append(f"{len(rows)} records, expected 40 (8 rounds of 5 launches)")
for r in rows:
    if r["measured"] != "1":
        errors.append(f"launch {r['launch_index']} {r['short_name']}: no counters: {r['note']}")
        continue
    if "fmaChains" in r["name"]:
        kind = "flops_fp32" if "float" in r["name"] else "flops_fp64"
        if float(r[kind]) != FLOPS:
            errors.append(f"launch {r['launch_index']} {r['short_name']}: {kind} {r[kind]}, "
                          f"expected {FLOPS}")
print(f"{len(rows)} records, {sum(r['measured'] == '1' for r in rows)} with counters")
for e in errors[:20]:
    print("ERROR", e)
sys.exit(1 if errors else 0)
PY
  echo "times: $run $(secs "$t1" "$t2") s"
done
if command -v ncu >/dev/null 2>&1; then
  metrics="$(python3 -c "import sys; sys.path.insert(0, '$here'); import ncu_oracle; print(','.join(ncu_oracle.METRICS))")"
  t3=$(now)
  ncu --csv --page raw --print-units base --print-kernel-base mangled --clock-control none \
    --cache-control none --metrics "$metrics" "$app" 8 >"$out/ncu.csv" 2>"$out/ncu.err" ||
    { tail -5 "$out/ncu.err"; echo "FAIL ncu"; exit 1; }
  t4=$(now)
  echo "times: ncu $(secs "$t3" "$t4") s"
  for run in window default; do
    python3 "$here/ncu_oracle.py" "$out/$run.csv" "$out/ncu.csv" ||
      { echo "FAIL $run against ncu"; exit 1; }
  done
fi
echo "one-shot program: every check passed"
