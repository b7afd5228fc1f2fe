#!/usr/bin/env python3
"""One row of the PyTorch matrix (test/gpu/torch_matrix.sh): the profiled run against the
unprofiled one and its recordings' records. Prints the row; exits 1 with FAIL lines when the
losses differ, the profile did not complete, a launch of the steady step has no counters, or the
records lack operators or modules.

    torch_matrix_check.py ROW PLAIN.txt PROFILED.txt RECORDS.csv [RECORDS.csv ...]
"""
import csv
import re
import sys


def losses(path):
    """Every rank's losses ("rank R losses 0x1.6d3108p+2 ..."), by rank."""
    text = open(path, errors="replace").read()
    return {rank: values.split()
            for rank, values in re.findall(r"rank (\d+) losses ((?:0x[0-9a-fp.+-]+ ?)+)", text)}


def ops_of(rows):
    """The commonest operators (and phases) of `rows`, for a failure's message."""
    count = {}
    for r in rows:
        key = f"{r['op'] or '(none)'} [{r['phase'] or '-'}]"
        count[key] = count.get(key, 0) + 1
    return ", ".join(f"{k} {n}" for k, n in sorted(count.items(), key=lambda x: -x[1])[:5])


def first_difference(a, b):
    for rank, values in a.items():
        for i, (x, y) in enumerate(zip(values, b.get(rank, []))):
            if x != y:
                return f"rank {rank} step {i}: {x} unprofiled, {y} profiled"
    return "-"


def main():
    row, plain, profiled, csvs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    bad = []
    a, b = losses(plain), losses(profiled)
    if not a or a != b:
        bad.append(f"losses differ or missing: unprofiled ranks {sorted(a)}, profiled "
                   f"{sorted(b)}; first difference: {first_difference(a, b)}")
    log = open(profiled, errors="replace").read()
    complete = [int(n) for n in re.findall(r"the profile was complete after (\d+) iterations", log)]
    if len(complete) < len(csvs):
        bad.append("the profile did not complete on every rank")
    if "Traceback" in log:
        bad.append("a traceback in the profiled run")
    cells = []
    for path in csvs:
        rows = list(csv.DictReader(open(path)))
        measured = [r for r in rows if r["measured"] == "1"]
        # Launches outside every step that no window measured and whose signature the step does
        # not run (between steps, after the first pinned allocation) have records without
        # counters that say so.
        unwindowed = [r for r in rows if r["measured"] != "1" and r["iteration"] == "-1"
                      and r["note"].startswith("no counters: ran outside every step")]
        # Operators are named from the first module call on (the hook turns PyTorch's operator
        # ranges on then): launches outside the steps before it -- parameters initialized,
        # measured in windows -- carry none.
        stepped = [r for r in rows if r["iteration"] != "-1"]
        op = [r for r in stepped if r["op"]]
        # The model's own work: not collectives, not gradient accumulation into a parameter (it
        # differentiates no module's forward: DDP's copies into its buckets, say).
        work = [r for r in stepped
                if r["phase"] != "communication" and "AccumulateGrad" not in r["op"]]
        module = [r for r in work if r["module"]]
        back = [r for r in work if r["phase"] == "backward"]
        back_module = [r for r in back if r["module"] and not r["module"].startswith("optimizer")]
        steps = {}
        for r in rows:
            steps.setdefault(r["iteration"], []).append(r)
        cells.append((len(rows), len(measured), len(op), len(module), len(back), len(back_module)))
        if not rows:
            bad.append(f"{path}: no records")
            continue
        if len(measured) + len(unwindowed) < len(rows):
            bad.append(f"{path}: {len(rows) - len(measured) - len(unwindowed)} of {len(rows)} "
                       "records without counters")
        if len(op) < 0.95 * len(stepped):
            bad.append(f"{path}: {len(op)} of {len(stepped)} records of the steps carry an "
                       "operator")
        if len(module) < 0.80 * len(work):
            bad.append(f"{path}: {len(module)} of {len(work)} records of the model's work carry a "
                       f"module; without: {ops_of([r for r in work if not r['module']])}")
        if back and len(back_module) < 0.8 * len(back):
            bad.append(f"{path}: {len(back_module)} of {len(back)} backward records carry a module; "
                       f"without: {ops_of([r for r in back if not r['module']])}")
    rec = "/".join(str(c[0]) for c in cells)
    print(f"{row:<16} {rec:>8} {'/'.join(str(c[1]) for c in cells):>8} "
          f"{'/'.join(str(c[2]) for c in cells):>8} {'/'.join(str(c[3]) for c in cells):>8} "
          f"{'/'.join(str(n) for n in complete) or '-':>10} "
          f"{'equal' if a and a == b else 'DIFFER'} ({sum(len(v) for v in a.values())} steps)")
    for b_ in bad:
        print(f"FAIL {row}: {b_}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
