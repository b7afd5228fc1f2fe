#!/usr/bin/env bash
# Ranks that share the profile (ROOFLINE_SHARE_RANKS), with a training loop unmodified under
# `roofline run` (the training-step program in CTest): one rank alone (the reference), then
# ranks 0 and 1 of 2 (RANK and WORLD_SIZE as torchrun sets them), each measuring its share;
# `roofline merge` assembles them. Extra `roofline run` options go in RUN_OPTIONS (CTest: images
# of 16 ranges that do not grow, so that the training step's 59 launches take 4 windows, as a
# large model's step does where the memory keeps images small).
# On one GPU the two ranks run one after the other (hardware counters serve one process at a
# time); on two they may run together (SHARE_RANKS_TOGETHER=1, one GPU each).
# Fails (FAIL lines, exit 1) when the merged recording lacks counters for a launch, when a
# launch's FLOPs differ from the one-rank profile's, or when the sharing ranks needed as many
# iterations as one rank alone. Prints the iterations each took.
#   share_ranks.sh ROOFLINE_CLI OUT_DIR COMMAND [ARGS...]
set -uo pipefail
cli="$1"
out="$2"
shift 2
read -r -a options <<<"${RUN_OPTIONS:-}"
mkdir -p "$out"
rm -f "$out"/*.rfl
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIPPED no CUDA device"
  exit 0
fi
if [[ "${SHARE_RANKS_TOGETHER:-0}" == 1 && $(nvidia-smi -L | grep -c '^GPU') -lt 2 ]]; then
  echo "SKIPPED one GPU: ranks sharing the profile together need two"
  exit 0
fi
export OMP_NUM_THREADS=4
iterations() { sed -nE 's/.*idle after ([0-9]+) iterations.*/\1/p' "$1" | head -1; }

"$cli" run "${options[@]}" -o "$out/alone.rfl" -- "$@" >"$out/alone.txt" 2>"$out/alone.log" ||
  { cat "$out/alone.log"; echo "FAIL the one-rank run"; exit 1; }
cmd=("$@")
share() { # RANK [DEVICE]
  env RANK="$1" WORLD_SIZE=2 LOCAL_RANK="$1" ${2:+CUDA_VISIBLE_DEVICES=$2} \
    "$cli" run "${options[@]}" --share-ranks 1 -o "$out/share-%r.rfl" -- "${cmd[@]}" \
    >"$out/share-$1.txt" 2>"$out/share-$1.log"
}
if [[ "${SHARE_RANKS_TOGETHER:-0}" == 1 ]]; then
  share 0 0 & p0=$!
  share 1 1 & p1=$!
  wait $p0 && wait $p1 || { cat "$out"/share-*.log; echo "FAIL a sharing rank"; exit 1; }
else
  share 0 && share 1 || { cat "$out"/share-*.log; echo "FAIL a sharing rank"; exit 1; }
fi
grep -h "\[roofline\] process" "$out/alone.log" "$out/share-0.log" "$out/share-1.log" | cut -c1-220
alone=$(iterations "$out/alone.log")
r0=$(iterations "$out/share-0.log")
r1=$(iterations "$out/share-1.log")
echo "iterations to a complete profile: one rank alone ${alone:-?}, sharing ranks ${r0:-?} and ${r1:-?}"
"$cli" merge "$out/share-0.rfl" "$out/share-1.rfl" -o "$out/merged.rfl" | tee "$out/merge.txt" ||
  { echo "FAIL roofline merge"; exit 1; }
"$cli" report "$out/merged.rfl" --group-by launch --csv "$out/merged.csv" >"$out/merged_report.txt" ||
  { echo "FAIL the merged recording does not read back"; exit 1; }
"$cli" report "$out/alone.rfl" --group-by launch --csv "$out/alone.csv" >/dev/null ||
  { echo "FAIL the one-rank recording does not read back"; exit 1; }
grep -A3 "^ranks" "$out/merged_report.txt"
python3 - "$out/alone.csv" "$out/merged.csv" "${alone:-0}" "${r0:-0}" "${r1:-0}" <<'EOF'
import csv, sys
alone = list(csv.DictReader(open(sys.argv[1])))
merged = list(csv.DictReader(open(sys.argv[2])))
fail = []
keys = ["flops_fp32", "flops_fp64", "flops_fp16", "flops_tensor_bf16", "flops_tensor_tf32"]
for rank in ("0", "1"):
    mine = [r for r in merged if r["rank"] == rank]
    if len(mine) != len(alone):
        fail.append(f"rank {rank}: {len(mine)} launches, one rank alone {len(alone)}")
        continue
    filled = sum(1 for r in mine if r["counters_rank"] != "-1")
    unmeasured = [r for r in mine if r["measured"] != "1"]
    if unmeasured:
        fail.append(f"rank {rank}: {len(unmeasured)} launches without counters: {unmeasured[0]['note'][:160]}")
    differ, shown = 0, 0
    for a, m in zip(alone, mine):
        if a["mangled_name"] != m["mangled_name"]:
            fail.append(f"rank {rank}: launch {m['launch_index']} is {m['name'][:40]}, alone {a['name'][:40]}")
            break
        for k in keys:
            x, y = float(a[k] or 0), float(m[k] or 0)
            if abs(x - y) > 1e-5 * max(abs(x), 1):
                differ += 1
                if shown < 4:
                    shown += 1
                    print(f"  launch {m['launch_index']} {m['name'][:50]}: {k} {y:.8g}, alone "
                          f"{x:.8g}; here: {m['note'][:120]}; alone: {a['note'][:120]}")
    t_alone = sum(float(a["time_s"] or 0) for a in alone)
    t_mine = sum(float(m["time_s"] or 0) for m in mine)
    print(f"rank {rank}: {len(mine)} launches, {len(mine) - filled} measured on it, {filled} from "
          f"the other rank; FLOPs equal to one rank alone's on {len(mine) - differ} of {len(mine)}; "
          f"kernel time {1e3 * t_mine:.3f} ms vs {1e3 * t_alone:.3f} ms alone")
    if differ:
        fail.append(f"rank {rank}: FLOPs differ from one rank alone's on {differ} launches")
alone_it, r0, r1 = (int(x) for x in sys.argv[3:6])
# A signature whose launches did different work is split on the rank that owns it and measured
# there launch by launch (docs/design/0018): that rank may need as many iterations as one alone.
if not (alone_it and r0 and r1 and max(r0, r1) <= alone_it and min(r0, r1) < alone_it):
    fail.append(f"iterations: sharing ranks {r0} and {r1}, one rank alone {alone_it}")
for f in fail:
    print("FAIL", f)
sys.exit(1 if fail else 0)
EOF
rc=$?
[[ $rc == 0 ]] && echo "share ranks: the merged profile is complete and equals one rank's, in fewer iterations on a rank"
exit $rc
