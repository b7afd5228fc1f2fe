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
# A process with no session (a DataLoader worker, a launcher: no kernel launched) gets the module
# hooks but never PyTorch's profiler, and follows no module; at exit nothing of the hook is left.
lib="$(dirname "$cli")/libroofline.so"
# (A sanitized libroofline cannot be loaded into an uninstrumented python: that part is left out.)
if [[ -f "$lib" ]] && ! ldd "$lib" 2>/dev/null | grep -qE "libasan|libubsan|libtsan"; then
  mkdir -p "$dir/api/torch"
  cat >"$dir/api/torch/__init__.py" <<'PY'
"""The parts of torch's API the hook uses, recording what it did with them."""
import types
__version__ = "0.0-fake"
calls = []
class _Handle:
    def __init__(self, hooks, fn): self.hooks, self.fn = hooks, fn
    def remove(self): self.hooks.remove(self.fn)
pre_hooks, post_hooks, step_hooks = [], [], []
def _register(hooks):
    def register(fn, **kwargs):
        hooks.append(fn)
        return _Handle(hooks, fn)
    return register
def _enable(config, activities):
    calls.append("enable_profiler")
def _disable():
    calls.append("disable_profiler")
autograd = types.SimpleNamespace(
    ProfilerConfig=lambda *a: a, ProfilerState=types.SimpleNamespace(NVTX="nvtx"),
    _enable_profiler=_enable, _disable_profiler=_disable,
    profiler=types.SimpleNamespace(_enable_profiler=_enable, _prepare_profiler=lambda *a: None))
nn = types.SimpleNamespace(modules=types.SimpleNamespace(module=types.SimpleNamespace(
    register_module_forward_pre_hook=_register(pre_hooks),
    register_module_forward_hook=_register(post_hooks))))
optim = types.SimpleNamespace(optimizer=types.SimpleNamespace(
    register_optimizer_step_post_hook=_register(step_hooks)))
PY
  out="$(CUDA_INJECTION64_PATH="$lib" PYTHONPATH="$hook:$dir/api" python3 -c '
import torch
class Net:
    def named_modules(self, remove_duplicate=True):
        return [("", self)]
net = Net()
for step in range(3):
    for h in list(torch.pre_hooks): h(net, ())
    for h in list(torch.post_hooks): h(net, (), None)
    for h in list(torch.step_hooks): h(None, (), {})
print("hooks installed:", len(torch.pre_hooks), len(torch.post_hooks), len(torch.step_hooks))
print("profiler calls:", torch.calls)
' 2>&1)"
  echo "$out"
  grep -q "hooks installed: 1 1 1" <<<"$out" || fail "the module and optimizer hooks are not installed"
  grep -q "profiler calls: \[\]" <<<"$out" || fail "PyTorch's profiler was touched in a process with no session"
fi
echo "torch hook: armed, chained and harmless without PyTorch"
