#!/usr/bin/env python3
"""Each kernel's sampled values against its replayed ones, for one program run twice under
`roofline run`: once replayed (the default), once sampled (`--mode sample`).

    sampled_vs_replay.py REPLAY.json SAMPLED.json

REPLAY.json: `roofline report X.rfl --group-by launch --json` (one record per launch, exact
counters); SAMPLED.json: `roofline report X.rfs --json` (one record per kernel signature with its
work per step). Kernels are matched by name; each side's values per launch are its mean. Printed:
per kernel (largest first), the sampled/replayed ratio of time, FP32+FP16 FLOPs, tensor FLOPs and
bytes at L1, L2 and DRAM; then per group -- kernels of 20 us and longer, shorter ones -- the ratio
of the sums (time-weighted) and the median of the per-kernel ratios.
"""
import json
import statistics
import sys
from collections import defaultdict

LEVELS = ("L1", "L2", "DRAM")


def quantities(r):
    f = r.get("flops", {})
    vector = (f.get("fp32") or 0) + (f.get("fp16") or 0)
    tensor = sum(v or 0 for k, v in f.items() if k.startswith("tensor"))
    b = r.get("bytes", {})
    return {"time": r.get("time_s") or 0, "fp32+fp16": vector, "fp64": f.get("fp64") or 0,
            "tensor": tensor, **{lvl: b.get(lvl) or 0 for lvl in LEVELS}}


def per_launch(records, launches_of):
    sums, counts = defaultdict(lambda: defaultdict(float)), defaultdict(float)
    for r in records:
        if not r.get("measured", True) or r.get("scope") == "(median step)":
            continue
        n = launches_of(r)
        if n <= 0:
            continue
        for k, v in quantities(r).items():
            sums[r["name"]][k] += v
        counts[r["name"]] += n
    return {name: {k: v / counts[name] for k, v in q.items()} for name, q in sums.items()}, counts


def ratio(a, b):
    return a / b if b else (1.0 if not a else float("inf"))


def main():
    replay = json.load(open(sys.argv[1]))
    sampled = json.load(open(sys.argv[2]))
    replay = replay.get("records", replay) if isinstance(replay, dict) else replay
    sampled = sampled.get("records", sampled) if isinstance(sampled, dict) else sampled
    rp, rcount = per_launch(replay, lambda r: 1)
    sp, _ = per_launch(sampled, lambda r: r.get("kernels") or 1)
    names = sorted(set(rp) & set(sp), key=lambda n: -rp[n]["time"] * rcount[n])
    print(f"sampled vs replay: {len(names)} kernels in both ({len(rp)} replayed, {len(sp)} "
          f"sampled)")
    keys = ["time", "fp32+fp16", "fp64", "tensor"] + list(LEVELS)
    print(f"{'kernel':60} {'us':>8} " + " ".join(f"{k:>9}" for k in keys))
    for n in names[:40]:
        cells = " ".join(f"{ratio(sp[n][k], rp[n][k]):9.3f}" if rp[n][k] or sp[n][k] else
                         f"{'-':>9}" for k in keys)
        print(f"{n[:60]:60} {1e6 * rp[n]['time']:8.1f} {cells}")
    for label, pick in (("kernels >= 20 us", lambda n: rp[n]["time"] >= 20e-6),
                        ("kernels < 20 us", lambda n: rp[n]["time"] < 20e-6)):
        group = [n for n in names if pick(n)]
        if not group:
            continue
        print(f"{label}: {len(group)} kernels, "
              f"{1e3 * sum(rp[n]['time'] * rcount[n] for n in group):.2f} ms replayed")
        for k in keys:
            rs = sum(rp[n][k] * rcount[n] for n in group)
            ss = sum(sp[n][k] * rcount[n] for n in group)
            per = [ratio(sp[n][k], rp[n][k]) for n in group if rp[n][k] > 0]
            med = statistics.median(per) if per else float("nan")
            print(f"  {k:10} sum ratio {ratio(ss, rs):7.3f}   median kernel ratio {med:7.3f}   "
                  f"({len(per)} kernels with replayed work)")


if __name__ == "__main__":
    main()
