#!/usr/bin/env python3
"""libroofline's PyTorch hook on a machine without PyTorch or a GPU: its logic against a stand-in
torch (test/python/fake_torch) and a stand-in for libroofline's C entry points, bound from the
real framework.h. Each scenario runs in a process of its own (sys.monitoring and import hooks
are process-wide).

    hook_test.py HOOK_DIR            # every scenario; HOOK_DIR: build/libroofline/python

The hook needs Python 3.12 (sys.monitoring): with an older python3 it runs with python3.12 when
there is one, and is skipped, saying so, when there is none. What it checks is in each scenario.
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures", "inductor")

PRELUDE = r'''
import os, sys, threading
hook_dir, fake_dir = sys.argv[1], sys.argv[2]
sys.path[:0] = [hook_dir, fake_dir]
import roofline_framework as rf

log = []            # calls into the stand-in libroofline
state = {"now": 0, "loaded": False, "hook": 1}

class Handle:
    pass

def recorder(name):
    def call(*args):
        log.append((name,) + tuple(a.decode() if isinstance(a, bytes) else a for a in args))
    return call

h = Handle()
h.roofline_framework_api = lambda: 4
h.roofline_torch_hook_enabled = lambda: state["hook"]
h.roofline_profile_state = lambda: state["now"]
for name in ("roofline_module_enter", "roofline_module_exit", "roofline_framework_fact",
             "roofline_compiled_graph", "roofline_step_end"):
    setattr(h, name, recorder(name))
lib = rf.Library(h, rf.header_text())
rf.loaded_library = lambda: lib if state["loaded"] else None

import roofline_torch
roofline_torch._LOAD_CHECK_S = 0
roofline_torch.arm()
import torch
from torch import autograd, nn

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = Linear()
    def forward(self, x):
        return self.linear(x) + 1

class Linear(nn.Module):
    def forward(self, x):
        return x * 2

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Module()
        self.blocks.b0 = Block()
        self.head = Linear()
    def forward(self, x):
        return self.head(self.blocks.b0(x))

def modules():
    return [e[1] for e in log if e[0] == "roofline_module_enter"]

def check(condition, what):
    if not condition:
        print("FAIL", what)
        print("  log:", log[-12:])
        print("  profiler:", autograd.calls[-8:])
        sys.exit(1)

COLLECTING, COMPLETE, SAMPLING = (lib.PROFILE_COLLECTING, lib.PROFILE_COMPLETE,
                                  lib.PROFILE_SAMPLING)
net = Net()
'''

SCENARIOS = {
    # Before libroofline is loaded (no CUDA call yet) and before its session starts, modules run
    # unseen and PyTorch's profiler stays off; once it collects, the next top-level call turns
    # the ranges on and names every module from the top one; once complete, the next call turns
    # them off and the hook removes itself: nothing of it is left.
    "lifecycle": r'''
net(1)
check(not modules() and not autograd.calls, "nothing before libroofline is loaded")
state["loaded"] = True
net(1)
check(not modules() and not autograd.calls, "nothing before the session starts")
phase = lambda: roofline_torch._hook.phase.value
ranges = lambda: roofline_torch._hook.ranges.state
check(phase() == "waiting" and ranges() == "off", "waiting, ranges off")
state["now"] = COLLECTING
check(net(1) == 6, "the forward's result")
check(phase() == "collecting" and ranges() == "on", "collecting, ranges on")
check(autograd.calls and autograd.calls[0][0] == "nvtx on" and autograd.calls[0][2],
      "ranges on, with shapes")
check(modules() == ["Net", "blocks.b0", "blocks.b0.linear", "head"], "module paths")
tops = [e[2] for e in log if e[0] == "roofline_module_enter"]
check(tops == [1, 0, 0, 0], "only the top module is top-level")
enters = sum(1 for e in log if e[0] == "roofline_module_enter")
exits = sum(1 for e in log if e[0] == "roofline_module_exit")
check(enters == exits == 4, "balanced")
facts = {e[1]: e[2] for e in log if e[0] == "roofline_framework_fact"}
check(facts.get("torch") == torch.__version__ and facts.get("tf32.cudnn") == "on", "facts")
torch.optim.SGD().step()
state["now"] = COMPLETE
net(1)
check(autograd.calls[-1][0] == "nvtx off", "ranges off once complete")
check(phase() == "finished" and ranges() == "off", "finished, ranges off")
check(sys.monitoring.get_tool(roofline_torch._hook.tool) is None, "monitoring tool freed")
n = len(log)
net(1)
check(len(log) == n, "nothing after completion")
print("lifecycle ok")
''',
    # The compiler's own modules (torch.compile's wrapper, DDP's wrapper around each compiled
    # bucket) are no modules of the program: the program's modules keep their paths and the top
    # one stays the top. An exception leaving a module still ends it; a module called from
    # another without being its child gets a path under its caller's.
    "wrappers_and_exceptions": r'''
state["loaded"] = True
state["now"] = COLLECTING
class OptimizedModule(nn.Module):
    def __init__(self, inner):
        super().__init__()
        self._orig_mod = inner
    def forward(self, x):
        return self._orig_mod(x)
OptimizedModule.__module__ = "torch._dynamo.eval_frame"
OptimizedModule(net)(1)
check(modules()[:4] == ["Net", "blocks.b0", "blocks.b0.linear", "head"], "the wrapper unseen")
check([e[2] for e in log if e[0] == "roofline_module_enter"][0] == 1, "the model is the top")
class WrapperModule(nn.Module):
    def __init__(self, submod):
        super().__init__()
        self.submod = submod
    def forward(self, x):
        return self.submod(x)
WrapperModule.__module__ = "torch._dynamo.backends.distributed"
class Parallel(nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.module = inner
    def forward(self, x):
        return WrapperModule(self.module)(x)
del log[:]
Parallel(Block())(1)
check(modules() == ["Parallel", "module", "module.linear"], modules())
class Failing(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Linear()
    def forward(self, x):
        self.inner(x)
        Linear()(x)      # not a child of this module
        raise ValueError("the program's own error")
try:
    Failing()(1)
except ValueError:
    pass
check("Failing.Linear" in modules(), "unregistered module under its caller")
enters = sum(1 for e in log if e[0] == "roofline_module_enter")
exits = sum(1 for e in log if e[0] == "roofline_module_exit")
check(enters == exits, f"balanced after an exception ({enters} vs {exits})")
print("wrappers and exceptions ok")
''',
    # A profiler the program starts comes first: ours steps aside before it starts, stays off
    # while it runs, and comes back at the first module call after it ended. Our own emit_nvtx
    # is not taken for the program's.
    "program_profiler": r'''
state["loaded"] = True
state["now"] = COLLECTING
net(1)
check(autograd.calls[-1][0] == "nvtx on", "ours on")
with torch.autograd.profiler.profile():
    check(autograd.calls[-1][0] == "nvtx off", "ours off before the program's starts")
    net(1)
    check(autograd.calls[-1][0] == "nvtx off", "ours off while the program's runs")
net(1)
check(autograd.calls[-1][0] == "nvtx on", "ours back once the program's ended")
with torch.autograd.profiler.emit_nvtx():
    net(1)
check(sum(1 for c in autograd.calls if c[0] == "nvtx on") == 3, "the program's emit_nvtx too")
net(1)
check(autograd.calls[-1][0] == "nvtx on", "and back")
print("program profiler ok")
''',
    # Ranges are turned on only by a thread of the program's: the autograd engine's threads (a
    # checkpointed layer's forward runs again there) inherit them.
    "engine_thread": r'''
import _thread
state["loaded"] = True
state["now"] = COLLECTING
done = threading.Event()
def engine():          # a thread Python did not start: threading sees a dummy thread
    net(1)
    done.set()
_thread.start_new_thread(engine, ())
done.wait()
check(not any(c[0] == "nvtx on" for c in autograd.calls), "not on an engine thread")
net(1)
check(autograd.calls[-1][0] == "nvtx on", "on from the program's thread")
print("engine thread ok")
''',
    # A child forked while the ranges are on (a DataLoader worker) lets them go without CUDA and
    # stays off; the parent keeps them.
    "fork": r'''
state["loaded"] = True
state["now"] = COLLECTING
net(1)
pid = os.fork()
if pid == 0:
    ok = (("disable", threading.get_ident()) in autograd.calls and
          roofline_torch._hook.finished and not autograd._profiler_enabled())
    n = len(log)
    net(1)
    os._exit(0 if ok and len(log) == n else 3)
_, status = os.waitpid(pid, 0)
check(os.WEXITSTATUS(status) == 0, "the child let the ranges go and stayed off")
check(autograd._profiler_enabled(), "the parent keeps its ranges")
print("fork ok")
''',
    # The end of the program's step: where the first optimizer to step returns from its outermost
    # step(), while libroofline collects. A second optimizer (a GAN's), an optimizer stepped
    # inside another's step, a step left by an exception end no step; an optimizer that took the
    # place of one let go does.
    "steps": r'''
def ends():
    return [e[1] for e in log if e[0] == "roofline_step_end"]
sgd = torch.optim.SGD()
sgd.step()
state["loaded"] = True
sgd.step()
check(not ends(), "nothing before the session collects")
state["now"] = COLLECTING
check(sgd.step() == "stepped", "the step's result")
check(ends() == ["torch.optim.SGD"], ends())
class Critic(torch.optim.Optimizer):
    def step(self):
        return "critic"
class Wrapping(torch.optim.Optimizer):
    def __init__(self, inner):
        self.inner = inner
    def step(self):
        return self.inner.step()
critic = Critic()
critic.step()
check(ends() == ["torch.optim.SGD"], "a second optimizer ends no step")
sgd.step()
check(len(ends()) == 2, "the first one's again")
class Failing(torch.optim.Optimizer):
    def step(self):
        raise RuntimeError("inf in the gradients")
del log[:]
del sgd
import gc; gc.collect()
wrapped = Wrapping(torch.optim.SGD())
check(wrapped.step() == "stepped", "the inner step's result")
check(ends() == [f"{__name__}.Wrapping"], f"one end for the outermost step: {ends()}")
try:
    Wrapping(Failing()).step()
except RuntimeError:
    pass
check(len(ends()) == 1, "a step left by an exception ends nothing")
wrapped.step()
check(len(ends()) == 2, "the depth is balanced after the exception")
prof = torch.profiler.profile()
prof.step()
check(len(ends()) == 2, "a profiler's schedule is not the first to step here")
print("steps ok")
''',
    # libroofline samples every step: the optimizer's steps are told, nothing is named, PyTorch's
    # operator ranges stay off, and module calls stop reaching the hook after the first.
    "sampling": r'''
state["loaded"] = True
state["now"] = SAMPLING
check(net(1) == 6 and net(1) == 6, "the forward's result")
check(roofline_torch._hook.phase.value == "sampling", "sampling")
check(not modules() and not autograd.calls, "no module named, no ranges")
calls = []
original = roofline_torch._hook.module_started
roofline_torch._hook.module_started = lambda frame: calls.append(1) or original(frame)
net(1)
check(not calls, "module calls no longer reach the hook")
sgd = torch.optim.SGD()
sgd.step()
sgd.step()
check([e[1] for e in log if e[0] == "roofline_step_end"] == ["torch.optim.SGD"] * 2, log)
print("sampling ok")
''',
    # A loop with no optimizer (inference) that steps torch.profiler's schedule: its step ends
    # there.
    "profiler_steps": r'''
state["loaded"] = True
state["now"] = COLLECTING
prof = torch.profiler.profile()
prof.step()
prof.step()
check([e[1] for e in log if e[0] == "roofline_step_end"] == ["torch.profiler.profile"] * 2,
      log)
print("profiler steps ok")
''',
    # A failure inside the hook turns it off with one message; the program runs on.
    "failure": r'''
state["loaded"] = True
state["now"] = COLLECTING
def broken(*args):
    raise OSError("the library went away")
lib.roofline_module_enter = broken
check(net(1) == 6 and net(1) == 6, "the program runs on")
check(roofline_torch._hook.finished, "the hook is off")
check(autograd.calls[-1][0] == "nvtx off", "its ranges off")
print("failure ok")
''',
    # ROOFLINE_TORCH_HOOK off, as libroofline reads it: nothing is bound or turned on.
    "switched_off": r'''
state["loaded"] = True
state["hook"] = 0
state["now"] = COLLECTING
net(1)
check(not modules() and not autograd.calls and roofline_torch._hook.finished, "nothing")
print("switched off ok")
''',
    # Dynamo and Inductor cost seconds to import: the hook never imports them for the program.
    # It waits for the program's own import of Dynamo (torch.compile's), then watches compiles.
    "compiler_imported_by_the_program": r'''
state["loaded"] = True
state["now"] = COLLECTING
net(1)
check("torch._dynamo" not in sys.modules and "torch._inductor" not in sys.modules,
      "the compiler's packages not imported by the hook")
dynamo = torch._dynamo  # as torch.compile reaches it: PyTorch's lazy import
from torch._dynamo.callback import callback_handler
check(len(callback_handler.end_callbacks) == 1, "the compile callback registered on its import")
check("torch._inductor" not in sys.modules, "Inductor still not imported")
callback_handler.run_end_callbacks()  # a compile that made no Inductor graph (another backend)
check(not [e for e in log if e[0] == "roofline_compiled_graph"], "nothing sent")
check(not any(type(f).__name__ == "_WhenImported" for f in sys.meta_path), "no waiter left")
print("compiler imported by the program ok")
''',
    # At the end of each compilation, Inductor's compiled graphs (their output code) and
    # Dynamo's graphs (their nodes' modules) are read and each graph's sites sent.
    "compiled": r'''
import gc
from torch._dynamo.callback import callback_handler
from torch._inductor.output_code import CompiledFxGraph
from torch.fx import GraphModule, Node
fixtures = sys.argv[3]
source = open(os.path.join(fixtures, "gpt_forward.py.txt")).read()
state["loaded"] = True
state["now"] = COLLECTING
net(1)
gm = GraphModule("0/0", [Node("x", "L['self'].inp"), Node("layer_norm", "L['self'].blocks[0].ln1"),
                        Node("linear_1", "L['self'].blocks[0].qkv")])
graph = CompiledFxGraph("fwkey", source)
callback_handler.run_end_callbacks()
sent = [e for e in log if e[0] == "roofline_compiled_graph"]
check(len(sent) == 1 and sent[0][1] == "fwkey", "one graph sent")
lines = sent[0][2].splitlines()
check(len(lines) == 72, f"72 sites ({len(lines)})")
check(lines[0] == "triton_poi_fused__to_copy_0\tinp\taten::_to_copy", lines[0])
check(lines[4].startswith("triton_per_fused__to_copy_native_layer_norm_view_3\tblocks.0\t"),
      lines[4])
callback_handler.run_end_callbacks()
check(len([e for e in log if e[0] == "roofline_compiled_graph"]) == 1, "each graph once")
import weakref
reported = weakref.ref(graph)
del graph
gc.collect()
check(reported() is None, "a reported graph is not kept alive by the hook")
state["now"] = COMPLETE
net(1)
check(not callback_handler.end_callbacks, "the compile callback removed")
print("compiled ok")
''',
}


def python312():
    """A Python 3.12 or later: this one, one on PATH, or one pyenv installed."""
    if sys.version_info >= (3, 12):
        return sys.executable
    candidates = [shutil.which(n) for n in ("python3.14", "python3.13", "python3.12")]
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    versions = os.path.join(root, "versions")
    if os.path.isdir(versions):
        candidates += [os.path.join(versions, v, "bin", "python3")
                       for v in sorted(os.listdir(versions), reverse=True)]
    for path in candidates:
        if path and os.access(path, os.X_OK) and subprocess.run(
                [path, "-c", "import sys; assert sys.version_info >= (3, 12)"],
                capture_output=True).returncode == 0:
            return path
    return None


def main():
    hook = os.path.abspath(sys.argv[1])
    python = python312()
    if not python:
        print("SKIPPED no Python 3.12 or later (the hook's sys.monitoring) on this machine")
        return 0
    fake = os.path.join(HERE, "fake_torch")
    failed = 0
    for name, body in SCENARIOS.items():
        r = subprocess.run([python, "-c", PRELUDE + body, hook, fake, FIXTURES],
                           capture_output=True, text=True, timeout=120)
        out = (r.stdout + r.stderr).strip()
        if r.returncode != 0:
            failed += 1
            print(f"FAIL {name} (exit {r.returncode}):\n{out}")
        else:
            print(out)
    if failed:
        return 1
    print(f"torch hook: {len(SCENARIOS)} scenarios passed with {python}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
