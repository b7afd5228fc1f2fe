#pragma once
// What a framework says about the code that launched a kernel: the NVTX ranges PyTorch pushes per
// operator (torch.autograd.profiler.emit_nvtx, or libroofline's own PyTorch hook) read as an
// operator, a backward node or an annotation, and what an operator's name tells about tensor
// cores. Pure: no CUDA.
//
// PyTorch's NVTX ranges (PyTorch 2.x, torch/csrc/profiler/util.cpp getNvtxStr) read
// "<name>, seq = <N>, op_id = <M>[, sizes = [[...], ...]][, input_op_ids = [...]]": `seq` is the
// autograd sequence number (a forward op's seq is the one its backward node gets), `op_id` a
// number unique to the call. Backward nodes are named after their autograd function
// ("AddmmBackward0, seq = 624, op_id = 7248"); ops run inside them carry no seq.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace roofline::core {

struct FrameworkRange {
    enum class Kind : std::uint8_t {
        Scope,    ///< a plain NVTX range: a scope of the program
        Op,       ///< one of PyTorch's RecordFunctions: an operator ("aten::addmm"), an optimizer
                  ///< step ("Optimizer.step#AdamW.step"), a collective ("nccl:all_reduce"), a
                  ///< record_function ("DistributedDataParallel.forward")
        Backward, ///< an autograd backward node ("AddmmBackward0")
    };
    Kind kind = Kind::Scope;
    std::string name;      ///< without the per-call fields
    std::int64_t seq = -1; ///< autograd sequence number; -1: none given
    std::string sizes;     ///< argument shapes as given ("[[8, 256], []]"); "": not recorded
};

/// Shapes as PyTorch writes them ("[[8, 256, 512], [2048], []]"): one list of sizes per argument
/// (up to 64 arguments of 16 sizes; the rest ignored); empty when `text` is not such a list.
std::vector<std::vector<std::int64_t>> parseShapes(std::string_view text);

/// The first size of a matrix operand -- the last two sizes of an argument with two or more --
/// that is not a multiple of `multiple`; -1 when every one is (or there are no shapes).
std::int64_t firstSizeNotMultiple(std::string_view shapes, std::int64_t multiple);

/// Reads an NVTX range name. Names without PyTorch's per-call fields are scopes, unchanged. Names
/// with them are backward nodes when named "...Backward<digits>" (or the autograd engine's
/// "autograd::engine::evaluate_function: X"), operators otherwise -- record_function ranges too.
FrameworkRange parseFrameworkRange(std::string_view text);

/// Whether a name carries PyTorch's per-call fields (", seq = ", ", op_id = ").
bool hasPerCallFields(std::string_view text) noexcept;

/// The optimizer of an "Optimizer.step#AdamW.step" or "Optimizer.zero_grad#AdamW.zero_grad"
/// range ("AdamW"); "" for any other name.
std::string optimizerOf(std::string_view op);

/// Whether operator `op` is one that runs on tensor cores at a tensor-core data type: matrix
/// products, convolutions, attention, recurrent layers.
bool tensorCoreOp(std::string_view op) noexcept;

/// The operators a torch.compile (Inductor) kernel fused, read from its name:
/// "triton_poi_fused_add_mul_0" -> "fused add, mul"; "" when the name is not one of Inductor's.
std::string inductorFusedOps(std::string_view kernelName);

} // namespace roofline::core
