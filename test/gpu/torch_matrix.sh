#!/usr/bin/env bash
# PyTorch as it runs today, under `roofline run` with no flags (label gpu; two-GPU rows: gpu2):
# each row runs test/gpu/torch_matrix.py unprofiled and profiled, and checks
#  - the losses of every step, bit for bit, equal to the unprofiled run's;
#  - the profile complete, every launch of a step with counters;
#  - the records with an operator, and with a module (a backward kernel its forward's);
# and prints one table row: records, with an operator, with a module, iterations to complete,
# losses. Rows whose Inductor cache is warm ran unprofiled first (the profiled process hits the
# cache); `compile` runs profiled first, on a cold cache.
#   torch_matrix.sh ROOFLINE_CLI OUT_DIR [ROW...]      (default: every one-GPU row)
# Rows: eager compile max-autotune reduce-overhead amp-fp16 bf16 channels-last loader-fork
#       loader-spawn checkpoint own-profiler eager-no-nvtx bf16-no-nvtx compile-no-nvtx
#       | ddp-compile fsdp2 (two GPUs)
set -uo pipefail
cli="$1"
out="$2"
shift 2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$out"
if ! python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  echo "SKIPPED no PyTorch with CUDA: the PyTorch matrix needs it"
  exit 0
fi
rows=("$@")
[[ ${#rows[@]} -gt 0 ]] || rows=(eager compile max-autotune reduce-overhead amp-fp16 bf16
                               channels-last loader-fork loader-spawn checkpoint own-profiler
                               eager-no-nvtx bf16-no-nvtx compile-no-nvtx)
export ROOFLINE_LOG_LEVEL=info OMP_NUM_THREADS=4
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export TORCHINDUCTOR_CACHE_DIR="$out/inductor-cache"
fail=0
printf '%-16s %8s %8s %8s %8s %10s %s\n' row records measured "w/ op" "w/ module" iterations losses
for row in "${rows[@]}"; do
  args=(--steps 60)
  gpus=1
  plainFirst=1
  case "$row" in
    eager) args+=(--model gpt) ;;
    compile) args+=(--model gpt --compile default --amp bf16); plainFirst=0 ;;
    max-autotune) args+=(--model gpt --compile max-autotune --amp bf16) ;;
    reduce-overhead) args+=(--model gpt --compile reduce-overhead --amp bf16) ;;
    amp-fp16) args+=(--model gpt --amp fp16) ;;
    bf16) args+=(--model gpt --amp bf16) ;;
    channels-last) args=(--steps 80 --model cnn --channels-last --amp fp16) ;;
    loader-fork) args+=(--model gpt --amp bf16 --loader fork) ;;
    loader-spawn) args+=(--model gpt --amp bf16 --loader spawn) ;;
    checkpoint) args+=(--model gpt --amp bf16 --checkpoint) ;;
    own-profiler) args+=(--model gpt --amp bf16 --own-profiler) ;;
    eager-no-nvtx) args+=(--model gpt --no-nvtx) ;;
    bf16-no-nvtx) args+=(--model gpt --amp bf16 --no-nvtx) ;;
    # Its stream never held one step for 4096 launches in a row (40486 launches in 120 steps): its
    # step is AdamW's (266 of 266 on the H100, complete after 7 steps).
    compile-no-nvtx) args=(--steps 120 --model gpt --compile default --amp bf16 --no-nvtx); plainFirst=0 ;;
    ddp-compile) args+=(--model gpt --amp bf16 --dist ddp --compile default); gpus=2 ;;
    fsdp2) args=(--steps 120 --model gpt --amp bf16 --dist fsdp2); gpus=2 ;;  # 1,035 launches a step
    *) echo "FAIL unknown row $row"; fail=1; continue ;;
  esac
  if [[ $gpus -gt 1 ]]; then
    if [[ $(nvidia-smi -L 2>/dev/null | grep -c '^GPU') -lt 2 ]]; then
      echo "SKIPPED $row: needs two GPUs"
      continue
    fi
    prog=(python3 -m torch.distributed.run --nproc-per-node 2 "$here/torch_matrix.py")
    rfl="$out/$row-%r.rfl"
  else
    prog=(python3 "$here/torch_matrix.py")
    rfl="$out/$row.rfl"
  fi
  rm -f "$out/$row"*.rfl
  plain() { timeout 600 "${prog[@]}" "${args[@]}" >"$out/$row.plain.txt" 2>&1 ||
              { tail -5 "$out/$row.plain.txt"; echo "FAIL $row: the unprofiled run"; fail=1; }; }
  [[ $plainFirst == 1 ]] && plain
  start=$SECONDS
  # A profiled run that has printed its losses and does not exit fails with its threads' stacks.
  RESULT_LINE='^rank [0-9]+ losses' bash "$here/watch_exit.sh" "$out/$row.txt" 600 \
    "$cli" run -o "$rfl" -- "${prog[@]}" "${args[@]}" ||
    { tail -20 "$out/$row.txt"; [[ -f "$out/$row.txt.stacks" ]] && grep -v "^thread" "$out/$row.txt.stacks" | head -120
      echo "FAIL $row: the run under roofline run"; fail=1; continue; }
  echo "$row: profiled run $((SECONDS - start)) s" >>"$out/times.txt"
  [[ $plainFirst == 0 ]] && plain
  ranks=("$out/$row.rfl")
  [[ $gpus -gt 1 ]] && ranks=("$out/$row-0.rfl" "$out/$row-1.rfl")
  for r in "${ranks[@]}"; do
    "$cli" report "$r" --group-by launch --csv "${r%.rfl}.csv" >"${r%.rfl}.report.txt" 2>&1 ||
      { echo "FAIL $row: $r does not read back"; fail=1; }
  done
  python3 "$here/torch_matrix_check.py" "$row" "$out/$row.plain.txt" "$out/$row.txt" \
    "${ranks[@]/%.rfl/.csv}" || fail=1
done
[[ $fail == 0 ]] && echo "torch matrix: every row passed"
exit $fail
