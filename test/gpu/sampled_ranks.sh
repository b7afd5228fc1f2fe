#!/usr/bin/env bash
# Two ranks of a DDP job under torchrun, sampled (`roofline run --mode sample` around torchrun, as
# written, no NVTX range), rank 1 falling 60 ms behind before steps 30 and 45:
#  1. each rank writes its own recording, and computes what it computes unprofiled (its losses,
#     bit for bit);
#  2. merge aligns the ranks' steps, and names the steps where one rank fell behind.
#   sampled_ranks.sh ROOFLINE_CLI OUT_DIR
set -euo pipefail
cli="$1" out="$2"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rm -rf "$out" && mkdir -p "$out"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [[ "$gpus" -lt 2 ]]; then
  echo "SKIPPED two CUDA devices needed, $gpus found"
  exit 0
fi
if ! python3 -c "import torch.distributed" >/dev/null 2>&1; then
  echo "SKIPPED PyTorch with torch.distributed not found"
  exit 0
fi
job=(torchrun --standalone --nproc-per-node 2 "$here/torch_matrix.py" --model gpt --dist ddp
     --no-nvtx --steps 60 --slow-rank 1 --slow-steps 30 45 --slow-ms 60)
fail() { echo "sampled ranks: $1"; exit 1; }
"${job[@]}" > "$out/plain.log" 2>&1 || { cat "$out/plain.log"; fail "the unprofiled job failed"; }
"$cli" run --mode sample -o "$out/run-%r.rfs" -- "${job[@]}" > "$out/sampled.log" 2>&1 ||
  { cat "$out/sampled.log"; fail "the sampled job failed"; }
grep '^\[roofline\]' "$out/sampled.log" || true
for r in 0 1; do
  [[ -s "$out/run-$r.rfs" ]] || fail "rank $r wrote no recording"
  want=$(grep "^rank $r losses" "$out/plain.log") || fail "rank $r printed no losses unprofiled"
  got=$(grep "^rank $r losses" "$out/sampled.log") || fail "rank $r printed no losses sampled"
  [[ "$want" == "$got" ]] || fail "rank $r computed other losses sampled"
  "$cli" report "$out/run-$r.rfs" > "$out/rank$r.report" 2>&1 ||
    { cat "$out/rank$r.report"; fail "rank $r's recording does not report"; }
done
"$cli" merge "$out/run-0.rfs" "$out/run-1.rfs" -o "$out/ranks.csv" > "$out/merge.log" 2>&1 ||
  { cat "$out/merge.log"; fail "merge failed"; }
cat "$out/merge.log"
steps=$(sed -nE 's/^ranks     2, ([0-9]+) steps sampled by every rank.*/\1/p' "$out/merge.log")
[[ -n "$steps" && "$steps" -ge 50 ]] || fail "fewer than 50 steps aligned ('${steps:-none}')"
straggling=$(sed -nE 's/^straggling steps .*: ([0-9]+)$/\1/p' "$out/merge.log")
[[ -n "$straggling" && "$straggling" -ge 2 ]] ||
  fail "the steps rank 1 fell behind in are not flagged ('${straggling:-none}' straggling)"
echo "sampled ranks: every check passed"
