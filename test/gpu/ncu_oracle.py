#!/usr/bin/env python3
"""One step compared launch by launch: libroofline against Nsight Compute (the oracle), or against
another libroofline profile of the same program (say, with reuse against every launch measured).

    ncu_oracle.py OURS.csv OTHER.csv [--dram TOTAL_PCT MEDIAN_PCT] [--by-op]

OURS.csv: `roofline report REC.rfl --csv OURS.csv` of a profiled run. OTHER.csv: another such CSV,
or the same program under
    ncu --csv --page raw --print-units base --print-kernel-base mangled \\
        --clock-control none --cache-control none --nvtx --nvtx-push-pop-scope process \\
        --nvtx-include "Train step 5/" --metrics <METRICS below> train_step --steps 7
Both list one step's launches in launch order (libroofline's: one record per position of the
step). The kernel and the FLOPs of every kind must be equal (the programs' FLOP counts do not
depend on their data; within 1e-5 for kernels whose predicated-on counts do); L1/L2/DRAM bytes
and time are compared as ratios (different steps; under ncu every kernel runs alone). With --dram,
DRAM bytes must also agree: the total within TOTAL_PCT percent and the median launch within
MEDIAN_PCT (what a cache flushed before each kernel on both sides gives). With --by-op, the
FLOPs are also summed per framework operator (libroofline's `op`, backward apart, at each
position; the other's launch at the same position counts for the same operator) and compared
operator by operator.

With --outside, OURS.csv's records outside every step (iteration -1) are compared instead, in
launch order, against ncu's first launches of the program (--launch-count N, no skip): those with
counters (measured in a window, or lent by the step's launches of their signature) must match.
"""
import csv
import statistics
import sys

SASS = "sm__sass_thread_inst_executed_op_{}_pred_on.sum"
TENSOR = "sm__ops_path_tensor_src_{}.sum"
METRICS = [SASS.format(op) for op in ("fadd", "fmul", "ffma", "dadd", "dmul", "dfma",
                                      "hadd", "hmul", "hfma")] + \
    [TENSOR.format(t) for t in ("bf16_dst_fp32", "tf32_dst_fp32", "fp16", "fp64", "fp8", "int8")] + \
    ["l1tex__t_bytes.sum", "lts__t_bytes.sum", "dram__bytes.sum",
     "sm__cycles_elapsed.avg", "sm__cycles_elapsed.avg.per_second"]
# FLOPs per kind, as libroofline's catalog counts them on GH100 (FMA twice; half-precision
# instructions as packed pairs).
KINDS = ("fp32", "fp64", "fp16", "tensor_bf16", "tensor_tf32", "tensor_fp16", "tensor_fp64",
         "tensor_fp8", "tensor_int8")


def number(text):
    return float(text.replace(",", "")) if text not in ("", "n/a") else 0.0


def read_ncu(path):
    with open(path) as f:
        lines = [l for l in f if l.startswith('"')]  # ncu's own "==PROF==" lines are not CSV
    rows = list(csv.DictReader(lines))[1:]  # the first row after the header holds units
    out = []
    for r in rows:
        m = {k: number(r[k]) if k in r else 0.0 for k in METRICS}
        sass = lambda op: m[SASS.format(op)]
        tensor = lambda t: m[TENSOR.format(t)]
        out.append({
            "name": r["Kernel Name"],
            "fp32": sass("fadd") + sass("fmul") + 2 * sass("ffma"),
            "fp64": sass("dadd") + sass("dmul") + 2 * sass("dfma"),
            "fp16": 2 * sass("hadd") + 2 * sass("hmul") + 4 * sass("hfma"),
            "tensor_bf16": tensor("bf16_dst_fp32"), "tensor_tf32": tensor("tf32_dst_fp32"),
            "tensor_fp16": tensor("fp16"), "tensor_fp64": tensor("fp64"),
            "tensor_fp8": tensor("fp8"), "tensor_int8": tensor("int8"),
            "l1": m["l1tex__t_bytes.sum"], "l2": m["lts__t_bytes.sum"],
            "dram": m["dram__bytes.sum"],
            "time": (m["sm__cycles_elapsed.avg"] / m["sm__cycles_elapsed.avg.per_second"]
                     if m["sm__cycles_elapsed.avg.per_second"] else 0.0),
        })
    return out


