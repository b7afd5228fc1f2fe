#!/usr/bin/env bash
# libroofline's PyTorch hook on a machine without PyTorch or a GPU: `roofline run` puts its
# directory first on PYTHONPATH with everything it binds from (ROOFLINE_TORCH_HOOK off, as
# libroofline reads it: not at all; a malformed value: refused before the program runs); its
# sitecustomize imports no torch, arms the import hook, and runs the sitecustomize it shadows; a
# torch imported where libroofline is not loaded leaves the program as it is.
#   torch_hook.sh ROOFLINE_CLI
set -uo pipefail
cli="$1"
command -v python3 >/dev/null || { echo "SKIPPED no python3 on this machine"; exit 0; }
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL $*"; exit 1; }
hook="$("$cli" run --dry-run -- python3 x.py | sed -n 's/^PYTHONPATH=\([^:]*\).*/\1/p')"
for f in sitecustomize.py roofline_torch.py roofline_compiled.py roofline_framework.py framework.h; do
  [[ -f "$hook/$f" ]] || fail "run --dry-run names no hook directory with $f on PYTHONPATH ('$hook')"
done
for off in 0 off false no; do
  ROOFLINE_TORCH_HOOK=$off "$cli" run --dry-run -- python3 x.py | grep -q "^PYTHONPATH=$hook" &&
    fail "ROOFLINE_TORCH_HOOK=$off still puts the hook on PYTHONPATH"
done
out="$(ROOFLINE_TORCH_HOOK=maybe "$cli" run --dry-run -- python3 x.py 2>&1)" &&
  fail "ROOFLINE_TORCH_HOOK=maybe was taken"
grep -q "ROOFLINE_TORCH_HOOK='maybe' is not a boolean" <<<"$out" || fail "no message: $out"
mkdir -p "$dir/site" "$dir/fake/torch"
echo 'print("the shadowed sitecustomize ran")' >"$dir/site/sitecustomize.py"
probe='import sys
print("torch imported:", "torch" in sys.modules)
print("armed:", any(type(f).__name__ == "_WhenImported" and f.name == "torch" for f in sys.meta_path))'
out="$(PYTHONPATH="$hook:$dir/site" python3 -c "$probe" 2>&1)"
echo "$out"
grep -q "the shadowed sitecustomize ran" <<<"$out" || fail "the shadowed sitecustomize did not run"
grep -q "torch imported: False" <<<"$out" || fail "the hook imported torch"
grep -q "armed: True" <<<"$out" || fail "the import hook is not armed"
# A torch whose import succeeds where libroofline is not loaded (no CUDA call made): the program
# goes on, and nothing is said (a worker or a launcher is no profiled process).
echo 'VERSION = "fake"' >"$dir/fake/torch/__init__.py"
out="$(env -u CUDA_INJECTION64_PATH -u ROOFLINE_LIBRARY PYTHONPATH="$hook:$dir/fake" \
  python3 -c 'import torch; print("program ran on with torch", torch.VERSION)' 2>&1)"
echo "$out"
grep -q "program ran on with torch fake" <<<"$out" || fail "the program did not run on"
grep -q "Traceback" <<<"$out" && fail "a traceback"
echo "torch hook: armed, chained and harmless without PyTorch"
