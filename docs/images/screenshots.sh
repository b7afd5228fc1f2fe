#!/usr/bin/env bash
# Regenerates the chart screenshots in docs/images from the bundled training-step recording,
# rendered by headless Chromium (Debian: apt-get install chromium).
#   docs/images/screenshots.sh BUILD_DIR
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$(cd "${1:?usage: screenshots.sh BUILD_DIR}" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$build/libroofline/roofline" report "$root/test/fixtures/h100_train_step.rfl" \
  --ceilings "$root/libroofline/data/ceilings/NVIDIA_H100_80GB_HBM3.json" --chart "$tmp/train_step.svg" --labels 8 >/dev/null
for family in fp32 tensor; do
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1100,720 \
    --screenshot="$root/docs/images/train_step-$family.png" "file://$tmp/train_step-$family.svg"
done