def read_ours(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if rows and "position" in rows[0] and all(int(r["position"]) >= 0 for r in rows):
        # One record per position of the step: a profile measured window by window (or with
        # reuse) has its records in program order, each position once.
        seen, step = set(), []
        for r in rows:
            if r["position"] not in seen:
                seen.add(r["position"])
                step.append(r)
        rows = sorted(step, key=lambda r: int(r["position"]))
    else:  # the records of the first iteration that was measured (a run may measure more)
        # Launches outside every step (iteration -1: set-up measured in windows) are no step.
        steps = [r for r in rows if r["iteration"] != "-1"]
        rows = steps or rows
        first = rows[0]["iteration"] if rows else ""
        rows = [r for r in rows if r["iteration"] == first]
    return [ours_row(r) for r in rows]


def read_outside(path):
    """The records outside every step, in launch order."""
    with open(path) as f:
        rows = [r for r in csv.DictReader(f) if r["iteration"] == "-1"]
    return [ours_row(r) for r in sorted(rows, key=lambda r: int(r["launch_index"]))]


def ours_row(r):
    d = {"name": r["mangled_name"], "l1": number(r["bytes_l1"]), "l2": number(r["bytes_l2"]),
         "dram": number(r["bytes_dram"]), "time": number(r["time_s"]),
         "reused": "reused: mean" in r["note"], "lacks": r.get("lacks", ""),
         "op": (r.get("op") or "(no operator)") +
         (" [backward]" if r.get("phase") == "backward" else ""),
         "counters": r["measured"] == "1"}
    for k in KINDS:
        d[k] = number(r["flops_" + k])
    return d


def read(path):
    with open(path) as f:
        head = f.read(4096)
    return read_ours(path) if head.startswith("launch_index,") else read_ncu(path)


def compare_ops(ours, other, n):
    """Per operator: launches, FLOPs of every kind summed on both sides, time on both sides."""
    ops = {}
    for i in range(n):
        o = ops.setdefault(ours[i]["op"], {"n": 0, "ours": 0.0, "other": 0.0, "t": 0.0, "ot": 0.0,
                                           "equal": True})
        o["n"] += 1
        mine = sum(ours[i][k] for k in KINDS if k != "tensor_int8")
        theirs = sum(other[i][k] for k in KINDS if k != "tensor_int8")
        o["ours"] += mine
        o["other"] += theirs
        o["t"] += ours[i]["time"]
        o["ot"] += other[i]["time"]
        o["equal"] &= abs(mine - theirs) <= 1e-5 * max(abs(theirs), 1)
    print(f"per operator ({len(ops)}): launches, FLOPs libroofline vs other, time ms libroofline "
          f"vs other")
    bad = 0
    for name, o in sorted(ops.items(), key=lambda x: -x[1]["t"]):
        bad += 0 if o["equal"] else 1
        print(f"  {name[:58]:58} {o['n']:4} {o['ours']:12.6g} {o['other']:12.6g} "
              f"{'=' if o['equal'] else 'DIFFERS'}  {1e3 * o['t']:8.3f} {1e3 * o['ot']:8.3f}")
    print(f"operators with equal FLOPs: {len(ops) - bad} of {len(ops)}")
    return bad


def main():
    args = sys.argv[1:]
    dram = None
    by_op = "--by-op" in args
    if by_op:
        args.remove("--by-op")
    if "--dram" in args:
        i = args.index("--dram")
        dram = (float(args[i + 1]), float(args[i + 2]))
        del args[i:i + 3]
    outside = "--outside" in args
    if outside:
        args.remove("--outside")
    ours, other = (read_outside if outside else read_ours)(args[0]), read(args[1])
    print(f"launches: libroofline {len(ours)} ({sum(o['reused'] for o in ours)} reused, "
          f"{sum(1 for o in ours if o['lacks'])} partial), other {len(other)}")
    n = min(len(ours), len(other))
    names = sum(1 for i in range(n) if ours[i]["name"] == other[i]["name"])
    print(f"same kernel at the same position: {names} of {n}")
    failures = 0
    if outside:  # only the records with counters are compared
        kept = [i for i in range(n) if ours[i]["counters"]]
        print(f"outside every step: {len(kept)} of {n} records with counters compared")
        ours, other = [ours[i] for i in kept], [other[i] for i in kept]
        failures += names != n
        n = names = len(kept)
    for key in KINDS:
        if not any(c[key] for c in other) and (dram or not any(o[key] for o in ours)):
            continue  # a kind this program does not use, or the other did not collect
        equal = sum(1 for i in range(n) if ours[i][key] == other[i][key])
        # Within 1e-5: predicated-on counts of kernels whose branches depend on the data
        # (flash attention's online-softmax rescale, measured on the H100 2026-11-23: 100 of
        # 8.3e7 FLOPs) differ between the steps the two measure; a counting error (a missed
        # instruction per warp) does not hide in 1e-5.
        close = sum(1 for i in range(n)
                    if abs(ours[i][key] - other[i][key]) <= 1e-5 * max(abs(other[i][key]), 1))
        print(f"{key}: equal on {equal} of {n} launches, within 1e-5 on {close}; totals "
              f"{sum(o[key] for o in ours):.6g} vs {sum(c[key] for c in other):.6g}")
        failures += n - close
        differing = [i for i in range(n) if ours[i][key] != other[i][key]]
        for i in differing[:6]:
            print(f"  launch {i} ({ours[i]['name'][:50]}{', reused' if ours[i]['reused'] else ''})"
                  f": libroofline {ours[i][key]:.6g}, other {other[i][key]:.6g}")
        if differing:
            # The same values among the same kernel's launches in another order: the launches
            # ran in a different order in the two processes (threads), not counted differently.
            def values(rows):
                return sorted((rows[i]["name"], rows[i][key]) for i in differing)
            print(f"  the differing launches' values, per kernel: "
                  f"{'the same, in another order' if values(ours) == values(other) else 'different'}")
    for key in ("l1", "l2", "dram", "time"):
        if not any(other[i][key] for i in range(n)):
            continue  # not collected by the other
        a, b = sum(o[key] for o in ours[:n]), sum(c[key] for c in other[:n])
        rel = [abs(ours[i][key] / other[i][key] - 1) for i in range(n) if other[i][key]]
        worst = max((abs(ours[i][key] / other[i][key] - 1), i) for i in range(n) if other[i][key])
        median = statistics.median(rel) if rel else 0.0
        print(f"{key}: total ratio libroofline/other {a / b:.4f}; median launch off by "
              f"{100 * median:.1f}%; worst launch {worst[1]} ({ours[worst[1]]['name'][:40]}) "
              f"off by {100 * worst[0]:.1f}%")
        if key == "dram" and dram:
            ok = abs(a / b - 1) * 100 <= dram[0] and median * 100 <= dram[1]
            print(f"dram against the oracle: total within {dram[0]}% and median within "
                  f"{dram[1]}%: {'yes' if ok else 'NO'}")
            failures += 0 if ok else 1
    if by_op:
        failures += compare_ops(ours, other, n)
    failures += (len(ours) != len(other) or names != n) and not outside
    failures += n == 0  # nothing compared proves nothing
    print("ncu_oracle:", "FLOPs equal (within 1e-5) on every launch" if failures == 0
          else f"{failures} FAILURES")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
