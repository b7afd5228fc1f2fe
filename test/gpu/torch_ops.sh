#!/usr/bin/env bash
# PyTorch operators and modules, unmodified programs (label gpu): the transformer trainer of
# examples/pytorch (bf16 autocast, fused AdamW, an NVTX range per step) under `roofline run`
#  1. as it is: its losses equal an unprofiled run's, the profile completes, every record of the
#     step carries an operator and the records of the encoder layers their module; backward
#     kernels carry the forward operator and module they differentiate, optimizer kernels
#     "optimizer.AdamW"; reports by op (with the tensor-core summary) and by module read back;
#  2. wrapped in torch.autograd.profiler.emit_nvtx() (PyTorch's per-op ranges, numbered per
#     call): the profile completes all the same, every launch measured, the same operators;
#  3. a small loop: the hook is on while the profile collects (PyTorch's profiler, its
#     sys.monitoring tool) and off once it is complete; no global module hook at any time.
# Skips, saying so, without PyTorch.
#   torch_ops.sh ROOFLINE_CLI OUT_DIR
set -uo pipefail
cli="$1"
out="$2"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ex="$root/examples/pytorch/train_transformer.py"
mkdir -p "$out"
rm -f "$out"/*.rfl
if ! python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  echo "SKIPPED no PyTorch with CUDA: the PyTorch operator checks need it"
  exit 0
fi
fail=0
timeout 300 python3 "$ex" --steps 30 >"$out/plain.txt" 2>&1 || { tail -5 "$out/plain.txt"; echo "FAIL the unprofiled loop"; fail=1; }
for v in hook nvtx; do
  flag=; [[ $v == nvtx ]] && flag=--emit-nvtx
  timeout 600 "$cli" run -o "$out/$v.rfl" -- python3 "$ex" --steps 30 $flag >"$out/$v.txt" 2>&1 ||
    { tail -20 "$out/$v.txt"; echo "FAIL the loop ($v) under roofline run"; fail=1; continue; }
  grep -E "^\[roofline\]|last loss|PyTorch hook" "$out/$v.txt" | cut -c1-200
  a=$(sed -n 's/.*last loss //p' "$out/plain.txt"); b=$(sed -n 's/.*last loss //p' "$out/$v.txt")
  [[ -n "$a" && "$a" == "$b" ]] || { echo "FAIL $v: loss '$b' profiled, '$a' unprofiled"; fail=1; }
  "$cli" report "$out/$v.rfl" --group-by op --top 12 --csv "$out/$v.csv" >"$out/${v}_op.txt" ||
    { echo "FAIL $v: report --group-by op"; fail=1; continue; }
  "$cli" report "$out/$v.rfl" --group-by module:3 --top 12 >"$out/${v}_module.txt" ||
    { echo "FAIL $v: report --group-by module:3"; fail=1; }
  grep -E "^coverage|^framework" "$out/${v}_op.txt" | cut -c1-200
  grep -q "(complete)" "$out/${v}_op.txt" || { echo "FAIL $v: the profile did not complete"; fail=1; }
  grep -q "^tensor cores" "$out/${v}_op.txt" || { echo "FAIL $v: no tensor-core summary"; fail=1; }
  sed -n '/^tensor cores/,$p' "$out/${v}_op.txt" | head -14 | cut -c1-160
  python3 - "$out/$v.csv" "$v" <<'PY' || fail=1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
v = sys.argv[2]
measured = sum(1 for r in rows if r["measured"] == "1")
# Launches outside every step that no window measured and whose signature the step does not run
# (between steps, after the first pinned allocation) have records without counters that say so.
unwindowed = sum(1 for r in rows if r["measured"] != "1" and r["iteration"] == "-1"
                 and r["note"].startswith("no counters: ran outside every step"))
# Operators are named from the first module call on: launches before it (set-up, measured in
# windows) carry none.
stepped = [r for r in rows if r["iteration"] != "-1"]
with_op = [r for r in stepped if r["op"]]
back = [r for r in rows if r["phase"] == "backward"]
back_mod = [r for r in back if r["module"].startswith("encoder.layers.")]
fwd_mod = [r for r in rows if r["phase"] == "forward" and r["module"].startswith("encoder.layers.")]
adam = [r for r in rows if r["module"] == "optimizer.AdamW"]
attn = [r for r in back if "attention" in r["op"] and r["module"].endswith("self_attn")]
print(f"{v}: {len(rows)} records, {measured} measured, {len(with_op)} with an operator, "
      f"{len(back)} backward ({len(back_mod)} with an encoder module), {len(fwd_mod)} forward in "
      f"encoder layers, {len(adam)} optimizer, {len(attn)} attention backward in self_attn")
ops = {}
for r in rows:
    ops[r["op"]] = ops.get(r["op"], 0) + 1
print("  operators:", ", ".join(f"{k or '(none)'} {n}" for k, n in sorted(ops.items(), key=lambda x: -x[1])[:12]))
bad = []
if measured + unwindowed < len(rows): bad.append(f"{len(rows) - measured - unwindowed} records without counters")
if len(with_op) < 0.95 * len(stepped): bad.append("under 95% of the steps' records carry an operator")
if not back_mod or len(back_mod) < 0.5 * len(back): bad.append("backward kernels lack their module")
if not fwd_mod: bad.append("no forward kernel in an encoder layer")
if not adam: bad.append("no optimizer kernel")
if not attn: bad.append("no attention backward attributed to self_attn")
if any("op_id" in r["scope"] or "seq =" in r["scope"] for r in rows): bad.append("per-call fields in scopes")
if bad:
    sys.exit(f"FAIL {v}: " + "; ".join(bad))
PY
done
# 3. The hook follows the program without hooking into it: no global module hook at any time,
#    PyTorch's profiler (its NVTX ranges) on while the profile collects and off once it is
#    complete, the hook's sys.monitoring tool given back -- the steady state runs as unprofiled.
cat >"$out/hook_probe.py" <<'PY'
import sys
import torch
import torch.nn.modules.module as m

net = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10)).cuda()
opt = torch.optim.AdamW(net.parameters())
x = torch.randn(64, 256, device="cuda")
def state():
    tools = sum(1 for t in (3, 4) if sys.monitoring.get_tool(t) == "libroofline")
    return (len(m._global_forward_pre_hooks) + len(m._global_forward_hooks),
            torch.autograd._profiler_enabled(), tools)
for n in range(60):
    torch.cuda.nvtx.range_push(f"step {n}")
    opt.zero_grad()
    net(x).square().mean().backward()
    opt.step()
    torch.cuda.nvtx.range_pop()
    if n == 2:
        print("while collecting: hooks %d, profiler %s, monitoring %d" % state(), flush=True)
torch.cuda.synchronize()
print("after 60 steps: hooks %d, profiler %s, monitoring %d" % state(), flush=True)
PY
timeout 300 "$cli" run -o "$out/probe.rfl" -- python3 "$out/hook_probe.py" >"$out/probe.txt" 2>&1 ||
  { tail -10 "$out/probe.txt"; echo "FAIL the hook probe"; fail=1; }
grep -E "while collecting|after 60|idle after" "$out/probe.txt" | cut -c1-200
grep -q "while collecting: hooks 0, profiler True, monitoring 1" "$out/probe.txt" ||
  { echo "FAIL the hook was not on, or not only on, while the profile collected"; fail=1; }
grep -q "after 60 steps: hooks 0, profiler False, monitoring 0" "$out/probe.txt" ||
  { echo "FAIL the hook was still on once the profile was complete"; fail=1; }
[[ $fail == 0 ]] && echo "torch ops: every check passed"
exit $fail
