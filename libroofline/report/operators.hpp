#pragma once
// Framework operators and tensor cores (`roofline report --group-by op`): per operator its time
// and the share of its FLOPs that ran on tensor cores, and the operators that could have run on
// them (matrix products, convolutions, attention, recurrent layers) but did not, with the reason
// where the recording tells it: the data type, TF32 switched off, a size not a multiple of 8.
#include <roofline/kernel_record.hpp>

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace roofline::report {

/// One operator (grouped as opLabel: backward apart) summed over its launches.
struct OperatorUse {
    std::string label; ///< "aten::addmm [backward]"
    std::string op;    ///< "aten::addmm"
    std::size_t launches = 0;
    double seconds = 0; ///< measured time
    double flops = 0;   ///< floating-point work, CUDA + tensor cores
    double tensorFlops = 0;
    double fp64 = 0, fp32 = 0, fp16 = 0; ///< CUDA-core work per precision
    std::string shapes;                  ///< of its longest launch with shapes
    double longest = 0;
    bool tensorCoreOp = false; ///< an operator that runs on tensor cores at a tensor-core type
    double tensorShare() const noexcept { return flops > 0 ? tensorFlops / flops : 0.0; }
};

/// Operators of `records` (records without one are left out), most time first.
std::vector<OperatorUse> operatorUse(const std::vector<KernelRecord>& records);

/// The framework's fact `key` (Recording::framework); "" when not reported.
std::string factOf(const std::map<std::string, std::string>& facts, const char* key);

/// Why a tensor-core operator ran its FLOPs on CUDA cores, from its work per precision, its
/// shapes and the framework's facts (KernelRecord::shapes, Recording::framework); "" when most of
/// its FLOPs ran on tensor cores or it did no floating-point work.
std::string whyNotTensorCores(const OperatorUse& use,
                              const std::map<std::string, std::string>& facts);

/// The tensor-core summary: overall shares, the tensor-core operators with their share, and the
/// ones that did not use tensor cores with why. Nothing when no record has an operator.
void printTensorCoreUse(const std::vector<KernelRecord>& records,
                        const std::map<std::string, std::string>& facts, std::ostream& out,
                        std::size_t top);

} // namespace roofline::report
