#!/usr/bin/env python3
"""Checks a sampled job's steps (`roofline report X.rfs --csv`) against the work counted by hand:
each step of test/gpu/injected_app.cu runs FP32 and FP64 FMA chains of 553,648,128 FLOPs each
(calibration/expected.hpp: 2 x 264 x 256 threads x 1024 iterations x 4 chains).

    check_sampled.py STEPS.csv (--steps N | --at-least N) --fp32 K [--fp64 K] [--within PERCENT]

The first and the last step are left out of the work checks (the sampler starts inside the
first, and the stop may cut the last); every other step's FP32 and FP64 estimates must be within
5 % (--within) of K chains' FLOPs, and its kernels covered by samples for at least 95 % of their
time.
"""
import argparse
import csv
import sys

CHAIN_FLOPS = 2.0 * 264 * 256 * 1024 * 4


def main():
    p = argparse.ArgumentParser()
    p.add_argument("csv")
    p.add_argument("--steps", type=int)
    p.add_argument("--at-least", type=int)
    p.add_argument("--fp32", type=float, required=True)
    p.add_argument("--fp64", type=float, help="left out: FP64 is not checked")
    p.add_argument("--within", type=float, default=5.0, help="percent")
    a = p.parse_args()
    with open(a.csv) as f:
        rows = list(csv.DictReader(f))
    failures = []
    if a.steps is not None and len(rows) != a.steps:
        failures.append(f"{len(rows)} steps, expected {a.steps}")
    if a.at_least is not None and len(rows) < a.at_least:
        failures.append(f"{len(rows)} steps, expected at least {a.at_least}")
    indices = [int(r["step"]) for r in rows]
    if indices != sorted(indices) or len(set(indices)) != len(indices):
        failures.append("steps out of order or repeated")
    worst = {"fp32": 0.0, "fp64": 0.0}
    for r in rows[1:-1]:
        for kind, chains in (("fp32", a.fp32), ("fp64", a.fp64)):
            if chains is None:
                continue
            want = chains * CHAIN_FLOPS
            got = float(r[f"{kind}_flops_estimate"])
            error = (got - want) / want
            worst[kind] = max(worst[kind], abs(error))
            if abs(error) > a.within / 100:
                failures.append(f"step {r['step']}: {kind} {got:.4g} FLOPs, by hand {want:.4g} "
                                f"({100 * error:+.1f} %)")
        if float(r["covered"]) < 0.95:
            failures.append(f"step {r['step']}: kernels covered {float(r['covered']):.2f}")
    print(f"check_sampled: {len(rows)} steps; largest error against the count by hand: FP32 "
          f"{100 * worst['fp32']:.2f} %, FP64 {100 * worst['fp64']:.2f} %")
    for f in failures[:20]:
        print("  FAIL " + f)
    if failures:
        print(f"check_sampled: {len(failures)} failures")
        sys.exit(1)


if __name__ == "__main__":
    main()
