#!/usr/bin/env python3
"""Whether two recordings of one program hold the same records: `roofline report --group-by launch
--csv` of each, compared launch by launch -- the same launches (kernel, grid, block, position),
attributed alike (scope, iteration, operator, module), measured or not alike, reused alike, with
the same work (FLOPs of every kind, L1 bytes: equal within 0.1% for the same work). Time and
L2/DRAM bytes vary from run to run and are not compared.

    same_records.py ROOFLINE A.rfl B.rfl
"""
import csv
import io
import subprocess
import sys

IDENTITY = ["name", "scope", "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z",
            "iteration", "position", "op", "phase", "module", "measured", "replay", "lacks",
            "scope_record", "kernels"]
WORK = ["flops_fp64", "flops_fp32", "flops_fp16", "flops_tensor_fp64", "flops_tensor_tf32",
        "flops_tensor_fp16", "flops_tensor_bf16", "flops_tensor_fp8", "flops_tensor_int8",
        "bytes_l1"]


def rows(roofline, path):
    out = subprocess.run([roofline, "report", path, "--group-by", "launch", "--csv", "-"],
                         check=True, capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


def kind(note):
    """What a note says of the record: reused, partial, not measured (the details vary)."""
    for word in ("reused:", "partial:", "not measured:", "replay incomplete"):
        if word in note:
            return word
    return ""


def main():
    roofline, a_path, b_path = sys.argv[1:4]
    a, b = rows(roofline, a_path), rows(roofline, b_path)
    problems = []
    if len(a) != len(b):
        problems.append(f"{len(a)} records against {len(b)}")
    for i, (x, y) in enumerate(zip(a, b)):
        for key in IDENTITY:
            if x[key] != y[key]:
                problems.append(f"record {i}: {key} {x[key]!r} against {y[key]!r}")
        if kind(x["note"]) != kind(y["note"]):
            problems.append(f"record {i}: note {x['note'][:60]!r} against {y['note'][:60]!r}")
        for key in WORK:
            u, v = float(x[key] or 0), float(y[key] or 0)
            if abs(u - v) > 1e-3 * max(abs(u), abs(v)):
                problems.append(f"record {i} ({x['name'][:40]}): {key} {u} against {v}")
    measured = sum(r["measured"] == "1" for r in a)
    reused = sum("reused:" in r["note"] for r in a)
    print(f"{len(a)} and {len(b)} records ({measured} measured, {reused} reused in A): "
          f"{len(problems)} differences")
    for p in problems[:40]:
        print("  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
