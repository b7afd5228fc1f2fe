#!/usr/bin/env bash
# The training-step program as a user runs it: unmodified (no --profile, so no Session in it),
# under `roofline run` with no flags and a launcher's environment (OMP_NUM_THREADS and
# CUDA_VISIBLE_DEVICES set, as torchrun sets them), every recording read back with
# `roofline report`. Prints the step times unprofiled, while profiling and after the profile is
# complete (libroofline idle), and the same with every launch measured (--reuse 0); then both
# again on a loop that also validates inside every fifth step (passes taken on those steps find
# other kernels at their window's positions).
# Fails (FAIL lines, exit 1) when a recording does not read back, when it does not hold one
# record with values for every launch of the steady step, when a launch before the first step
# (set-up, measured in windows) has no values, or when libroofline never went idle; the step times
# are printed, not checked.
#   default_path.sh ROOFLINE_CLI TRAIN_STEP OUT_DIR [STEPS]
set -euo pipefail
R="$1"
step="$2"
out="$3"
steps="${4:-100}"
mkdir -p "$out"
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIPPED no CUDA device"
  exit 0
fi
export OMP_NUM_THREADS=4 CUDA_VISIBLE_DEVICES="${CUDA_VISIBLE_DEVICES:-0}" ROOFLINE_LOG_LEVEL=info

"$step" --steps "$steps" >"$out/plain.txt"
"$R" run -o "$out/default.rfl" -- "$step" --steps "$steps" >"$out/default.txt" 2>"$out/default.log"
"$R" run --reuse 0 -o "$out/reuse0.rfl" -- "$step" --steps "$steps" >"$out/reuse0.txt" \
  2>"$out/reuse0.log"
"$R" run -o "$out/validating.rfl" -- "$step" --steps "$steps" --validate-every 5 \
  >"$out/validating.txt" 2>"$out/validating.log"
"$R" run --reuse 0 -o "$out/validating-reuse0.rfl" -- "$step" --steps "$steps" --validate-every 5 \
  >"$out/validating-reuse0.txt" 2>"$out/validating-reuse0.log"
for run in default reuse0 validating validating-reuse0; do
  "$R" report "$out/$run.rfl" --top 8 --wide >"$out/$run-report.txt" # lines whole: parsed below
  "$R" report "$out/$run.rfl" --group-by launch --csv "$out/$run.csv" >/dev/null
done

python3 - "$out" "$steps" <<'PY'
import csv, re, statistics, sys
out, steps = sys.argv[1], int(sys.argv[2])

def times(name):
    t = {}
    for line in open(f"{out}/{name}.txt"):
        m = re.match(r"step (\d+) loss \S+ .* ([0-9.]+) ms$", line)
        if m:
            t[int(m.group(1))] = float(m.group(2))
    return t

def idle_after(name):
    for line in open(f"{out}/{name}.log"):
        m = re.search(r"idle after (\d+) iterations", line)
        if m:
            return int(m.group(1))
    return None

failures = []

def median(t, lo, hi):
    v = [t[i] for i in range(lo, hi) if i in t]
    return statistics.median(v) if v else float("nan")

plain = times("plain")
base = median(plain, steps // 3, steps)
print(f"unprofiled: median step {base:.3f} ms (steps {steps // 3}..{steps - 1})")
for run in ("default", "reuse0", "validating", "validating-reuse0"):
    t = times(run)
    idle = idle_after(run)
    every = list(csv.DictReader(open(f"{out}/{run}.csv")))
    # Launches before the first step (set-up) are measured in windows; the rest are the step's.
    setup = [r for r in every if r["iteration"] == "-1"]
    rows = [r for r in every if r["iteration"] != "-1"]
    # Launches outside every step that no window measured have records that say so.
    windowed = [r for r in setup if not r["note"].startswith("no counters: ran outside every step")]
    if any(r["measured"] != "1" for r in windowed):
        failures.append(f"{run}: {sum(r['measured'] != '1' for r in windowed)} of {len(setup)} "
                        "launches before the first step without values")
    measured = sum(1 for r in rows if r["measured"] == "1")
    cov = next((l.strip() for l in open(f"{out}/{run}-report.txt") if "one iteration =" in l), "?")
    m = re.search(r"one iteration = (\d+) launches", cov)
    steady = int(m.group(1)) if m else -1
    print(f"{run}: {len(rows)} records of the step, {measured} with values, and {len(setup)} "
          f"before it; coverage: {cov}")
    if "(complete)" not in cov:
        failures.append(f"{run}: the profile is not complete: {cov}")
    if len(rows) != steady or measured != steady:
        failures.append(f"{run}: {len(rows)} records ({measured} with values) for a step of "
                        f"{steady} launches")
    order = [int(r["launch_index"]) for r in rows]
    if order != list(range(len(setup), len(every))) or not rows or "/forward" not in rows[0]["scope"] \
            or "/optimizer" not in rows[-1]["scope"]:
        failures.append(f"{run}: records not in program order (first {rows[0]['scope'] if rows else '-'}, "
                        f"last {rows[-1]['scope'] if rows else '-'})")
    if idle is None:
        failures.append(f"{run}: libroofline never went idle")
        print(f"{run}: never idle; median step {median(t, 1, steps):.3f} ms")
        continue
    during = median(t, 1, idle)
    after = median(t, max(idle + 2, steps // 3), steps)
    print(f"{run}: idle after {idle} iterations; median step while profiling {during:.3f} ms, "
          f"after {after:.3f} ms ({100 * (after / base - 1):+.1f}% against unprofiled)")
for f in failures:
    print("FAIL:", f)
if not failures:
    print("default path: every recording read back, one record per launch of the steady step, "
          "in program order, idle once complete")
sys.exit(1 if failures else 0)
PY
