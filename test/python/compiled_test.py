#!/usr/bin/env python3
"""The PyTorch hook's pure parts, on any Python 3: Inductor output code read into call sites (the
H100 run's output code of test/gpu/torch_matrix.py's GPT, trimmed: test/fixtures/inductor), the
sites' modules, Dynamo's module names, and the binding of libroofline's C entry points from
framework.h.

    compiled_test.py HOOK_DIR      # build/libroofline/python (it holds framework.h)
"""
import os
import sys

sys.path.insert(0, sys.argv[1])
import roofline_compiled as rc  # noqa: E402
import roofline_framework as rf  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "inductor")
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL", what)


def fixture(name):
    with open(os.path.join(FIXTURES, name + ".py.txt")) as f:
        return f.read()


# The forward graph: 68 Triton and extern call sites and 4 attention operators, in call order.
forward = rc.call_sites(fixture("gpt_forward"))
check(len(forward) == 72, f"forward sites: {len(forward)}")
check(forward[0] == ("triton_poi_fused__to_copy_0", ["x"], ["aten::_to_copy"]), forward[0])
check(forward[3] == ("aten::addmm", ["x"], ["aten::_to_copy", "aten::view", "aten::t",
                                            "aten::addmm"]), forward[3])
attention = [i for i, s in enumerate(forward) if s[0] == "aten::_scaled_dot_product_cudnn_attention"]
check(len(attention) == 4, f"attention sites {attention}")
check(not rc.is_backward(fixture("gpt_forward")), "the forward is no backward")
# Partitions (reduce-overhead) run from call() in order: the same sites (this run's batch took
# flash attention where the other's took cuDNN's).
same = lambda r: r.replace("flash", "cudnn")
check([same(s[0]) for s in rc.call_sites(fixture("gpt_forward_partitioned"))] ==
      [s[0] for s in forward], "partitioned forward: the same ranges in the same order")
backward = rc.call_sites(fixture("gpt_backward"))
check(len(backward) == 129 and rc.is_backward(fixture("gpt_backward")), f"backward {len(backward)}")
check(backward[0][0] == "aten::mm" and backward[2][0] == "triton_red_fused_sum_view_0", backward[:3])
check(rc.call_sites("x = 1\n") == [], "no call()")

# Module names Dynamo records, relative to the compiled frame's module.
for qualified, path in [("L['self'].blocks[0].attn", "blocks.0.attn"),
                        ("L['self']._modules['blocks']._modules['0']", "blocks.0"),
                        ("L['self']", ""), ("L['model'].layers.3", "layers.3"),
                        ("G['net'].head", "head"), ("L['self']._orig_mod.blocks.1", "blocks.1")]:
    check(rc.module_path(qualified) == path, f"{qualified} -> {rc.module_path(qualified)}")
check(rc.site_module(["inp", "blocks.0.ln1", "blocks.0.qkv"]) == "blocks.0", "majority")
check(rc.site_module(["blocks.0.mlp.0", "blocks.0.mlp.1"]) == "blocks.0.mlp", "common layer")
check(rc.site_module(["inp", "head"]) == "", "the root")

# The table: a forward site takes its nodes' module; a backward site naming none of Dynamo's
# nodes takes the nearest site's that does (the later one on a tie).
modules = {"x": "inp", "layer_norm": "blocks.0.ln1", "linear_1": "blocks.0.qkv"}
table = rc.sites_table(forward, modules).splitlines()
check(len(table) == 72, "one line a site")
check(table[0] == "triton_poi_fused__to_copy_0\tinp\taten::_to_copy", table[0])
check(table[4].split("\t")[1] == "blocks.0", table[4])
check(table[40].split("\t")[1] == "", "unknown nodes in a forward graph: the compiled module")
# A backward site's forward nodes are activations its gradients read: it takes their layer (the
# parent of a module holding no other).
sites = [("a", ["view_1"], []), ("b", ["ln_out"], ["aten::mm"]), ("c", ["sum_2"], []),
         ("d", ["sum_3"], []), ("e", ["gelu"], []), ("f", ["input_1", "input_2"], [])]
tree = {"ln_out": "blocks.1.ln", "gelu": "blocks.1.mlp.1", "input_1": "blocks.1.mlp.0",
        "input_2": "blocks.1.mlp.1"}
lines = rc.sites_table(sites, tree, backward=True)
check([l.split("\t")[1] for l in lines.splitlines()] ==
      ["blocks.1", "blocks.1", "blocks.1", "blocks.1.mlp", "blocks.1.mlp", "blocks.1.mlp"],
      lines)
check(rc.sites_table([("r\tx", [], ["o\nk"])], {}) == "r x\t\to k\n", "tabs and newlines cut")
# The operators a site fused, views (no work of their own) left out where others are there.
check(rc.fused_operators(["aten::view", "aten::_to_copy", "aten::native_layer_norm"]) ==
      "aten::_to_copy+aten::native_layer_norm", "views left out")
check(rc.fused_operators(["aten::view", "aten::t"]) == "aten::view+aten::t", "only views: kept")
check(table[3].split("\t")[2] == "aten::_to_copy+aten::addmm", table[3])

# framework.h, as the hook binds it.
constants, functions = rf.read_header(rf.header_text())
check(constants["ROOFLINE_FRAMEWORK_API"] == 4 and constants["ROOFLINE_PROFILE_COLLECTING"] == 1,
      constants)
import ctypes  # noqa: E402
check(functions["roofline_module_enter"] == (None, [ctypes.c_char_p, ctypes.c_int]),
      functions.get("roofline_module_enter"))
check(functions["roofline_profile_state"] == (ctypes.c_int, []), "state")
check(set(functions) == {"roofline_framework_api", "roofline_torch_hook_enabled",
                         "roofline_profile_state", "roofline_module_enter", "roofline_module_exit",
                         "roofline_framework_fact", "roofline_compiled_graph",
                         "roofline_step_end"}, sorted(functions))
try:
    rf.read_header("void roofline_x(double d);")
    check(False, "an unknown type is refused")
except ValueError as e:
    check("double" in str(e), str(e))
os.environ.pop("ROOFLINE_LIBRARY", None)
os.environ.pop("CUDA_INJECTION64_PATH", None)
try:
    rf.loaded_library()
    check(False, "no library named")
except RuntimeError:
    pass
os.environ["ROOFLINE_LIBRARY"] = "/nonexistent/libroofline.so"
check(rf.loaded_library() is None, "a library not loaded is not loaded by the hook")

if failures:
    sys.exit(1)
print("compiled sites: every check passed")
