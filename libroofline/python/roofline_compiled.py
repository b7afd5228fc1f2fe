"""torch.compile's kernels for libroofline: which operators each one fused and which module it
came from, read from what the compiler leaves in the process -- never by changing what it compiles.

Inductor writes every graph it compiles as Python source (its output code, kept in its cache and
reloaded from it in a later process). Above each call site of that code -- a Triton kernel's
`.run(...)`, an operator's `extern_kernels.mm(...)` -- a comment names the nodes of Dynamo's graph
the site came from and the ATen operators it fused:

    # Topologically Sorted Source Nodes: [layer_norm, x_1], Original ATen: [aten.native_layer_norm, aten.add]
    triton_per_fused_add_native_layer_norm_3.run(buf2, primals_4, ...)

Dynamo's graph (alive in every process that compiles, its cache warm or not) gives each node's
module: `node.meta["nn_module_stack"]`. While PyTorch's profiler is on, the compiled graph runs
under the NVTX range "## Call CompiledFxGraph <key> ##" and each site under one of its own (the
kernel's name, the operator's "aten::mm"): libroofline joins the two (include/roofline/
framework.h, roofline_compiled_graph). Parsing needs no torch; finding the graphs does.
"""
import gc
import re
import sys
import weakref

_SOURCE = re.compile(r"#\s*(?:Topologically Sorted|Unsorted) Source Nodes: \[(.*?)\], "
                     r"Original ATen: \[(.*?)\]")
_FUNCTION = re.compile(r"^(\s*)def (call|partition_\d+)\(")
_TRITON = re.compile(r"^\s*(triton_\w+)\.run\(")
_EXTERN = re.compile(r"^\s*(?:\w+\s*=\s*)?extern_kernels\.(\w+)\(")
_ASSIGNED = r"^\s*(?:[\w, ()]+=\s*)?"
_OPERATOR = re.compile(_ASSIGNED + r"torch\.ops\.(\w+)\.(\w+)\.\w+\(")  # a fallback operator
_ATEN = re.compile(_ASSIGNED + r"aten\.(\w+)\.\w+\(")
_COPY = re.compile(r"^\s*\w+\.copy_\(")
_PARTITION = re.compile(r"partitions\[(\d+)\]\(|\bpartition_(\d+)\(")


# Operators that only view their input (no work of their own): left out of a site's fused
# operators when it has others.
_VIEWS = {"aten::" + v for v in (
    "view", "_unsafe_view", "reshape", "t", "transpose", "permute", "expand", "squeeze",
    "unsqueeze", "slice", "select", "split", "split_with_sizes", "unbind", "as_strided", "alias",
    "detach", "flatten", "unflatten", "narrow", "chunk", "_reshape_alias", "view_as")}


def fused_operators(ops):
    """`ops` joined by '+', views left out where anything else is there."""
    work = [o for o in ops if o not in _VIEWS]
    return "+".join(work or ops)


def _names(text):
    return [n.strip() for n in text.split(",") if n.strip()]


def _aten(name):
    """"aten._to_copy" -> "aten::_to_copy"."""
    ns, _, op = name.rpartition(".")
    return f"{ns}::{op}" if ns else name


def call_sites(source):
    """The call sites of Inductor output code `source` in the order a call runs them: a list of
    (range, source nodes, fused operators), `range` the NVTX range the site pushes."""
    bodies, order = {}, []  # function -> [site or ("partition", n)]
    current, indent = None, 0
    pending = None
    for line in source.splitlines():
        m = _FUNCTION.match(line)
        if m:
            current, indent = m.group(2), len(m.group(1))
            bodies[current] = []
            order.append(current)
            pending = None
            continue
        if current is None:
            continue
        stripped = line.strip()
        if stripped and len(line) - len(line.lstrip()) <= indent and not stripped.startswith("#"):
            current = None  # the function ended
            continue
        m = _SOURCE.search(line)
        if m:
            pending = (_names(m.group(1)), [_aten(o) for o in _names(m.group(2))])
            continue
        if stripped.startswith("#"):
            continue
        site = None
        if m := _TRITON.match(line):
            site = m.group(1)
        elif m := _EXTERN.match(line):
            site = "aten::" + m.group(1)
        elif m := _OPERATOR.match(line):
            site = f"{m.group(1)}::{m.group(2)}"
        elif m := _ATEN.match(line):
            site = "aten::" + m.group(1)
        elif _COPY.match(line):
            site = "aten::copy_"
        if site:
            nodes, ops = pending or ([], [])
            bodies[current].append((site, nodes, ops))
            pending = None
            continue
        p = _PARTITION.search(line)
        if p and current == "call":
            bodies[current].append(("partition", int(p.group(1) or p.group(2))))
    if "call" not in bodies:
        return []
    sites = []
    for entry in bodies["call"]:
        if entry[0] == "partition":
            sites.extend(bodies.get(f"partition_{entry[1]}", []))
        else:
            sites.append(entry)
    return sites


