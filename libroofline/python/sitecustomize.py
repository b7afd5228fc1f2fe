"""libroofline's PyTorch hook, on PYTHONPATH under `roofline run`.

Python imports this module at start-up. It arms roofline_torch, which waits for the program to
import torch and then names each kernel's operator and module for libroofline (nothing happens
in programs that never import torch), and runs the sitecustomize module this one shadows, if any.
ROOFLINE_TORCH_HOOK=0 (read by libroofline itself, as `roofline run` reads it) keeps `roofline
run` from putting this directory on PYTHONPATH; a hook that is there anyway binds nothing.
"""
import importlib.machinery
import importlib.util
import os
import sys


def _run_shadowed():
    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


try:
    import roofline_torch

    roofline_torch.arm()
except Exception as e:  # the program runs on, without operator names
    sys.stderr.write(f"[roofline] PyTorch hook not armed: {e}\n")
try:
    _run_shadowed()
except Exception as e:
    sys.stderr.write(f"[roofline] the site's own sitecustomize failed: {e}\n")
