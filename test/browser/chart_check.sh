#!/usr/bin/env bash
# The charts of the bundled recordings laid out by a real browser (headless Chromium): every
# text inside its chart, the kernels' number labels clear of each other, of the roof labels and
# of the legend, every marker inside the plot (chart_check.js). Skips, saying why, without
# Chromium.   chart_check.sh ROOFLINE FIXTURE_DIR
set -uo pipefail
R="$1"
fixtures="$2"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
browser=""
for b in chromium chromium-browser google-chrome; do
  command -v "$b" >/dev/null 2>&1 && browser="$b" && break
done
if [[ -z "$browser" ]]; then
  echo "SKIPPED no Chromium to lay the charts out (apt-get install chromium)"
  exit 0
fi
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail=0
for f in h100_train_step h100_torch_ops h100_torch_transformer h100_host_step; do
  for labels in 10 25; do
    page="$dir/$f-$labels.html"
    "$R" report "$fixtures/$f.rfl" --chart "$page" --labels "$labels" --host >/dev/null 2>&1 ||
      { echo "FAIL: roofline report $f --chart"; fail=1; continue; }
    { sed '$d' "$page"; echo "<script>"; cat "$here/chart_check.js"; echo "</script></body></html>"; } \
      > "$dir/checked.html"
    out="$(timeout 60 "$browser" --headless --no-sandbox --disable-gpu --virtual-time-budget=2000 \
      --dump-dom "file://$dir/checked.html" 2>/dev/null)"
    verdict="$(sed -n '/<pre id="chart-check">/,/<\/pre>/p' <<<"$out" | sed 's/<[^>]*>//g')"
    if [[ -z "$verdict" ]]; then
      echo "FAIL: $f --labels $labels: the browser gave no verdict"; fail=1
    elif ! grep -q ", 0 problems" <<<"$verdict"; then
      echo "FAIL: $f --labels $labels:"; echo "$verdict" | head -20; fail=1
    else
      echo "$f --labels $labels: $(head -1 <<<"$verdict")"
    fi
  done
done
# a comparison's chart: arrows from A's points to B's, B's ids as labels
page="$dir/compare.html"
if "$R" compare "$fixtures/h100_torch_transformer.rfl" "$fixtures/h100_torch_ops.rfl" --by name \
     --chart "$page" >/dev/null 2>&1; then
  { sed '$d' "$page"; echo "<script>"; cat "$here/chart_check.js"; echo "</script></body></html>"; } \
    > "$dir/checked.html"
  out="$(timeout 60 "$browser" --headless --no-sandbox --disable-gpu --virtual-time-budget=2000 \
    --dump-dom "file://$dir/checked.html" 2>/dev/null)"
  verdict="$(sed -n '/<pre id="chart-check">/,/<\/pre>/p' <<<"$out" | sed 's/<[^>]*>//g')"
  if ! grep -q ", 0 problems" <<<"$verdict"; then
    echo "FAIL: compare chart:"; echo "${verdict:-the browser gave no verdict}" | head -20; fail=1
  else
    echo "compare: $(head -1 <<<"$verdict")"
  fi
else
  echo "FAIL: roofline compare --chart"; fail=1
fi
[[ $fail == 0 ]] && echo "charts laid out by $browser: no text leaves its chart, no label overlaps"
exit $fail
