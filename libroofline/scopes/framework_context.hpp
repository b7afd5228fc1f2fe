#pragma once
// Which framework operator and module launched a kernel (PyTorch: "aten::addmm" in
// "encoder.layers.3.linear1", forward or backward). The operator ranges PyTorch pushes through
// NVTX (core/framework_ops.hpp) are kept here, per thread, off the scope stacks: they are not
// scopes of the program, and their per-call numbers would make every iteration look new. Module
// paths come from libroofline's PyTorch hook (python/roofline_torch, through the C entry points
// of include/roofline/framework.h). A backward node is linked to the forward operator that
// created it, and that operator's module, by autograd's sequence number. Kernels of a compiled
// graph (torch.compile) are named by the graph's call sites (core/compiled_sites.hpp), and a
// kernel a CUDA graph replays by what was current where it was captured. Pure: no CUDA.
// Design: docs/design/0019-framework-operators.md, docs/design/0020-compiled-pytorch.md.
#include "core/roofline_model.hpp"

#include <cstdint>
#include <map>
#include <string>

namespace roofline::collect::framework {

/// A range pushed on this thread. Returns true when it is one of the framework's ranges -- its
/// name carries PyTorch's per-call fields: an operator, a backward node, a record_function; or it
/// is one of XLA's operations or runs of an executable (core/xla_ops.hpp) -- kept here, never on
/// the scope stacks; false
/// for a plain range, a scope of the program as named.
bool pushed(const char* domain, const char* name) noexcept;
/// A range of `domain` popped on this thread: true when it closes an operator range kept here.
bool popped(const char* domain) noexcept;
/// Before a pop of `domain` on this thread: when it closes a run of an XLA executable, that run's
/// range name into `run` (left as it is otherwise).
void closingRun(const char* domain, std::string& run) noexcept;

/// The framework's module `path` begins (ends) its forward on this thread; `top`: a top-level
/// module, named by its class, whose name is no prefix of its submodules' paths.
void moduleEnter(const char* path, bool top) noexcept;
void moduleExit() noexcept;

/// The operator and module of a launch made now on this thread: `op`, `phase`, `module` and
/// `shapes` of `info` (left empty when unknown). `graphNode`: the kernel node of a CUDA graph the
/// launch replays (0: none); what was current where that node was captured, when known.
void describe(core::LaunchInfo& info, std::uint64_t graphNode = 0);

/// A kernel launch into a stream being captured made CUDA graph node `node` on this thread: what
/// is current now names the kernel whenever that node runs.
void captured(std::uint64_t node, const char* mangledName) noexcept;

/// The call sites of compiled graph `key` ("<range>\t<module>\t<ops>" lines,
/// core::CompiledGraph::parse); malformed text is logged once and ignored.
void setCompiledGraph(const char* key, const char* sites) noexcept;

/// Facts the framework hook reports about the run ("torch" -> "2.11.0+cu130", "tf32.matmul" ->
/// "off"), kept for the recording.
void setFact(const char* key, const char* value) noexcept;
std::map<std::string, std::string> facts();

/// Forward operators remembered by sequence number (bounded), operator ranges open on this
/// thread, compiled graphs and captured graph nodes known: for tests.
std::size_t rememberedForward() noexcept;
std::size_t openOperators() noexcept;
std::size_t compiledGraphs() noexcept;
std::size_t capturedNodes() noexcept;
/// Forgets every remembered forward operator, fact, compiled graph and captured node (tests).
void reset() noexcept;

} // namespace roofline::collect::framework
