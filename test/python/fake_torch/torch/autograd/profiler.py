import threading

_state = {}  # thread -> whether this thread's profiler is on
_is_profiler_enabled = False


def _run_on_profiler_stop():
    global _is_profiler_enabled
    _is_profiler_enabled = False


class emit_nvtx:
    def __init__(self, enabled=True, record_shapes=False):
        self.record_shapes = record_shapes

    def __enter__(self):
        from torch import autograd
        if _state.get(threading.get_ident()):
            raise RuntimeError("Profiler is already enabled on this thread")
        _state[threading.get_ident()] = True
        autograd.calls.append(("nvtx on", threading.get_ident(), self.record_shapes))
        return self

    def __exit__(self, *exc):
        from torch import autograd
        _state[threading.get_ident()] = False
        autograd.calls.append(("nvtx off", threading.get_ident()))
        return False


class emit_itt(emit_nvtx):
    pass


class profile:
    def __enter__(self):
        self._prepare_trace()
        return self

    def _prepare_trace(self):
        if _state.get(threading.get_ident()):
            raise RuntimeError("Profiler is already enabled on this thread")
        _state[threading.get_ident()] = True

    def __exit__(self, *exc):
        _state[threading.get_ident()] = False
        return False
