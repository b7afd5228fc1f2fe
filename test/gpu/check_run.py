#!/usr/bin/env python3
"""Checks a `roofline report --group-by launch --csv` of test/gpu/injected_app.cu under
`roofline run` (test/run_injection.cmake): every measured FMA-chain record has the FLOPs counted
by hand, scopes come from the program's NVTX ranges, and the graph's kernels (launched as the
graph's nodes while counters are collected) have the same exact FLOPs where they have records, in
"step 2/graph"; with --measured-graph (kernel replay: every launch has a record) there must be
such records.

    check_run.py REPORT.csv [--measured-graph]
"""
import csv
import sys

THREADS = 264 * 256
FLOPS = 2 * THREADS * 1024 * 4  # calibration/expected.hpp: kFfmaFlops == kDfmaFlops


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    measured_graph = "--measured-graph" in sys.argv
    errors = []
    measured = {"direct": 0, "graph": 0}
    names = {"direct": set(), "graph": set()}
    for r in rows:
        where = "graph" if r["scope"].endswith("/graph") else "direct"
        names[where].add(r["short_name"])
        if not r["scope"].startswith("step"):
            errors.append(f"launch {r['launch_index']}: scope '{r['scope']}' is not a step range")
        if where == "graph" and r["measured"] != "1":
            errors.append(f"launch {r['launch_index']}: graph kernel without counters: {r['note']}")
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
    if measured_graph and not measured["graph"]:
        errors.append("no measured record of the graph's kernels")
    for e in errors[:20]:
        print("ERROR", e)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
