#!/usr/bin/env python3
"""Checks a `roofline report --group-by launch --csv` of test/gpu/injected_app.cu under
`roofline run` (test/run_injection.cmake): every measured FMA-chain record has the FLOPs counted
by hand, scopes come from the program's NVTX ranges, and with --graph the graph's kernels have
records in "step 2/graph" with their names (no counters: CUPTI's range profiler does not measure
graph kernels) and, with --timed-graph (kernel replay), their durations.

    check_run.py REPORT.csv [--graph [--timed-graph]]
"""
import csv
import sys

THREADS = 264 * 256
FLOPS = 2 * THREADS * 1024 * 4  # calibration/expected.hpp: kFfmaFlops == kDfmaFlops


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    graph = "--graph" in sys.argv
    errors = []
    measured = {"direct": 0, "graph": 0}
    names = {"direct": set(), "graph": set()}
    for r in rows:
        where = "graph" if r["scope"].endswith("/graph") else "direct"
        names[where].add(r["short_name"])
        if not r["scope"].startswith("step"):
            errors.append(f"launch {r['launch_index']}: scope '{r['scope']}' is not a step range")
        if where == "graph" and "CUDA graph" not in r["note"]:
            errors.append(f"launch {r['launch_index']}: graph kernel without its note: {r['note']}")
        if where == "graph" and "--timed-graph" in sys.argv and not float(r["time_s"] or 0) > 0:
            errors.append(f"launch {r['launch_index']}: graph kernel without a duration")
        if r["measured"] != "1":
            continue
        measured[where] += 1
        kind = "flops_fp32" if "float" in r["short_name"] else "flops_fp64"
        if float(r[kind]) != FLOPS:
            errors.append(f"launch {r['launch_index']} {r['short_name']} in {r['scope']}: "
                          f"{kind} {r[kind]}, expected {FLOPS}")
    print(f"{len(rows)} records; measured: {measured['direct']} direct, {measured['graph']} graph "
          f"kernels; names: {sorted(names['direct'])} / graph {sorted(names['graph'])}")
    if measured["direct"] == 0:
        errors.append("no direct launch was measured")
    if graph and not names["graph"]:
        errors.append("no record of the graph's kernels")
    if measured["graph"]:
        errors.append(f"{measured['graph']} graph kernels have counters: they cannot be right")
    for e in errors[:20]:
        print("ERROR", e)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
