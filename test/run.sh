#!/usr/bin/env bash
# Builds everything and runs the whole test suite: about 9 minutes on a 2-core machine without a
# GPU (8 min 38 s from a fresh clone on 2026-11-27; the build is most of it, the tests take about
# a minute and a half). GPU tests (label gpu) run when a
# GPU is present and are reported as skipped when not; the summary at the end says why each
# skipped test was skipped. CI (.ci/run) runs this, then the CPU tests again under
# AddressSanitizer + UndefinedBehaviorSanitizer and the recording fuzzers.
set -euo pipefail
start=$SECONDS
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ROOFLINE_BUILD_DIR:-$root/build}"
source "$root/cmake/setup-dependencies.sh"

jobs="$(nproc 2>/dev/null || echo 2)"
# Optimized as RelWithDebInfo, with the debug information a backtrace needs (functions and line
# tables, -g1) rather than all of it: a third less compile time for the same code.
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"
cmake --build "$build" -j "$jobs"
status=0
ctest --test-dir "$build" --output-on-failure -j "$jobs" || status=$?
bash "$root/test/skip_summary.sh" "$build"
elapsed=$((SECONDS - start))
echo "test/run.sh: built and tested in $((elapsed / 60)) min $((elapsed % 60)) s"
exit "$status"
