#!/usr/bin/env bash
# The checks of a collector change beyond the GPU suite, on an H100 80GB HBM3:
#  1. the training-step program (examples/training_step) against Nsight Compute as the oracle,
#     with the cost of each (plain run, libroofline, ncu);
#  2. PyTorch loops (conv2d, a transformer block) under libroofline, with thread-scoped and
#     process-wide push/pop scopes, and their cost against the plain loop.
#  3. the PyTorch conv2d and transformer loops, unmodified, under `roofline run`, against Nsight
#     Compute, launch by launch, with process scopes.
#  4. the transformer loop as a graphed callable (forward and backward CUDA graphs, fused AdamW),
#     unmodified under `roofline run`, against Nsight Compute with --graph-profiling node.
#  5. (torch-ops) the transformer trainer of examples/pytorch, unmodified under `roofline run`,
#     against Nsight Compute on the same loop wrapped in emit_nvtx(), launch by launch and
#     operator by operator.
#   test/gpu/oracle_checks.sh BUILD_DIR OUT_DIR [torch-ncu[:conv|:transformer|:graphed]|torch-ops]
#   (torch-ncu: only checks 3 and 4, for every loop or the one named; torch-ops: only check 5)
set -uo pipefail
build="$(cd "${1:?usage: oracle_checks.sh BUILD_DIR OUT_DIR}" && pwd)"
out="${2:?usage: oracle_checks.sh BUILD_DIR OUT_DIR}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$out"
step="$build/examples/train_step"
metrics="$(python3 -c "import sys; sys.path.insert(0, '$root/test/gpu'); import ncu_oracle; print(','.join(ncu_oracle.METRICS))")"
t() { local s=$(date +%s%N); "$@"; local rc=$?; echo "  wall $((($(date +%s%N) - s) / 1000000)) ms: ${*:0:3}" >&2; return $rc; }

shim="$build/test/libroofline_pyshim.so"
cli="$build/libroofline/roofline"
torch_vs_ncu() { # MODEL: the unmodified loop under roofline run against ncu, launch by launch
  local model="$1" graphs=()
  [[ $model == graphed ]] && graphs=(--graph-profiling node)
  echo "== PyTorch $model loop, unmodified, under roofline run (process scopes) against ncu, step 5"
  RL=0 t "$cli" run -o "$out/torch_$model.rfl" -- python3 "$root/test/gpu/torch_loop.py" none $model 40 \
    2>&1 | grep -E "steps in|\[roofline\]|warn|wall" | cut -c1-250
  "$cli" report "$out/torch_$model.rfl" --csv "$out/torch_$model.csv" > /dev/null
  RL=0 t ncu --csv --page raw --print-units base --print-kernel-base mangled --clock-control none \
    --cache-control none "${graphs[@]}" --nvtx --nvtx-push-pop-scope process \
    --nvtx-include "step 5/" --metrics "$metrics" python3 "$root/test/gpu/torch_loop.py" none $model 8 \
    > "$out/torch_ncu_$model.csv" 2> "$out/torch_ncu_$model.err"
  grep -E "wall|steps in" "$out/torch_ncu_$model.err" "$out/torch_ncu_$model.csv" | cut -c1-200
  python3 "$root/test/gpu/ncu_oracle.py" "$out/torch_$model.csv" "$out/torch_ncu_$model.csv"
}
if [[ "${3:-}" == torch-ops ]]; then
  ex="$root/examples/pytorch/train_transformer.py"
  echo "== PyTorch trainer (bf16 autocast, fused AdamW), unmodified under roofline run, against ncu with emit_nvtx, step 5"
  t "$cli" run -o "$out/ops.rfl" -- python3 "$ex" --steps 40 2>&1 | grep -E "steps in|\[roofline\]|wall" | cut -c1-250
  "$cli" report "$out/ops.rfl" --csv "$out/ops.csv" > /dev/null
  t ncu --csv --page raw --print-units base --print-kernel-base mangled --clock-control none \
    --cache-control none --nvtx --nvtx-push-pop-scope process \
    --nvtx-include "Train step 5/" --metrics "$metrics" python3 "$ex" --steps 8 --emit-nvtx \
    > "$out/ops_ncu.csv" 2> "$out/ops_ncu.err"
  grep -E "wall|steps in" "$out/ops_ncu.err" "$out/ops_ncu.csv" | cut -c1-200
  python3 "$root/test/gpu/ncu_oracle.py" "$out/ops.csv" "$out/ops_ncu.csv" --by-op
  exit $?
