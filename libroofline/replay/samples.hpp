#pragma once
// Samples of a launch signature (iteration replay's repeated-launch reuse, window replay's
// signatures): whether two measured launches did the same work, and the mean a launch that was
// not measured takes from them. Pure: no CUDA.
#include "core/roofline_model.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace roofline::collect {

/// Whether two launches' values agree in every work counter of `metrics` (instruction and
/// operation counts, L1 bytes: equal for the same work), within one part in a thousand (some
/// kernels' counts vary that much from run to run). Counters missing (NaN) in either are not
/// compared.
bool sameWork(const std::vector<double>& a, const std::vector<double>& b,
              const std::vector<std::size_t>& workMetrics);
/// Whether every one of `samples` did the work the first did (sameWork); true for none.
bool sameWorkAll(const std::vector<const core::LaunchInfo*>& samples,
                 const std::vector<std::size_t>& workMetrics);
/// The positions in `metricNames` of the SASS FLOP counters (thread instructions per FP operation).
std::vector<std::size_t> flopCounters(const std::vector<std::string>& metricNames);
/// Whether two launches' values are equal in every counter of `flopMetrics`, exactly: the same
/// instructions from the same arguments, unless their data decides how many run (a GELU's
/// backward). Counters missing (NaN) in either are not compared.
bool sameFlops(const std::vector<double>& a, const std::vector<double>& b,
               const std::vector<std::size_t>& flopMetrics);
/// The positions in `metricNames` of the work counters.
std::vector<std::size_t> workCounters(const std::vector<std::string>& metricNames);

/// `info` takes the mean of `samples`' values (per metric, over the samples that have it; NaN
/// where none has), `reusedSamples` their count, and a note: "reused: mean of N measured
/// launches of the same signature (<which>); they spread by up to X% (<metric>)".
void takeSampleMean(const std::vector<const core::LaunchInfo*>& samples, const std::string& which,
                    const std::vector<std::string>& metricNames, core::LaunchInfo& info);

} // namespace roofline::collect
