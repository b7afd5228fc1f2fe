#!/usr/bin/env bash
# Jobs on two GPUs (label gpu2), each with a timeout so that a hang fails instead of stalling:
#  1. a DDP/NCCL transformer loop (test/gpu/torch_ddp.py) in two processes under torchrun, the
#     launcher wrapped by `roofline run -o ddp-%r.rfl`: each rank's recording reads back, the
#     losses equal an unprofiled run's, `roofline merge` gives one recording whose report shows
#     both ranks, and NCCL's kernels have records;
#  2. the same job with only rank 0 under `roofline run`: no hang, one recording; and both ranks
#     under `roofline run --mode kernel`: kernel replay refused (iteration replay instead), no
#     hang, the losses unchanged;
#  3. one process driving both GPUs (injected_app --every-device under `roofline run --device
#     -1`): records on device 0 and device 1, every FMA-chain record with its hand-counted FLOPs.
# Skips, saying so, with fewer than two GPUs, or (parts 1 and 2) without PyTorch.
#   two_gpus.sh ROOFLINE_CLI INJECTED_APP OUT_DIR
# The ranks print to one pipe, so one rank's line can run into the other's: losses are read with
# grep -o, never by line.
set -uo pipefail
cli="$1"
app="$2"
out="$3"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$out"
rm -f "$out"/*.rfl
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [[ "${gpus:-0}" -lt 2 ]]; then
  echo "SKIPPED ${gpus:-0} GPU(s): these checks need two"
  exit 0
fi
fail=0
skipped="" # checks left out: then the test is a skip that says which, never a pass
export OMP_NUM_THREADS=4
if python3 -c "import torch" 2>/dev/null; then
  ddp=(python3 -m torch.distributed.run --nproc-per-node 2 "$here/torch_ddp.py" 20)
  timeout 300 "${ddp[@]}" >"$out/plain.txt" 2>&1 || { tail -5 "$out/plain.txt"; echo "FAIL the unprofiled job"; fail=1; }
  timeout 600 "$cli" run -o "$out/ddp-%r.rfl" -- "${ddp[@]}" >"$out/ddp.txt" 2>&1 ||
    { tail -20 "$out/ddp.txt"; echo "FAIL the job under roofline run (exit status or timeout)"; fail=1; }
  grep -E "^\[roofline\]|last loss" "$out/ddp.txt" | cut -c1-220
  for r in 0 1; do
    a=$(grep -o "rank $r of 2: [0-9]* steps in [0-9.]* s, last loss [0-9.]*" "$out/plain.txt" | head -1 | sed 's/.*last loss //')
    b=$(grep -o "rank $r of 2: [0-9]* steps in [0-9.]* s, last loss [0-9.]*" "$out/ddp.txt" | head -1 | sed 's/.*last loss //')
    [[ -n "$a" && "$a" == "$b" ]] || { echo "FAIL rank $r: loss '$b' profiled, '$a' unprofiled"; fail=1; }
  done
  if "$cli" merge "$out/ddp-0.rfl" "$out/ddp-1.rfl" -o "$out/ddp.rfl" &&
    "$cli" report "$out/ddp.rfl" --group-by launch --csv "$out/ddp.csv" >"$out/ddp_report.txt"; then
    grep -A4 "^ranks" "$out/ddp_report.txt"
    grep -A6 "differs most between ranks" "$out/ddp_report.txt" | cut -c1-160
    python3 - "$out/ddp.csv" <<'EOF' || fail=1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for rank in ("0", "1"):
    mine = [r for r in rows if r["rank"] == rank]
    nccl = [r for r in mine if "nccl" in r["name"].lower()]
    measured = sum(1 for r in mine if r["measured"] == "1")
    print(f"rank {rank}: {len(mine)} records, {measured} with counters, {len(nccl)} NCCL kernels "
          f"({sum(1 for r in nccl if r['measured'] == '1')} with counters)")
    if not mine or not nccl or measured < len(mine) // 2:
        sys.exit(f"FAIL rank {rank}: its records or its NCCL kernels are missing")
EOF
  else
    echo "FAIL the per-rank recordings do not merge or the merged one does not read back"; fail=1
  fi
  timeout 300 python3 -m torch.distributed.run --nproc-per-node 2 --no-python bash -c \
    'if [ "$RANK" = 0 ]; then exec "$0" run -o "$1/one-%r.rfl" -- python3 "$2/torch_ddp.py" 20; else exec python3 "$2/torch_ddp.py" 20; fi' \
    "$cli" "$out" "$here" >"$out/one.txt" 2>&1 || { tail -10 "$out/one.txt"; echo "FAIL one rank profiled (exit status or timeout)"; fail=1; }
  n=$(ls "$out"/one-*.rfl 2>/dev/null | wc -l)
  [[ "$n" == 1 ]] && "$cli" report "$out"/one-0.rfl >/dev/null || { echo "FAIL one rank profiled: $n recordings"; fail=1; }
  echo "one rank profiled, the other not: $(grep -c 'last loss' "$out/one.txt") ranks finished"
  # Kernel replay restores a rank's memory between passes while the peer's NCCL kernels write
  # into it: refused in a job of several ranks (iteration replay instead), so the job finishes
  # and computes what it computes unprofiled.
  short=(python3 -m torch.distributed.run --nproc-per-node 2 "$here/torch_ddp.py" 4)
  timeout 300 "${short[@]}" >"$out/plain4.txt" 2>&1 || { tail -5 "$out/plain4.txt"; echo "FAIL the unprofiled 4-step job"; fail=1; }
  timeout 600 "$cli" run --mode kernel -o "$out/kernel-%r.rfl" -- "${short[@]}" >"$out/kernel.txt" 2>&1 ||
    { tail -20 "$out/kernel.txt"; echo "FAIL the job under roofline run --mode kernel (exit status or timeout)"; fail=1; }
  refused=$(grep -c "kernel replay refused in a job of 2 ranks" "$out/kernel.txt")
  echo "kernel replay asked for: refused on $refused of 2 ranks"
  [[ "$refused" == 2 ]] || { echo "FAIL kernel replay was not refused on both ranks"; fail=1; }
  for r in 0 1; do
    a=$(grep -o "rank $r of 2: [0-9]* steps in [0-9.]* s, last loss [0-9.]*" "$out/plain4.txt" | head -1 | sed 's/.*last loss //')
    b=$(grep -o "rank $r of 2: [0-9]* steps in [0-9.]* s, last loss [0-9.]*" "$out/kernel.txt" | head -1 | sed 's/.*last loss //')
    [[ -n "$a" && "$a" == "$b" ]] || { echo "FAIL --mode kernel, rank $r: loss '$b' profiled, '$a' unprofiled"; fail=1; }
    "$cli" report "$out/kernel-$r.rfl" --brief >"$out/kernel-$r.txt" 2>&1 &&
      grep -q "mode iteration-replay" "$out/kernel-$r.txt" ||
      { echo "FAIL --mode kernel, rank $r: the recording is not iteration replay"; fail=1; }
  done
  # The merged report names no straggler from a communication kernel's wait.
  if grep -q "slowest compute" "$out/ddp_report.txt"; then
    grep "slowest compute" "$out/ddp_report.txt"
  fi
  grep -q "communication kernels (NCCL, NVSHMEM) wait for their peers" "$out/ddp_report.txt" ||
    { echo "FAIL the merged report does not set communication apart"; fail=1; }
else
  skipped="the DDP and kernel-replay checks (no PyTorch)"
fi

timeout 300 "$cli" run --device -1 -o "$out/every.rfl" -- "$app" 12 --every-device >"$out/every.txt" 2>&1 ||
  { tail -10 "$out/every.txt"; echo "FAIL one process on both GPUs"; fail=1; }
grep -q "profiling .*, devices 0, 1 (" "$out/every.txt" ||
  { grep "^\[roofline\] profiling" "$out/every.txt"; echo "FAIL the start line does not name both devices"; fail=1; }
"$cli" report "$out/every.rfl" --group-by launch --csv "$out/every.csv" >/dev/null &&
  python3 - "$out/every.csv" <<'EOF' || fail=1
import csv, sys
FLOPS = 2 * 264 * 256 * 1024 * 4  # calibration/expected.hpp
rows = list(csv.DictReader(open(sys.argv[1])))
bad = []
for device in ("0", "1"):
    mine = [r for r in rows if r["device"] == device and r["measured"] == "1"]
    kind = lambda r: "flops_fp32" if "float" in r["short_name"] else "flops_fp64"
    exact = sum(1 for r in mine if float(r[kind(r)]) == FLOPS)
    print(f"device {device}: {len(mine)} records with counters, {exact} with the hand-counted FLOPs")
    if not mine or exact != len(mine):
        bad.append(device)
sys.exit(f"FAIL one process on both GPUs: devices {bad}" if bad else 0)
EOF
if [[ $fail == 0 && -n $skipped ]]; then
  echo "SKIPPED $skipped; the rest passed"
elif [[ $fail == 0 ]]; then
  echo "two GPUs: every check passed"
fi
exit $fail