def module_path(qualified):
    """A module's path relative to the compiled frame's own, from the name Dynamo records in
    nn_module_stack: "L['self'].blocks[0].attn" or "L['self']._modules['blocks']._modules['0']"
    -> "blocks.0.attn"; the frame's own module -> ""."""
    s = re.sub(r"^[LG]\[(['\"])[^'\"]*\1\]", "", qualified)
    s = re.sub(r"\._(?:modules|parameters|buffers)\[(['\"])([^'\"]+)\1\]", r".\2", s)
    s = re.sub(r"\[(['\"]?)([^\]'\"]+)\1\]", r".\2", s)
    s = s.replace("._orig_mod.", ".")
    return s.strip(".").removeprefix("_orig_mod").strip(".")


def site_module(paths):
    """The module of a site whose source nodes come from modules `paths`: the deepest module that
    holds more than half of them -- a layer norm that also casts the next layer's weights is the
    norm's layer -- or the root ("") when none does."""
    parts = [p.split(".") if p else [] for p in paths]
    best = []
    for candidate in parts:
        for depth in range(len(candidate), len(best), -1):
            prefix = candidate[:depth]
            if 2 * sum(1 for p in parts if p[:depth] == prefix) > len(parts):
                best = prefix
                break
    return ".".join(best)


def sites_table(sites, modules, backward=False):
    """libroofline's table of a compiled graph (framework.h, roofline_compiled_graph): one
    "<range>\\t<module>\\t<ops>" line per site. `modules` maps Dynamo's node names to module paths.
    A backward graph's own nodes are not Dynamo's; the forward nodes it names are the activations
    its gradients read, made by the module before the one differentiated (a weight gradient of
    `qkv` reads `ln1`'s output): a backward site takes the layer holding them -- the parent of a
    module that holds no other -- and a site that names none of Dynamo's nodes the layer of the
    nearest site that does (backward runs layer by layer)."""
    paths = set(modules.values())
    resolved = []
    for _, nodes, _ in sites:
        known = [modules[n] for n in nodes if n in modules]
        m = site_module(known) if known else None
        if backward and m and not any(p.startswith(m + ".") for p in paths):
            m = m.rpartition(".")[0]  # a leaf module: its layer
        resolved.append(m)
    if backward:
        have = [i for i, m in enumerate(resolved) if m is not None]
        for i, m in enumerate(resolved):
            if m is None and have:
                nearest = min(have, key=lambda j: (abs(j - i), j < i))
                resolved[i] = resolved[nearest]
    lines = []
    for (rng, _, ops), module in zip(sites, resolved):
        clean = lambda s: s.replace("\t", " ").replace("\n", " ")
        lines.append(f"{clean(rng)}\t{clean(module or '')}\t{clean(fused_operators(ops))}")
    return "\n".join(lines) + ("\n" if lines else "")


def is_backward(source):
    head = source[:400]
    return "_backward'" in head or '_backward"' in head


