"""Operators and modules of a PyTorch program for libroofline, without changing the program.

Armed by libroofline's sitecustomize under `roofline run`, this waits for `import torch`. It
observes and never alters: nothing of PyTorch is replaced or wrapped, no module or optimizer
hook is registered (Dynamo would trace one into every compiled graph), and whatever fails here
turns attribution off with one message -- it never raises into the program.

* Python's own monitoring (sys.monitoring, Python 3.12+) reports each nn.Module call and each
  optimizer step: the module path of what runs ("encoder.layers.3.linear1", from the top
  module's named_modules()) goes to libroofline, and each call is a moment to look at the
  profile's state. Compiled code calls no module: inside it nothing is reported, nothing is paid.
* The end of each step of the program's loop goes to libroofline: where the step() of the first
  optimizer (or torch.profiler schedule) to step returns, the outermost call on its thread. A
  program that opens no NVTX range gets its iteration from it (an optimizer stepped inside
  compiled code is not seen: libroofline then searches its launch stream).
* While libroofline collects counters -- from the first module call after its session started,
  to the first after the profile completed, or the program's exit -- PyTorch's per-operator NVTX
  ranges are on (torch.autograd.profiler.emit_nvtx(record_shapes=True)), on the thread that
  runs the model: libroofline reads each kernel's operator from them, and links backward kernels
  to the forward operator they differentiate by autograd's sequence numbers. A process that never
  collects (a DataLoader worker, torchrun's launcher, a compile worker) never turns them on, and
  never loads libroofline through this hook. A process forked while they are on turns them off.
  A profiler the program starts itself comes first: the ranges step aside until it ends.
* torch.compile: at the end of each compilation, the graphs Dynamo and Inductor made are read
  (roofline_compiled) and each compiled graph's call sites -- the operators each kernel fused,
  the module it came from -- go to libroofline, also when Inductor's cache was warm.
* Facts that explain tensor-core use go into the recording: the PyTorch version, TF32 settings,
  autocast.

libroofline's C entry points are bound from include/roofline/framework.h (roofline_framework).
"""
import atexit
import collections
import enum
import importlib.abc
import importlib.util
import os
import sys
import threading
import time
import weakref

import roofline_compiled
import roofline_framework
import roofline_ranges

_COMPILER_PACKAGES = ("torch._dynamo.", "torch._inductor.")
_TOOL_IDS = (3, 4)  # sys.monitoring ids no tool claims by convention (0-2 and 5 are taken)
_LOAD_CHECK_S = 0.1  # how often a process without libroofline looks again


def _say(text):
    sys.stderr.write(f"[roofline] {text}\n")


class _Phase(enum.Enum):
    """The hook's life. WAITING: libroofline is not loaded in this process, or its profile has
    not started: modules run unseen. COLLECTING: counters are collected (the facts were sent on
    entering it): modules and steps are named, PyTorch's operator ranges are on. FINISHED: the
    profile completed or stopped, or the hook failed or was switched off: nothing of it is left.
    SAMPLING: libroofline samples every step (`--mode sample`): only the steps' ends are told; no
    module is named and PyTorch's operator ranges stay off, so the program runs at its own speed
    (module calls stop being reported to the hook at the first one)."""
    WAITING = "waiting"
    COLLECTING = "collecting"
    SAMPLING = "sampling"
    FINISHED = "finished"


_NOT_LOADED = 0  # ROOFLINE_PROFILE_NOT_STARTED (framework.h), while libroofline is not loaded


class _Named(collections.namedtuple("_Named", "path top ref")):
    """A module named so far: its path, whether it is a top-level one, a weak reference to it."""
    __slots__ = ()


class _Stepper(collections.namedtuple("_Stepper", "ref name")):
    """The object whose step() ends the program's steps (weakly referenced), and its name."""
    __slots__ = ()


# What a module call on the stack is to the hook (per thread, innermost last).
_FOLLOWED = "followed"  # named for libroofline (its path entered)
_UNFOLLOWED = "unfollowed"  # not named: the profile did not collect at its top-level call
_COMPILER = "compiler"  # the compiler's own wrapper: no module of the program, adds nothing


