#!/usr/bin/env bash
# Programs as their authors write them (test/gpu/programs/*.py: a Hugging Face Trainer, a
# Lightning Trainer, a compiled ResNet-18, KV-cache decoding, a benchmark script, a JAX training
# loop whose jitted step XLA runs as CUDA graphs), none with an NVTX range, run unprofiled and
# under `roofline run` with no flags. One row per program: records, records with counters, what
# the exit line says, and whether the program's result (its last line, "result: ...") is bit for
# bit the unprofiled one's -- a changed result fails the row, and so does a training loop (its
# step is its optimizer's, or its jitted step's) with a launch of its step left without counters.
# A profiled run that has printed its result and does not exit fails its row, with its threads'
# stacks (test/gpu/watch_exit.sh).
# Launches no step covers are measured in windows until the process allocates pinned memory
# (PyTorch's first .item() does): decoding and the benchmark script get counters for their
# launches before it, and their rows only report.
#   as_written.sh ROOFLINE_CLI OUT_DIR [PROGRAM...]    (default: every program)
set -uo pipefail
cli="$1"
out="$2"
shift 2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$out"
torch=0 jax=0
python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null && torch=1
python3 -c "import jax; assert jax.devices()[0].platform == 'gpu'" 2>/dev/null && jax=1
if [[ $torch == 0 && $jax == 0 ]]; then
  echo "SKIPPED no PyTorch and no JAX with CUDA: these programs need one of them"
  exit 0
fi
programs=("$@")
[[ ${#programs[@]} -gt 0 ]] ||
  programs=(hf_trainer lightning_mlp resnet_compiled hf_generate bench_ops jax_train)
export TORCHINDUCTOR_CACHE_DIR="$out/inductor-cache" HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
# XLA's GEMM and reduction choices vary from run to run unless asked not to: with this flag an
# unprofiled JAX run's result is the same bit for bit each time, so a profiled one can be checked.
export XLA_FLAGS="${XLA_FLAGS:-} --xla_gpu_deterministic_ops=true"
fail=0
for p in "${programs[@]}"; do
  if [[ $p == jax_* && $jax == 0 ]] || [[ $p != jax_* && $torch == 0 ]]; then
    echo "$p: skipped, its framework is not installed with CUDA"
    continue
  fi
  rm -f "$out/$p.rfl"
  t0=$SECONDS
  timeout 600 python3 "$here/$p.py" >"$out/$p.plain.txt" 2>&1 ||
    { tail -5 "$out/$p.plain.txt"; echo "FAIL $p: the unprofiled run"; fail=1; continue; }
  t1=$SECONDS
  ROOFLINE_LOG_LEVEL=info bash "$here/../watch_exit.sh" "$out/$p.txt" 600 \
    "$cli" run -o "$out/$p.rfl" -- python3 "$here/$p.py" ||
    { tail -20 "$out/$p.txt"; [[ -f "$out/$p.txt.stacks" ]] && grep -v "^thread" "$out/$p.txt.stacks" | head -120
      echo "FAIL $p: under roofline run"; fail=1; continue; }
  t2=$SECONDS
  plain=$(grep '^result:' "$out/$p.plain.txt" | tail -1)
  profiled=$(grep '^result:' "$out/$p.txt" | tail -1)
  same=equal
  [[ -n "$plain" && "$plain" == "$profiled" ]] || { same=DIFFERENT; fail=1; }
  counts="no recording"
  if [[ -f "$out/$p.rfl" ]]; then
    "$cli" report "$out/$p.rfl" --group-by launch --csv "$out/$p.csv" >"$out/$p.report.txt" 2>&1
    counts=$(python3 -c "
import csv, sys
every = list(csv.DictReader(open(sys.argv[1])))
rows = [r for r in every if r[\"iteration\"] != \"-1\"]
setup = [r for r in every if r[\"iteration\"] == \"-1\"]
lent = [r for r in setup if r[\"measured\"] == \"1\" and 'ran outside every step' in r[\"note\"]]
print(f'{len(rows)} step records, {sum(r[\"measured\"] == \"1\" for r in rows)} with counters, '
      f'{len(setup)} outside the steps, {sum(r[\"measured\"] == \"1\" for r in setup)} with counters '
      f'({len(lent)} lent by the step), '
      f'step FLOPs {sum(float(r[\"total_flops\"] or 0) for r in rows if r[\"measured\"] == \"1\"):.4g}')
" "$out/$p.csv" 2>/dev/null || echo "unreadable")
  fi
  case "$p" in
    hf_trainer|lightning_mlp|resnet_compiled|jax_train)
      read -r n _ _ m _ <<<"${counts//,/}"
      [[ "$n" =~ ^[0-9]+$ && "$n" -gt 0 && "$n" == "$m" ]] ||
        { echo "FAIL $p: every launch of its step with counters expected ($counts)"; fail=1; }
      # A step that does floating-point work and reads none: its instruction counters were zeroed.
      [[ "$counts" != *"step FLOPs 0" ]] ||
        { echo "FAIL $p: the step's measured launches count no FLOP ($counts)"; fail=1; } ;;
  esac
  echo "$p: $counts; result $same; plain $((t1 - t0)) s, profiled $((t2 - t1)) s"
  grep -h '^\[roofline\] process' "$out/$p.txt" | sed 's/^/    /'
  grep -h 'its step\|steps are taken' "$out/$p.txt" | head -3 | sed 's/^/    /'
done
[[ $fail == 0 ]] && echo "programs as written: every result unchanged, every training step measured"
exit $fail
