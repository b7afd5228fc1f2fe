#pragma once
/// \file rnn_runner.hpp
/// Runs one recurrent case through cuDNN's RNN API (cudnnRNNForward, cudnnRNNBackwardData_v8,
/// cudnnRNNBackwardWeights_v8): verification against the double-precision reference, CUDA-event
/// timing and the profiled replay.

#include "cudnn/sweep.hpp"
#include "workloads/rnn_case.hpp"

#include <vector>

namespace roofline::bench {

std::vector<workloads::CaseResult> runRnnCase(const workloads::RnnCase& c, int index,
                                              RunContext& ctx);
workloads::CaseResult rnnCaseHeader(const workloads::RnnCase& c, int index);

} // namespace roofline::bench