class _Hook:
    def __init__(self, torch):
        self.torch = torch
        self.phase = _Phase.WAITING
        self.lib = None
        self.next_load_check = 0.0
        self.tool = None
        self.codes = {}  # code object -> what its start means: "module", "step", "profiler", ...
        self.paths = {}  # id(module) -> _Named, for the modules named so far
        self.local = threading.local()
        self.ranges = roofline_ranges.Ranges(torch)
        self.compiles = roofline_compiled.Watcher(
            torch, lambda: self.phase is _Phase.COLLECTING,
            lambda key, table: self.lib.roofline_compiled_graph(key.encode(), table.encode()),
            self.fail)
        self.stepper = None  # _Stepper
        self.dynamo_waiter = None  # waits for the program to import Dynamo (torch.compile)

    @property
    def finished(self):
        return self.phase is _Phase.FINISHED

    # ---- installation -------------------------------------------------------------------------
    def install(self):
        mon = sys.monitoring
        for tool in _TOOL_IDS:
            if mon.get_tool(tool) is None:
                mon.use_tool_id(tool, "libroofline")
                self.tool = tool
                break
        if self.tool is None:
            raise RuntimeError("sys.monitoring has no free tool id (3 and 4 are taken)")
        torch = self.torch
        self.module_code = torch.nn.Module._call_impl.__code__
        self.codes[self.module_code] = "module"
        step = getattr(torch.optim.Optimizer, "profile_hook_step", None)
        if step is not None:  # every optimizer's step() runs this wrapper's code
            self.codes[step(lambda *a, **k: None).__code__] = "step"
        schedule_step = getattr(getattr(torch, "profiler", None), "profile", None)
        schedule_step = getattr(schedule_step, "step", None)
        if schedule_step is not None and hasattr(schedule_step, "__code__"):
            self.codes[schedule_step.__code__] = "step"
        # The program's own profilers: PyTorch's (torch.profiler runs it too), and emit_nvtx or
        # emit_itt around its code. Their start and their end.
        profiler = torch.autograd.profiler
        for owner, name, kind in ((profiler.profile, "_prepare_trace", "profiler"),
                                  (profiler.profile, "__exit__", "profiler ends"),
                                  (profiler.emit_nvtx, "__enter__", "profiler"),
                                  (profiler.emit_nvtx, "__exit__", "profiler ends"),
                                  (getattr(profiler, "emit_itt", None), "__enter__", "profiler"),
                                  (getattr(profiler, "emit_itt", None), "__exit__", "profiler ends")):
            f = getattr(owner, name, None)
            if f is not None and hasattr(f, "__code__"):
                self.codes[f.__code__] = kind
        E = mon.events
        mon.register_callback(self.tool, E.PY_START, self.on_start)
        mon.register_callback(self.tool, E.PY_RETURN, self.on_return)
        mon.register_callback(self.tool, E.PY_UNWIND, self.on_unwind)
        for code, kind in self.codes.items():
            mon.set_local_events(self.tool, code, E.PY_START | E.PY_RETURN
                                 if kind in ("module", "step") else E.PY_START)
        mon.set_events(self.tool, E.PY_UNWIND)  # a module call left by an exception
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self.forked)
        atexit.register(self.at_exit)
        # Dynamo and Inductor cost seconds to import: they are watched once the program imports
        # them itself (torch.compile does), never imported for it.
        if "torch._dynamo" in sys.modules:
            self.watch_compiles()
        else:
            self.dynamo_waiter = _WhenImported("torch._dynamo", lambda _: self.watch_compiles())
            sys.meta_path.insert(0, self.dynamo_waiter)

    def watch_compiles(self):
        if not self.finished:
            self.compiles.start()

    def uninstall(self):
        """Everything of ours off; ranges off on this thread if they are ours."""
        if self.finished:
            return
        self.phase = _Phase.FINISHED
        self.ranges.turn_off()
        if self.tool is not None:
            mon = sys.monitoring
            try:
                for code in self.codes:
                    mon.set_local_events(self.tool, code, 0)
                mon.set_events(self.tool, 0)
                for event in (mon.events.PY_START, mon.events.PY_RETURN, mon.events.PY_UNWIND):
                    mon.register_callback(self.tool, event, None)
                mon.free_tool_id(self.tool)
            except ValueError:  # the tool id was freed already: the callbacks see FINISHED
                pass
        local = self.calls()
        if self.lib is not None:
            for call in local.followed:
                if call == _FOLLOWED:
                    self.lib.roofline_module_exit()
        local.followed, local.parents = [], []
        if self.dynamo_waiter is not None:
            self.dynamo_waiter.leave()
            self.dynamo_waiter = None
        self.compiles.stop()

    def fail(self, error):
        if not self.finished:
            _say(f"PyTorch operators and modules are no longer named: {type(error).__name__}: "
                 f"{error}")
            try:
                self.uninstall()
            except Exception as e:
                self.phase = _Phase.FINISHED
                _say(f"PyTorch hook: not all of it could be removed: {type(e).__name__}: {e}")

    # ---- libroofline --------------------------------------------------------------------------
    def state(self):
        """libroofline's profile state; _NOT_LOADED while it is not loaded in this process."""
        if self.lib is None:
            now = time.monotonic()
            if now < self.next_load_check:
                return _NOT_LOADED
            self.next_load_check = now + _LOAD_CHECK_S
            self.lib = roofline_framework.loaded_library()
            if self.lib is None:
                return _NOT_LOADED
            if not self.lib.roofline_torch_hook_enabled():
                self.uninstall()  # ROOFLINE_TORCH_HOOK=0
                return self.lib.PROFILE_STOPPED
        return self.lib.roofline_profile_state()

    def tick(self):
        """At a module call or an optimizer step: follow the profile's state. False once done."""
        state = self.state()
        if state == _NOT_LOADED:
            return False
        if state == self.lib.PROFILE_SAMPLING:
            self.phase = _Phase.SAMPLING
            return False
        if state == self.lib.PROFILE_COLLECTING:
            if self.phase is _Phase.WAITING:
                self.phase = _Phase.COLLECTING
                self.send_facts()  # the program has set TF32 and autocast by now
            if self.compiles.unreported:
                self.compiles.report()  # graphs compiled before the session collected
            # On a thread of the program's, not the autograd engine's (a checkpointed layer runs
            # its forward again there): the engine's threads inherit the ranges from the caller.
            self.ranges.turn_on()
            return True
        # Complete or stopped: nothing left to name. The ranges go off on their own thread.
        if self.ranges.off_or_here():
            self.uninstall()
        return False

    # ---- monitoring callbacks (never raise) -------------------------------------------------
    def on_start(self, code, offset):
        if self.finished or (self.phase is _Phase.SAMPLING and code is self.module_code):
            return sys.monitoring.DISABLE
        try:
            kind = self.codes.get(code)
            if kind == "module":
                self.module_started(sys._getframe(1))
            elif kind == "step":
                self.step_started(sys._getframe(1))
            elif kind == "profiler":
                self.ranges.program_profiler_starts()
            elif kind == "profiler ends":
                self.ranges.program_profiler_ends()
        except Exception as e:
            self.fail(e)
        return None

    def on_return(self, code, offset, value):
        if self.finished or (self.phase is _Phase.SAMPLING and code is self.module_code):
            return sys.monitoring.DISABLE
        try:
            if code is self.module_code:
                self.module_ended()
            elif self.codes.get(code) == "step":
                self.step_ended(True)
        except Exception as e:
            self.fail(e)
        return None

    def on_unwind(self, code, offset, exception):
        if self.finished:
            return None
        try:
            if code is self.module_code:
                self.module_ended()
            elif self.codes.get(code) == "step":
                self.step_ended(False)
        except Exception as e:
            self.fail(e)
        return None

    # ---- steps ------------------------------------------------------------------------------
    # Per thread: the step() calls open (an optimizer wrapping another steps it inside its own)
    # and the object of the outermost one.
    def step_started(self, frame):
        local = self.calls()
        local.steps += 1
        if local.steps == 1:
            f = frame.f_locals
            args = f.get("args")
            obj = f.get("self")
            local.stepping = obj if obj is not None or not args else args[0]
        self.tick()

    def step_ended(self, returned):
        local = self.calls()
        if local.steps == 0:
            return  # begun before the hook was installed
        local.steps -= 1
        if local.steps > 0:
            return
        obj, local.stepping = local.stepping, None
        if not returned or obj is None or self.lib is None:
            return
        if self.stepper is None or self.stepper.ref() is None:  # the first to step (or its heir)
            kind = type(obj)  # named by its package where it is PyTorch's ("torch.optim.AdamW")
            package = next((p for p in ("torch.optim", "torch.profiler")
                            if kind.__module__.startswith(p)), kind.__module__)
            name = package + "." + kind.__qualname__
            try:
                self.stepper = _Stepper(weakref.ref(obj), name)
            except TypeError:  # not weakly referenced: not a stepper we follow
                return
        if self.stepper.ref() is obj and self.lib.roofline_profile_state() in (
                self.lib.PROFILE_COLLECTING, self.lib.PROFILE_SAMPLING):
            self.lib.roofline_step_end(self.stepper.name.encode())

    # ---- modules ----------------------------------------------------------------------------
    # Per thread: the open module calls (each followed or not: a top-level call is followed when
    # the profile collects at its start, a nested one when its top-level call is) and the paths
    # of those followed.
    def calls(self):
        local = self.local
        if not hasattr(local, "followed"):
            local.followed, local.parents = [], []
            local.steps, local.stepping = 0, None
        return local

    def path_of(self, module, top_level):
        known = self.paths.get(id(module))
        if known is not None and known.ref() is module:
            return known.path, known.top
        parents = self.calls().parents
        if top_level:
            # A top-level call names itself (by its class) and every module under it.
            for name, sub in module.named_modules(remove_duplicate=False):
                if name and id(sub) not in self.paths:
                    self.paths[id(sub)] = _Named(name, False, weakref.ref(sub))
            self.paths[id(module)] = _Named(type(module).__name__, True, weakref.ref(module))
        else:  # a module called from another, but not registered under it
            self.paths[id(module)] = _Named(parents[-1] + "." + type(module).__name__, False,
                                            weakref.ref(module))
        entry = self.paths[id(module)]
        return entry.path, entry.top

    def module_started(self, frame):
        local = self.calls()
        module = frame.f_locals.get("self")
        if type(module).__module__.startswith(_COMPILER_PACKAGES):
            # The compiler's own modules -- torch.compile's wrapper around the model, DDP's
            # wrappers around each compiled bucket -- are no module of the program: the program's
            # module around them is the one the kernels inside belong to.
            local.followed.append(_COMPILER)
            return
        real = [call for call in local.followed if call != _COMPILER]
        top_level = not real
        follow = self.tick() if top_level else real[-1] == _FOLLOWED
        if follow and not self.finished:
            path, top = self.path_of(module, top_level)
            self.lib.roofline_module_enter(path.encode(), 1 if top else 0)
            local.parents.append(path)
            local.followed.append(_FOLLOWED)
        else:
            local.followed.append(_UNFOLLOWED)

    def module_ended(self):
        local = self.calls()
        if not local.followed:
            return
        if local.followed.pop() == _FOLLOWED:
            local.parents.pop()
            self.lib.roofline_module_exit()

    # ---- lifetime ---------------------------------------------------------------------------
    def send_facts(self):
        torch = self.torch
        fact = lambda k, v: self.lib.roofline_framework_fact(k.encode(), str(v).encode())
        fact("torch", torch.__version__)
        fact("tf32.matmul", "on" if torch.backends.cuda.matmul.allow_tf32 else "off")
        fact("tf32.cudnn", "on" if torch.backends.cudnn.allow_tf32 else "off")
        fact("float32_matmul_precision", torch.get_float32_matmul_precision())
        if torch.is_autocast_enabled("cuda"):
            fact("autocast", str(torch.get_autocast_dtype("cuda")).replace("torch.", ""))

    def forked(self):
        """A child forked while the ranges are on (a DataLoader worker) launches nothing:
        PyTorch's profiler state it inherited is let go, without CUDA (the child may not use it),
        and the hook stays off there."""
        try:
            self.ranges.forked()
            self.uninstall()
        except Exception as e:
            self.phase = _Phase.FINISHED
            _say(f"PyTorch hook in a forked child: {type(e).__name__}: {e}")

    def at_exit(self):
        try:
            self.uninstall()
        except Exception as e:  # the program's exit goes on: said, not raised
            _say(f"PyTorch hook at exit: {type(e).__name__}: {e}")


