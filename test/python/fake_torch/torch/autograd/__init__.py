import threading

from . import profiler  # noqa: F401

calls = []  # what was done to the profiler state, in order: ("enable", thread), ...


def _profiler_enabled():
    return profiler._state.get(threading.get_ident(), False)


def _disable_profiler():
    calls.append(("disable", threading.get_ident()))
    profiler._state[threading.get_ident()] = False
