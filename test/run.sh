#!/usr/bin/env bash
# Builds everything and runs the whole test suite. GPU tests (label gpu) run when a GPU is
# present and are reported as skipped, with the reason, when not.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ROOFLINE_BUILD_DIR:-$root/build}"
source "$root/cmake/setup-dependencies.sh"

jobs="$(nproc 2>/dev/null || echo 2)"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" --output-on-failure -j "$jobs"
