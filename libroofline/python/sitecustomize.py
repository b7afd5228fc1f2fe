"""libroofline's PyTorch hook, on PYTHONPATH under `roofline run`.

Python imports this module at start-up. It arms roofline_torch, which waits for the program to
import torch and then names each kernel's operator and module for libroofline (nothing happens
in programs that never import torch), and runs the sitecustomize module this one shadows, if any.
ROOFLINE_TORCH_HOOK=0 turns the hook off.
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


if os.environ.get("ROOFLINE_TORCH_HOOK", "1").lower() not in ("0", "off", "false", "no"):
    try:
        import roofline_torch

        roofline_torch.arm()
    except Exception as e:  # the program runs on, without operator names
        sys.stderr.write(f"[roofline] PyTorch hook not armed: {e}\n")
try:
    _run_shadowed()
except Exception as e:
    sys.stderr.write(f"[roofline] the site's own sitecustomize failed: {e}\n")
