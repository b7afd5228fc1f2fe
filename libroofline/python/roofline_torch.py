"""Operators and modules of a PyTorch program for libroofline, with no change to the program.

Armed by libroofline's sitecustomize under `roofline run`, this waits for `import torch`, then,
while libroofline collects counters:

* turns on PyTorch's per-operator NVTX ranges (what torch.autograd.profiler.emit_nvtx does, with
  argument shapes; CUDA is not initialized for it): libroofline reads each kernel's operator from
  them, and links backward kernels to the forward operator they differentiate by autograd's
  sequence numbers;
* tells libroofline, through its C entry points, which module (path from the top module, as
  named_modules() names it: "encoder.layers.3.linear1") each forward runs in;
* reports facts about the run that explain tensor-core use: the PyTorch version, TF32 settings,
  autocast.

Once libroofline's profile is complete (it went idle) the hooks remove themselves and the NVTX
ranges are turned off again, so the steady state runs as it would unprofiled. A program that turns
on a PyTorch profiler itself gets it: the hook's own NVTX ranges step aside first.
"""
import ctypes
import importlib.abc
import importlib.util
import os
import sys
import threading
import weakref

_NOT_STARTED, _COLLECTING, _COMPLETE, _STOPPED = 0, 1, 2, 3


class _Hook:
    def __init__(self, lib, torch):
        self.lib = lib
        self.torch = torch
        self.paths = weakref.WeakKeyDictionary()
        self.local = threading.local()
        self.handles = []
        self.nvtx_thread = None  # the thread whose NVTX operator ranges are on (thread-local)
        self.removed = False
        self.facts_sent = False

    # ---- NVTX operator ranges ---------------------------------------------------------------
    def nvtx_on(self):
        from torch.autograd import ProfilerConfig, ProfilerState, _enable_profiler
        from torch._C._profiler import _ExperimentalConfig

        prof = self.torch.autograd.profiler
        if getattr(prof, "_run_on_profiler_start", None):
            prof._run_on_profiler_start()
        config = ProfilerConfig(ProfilerState.NVTX, True, False, False, False, False,
                                _ExperimentalConfig())
        self.original_enable(config, set())
        self.nvtx_thread = threading.get_ident()

    def nvtx_off(self):
        if self.nvtx_thread is None or self.nvtx_thread != threading.get_ident():
            return self.nvtx_thread is None
        self.nvtx_thread = None
        try:
            self.torch.autograd._disable_profiler()
        except Exception:
            pass
        prof = self.torch.autograd.profiler
        if getattr(prof, "_run_on_profiler_stop", None):
            prof._run_on_profiler_stop()
        return True

    def guard_profilers(self):
        """The program's own profilers come first: ours steps aside when one starts."""
        prof = self.torch.autograd.profiler
        self.original_enable = prof._enable_profiler
        hook = self

        def enable(*args, **kwargs):
            hook.nvtx_off()
            return hook.original_enable(*args, **kwargs)

        prof._enable_profiler = enable
        if hasattr(prof, "_prepare_profiler"):
            original_prepare = prof._prepare_profiler

            def prepare(*args, **kwargs):
                hook.nvtx_off()
                return original_prepare(*args, **kwargs)

            prof._prepare_profiler = prepare

    # ---- modules ----------------------------------------------------------------------------
    def depth(self):
        return getattr(self.local, "depth", 0)

    def path_of(self, module):
        path = self.paths.get(module)
        if path is not None:
            return path
        parent = getattr(self.local, "parents", None)
        if self.depth() == 0 or not parent:
            # A top-level call: it names itself and every module under it.
            for name, sub in module.named_modules(remove_duplicate=False):
                if name and sub not in self.paths:
                    self.paths[sub] = name
            self.paths[module] = type(module).__name__
            return self.paths[module]
        path = parent[-1] + "." + type(module).__name__  # not registered under its caller
        self.paths[module] = path
        return path

    # The hooks never raise into the program: whatever fails, the forward runs on.
    def pre(self, module, args):
        try:
            if self.depth() == 0 and not self.check():
                return None
            path = self.path_of(module)
            self.lib.roofline_module_enter(path.encode())
            self.local.depth = self.depth() + 1
            parents = getattr(self.local, "parents", None)
            if parents is None:
                parents = self.local.parents = []
            parents.append(path)
        except Exception:
            pass
        return None

    def post(self, module, args, output):
        try:
            if self.depth() == 0:
                return None
            self.local.depth -= 1
            self.local.parents.pop()
            self.lib.roofline_module_exit()
        except Exception:
            pass
        return None

    def after_step(self, optimizer, args, kwargs):
        try:
            self.check()
        except Exception:
            pass

    # ---- lifetime ---------------------------------------------------------------------------
    def fact(self, key, value):
        self.lib.roofline_framework_fact(key.encode(), str(value).encode())

    def send_facts(self):
        torch = self.torch
        try:
            self.fact("torch", torch.__version__)
            self.fact("tf32.matmul", "on" if torch.backends.cuda.matmul.allow_tf32 else "off")
            self.fact("tf32.cudnn", "on" if torch.backends.cudnn.allow_tf32 else "off")
            self.fact("float32_matmul_precision", torch.get_float32_matmul_precision())
            if torch.is_autocast_enabled("cuda"):
                self.fact("autocast", str(torch.get_autocast_dtype("cuda")).replace("torch.", ""))
        except Exception:
            pass

    def check(self):
        """Whether libroofline still collects; removes the hooks once it no longer does."""
        if self.removed:
            return False
        state = self.lib.roofline_profile_state()
        if state == _COLLECTING and not self.facts_sent:
            self.send_facts()  # the program has set TF32 and autocast by its first step
            self.facts_sent = True
        if state in (_NOT_STARTED, _COLLECTING):
            return True
        if self.nvtx_off():
            for h in self.handles:
                h.remove()
            self.handles = []
            self.removed = True
        return False

    def install(self):
        torch = self.torch
        self.guard_profilers()
        module = torch.nn.modules.module
        self.handles.append(module.register_module_forward_pre_hook(self.pre))
        try:
            self.handles.append(module.register_module_forward_hook(self.post, always_call=True))
        except TypeError:  # PyTorch before 2.0
            self.handles.append(module.register_module_forward_hook(self.post))
        opt = getattr(torch.optim, "optimizer", None)
        if opt is not None and hasattr(opt, "register_optimizer_step_post_hook"):
            self.handles.append(opt.register_optimizer_step_post_hook(self.after_step))
        self.nvtx_on()


