#!/usr/bin/env bash
# The main job. Builds libroofline, then:
#   with a GPU:    profiles examples/quickstart live (recording saved to build/quickstart.rfl);
#   without one:   evaluates the bundled H100 recording with `roofline report`.
# It says which of the two it did.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ROOFLINE_BUILD_DIR:-$root/build}"
source "$root/cmake/setup-dependencies.sh"

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target roofline_quickstart roofline_cli

if nvidia-smi -L >/dev/null 2>&1; then
  echo "== GPU found: profiling examples/quickstart live"
  "$build/examples/quickstart" "$build/quickstart.rfl"
else
  echo "== No GPU on this machine: evaluating the bundled H100 recording" \
       "(test/fixtures/h100_calibration.rfl) with roofline report"
  "$build/libroofline/roofline" report "$root/test/fixtures/h100_calibration.rfl"
fi
