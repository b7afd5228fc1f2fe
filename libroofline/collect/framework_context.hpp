#pragma once
// Which framework operator and module launched a kernel (PyTorch: "aten::addmm" in
// "encoder.layers.3.linear1", forward or backward). The operator ranges PyTorch pushes through
// NVTX (core/framework_ops.hpp) are kept here, per thread, off the scope stacks: they are not
// scopes of the program, and their per-call numbers would make every iteration look new. Module
// paths come from libroofline's PyTorch hook (python/roofline_torch, through the C entry points
// of collect/framework_api.cpp). A backward node is linked to the forward operator that created
// it, and that operator's module, by autograd's sequence number. Pure: no CUDA.
#include "core/roofline_model.hpp"

#include <cstdint>
#include <map>
#include <string>

namespace roofline::collect::framework {

/// A range pushed on this thread. Returns true when it is one of the framework's ranges -- its
/// name carries PyTorch's per-call fields: an operator, a backward node, a record_function -- kept
/// here, never on the scope stacks; false for a plain range, a scope of the program as named.
bool pushed(const char* domain, const char* name) noexcept;
/// A range of `domain` popped on this thread: true when it closes an operator range kept here.
bool popped(const char* domain) noexcept;

/// The framework's module `path` begins (ends) its forward on this thread.
void moduleEnter(const char* path) noexcept;
void moduleExit() noexcept;

/// The calling thread's operator and module, for a launch it makes: `op`, `phase` and `module`
/// of `info` (left empty when unknown). Kernels of torch.compile (Inductor) outside any operator
/// are named by the operators they fused.
void describe(core::LaunchInfo& info);

/// Facts the framework hook reports about the run ("torch" -> "2.11.0+cu130", "tf32.matmul" ->
/// "off"), kept for the recording.
void setFact(const char* key, const char* value) noexcept;
std::map<std::string, std::string> facts();

/// Forward operators remembered by sequence number (bounded), and operator ranges open on this
/// thread: for tests.
std::size_t rememberedForward() noexcept;
std::size_t openOperators() noexcept;
/// Forgets every remembered forward operator and fact (tests).
void reset() noexcept;

} // namespace roofline::collect::framework
