#!/usr/bin/env bash
# A program of test/gpu/programs (no NVTX range) under `roofline run` with no flags, against
# Nsight Compute launch by launch (test/gpu/ncu_oracle.py: the same kernel at each position, every
# FLOP kind equal, bytes and time as ratios). The step libroofline found starts after the launches
# its log names (`... step ends (after N launches)`) and holds the coverage line's launches; ncu
# measures the fifth such step (--launch-skip, --launch-count). The program runs unprofiled first.
#   vs_ncu.sh ROOFLINE_CLI OUT_DIR PROGRAM [ARGS...]
set -uo pipefail
cli="$1"
out="$2"
prog="$3"
shift 3
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$out"
command -v ncu >/dev/null 2>&1 || { echo "SKIPPED ncu is not on the PATH: no oracle"; exit 0; }
metrics="$(python3 -c "import sys; sys.path.insert(0, '$here/..'); import ncu_oracle; print(','.join(ncu_oracle.METRICS))")"
export TORCHINDUCTOR_CACHE_DIR="$out/inductor-cache" HF_HUB_OFFLINE=1
# JAX: the same choices each run, and no pool reserved ahead -- ncu's kernel replay saves the
# device's memory, and with 75% of it taken by JAX's pool it fails ("Failed to profile").
if [[ $prog == jax_* ]]; then
  export XLA_FLAGS="${XLA_FLAGS:-} --xla_gpu_deterministic_ops=true" XLA_PYTHON_CLIENT_PREALLOCATE=false
fi
# Unprofiled first: a compiled program's warm Inductor cache then gives both profiled runs the
# same launches (a cold one adds its autotuning's).
python3 "$here/$prog.py" "$@" >"$out/$prog.plain.txt" 2>&1 ||
  { tail -5 "$out/$prog.plain.txt"; echo "FAIL the unprofiled run"; exit 1; }
ROOFLINE_LOG_LEVEL=info "$cli" run -o "$out/$prog.rfl" -- python3 "$here/$prog.py" "$@" \
  >"$out/$prog.log" 2>&1 || { tail -20 "$out/$prog.log"; echo "FAIL roofline run"; exit 1; }
"$cli" report "$out/$prog.rfl" --group-by launch --csv "$out/$prog.csv" >"$out/$prog.report.txt" ||
  { echo "FAIL the recording does not read back"; exit 1; }
first=$(grep -o "step ends (after [0-9]* launches)" "$out/$prog.log" | grep -o "[0-9]*" | head -1)
step=$(grep -o "one iteration = [0-9]* launches" "$out/$prog.log" | grep -o "[0-9]*" | head -1)
[[ -n "$first" && -n "$step" ]] || { echo "FAIL no framework step in the log"; exit 1; }
skip=$((first + 4 * step))
echo "$prog: step of $step launches from launch $first; ncu measures launches $skip to $((skip + step - 1))"
start=$SECONDS
ncu --csv --page raw --print-units base --print-kernel-base mangled --clock-control none \
  --cache-control none --launch-skip "$skip" --launch-count "$step" --metrics "$metrics" \
  python3 "$here/$prog.py" "$@" >"$out/$prog.ncu.csv" 2>"$out/$prog.ncu.err" ||
  { tail -5 "$out/$prog.ncu.err"; echo "FAIL ncu"; exit 1; }
echo "$prog: ncu took $((SECONDS - start)) s"
python3 "$here/../ncu_oracle.py" "$out/$prog.csv" "$out/$prog.ncu.csv" ||
  { echo "FAIL $prog against ncu"; exit 1; }