def _library():
    path = os.environ.get("ROOFLINE_LIBRARY") or os.environ.get("CUDA_INJECTION64_PATH")
    if not path:
        raise RuntimeError("neither ROOFLINE_LIBRARY nor CUDA_INJECTION64_PATH names libroofline")
    lib = ctypes.CDLL(path)  # the library the driver injects: one copy in the process
    lib.roofline_profile_state.restype = ctypes.c_int
    lib.roofline_profile_state.argtypes = []
    lib.roofline_module_enter.argtypes = [ctypes.c_char_p]
    lib.roofline_module_enter.restype = None
    lib.roofline_module_exit.argtypes = []
    lib.roofline_module_exit.restype = None
    lib.roofline_framework_fact.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    lib.roofline_framework_fact.restype = None
    return lib


_hook = None


def _torch_imported(torch):
    global _hook
    try:
        _hook = _Hook(_library(), torch)
        _hook.install()
    except Exception as e:
        sys.stderr.write(f"[roofline] PyTorch operators and modules not named: {e}\n")


class _WhenTorchImported(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec("torch")
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            _torch_imported(module)

        spec.loader.exec_module = exec_module
        return spec


def arm():
    """Installs the hooks when torch is imported (now, if it already was)."""
    if "torch" in sys.modules:
        _torch_imported(sys.modules["torch"])
    elif not any(isinstance(f, _WhenTorchImported) for f in sys.meta_path):
        sys.meta_path.insert(0, _WhenTorchImported())
