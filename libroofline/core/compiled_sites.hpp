#pragma once
// The call sites of a compiled graph (torch.compile: Inductor's output code), as libroofline's
// PyTorch hook reads them (include/roofline/framework.h, roofline_compiled_graph): per NVTX
// range a call site pushes when the graph runs -- a Triton kernel's name, an operator's
// "aten::addmm" -- in call order, the module path it came from (relative to the compiled module)
// and the operators it fused. The n-th site of a range is the n-th time the graph's call pushes
// that range. Pure: no CUDA. Design: docs/design/0020-compiled-pytorch.md. Tests:
// test/unit/framework_test.cpp.
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace roofline::core {

struct CompiledSite {
    std::string module; ///< relative to the compiled module; "" for that module itself
    std::string ops;    ///< fused operators joined by '+' ("aten::native_layer_norm+aten::add")
};

class CompiledGraph {
public:
    static constexpr std::size_t kMaxSites = 65536;
    static constexpr std::size_t kMaxLine = 4096;

    /// Reads "<range>\t<module>\t<ops>" lines in call order. Throws Error(InvalidArgument) naming
    /// the line for one without its three fields, longer than kMaxLine, or past kMaxSites.
    static CompiledGraph parse(std::string_view text);

    /// The `occurrence`-th site (from 0) that pushes `range`; nullptr when the graph has none.
    const CompiledSite* site(std::string_view range, std::size_t occurrence) const;
    std::size_t size() const noexcept { return sites_; }

private:
    std::unordered_map<std::string, std::vector<CompiledSite>> byRange_;
    std::size_t sites_ = 0;
};

/// The key of a compiled graph's call range ("## Call CompiledFxGraph fw7vet... ##" ->
/// "fw7vet..."); "" for any other range name.
std::string compiledGraphKey(std::string_view range);

/// A compiled kernel's module: `relative` under the compiled module at `prefix` ("" when the
/// compiled module is the top one), or `own` (the compiled module's own name, the top's class
/// name) when both are empty.
std::string compiledModule(std::string_view prefix, std::string_view relative,
                           std::string_view own);

} // namespace roofline::core
