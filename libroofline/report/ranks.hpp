#pragma once
// Recordings merged from several ranks (`roofline merge`): how each kernel's time differs between
// ranks -- the slowest rank per kernel, the one a data-parallel step waits for.
#include "report/aggregate.hpp"

#include <iosfwd>
#include <vector>

namespace roofline::report {

/// One kernel group (GroupBy key) across ranks.
struct RankSpread {
    std::string name, scope;
    std::vector<int> ranks;      ///< ranks that ran it, ascending
    std::vector<double> seconds; ///< measured time per rank (same order)
    int slowest = -1, fastest = -1;
    double slowestSeconds = 0, fastestSeconds = 0;
    /// What the slowest rank spent beyond the fastest (the others wait that long at the next
    /// collective).
    double excessSeconds() const noexcept { return slowestSeconds - fastestSeconds; }
};

/// A communication kernel (NCCL, NVSHMEM, ...: by its name, or a framework's communication op):
/// its time is mostly waiting for peers.
bool isCommunication(const KernelRecord& r) noexcept;

/// Ranks present in the records (rank >= 0), ascending; empty for a one-process recording.
std::vector<int> ranksOf(const std::vector<KernelRecord>& records);

/// Per kernel group of compute kernels (communication kernels are waits), each rank's measured
/// time; groups with measured time on at least two ranks, largest excess first. Empty when the
/// records come from fewer than two ranks.
std::vector<RankSpread> rankSpread(const std::vector<KernelRecord>& records, GroupBy by);

/// Per rank: launches, compute time and communication time; the straggler named from compute time
/// only; then the `top` compute kernels with the largest spread (0: all).
void printRanks(const std::vector<KernelRecord>& records, GroupBy by, std::ostream& out,
                std::size_t top);

} // namespace roofline::report