_hook = None


def _older_python():
    """Said at exit, in a process that was profiled (not in its workers)."""
    try:
        if roofline_framework.loaded_library() is None:
            return
    except Exception:  # libroofline cannot be read here: this process was not profiled by it
        return
    _say(f"PyTorch operators and modules are named from Python 3.12 on (sys.monitoring); this "
         f"is Python {sys.version_info[0]}.{sys.version_info[1]}: its kernels carry none. A loop "
         "wrapped in torch.autograd.profiler.emit_nvtx() gets its operators.")


def _torch_imported(torch):
    global _hook
    if sys.version_info < (3, 12):
        atexit.register(_older_python)
        return
    try:
        _hook = _Hook(torch)
        _hook.install()
    except Exception as e:
        _say(f"PyTorch operators and modules not named: {type(e).__name__}: {e}")
        if _hook is not None:
            _hook.fail(e)


class _WhenImported(importlib.abc.MetaPathFinder):
    """Finds nothing itself: at the import of module `name` it wraps that one import so that
    `then(module)` runs once the module is complete, then leaves the module's loader as it was.
    The program imports what it imports, when it does: the hook waits for it."""

    def __init__(self, name, then):
        self.name = name
        self.then = then

    def find_spec(self, name, path, target=None):
        if name != self.name:
            return None
        self.leave()
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        run = loader.exec_module
        then = self.then

        def exec_module(module):
            try:
                run(module)
            finally:
                try:
                    del loader.exec_module  # the loader's own method again
                except AttributeError:
                    pass
            try:
                then(module)
            except Exception as e:  # never into the program's import
                _say(f"PyTorch hook: {type(e).__name__} after importing {module.__name__}: {e}")

        loader.exec_module = exec_module
        return spec

    def leave(self):
        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass


def arm():
    """Installs the hook when torch is imported (now, if it already was)."""
    if "torch" in sys.modules:
        _torch_imported(sys.modules["torch"])
    elif not any(isinstance(f, _WhenImported) and f.name == "torch" for f in sys.meta_path):
        sys.meta_path.insert(0, _WhenImported("torch", _torch_imported))
