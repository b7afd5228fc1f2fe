#!/usr/bin/env python3
"""The collector's folders include one way (docs/design/0027-collector-folders.md).

Each folder of libroofline/ below may include only from itself and the folders it lists, and the
library's lower layers (core/, cupti/, nvtx/, report/, ceilings/) from none of them. A new
include against the grain fails the check, naming the file, the line and the folder it reached.

    layering.py SOURCE_DIR
"""
import os
import re
import sys

# folder -> the folders it may include from (besides itself)
ALLOWED = {
    "session": {"scopes", "replay", "replay/reuse", "sampling", "collect"},
    "sampling": {"collect"},
    "scopes": {"collect"},
    "replay/reuse": {"replay", "collect"},
    "replay": {"collect"},
    "collect": set(),
}
LOWER = ("core", "cupti", "nvtx", "report", "ceilings")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+(?:/reuse)?)/[^"]+"')


def folder_of(path):
    """The layered folder a libroofline-relative path is in, or None."""
    if path.startswith("replay/reuse/"):
        return "replay/reuse"
    head = path.split("/", 1)[0]
    return head if head in ALLOWED or head in LOWER else None


def main():
    root = os.path.join(sys.argv[1], "libroofline")
    errors, files = [], 0
    for here, _, names in os.walk(root):
        for name in sorted(names):
            if not name.endswith((".hpp", ".cpp", ".cu", ".cuh")):
                continue
            rel = os.path.relpath(os.path.join(here, name), root)
            mine = folder_of(rel)
            if mine is None:
                continue
            files += 1
            with open(os.path.join(here, name), encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = folder_of(m.group(1) + "/x") or m.group(1)
                    if target == mine or target not in ALLOWED:
                        continue
                    if mine in LOWER or target not in ALLOWED[mine]:
                        errors.append(f"libroofline/{rel}:{number}: {mine}/ includes {target}/ "
                                      f"({line.strip()}), against the layering")
    for e in errors:
        print(e)
    if errors:
        print(f"FAIL {len(errors)} include(s) against the layering")
        return 1
    print(f"layering kept: {files} files, every include runs one way")
    return 0


if __name__ == "__main__":
    sys.exit(main())
