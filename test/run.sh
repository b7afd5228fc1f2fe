#!/usr/bin/env bash
# Builds everything and runs the whole test suite. GPU tests (label gpu) run when a GPU is
# present and are reported as skipped, with the reason, when not. Then the CPU tests again, built
# with AddressSanitizer + UndefinedBehaviorSanitizer (ROOFLINE_SANITIZE, a second build tree):
# any finding fails them. ROOFLINE_SANITIZE_TESTS=0 skips that second pass.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ROOFLINE_BUILD_DIR:-$root/build}"
source "$root/cmake/setup-dependencies.sh"

jobs="$(nproc 2>/dev/null || echo 2)"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" --output-on-failure -j "$jobs"

if [ "${ROOFLINE_SANITIZE_TESTS:-1}" != 0 ]; then
  sanitize="${ROOFLINE_SANITIZE_BUILD_DIR:-$root/build-sanitize}"
  echo "== CPU tests under AddressSanitizer + UndefinedBehaviorSanitizer ($sanitize)"
  cmake -S "$root" -B "$sanitize" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DROOFLINE_SANITIZE=ON -DROOFLINE_BUILD_EXAMPLES=OFF -DROOFLINE_BUILD_BENCHMARKS=OFF
  cmake --build "$sanitize" -j "$jobs" --target roofline_unit_tests roofline_session_cpu_tests \
    roofline_cli roofline_fuzz_recording_smoke roofline_fuzz_ceilings_smoke
  # The unit tests, the CLI on the bundled recordings and the readers' fuzz drivers. Left out:
  # what needs a target this tree does not build (GPU tests, benchmarks, the install consumer),
  # `roofline run`, which injects libroofline into other processes, and the CLI commands that
  # call CUPTI's host API (it loads libnvperf_host.so with RTLD_DEEPBIND, which AddressSanitizer
  # refuses; unit tests that need it skip themselves, test/unit/cupti_host_guard.hpp; README's
  # sample evaluates the calibration recording's kept image with it too).
  ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1" \
    ctest --test-dir "$sanitize" --output-on-failure -j "$jobs" -L cpu \
    -E "_NOT_BUILT|^install\.|^bench\.|seer|^example|cli\.run_command|cli\.output_safety|cli\.metrics_gh100|cli\.report_fixture|cli\.compare_fixtures|readme\.sample"
fi
