#!/usr/bin/env python3
"""Nsight Compute as the oracle for one training step.

    ncu_oracle.py OURS.csv NCU.csv

OURS.csv: `roofline report REC.rfl --csv OURS.csv` of a profiled examples/training_step run.
NCU.csv: the same program under
    ncu --csv --page raw --print-units base --print-kernel-base mangled \
        --clock-control none --cache-control none --nvtx --nvtx-push-pop-scope process \
        --nvtx-include "Train step 5/" --metrics <METRICS below> train_step --steps 7
Both list one step's launches in launch order; they are compared launch by launch: the kernel,
FP32, FP64, tensor BF16 and TF32 FLOPs (must be equal: the program's FLOP counts do not depend on its data),
L1/L2/DRAM bytes and time (different steps, and under ncu every kernel runs alone: ratios).
"""
import csv
import sys

METRICS = [
    "sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "sm__ops_path_tensor_src_bf16_dst_fp32.sum",
    "l1tex__t_bytes.sum", "lts__t_bytes.sum", "dram__bytes.sum",
    "sm__cycles_elapsed.avg", "sm__cycles_elapsed.avg.per_second",
    "sm__ops_path_tensor_src_tf32_dst_fp32.sum",
    "sm__sass_thread_inst_executed_op_dadd_pred_on.sum",
    "sm__sass_thread_inst_executed_op_dmul_pred_on.sum",
    "sm__sass_thread_inst_executed_op_dfma_pred_on.sum",
]


def number(text):
    return float(text.replace(",", "")) if text not in ("", "n/a") else 0.0


def read_ncu(path):
    with open(path) as f:
        lines = [l for l in f if l.startswith('"')]  # ncu's own "==PROF==" lines are not CSV
    rows = list(csv.DictReader(lines))[1:]  # the first row after the header holds units
    out = []
    for r in rows:
        m = {k: number(r[k]) for k in METRICS}
        out.append({
            "name": r["Kernel Name"],
            "fp32": m[METRICS[0]] + m[METRICS[1]] + 2 * m[METRICS[2]],
            "tensor_bf16": m[METRICS[3]],
            "tensor_tf32": m[METRICS[9]],
            "fp64": m[METRICS[10]] + m[METRICS[11]] + 2 * m[METRICS[12]],
            "l1": m[METRICS[4]], "l2": m[METRICS[5]], "dram": m[METRICS[6]],
            "time": m[METRICS[7]] / m[METRICS[8]] if m[METRICS[8]] else 0.0,
        })
    return out


def read_ours(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    # One step: the records of the first iteration that was measured (a run may measure more).
    first = rows[0]["iteration"] if rows else ""
    rows = [r for r in rows if r["iteration"] == first]
    return [{"name": r["mangled_name"], "fp32": number(r["flops_fp32"]),
             "tensor_bf16": number(r["flops_tensor_bf16"]),
             "tensor_tf32": number(r["flops_tensor_tf32"]), "fp64": number(r["flops_fp64"]),
             "l1": number(r["bytes_l1"]),
             "l2": number(r["bytes_l2"]), "dram": number(r["bytes_dram"]),
             "time": number(r["time_s"])} for r in rows]


def main():
    ours, ncu = read_ours(sys.argv[1]), read_ncu(sys.argv[2])
    print(f"launches: libroofline {len(ours)}, ncu {len(ncu)}")
    n = min(len(ours), len(ncu))
    names = sum(1 for i in range(n) if ours[i]["name"] == ncu[i]["name"])
    print(f"same kernel at the same position: {names} of {n}")
    failures = 0
    for key in ("fp32", "fp64", "tensor_bf16", "tensor_tf32"):
        equal = sum(1 for i in range(n) if ours[i][key] == ncu[i][key])
        # Within 1e-5: predicated-on counts of kernels whose branches depend on the data
        # (flash attention's online-softmax rescale, measured on the H100 2026-11-23: 100 of
        # 8.3e7 FLOPs) differ between the steps the two tools measure; a counting error (a missed
        # instruction per warp) does not hide in 1e-5.
        close = sum(1 for i in range(n)
                    if abs(ours[i][key] - ncu[i][key]) <= 1e-5 * max(abs(ncu[i][key]), 1))
        print(f"{key}: equal on {equal} of {n} launches, within 1e-5 on {close}; totals "
              f"{sum(o[key] for o in ours):.6g} vs {sum(c[key] for c in ncu):.6g}")
        failures += n - close
        differing = [i for i in range(n) if ours[i][key] != ncu[i][key]]
        for i in differing[:6]:
            print(f"  launch {i} ({ours[i]['name'][:50]}): libroofline {ours[i][key]:.6g}, "
                  f"ncu {ncu[i][key]:.6g}")
        if differing:
            # The same values among the same kernel's launches in another order: the launches
            # ran in a different order in the two processes (threads), not counted differently.
            def values(rows):
                return sorted((rows[i]["name"], rows[i][key]) for i in differing)
            print(f"  the differing launches' values, per kernel: "
                  f"{'the same, in another order' if values(ours) == values(ncu) else 'different'}")
    for key in ("l1", "l2", "dram", "time"):
        a, b = sum(o[key] for o in ours[:n]), sum(c[key] for c in ncu[:n])
        worst = max((abs(ours[i][key] / ncu[i][key] - 1), i) for i in range(n) if ncu[i][key])
        print(f"{key}: total ratio libroofline/ncu {a / b:.4f}; worst launch {worst[1]} "
              f"({ours[worst[1]]['name'][:40]}) off by {100 * worst[0]:.1f}%")
    failures += len(ours) != len(ncu) or names != n
    print("ncu_oracle:", "FLOPs equal (within 1e-5) on every launch" if failures == 0
          else f"{failures} FAILURES")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
