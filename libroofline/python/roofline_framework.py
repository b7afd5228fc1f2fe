"""libroofline's C entry points for framework hooks, bound from the header that declares them.

include/roofline/framework.h is the one declaration of these functions and of the profile states:
libroofline compiles against it, and this module reads it (installed beside it as framework.h) to
give each function its ctypes signature and to learn the state codes. Nothing here imports torch.
"""
import ctypes
import os
import re

_TYPES = {"int": ctypes.c_int, "void": None, "const char*": ctypes.c_char_p}
_DECLARATION = re.compile(r"^(int|void)\s+(roofline_\w+)\(([^)]*)\);")
_DEFINE = re.compile(r"^#define\s+(ROOFLINE_[A-Z_]+)\s+(\d+)\b")


def _type(text):
    """The ctypes type of a C type as the header writes it ("const char*", "int")."""
    t = re.sub(r"\s+", " ", text.replace("*", "* ")).strip().replace(" *", "*")
    if t not in _TYPES:
        raise ValueError(f"framework.h: type '{text}' is not one this binding knows")
    return _TYPES[t]


def read_header(text):
    """(constants, functions) of framework.h's text: {"ROOFLINE_PROFILE_COLLECTING": 1, ...} and
    {"roofline_module_enter": (restype, [argtypes]), ...}."""
    constants, functions = {}, {}
    for line in text.splitlines():
        line = line.strip()
        m = _DEFINE.match(line)
        if m:
            constants[m.group(1)] = int(m.group(2))
            continue
        m = _DECLARATION.match(line)
        if not m:
            continue
        args = []
        params = m.group(3).strip()
        if params and params != "void":
            for p in params.split(","):
                # "const char* path" -> "const char*"; "int top" -> "int"; "int" -> "int"
                named = re.match(r"^(.*[\s*])(\w+)$", p.strip())
                args.append(_type(named.group(1) if named else p))
        functions[m.group(2)] = (_TYPES[m.group(1)], args)
    return constants, functions


class Library:
    """libroofline as loaded in this process, its framework functions bound from the header:
    `lib.roofline_profile_state()`, `lib.PROFILE_COLLECTING`, ..."""

    def __init__(self, handle, header_text):
        constants, functions = read_header(header_text)
        for name, (restype, argtypes) in functions.items():
            f = getattr(handle, name)  # AttributeError: the library lacks a declared function
            f.restype, f.argtypes = restype, argtypes
            setattr(self, name, f)
        for name, value in constants.items():
            setattr(self, name[len("ROOFLINE_"):], value)
        if self.roofline_framework_api() != self.FRAMEWORK_API:
            raise RuntimeError(
                f"libroofline speaks framework API {self.roofline_framework_api()}, this hook "
                f"{self.FRAMEWORK_API}: the hook and the library come from different builds")


def header_text():
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "framework.h")) as f:
        return f.read()


def library_path():
    return os.environ.get("ROOFLINE_LIBRARY") or os.environ.get("CUDA_INJECTION64_PATH") or ""


def loaded_library():
    """The Library, when libroofline is loaded in this process already (the CUDA driver loads it
    at the process's first CUDA call under `roofline run`); None before that. Never loads it."""
    path = library_path()
    if not path:
        raise RuntimeError("neither ROOFLINE_LIBRARY nor CUDA_INJECTION64_PATH names libroofline")
    try:
        handle = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
    except OSError:
        return None
    return Library(handle, header_text())
