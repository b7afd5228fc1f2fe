#!/usr/bin/env python3
"""Functions of libroofline/ and benchmarks/ over 80 lines, listed (Universal Ctags finds them).

Every function over the limit is listed. The check fails when one that is not in
test/style/long_functions.txt is over it, or when one listed there grew past the length it has
there: the list only shrinks, as functions are cut at their parts. Without ctags it says so and is
skipped (SKIPPED).

    function_length.py SOURCE_DIR [--write]   (--write: rewrite the list from the tree as it is)
"""
import os
import shutil
import subprocess
import sys

LIMIT = 80
ROOTS = ("libroofline", "benchmarks")


def functions(source):
    """(file:name, length) of every function definition over LIMIT lines."""
    out = subprocess.run(
        ["ctags", "-R", "--languages=C++", "--langmap=C++:+.cu.cuh", "--kinds-C++=f",
         "--fields=+ne", "--extras=-F", "-f", "-", *ROOTS],
        cwd=source, check=True, capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        fields = line.split("\t")
        if len(fields) < 4 or fields[0].startswith("__anon"):
            continue  # a lambda: part of the function it is in
        start = end = None
        for f in fields[3:]:
            if f.startswith("line:"):
                start = int(f[5:])
            elif f.startswith("end:"):
                end = int(f[4:])
        if start is None or end is None:
            continue
        key = f"{fields[1]}:{fields[0]}"
        length = end - start + 1
        if length > LIMIT:
            found[key] = max(found.get(key, 0), length)
    return found


def main():
    source = sys.argv[1]
    listed_path = os.path.join(source, "test", "style", "long_functions.txt")
    if shutil.which("ctags") is None or b"Universal Ctags" not in subprocess.run(
            ["ctags", "--version"], capture_output=True).stdout:
        print("SKIPPED no Universal Ctags on the PATH: functions not measured")
        return 0
    found = functions(source)
    if "--write" in sys.argv:
        with open(listed_path, "w") as f:
            f.write("# Functions over 80 lines, with their length: each is to be cut at its parts.\n"
                    "# test/style/function_length.py fails when one grows or a new one appears.\n")
            for key, length in sorted(found.items()):
                f.write(f"{length} {key}\n")
        return 0
    listed = {}
    with open(listed_path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                length, key = line.split(maxsplit=1)
                listed[key.strip()] = int(length)
    failed = []
    for key, length in sorted(found.items(), key=lambda kv: -kv[1]):
        allowed = listed.get(key)
        state = ("new: cut it at its parts" if allowed is None else
                 f"grew from {allowed}" if length > allowed else "listed")
        print(f"{length:4d} {key} ({state})")
        if allowed is None or length > allowed:
            failed.append(key)
    gone = [k for k in listed if k not in found]
    for key in gone:
        print(f"     {key}: now {LIMIT} lines or fewer; take it off test/style/long_functions.txt")
    if failed or gone:
        print(f"FAIL {len(failed)} function(s) over {LIMIT} lines that may not be, "
              f"{len(gone)} listed one(s) to take off the list")
        return 1
    print(f"functions over {LIMIT} lines: {len(found)}, none new, none grown")
    return 0


if __name__ == "__main__":
    sys.exit(main())