fi
if [[ "${3:-}" == torch-ncu* ]]; then # torch-ncu: both loops; torch-ncu:MODEL: that one
  rc=0
  for model in conv transformer graphed; do
    [[ "$3" == torch-ncu || "$3" == "torch-ncu:$model" ]] && { torch_vs_ncu $model || rc=1; }
  done
  exit $rc
fi

rc=0 # any oracle comparison that fails fails the script
echo "== training step: plain, libroofline (iteration replay, process scopes), ncu"
t "$step" --steps 8 > "$out/plain.log"
ROOFLINE_PUSH_POP_SCOPE=process t "$step" --steps 8 --profile --output "$out/ours.rfl" > "$out/ours.log" 2>&1
tail -2 "$out/ours.log"
echo "-- the same with --nvtx-include 'Train step 5/' (steps 0-4 admit nothing; step 5's places are"
echo "   measured on the steps after it)"
ROOFLINE_PUSH_POP_SCOPE=process ROOFLINE_NVTX_INCLUDE="Train step 5/" ROOFLINE_LOG_LEVEL=info \
  t "$step" --steps 12 --profile --output "$out/ours_step5.rfl" 2>&1 | grep -E "records|groups ended|first iteration|steps," | cut -c1-220
"$build/libroofline/roofline" report "$out/ours_step5.rfl" --csv "$out/ours_step5.csv" > /dev/null
"$build/libroofline/roofline" report "$out/ours.rfl" --csv "$out/ours.csv" > "$out/ours_report.txt"
grep -E "^coverage|^records" "$out/ours_report.txt"
if command -v ncu >/dev/null; then
  t ncu --csv --page raw --print-units base --print-kernel-base mangled --clock-control none \
    --cache-control none --nvtx --nvtx-push-pop-scope process --nvtx-include "Train step 5/" \
    --metrics "$metrics" "$step" --steps 8 > "$out/ncu.csv" 2> "$out/ncu.err"
  python3 "$root/test/gpu/ncu_oracle.py" "$out/ours.csv" "$out/ncu.csv" || rc=1
  echo "-- libroofline's own 'Train step 5/' include against the same ncu run"
  python3 "$root/test/gpu/ncu_oracle.py" "$out/ours_step5.csv" "$out/ncu.csv" || rc=1
  echo "-- the training step without --profile (no Session constructed) under roofline run, against the same ncu run"
  t "$cli" run -o "$out/run_step.rfl" -- "$step" --steps 12 2>&1 | grep -E "\[roofline|steps," | cut -c1-250
  "$cli" report "$out/run_step.rfl" --csv "$out/run_step.csv" > /dev/null
  python3 "$root/test/gpu/ncu_oracle.py" "$out/run_step.csv" "$out/ncu.csv" || rc=1
else
  echo "ncu not on the PATH: no oracle"
fi

echo "== PyTorch, unmodified (no libroofline code), under roofline run; then with the ctypes shim"
for model in conv transformer; do
  RL=0 t python3 "$root/test/gpu/torch_loop.py" none $model 40
  RL=0 t "$cli" run -o "$out/run_$model.rfl" -- python3 "$root/test/gpu/torch_loop.py" none $model 40 \
    2>&1 | grep -E "steps in|\[roofline|warn|wall" | cut -c1-250 | head -12
  "$cli" report "$out/run_$model.rfl" --top 12 2>&1 | cut -c1-200 | head -30
done
for model in conv transformer; do
  RL=0 t python3 "$root/test/gpu/torch_loop.py" "$shim" $model 8
  for scope in thread process; do
    echo "-- $model, push/pop scope: $scope"
    ROOFLINE_PUSH_POP_SCOPE=$scope RL_OUT="$out/torch_${model}_$scope.rfl" \
      t python3 "$root/test/gpu/torch_loop.py" "$shim" $model 8 2>&1 | grep -v "^\[roofline warning\] libroofline: launch configuration" | cut -c1-200 | head -30
  done
done

if command -v ncu >/dev/null; then
  torch_vs_ncu conv || rc=1
  torch_vs_ncu transformer || rc=1
  torch_vs_ncu graphed || rc=1
fi
exit $rc