class Finder:
    """The compiled graphs of this process not yet reported: Dynamo's graphs (with their nodes'
    modules) and Inductor's compiled graphs (with their output code), found among the objects the
    process holds -- the only references to them are the compiler's own."""

    def __init__(self, torch, compiled_fx_graph=None):
        self.fx_graph_module = torch.fx.GraphModule
        # Inductor's class of a compiled graph: looked up once Inductor is imported (a backend
        # other than Inductor compiles none).
        self.compiled_fx_graph = compiled_fx_graph
        self.dynamo_modules = []  # (compile id, {node name: module path}), newest last
        # The graphs reported by id, held weakly (by identity: a dataclass graph is not
        # hashable): a graph the compiler lets go is not kept alive, and its id leaves with it.
        # One that cannot be weakly referenced is kept (its id then stays its own).
        self.seen = weakref.WeakValueDictionary()
        self.kept = {}

    def _dynamo_modules(self, gm):
        out = {}
        for node in gm.graph.nodes:
            stack = node.meta.get("nn_module_stack")
            out[node.name] = module_path(list(stack.values())[-1][0]) if stack else ""
        return out

    def _seen(self, graph):
        """Whether `graph` was reported; marks it reported."""
        if self.seen.get(id(graph)) is graph or self.kept.get(id(graph)) is graph:
            return True
        try:
            self.seen[id(graph)] = graph
        except TypeError:  # not weakly referenced
            self.kept[id(graph)] = graph
        return False

    def new_graphs(self):
        """[(key, table)] of the compiled graphs found since the last call."""
        fresh_gms, fresh_compiled = [], []
        if self.compiled_fx_graph is None:
            output_code = sys.modules.get("torch._inductor.output_code")
            self.compiled_fx_graph = getattr(output_code, "CompiledFxGraph", None)
        # By type alone: an object's own __class__ may warn (deprecated aliases) or raise (a
        # weak proxy whose object is gone).
        for o in gc.get_objects():
            kind = type(o)
            if kind is self.compiled_fx_graph:
                fresh_compiled.append(o)
            elif issubclass(kind, self.fx_graph_module) and "dynamo_compile_id" in o.meta:
                fresh_gms.append(o)
        fresh_gms = [g for g in fresh_gms if not self._seen(g)]
        fresh_compiled = [g for g in fresh_compiled if not self._seen(g)]
        for gm in fresh_gms:
            self.dynamo_modules.append((str(gm.meta.get("dynamo_compile_id")),
                                        self._dynamo_modules(gm)))
        out = []
        for g in fresh_compiled:
            key = getattr(g, "_fx_graph_cache_key", None)
            if not key:
                continue  # not cached: its call range has no key to join on
            sites = call_sites(g.source_code or "")
            names = {n for _, nodes, _ in sites for n in nodes}
            best, overlap = {}, 0
            for _, modules in reversed(self.dynamo_modules):
                k = len(names.intersection(modules))
                if k > overlap:
                    best, overlap = modules, k
            out.append((key, sites_table(sites, best, is_backward(g.source_code or ""))))
        return out


class Watcher:
    """Each compilation's graphs sent to libroofline once it ends (Dynamo's end-of-compile
    callback runs outside the code it traces). Started once the program imports Dynamo; graphs
    compiled before libroofline collects are sent when it starts (report())."""

    def __init__(self, torch, collecting, send, fail):
        self.torch = torch
        self.collecting = collecting  # () -> bool: libroofline collects now
        self.send = send  # (key, table): one compiled graph's call sites
        self.fail = fail  # (exception): the hook turns itself off
        self.finder = None
        self.handler = None  # Dynamo's callback handler while the callback is registered
        self.in_callback = False  # inside that callback: it cannot be removed now
        self.unreported = False  # a compilation ended before libroofline collected

    def start(self):
        if self.finder is not None:
            return
        try:
            from torch._dynamo.callback import callback_handler
        except ImportError:  # another PyTorch: compiled kernels keep the operators their names tell
            return
        self.finder = Finder(self.torch)
        callback_handler.register_end_callback(self.compiled)
        self.handler = callback_handler

    def compiled(self, args):
        if self.handler is None:
            return  # stopped while inside this callback
        self.in_callback = True
        try:
            if self.collecting():
                self.report()
            else:
                self.unreported = True
        except Exception as e:  # never into Dynamo: the hook says why and turns itself off
            self.fail(e)
        finally:
            self.in_callback = False

    def report(self):
        """The graphs compiled since the last report, sent."""
        self.unreported = False
        if self.finder is None:
            return
        for key, table in self.finder.new_graphs():
            self.send(key, table)

    def stop(self):
        handler, self.handler, self.finder = self.handler, None, None
        if handler is not None and not self.in_callback:
            try:
                handler.remove_end_callback(self.compiled)
            except ValueError:  # Dynamo's list no longer holds it: nothing left to remove
                pass
