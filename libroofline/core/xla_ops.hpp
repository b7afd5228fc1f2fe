#pragma once
// What XLA says about the code that launched a kernel (JAX, TensorFlow): once a tool is attached
// XLA's GPU runtime pushes, in NVTX domain "TSL", one range per run of an executable
// ("XlaModule:#hlo_module=jit_step,program_id=3#") and one per operation it runs
// ("Thunk:#name=jit(step)/transpose(jvp(Model))/Dense_0/dot_general,hlo_op=custom-call.0,
// unique_hlo_op_id=12#"). The `name` is JAX's op_name: the jitted function, the transformations
// and modules it went through, and the primitive. Pure: no CUDA.
#include <string>
#include <string_view>

namespace roofline::core {

/// The NVTX domain of XLA's ranges.
inline constexpr std::string_view kXlaDomain = "TSL";

struct XlaOperation {
    std::string op;     ///< "jax::dot_general"; "xla::loop_multiply_fusion" when no primitive
    std::string phase;  ///< "backward" under transpose(...) (reverse-mode AD), else "forward"
    std::string module; ///< "Model.Dense_0"; the jitted function ("step") when none
    std::string hlo;    ///< the HLO instruction ("custom-call.0")
};

/// Whether a range name is one of XLA's per-operation ranges ("Thunk:#...#").
bool xlaOperationRange(std::string_view name) noexcept;
/// Whether a range name is a run of an XLA executable ("XlaModule:#...#").
bool xlaExecutableRun(std::string_view name) noexcept;

/// Reads an operation range. False for other names. The name's last part is the primitive when it
/// is lower-case (JAX's are; Flax's module names are not: "Dense_0"); otherwise, and for a range
/// with no `name` field, the HLO instruction names the operation ("xla::<instruction>" without
/// its ".N"). A command buffer's range ("hlo_op=command_buffer_1": many operations at once) names
/// nothing (op "").
bool parseXlaOperation(std::string_view text, XlaOperation& out);

} // namespace roofline::core
