"""A stand-in for the parts of PyTorch libroofline's hook touches (test/python/hook_test.py):
enough to run its logic on a machine without PyTorch. Not PyTorch's behaviour beyond that."""
__version__ = "2.11.0+stand-in"
from . import autograd, backends, fx, nn, optim, profiler, _dynamo, _inductor  # noqa: E402,F401

_autocast = None


def is_autocast_enabled(device):
    return _autocast is not None


def get_autocast_dtype(device):
    return _autocast


def get_float32_matmul_precision():
    return "highest"
