#!/usr/bin/env bash
# libroofline's PyTorch hook on a machine without PyTorch or a GPU: `roofline run` puts its
# directory first on PYTHONPATH (ROOFLINE_TORCH_HOOK=0: not at all); its sitecustomize imports no
# torch, arms the import hook, and runs the sitecustomize it shadows; a torch imported where
# libroofline cannot be loaded gets a message, and the program runs on.
#   torch_hook.sh ROOFLINE_CLI
set -uo pipefail
cli="$1"
command -v python3 >/dev/null || { echo "SKIPPED no python3 on this machine"; exit 0; }
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL $*"; exit 1; }
hook="$("$cli" run --dry-run -- python3 x.py | sed -n 's/^PYTHONPATH=\([^:]*\).*/\1/p')"
[[ -f "$hook/sitecustomize.py" && -f "$hook/roofline_torch.py" ]] ||
  fail "run --dry-run names no hook directory on PYTHONPATH ('$hook')"
ROOFLINE_TORCH_HOOK=0 "$cli" run --dry-run -- python3 x.py | grep -q "^PYTHONPATH=$hook" &&
  fail "ROOFLINE_TORCH_HOOK=0 still puts the hook on PYTHONPATH"
mkdir -p "$dir/site" "$dir/fake/torch"
echo 'print("the shadowed sitecustomize ran")' >"$dir/site/sitecustomize.py"
probe='import sys
print("torch imported:", "torch" in sys.modules)
print("armed:", any(type(f).__name__ == "_WhenTorchImported" for f in sys.meta_path))'
out="$(PYTHONPATH="$hook:$dir/site" python3 -c "$probe" 2>&1)"
echo "$out"
grep -q "the shadowed sitecustomize ran" <<<"$out" || fail "the shadowed sitecustomize did not run"
grep -q "torch imported: False" <<<"$out" || fail "the hook imported torch"
grep -q "armed: True" <<<"$out" || fail "the import hook is not armed"
out="$(ROOFLINE_TORCH_HOOK=0 PYTHONPATH="$hook" python3 -c "$probe" 2>&1)"
grep -q "armed: False" <<<"$out" || fail "ROOFLINE_TORCH_HOOK=0 still arms the hook"
# A torch whose import succeeds where libroofline cannot be loaded: a message, the program goes on.
echo 'VERSION = "fake"' >"$dir/fake/torch/__init__.py"
out="$(env -u CUDA_INJECTION64_PATH -u ROOFLINE_LIBRARY PYTHONPATH="$hook:$dir/fake" \
  python3 -c 'import torch; print("program ran on with torch", torch.VERSION)' 2>&1)"
echo "$out"
grep -q "program ran on with torch fake" <<<"$out" || fail "the program did not run on"
grep -q "\[roofline\] PyTorch operators and modules not named" <<<"$out" || fail "no message"
echo "torch hook: armed, chained and harmless without PyTorch"
