"""PyTorch's per-operator NVTX ranges as libroofline's PyTorch hook turns them on and off
(roofline_torch): torch.autograd.profiler.emit_nvtx(record_shapes=True), entered on one thread.

Their state, one of:

* OFF: not entered;
* ENTERING: our own emit_nvtx is being entered (the profiler start the hook sees then is ours,
  not the program's);
* ON: entered, on `thread`.

Beside it, whether a profiler of the program's holds the ranges (`aside`): the program's own
torch.profiler, emit_nvtx or emit_itt started, and ours stay off until it ends.
"""
import threading

OFF, ENTERING, ON = "off", "entering", "on"


class Ranges:
    def __init__(self, torch):
        self.torch = torch
        self.state = OFF
        self.context = None  # the emit_nvtx entered (ON)
        self.thread = None  # where (ON)
        self.aside = False  # a profiler of the program's holds the ranges

    def on_this_thread(self):
        return self.state == ON and self.thread == threading.get_ident()

    def off_or_here(self):
        """Nothing entered, or entered on this thread (where they can be left)."""
        return self.state != ON or self.thread == threading.get_ident()

    def turn_on(self):
        """On, on this thread, unless they are, a profiler of the program's holds them, or this
        is a thread Python did not start (the autograd engine's: they inherit the caller's)."""
        if self.state != OFF or self.aside or \
                isinstance(threading.current_thread(), threading._DummyThread):
            return
        if getattr(self.torch.autograd, "_profiler_enabled", lambda: False)():
            return  # the program's own profiler is on (or still ending): it keeps the thread
        context = self.torch.autograd.profiler.emit_nvtx(record_shapes=True)
        self.state = ENTERING
        try:
            context.__enter__()
        except RuntimeError:
            self.state = OFF
            self.aside = True  # a profiler of the program's holds this thread
            return
        except BaseException:
            self.state = OFF
            raise
        self.state, self.context, self.thread = ON, context, threading.get_ident()

    def turn_off(self):
        """Off, where they are on on this thread."""
        if not self.on_this_thread():
            return
        context = self.context
        self.state, self.context, self.thread = OFF, None, None
        context.__exit__(None, None, None)

    def program_profiler_starts(self):
        """A profiler of the program's starts (unless it is our own emit_nvtx entering): ours
        step aside first."""
        if self.state == ENTERING:
            return
        self.aside = True
        self.turn_off()

    def program_profiler_ends(self):
        """Back on at the next module call, once the program's is off -- where ours were left."""
        if self.state != ON:
            self.aside = False

    def forked(self):
        """In a child forked while they were on this thread: PyTorch's profiler state it
        inherited is let go without CUDA (the child may not use it), and they are off."""
        if self.on_this_thread():
            disable = getattr(self.torch.autograd, "_disable_profiler", None)
            if disable is not None:
                disable()
            stop = getattr(self.torch.autograd.profiler, "_run_on_profiler_stop", None)
            if stop is not None:
                stop()
        self.state, self.context, self.thread = OFF, None, None
