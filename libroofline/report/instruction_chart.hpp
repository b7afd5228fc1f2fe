#pragma once
// The instruction roofline as SVG (Ding and Williams, "An Instruction Roofline Model for GPUs"):
// warp instructions per second against instructions per transaction at L1, L2 and HBM, under the
// warp-issue ceiling and the levels' transaction rates; below it the memory walls of the kernels
// with most time: global sectors and shared wavefronts per request, between the walls of the best
// and the worst access pattern, with what the threads' bytes need.
#include "report/aggregate.hpp"

#include <roofline/kernel_record.hpp>

#include <string>
#include <vector>

namespace roofline::report {

/// The chart of the groups that have the instruction counters (KernelGroup::instructions), the
/// `labels` with most time numbered by their kernel id; "" when no group has them.
std::string instructionRooflineSvg(const std::vector<KernelGroup>& groups,
                                   const Ceilings& ceilings, std::size_t labels,
                                   const std::string& subtitle, bool xmlHeader);

} // namespace roofline::report
