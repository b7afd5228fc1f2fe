#pragma once
/// \file conv_runner.hpp
/// Runs one convolution case through cuDNN: engine choice, verification against the reference
/// kernels, CUDA-event timing and the profiled replay.

#include "cudnn/sweep.hpp"
#include "workloads/conv_case.hpp"

#include <vector>

namespace roofline::bench {

/// One result per engine tried (one for heuristic/exhaustive, one per engine for --algo every).
std::vector<workloads::CaseResult> runConvCase(const workloads::ConvCase& c, int index,
                                               RunContext& ctx);
/// The result row of a case that did not run (identity fields filled, status set by the caller).
workloads::CaseResult convCaseHeader(const workloads::ConvCase& c, int index);

} // namespace roofline::bench
