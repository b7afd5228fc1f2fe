"""A stand-in for the parts of PyTorch libroofline's hook touches (test/python/hook_test.py):
enough to run its logic on a machine without PyTorch. Not PyTorch's behaviour beyond that."""
__version__ = "2.11.0+stand-in"
from . import autograd, backends, fx, nn, optim, profiler  # noqa: E402,F401

# As PyTorch does: the compiler's packages are imported when first used (torch.compile).
_LAZY = ("_dynamo", "_inductor")


def __getattr__(name):
    if name in _LAZY:
        import importlib
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'torch' has no attribute {name!r}")

_autocast = None


def is_autocast_enabled(device):
    return _autocast is not None


def get_autocast_dtype(device):
    return _autocast


def get_float32_matmul_precision():
    return "highest"
