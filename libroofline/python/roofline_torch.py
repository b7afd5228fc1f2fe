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
import importlib.abc
import importlib.util
import os
import sys
import threading
import time
import weakref

import roofline_compiled
import roofline_framework

_COMPILER_PACKAGES = ("torch._dynamo.", "torch._inductor.")
_TOOL_IDS = (3, 4)  # sys.monitoring ids no tool claims by convention (0-2 and 5 are taken)
_LOAD_CHECK_S = 0.1  # how often a process without libroofline looks again


def _say(text):
    sys.stderr.write(f"[roofline] {text}\n")


class _Hook:
    def __init__(self, torch):
        self.torch = torch
        self.lib = None
        self.next_load_check = 0.0
        self.tool = None
        self.codes = {}  # code object -> what its start means: "module", "step", "profiler", ...
        self.paths = {}  # id(module) -> (path, top, weak reference), for the modules named so far
        self.local = threading.local()
        self.nvtx = None  # the emit_nvtx context while our ranges are on
        self.nvtx_thread = None
        self.aside = False  # a profiler of the program's runs: our ranges stay off until it ends
        self.facts_sent = False
        self.finished = False
        self.finder = None
        self.compiled_callback = None
        self.in_compiled = False  # inside Dynamo's end-of-compile callback
        self.compiles_pending = False  # a compilation ended before the profile collected
        self.entering = False  # our own emit_nvtx is being entered (its start is not the program's)
        self.stepper = None  # (weak reference, name) of the object whose step() ends the steps
        self.dynamo_waiter = None  # waits for the program to import Dynamo (torch.compile)

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

    def uninstall(self):
        """Everything of ours off; ranges off on this thread if they are ours."""
        if self.finished:
            return
        self.finished = True
        self.nvtx_off()
        if self.tool is not None:
            mon = sys.monitoring
            try:
                for code in self.codes:
                    mon.set_local_events(self.tool, code, 0)
                mon.set_events(self.tool, 0)
                for event in (mon.events.PY_START, mon.events.PY_RETURN, mon.events.PY_UNWIND):
                    mon.register_callback(self.tool, event, None)
                mon.free_tool_id(self.tool)
            except Exception:  # a tool id freed already: the callbacks see `finished`, do nothing
                pass
        local = self.calls()
        if self.lib is not None:
            for followed in local.followed:
                if followed:
                    self.lib.roofline_module_exit()
        local.followed, local.parents = [], []
        self.finder = None
        if self.dynamo_waiter is not None:
            self.dynamo_waiter.leave()
            self.dynamo_waiter = None
        if self.compiled_callback is not None and not self.in_compiled:
            handler, callback = self.compiled_callback
            self.compiled_callback = None
            try:
                handler.remove_end_callback(callback)
            except Exception:
                pass

    def fail(self, error):
        if not self.finished:
            _say(f"PyTorch operators and modules are no longer named: {type(error).__name__}: "
                 f"{error}")
            try:
                self.uninstall()
            except Exception:
                self.finished = True

    # ---- libroofline --------------------------------------------------------------------------
    def state(self):
        """libroofline's profile state; NOT_STARTED while it is not loaded in this process."""
        if self.lib is None:
            now = time.monotonic()
            if now < self.next_load_check:
                return 0
            self.next_load_check = now + _LOAD_CHECK_S
            self.lib = roofline_framework.loaded_library()
            if self.lib is None:
                return 0
            if not self.lib.roofline_torch_hook_enabled():
                self.uninstall()  # ROOFLINE_TORCH_HOOK=0
                return self.lib.PROFILE_STOPPED
        return self.lib.roofline_profile_state()

    def tick(self):
        """At a module call or an optimizer step: follow the profile's state. False once done."""
        state = self.state()
        if state == 0:  # PROFILE_NOT_STARTED
            return False
        if state == self.lib.PROFILE_COLLECTING:
            if not self.facts_sent:
                self.facts_sent = True
                self.send_facts()  # the program has set TF32 and autocast by now
            if self.compiles_pending:
                self.compiles_pending = False
                self.report_compiled()  # graphs compiled before the session collected
            # On a thread of the program's, not the autograd engine's (a checkpointed layer runs
            # its forward again there): the engine's threads inherit the ranges from the caller.
            if (self.nvtx is None and not self.aside and
                    not isinstance(threading.current_thread(), threading._DummyThread)):
                self.nvtx_on()
            return True
        # Complete or stopped: nothing left to name. The ranges go off on their own thread.
        if self.nvtx is None or self.nvtx_thread == threading.get_ident():
            self.uninstall()
        return False

    # ---- NVTX operator ranges ---------------------------------------------------------------
    def nvtx_on(self):
        prof = self.torch.autograd.profiler
        if getattr(self.torch.autograd, "_profiler_enabled", lambda: False)():
            return  # the program's own profiler is on (or still ending): it keeps the thread
        ctx = prof.emit_nvtx(record_shapes=True)
        self.entering = True
        try:
            ctx.__enter__()
        except RuntimeError:
            self.aside = True  # a profiler of the program's holds this thread
            return
        finally:
            self.entering = False
        self.nvtx, self.nvtx_thread = ctx, threading.get_ident()

    def nvtx_off(self):
        if self.nvtx is None or self.nvtx_thread != threading.get_ident():
            return
        ctx, self.nvtx, self.nvtx_thread = self.nvtx, None, None
        ctx.__exit__(None, None, None)

    # ---- monitoring callbacks (never raise) -------------------------------------------------
    def on_start(self, code, offset):
        if self.finished:
            return sys.monitoring.DISABLE
        try:
            kind = self.codes.get(code)
            if kind == "module":
                self.module_started(sys._getframe(1))
            elif kind == "step":
                self.step_started(sys._getframe(1))
            elif kind == "profiler" and not self.entering:
                self.aside = True  # the program's own profiler starts: ours steps aside first
                self.nvtx_off()
            elif kind == "profiler ends" and self.nvtx is None:
                self.aside = False  # back on at the next module call, once the program's is off
        except Exception as e:
            self.fail(e)
        return None

    def on_return(self, code, offset, value):
        if self.finished:
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
        if self.stepper is None or self.stepper[0]() is None:  # the first to step (or its heir)
            kind = type(obj)  # named by its package where it is PyTorch's ("torch.optim.AdamW")
            package = next((p for p in ("torch.optim", "torch.profiler")
                            if kind.__module__.startswith(p)), kind.__module__)
            name = package + "." + kind.__qualname__
            try:
                self.stepper = (weakref.ref(obj), name)
            except TypeError:  # not weakly referenced: not a stepper we follow
                return
        if self.stepper[0]() is obj and \
                self.lib.roofline_profile_state() == self.lib.PROFILE_COLLECTING:
            self.lib.roofline_step_end(self.stepper[1].encode())

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
        if known is not None and known[2]() is module:
            return known[0], known[1]
        parents = self.calls().parents
        if top_level:
            # A top-level call names itself (by its class) and every module under it.
            for name, sub in module.named_modules(remove_duplicate=False):
                if name and id(sub) not in self.paths:
                    self.paths[id(sub)] = (name, False, weakref.ref(sub))
            self.paths[id(module)] = (type(module).__name__, True, weakref.ref(module))
        else:  # a module called from another, but not registered under it
            self.paths[id(module)] = (parents[-1] + "." + type(module).__name__, False,
                                      weakref.ref(module))
        entry = self.paths[id(module)]
        return entry[0], entry[1]

    def module_started(self, frame):
        local = self.calls()
        module = frame.f_locals.get("self")
        if type(module).__module__.startswith(_COMPILER_PACKAGES):
            # The compiler's own modules -- torch.compile's wrapper around the model, DDP's
            # wrappers around each compiled bucket -- are no module of the program: the program's
            # module around them is the one the kernels inside belong to.
            local.followed.append(None)
            return
        real = [f for f in local.followed if f is not None]
        top_level = not real
        follow = self.tick() if top_level else real[-1]
        if follow and not self.finished:
            path, top = self.path_of(module, top_level)
            self.lib.roofline_module_enter(path.encode(), 1 if top else 0)
            local.parents.append(path)
        else:
            follow = False
        local.followed.append(follow)

    def module_ended(self):
        local = self.calls()
        if not local.followed:
            return
        if local.followed.pop():
            local.parents.pop()
            self.lib.roofline_module_exit()

    # ---- torch.compile ----------------------------------------------------------------------
    def watch_compiles(self):
        """Reads the graphs each compilation made once it ends (Dynamo's callbacks run outside
        the code it traces)."""
        if self.finished or self.finder is not None:
            return
        try:
            from torch._dynamo.callback import callback_handler
        except Exception:  # another PyTorch: compiled kernels keep the operators their names tell
            return
        self.finder = roofline_compiled.Finder(self.torch)
        callback_handler.register_end_callback(self.compiled)
        self.compiled_callback = (callback_handler, self.compiled)

    def compiled(self, args):
        if self.finished:
            return
        self.in_compiled = True
        try:
            if self.lib is not None and self.facts_sent:
                self.report_compiled()
            else:
                self.compiles_pending = True
        except Exception as e:
            self.fail(e)
        finally:
            self.in_compiled = False

    def report_compiled(self):
        if self.finder is None:
            return
        for key, table in self.finder.new_graphs():
            self.lib.roofline_compiled_graph(key.encode(), table.encode())

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
            if self.nvtx is not None and self.nvtx_thread == threading.get_ident():
                self.nvtx = None
                disable = getattr(self.torch.autograd, "_disable_profiler", None)
                if disable is not None:
                    disable()
                stop = getattr(self.torch.autograd.profiler, "_run_on_profiler_stop", None)
                if stop is not None:
                    stop()
            self.nvtx = None
            self.uninstall()
        except Exception:
            self.finished = True

    def at_exit(self):
        try:
            self.uninstall()
        except Exception:
            pass


_hook = None


def _older_python():
    """Said at exit, in a process that was profiled (not in its workers)."""
    try:
        if roofline_framework.loaded_library() is None:
            return
    except Exception:
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
