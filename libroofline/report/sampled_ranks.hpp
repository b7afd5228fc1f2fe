#pragma once
// A sampled job's ranks side by side (docs/design/0029): each rank's steps aligned by their index,
// each step's slowest rank and how much longer it took than the fastest -- the time the other
// ranks wait at the step's next collective -- and the steps where that excess is large.
#include "core/sampled_figures.hpp"

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace roofline::report {

struct RankSteps {
    int rank = 0;
    std::string file;
    core::SampledFigures figures;
};

struct AlignedStep {
    std::uint64_t index = 0;
    std::vector<double> seconds; ///< per rank, in AlignedRanks::ranks order (NaN: not sampled)
    int slowest = -1;            ///< the slowest rank (-1: every rank took as long)
    double excess = 0;           ///< slowest minus fastest, seconds
    bool straggles = false;      ///< excess over the share of the median step asked for
};

struct AlignedRanks {
    std::vector<int> ranks;
    std::vector<std::string> files;
    std::vector<AlignedStep> steps; ///< steps every rank sampled, in order
    std::vector<double> medianSeconds; ///< per rank
    std::vector<std::size_t> slowestIn; ///< per rank: steps it was the slowest in
    std::size_t partial = 0; ///< steps some rank did not sample (left out)
    double medianStep = 0;   ///< over every rank's steps
    std::size_t straggling = 0;
};

/// Aligns the ranks' steps by index; a step straggles where its slowest rank took more than
/// `share` of the median step longer than its fastest.
AlignedRanks alignRanks(const std::vector<RankSteps>& ranks, double share = 0.10);
/// Each rank's median step and how often it was the slowest, then the straggling steps (up to
/// `rows`) with every rank's time (the first eight ranks' columns, and min / max beyond).
void printAlignedRanks(const AlignedRanks& a, std::ostream& out, std::size_t rows = 40);
/// One line per aligned step: its index, each rank's seconds, the slowest rank and the excess.
void writeAlignedCsv(const AlignedRanks& a, std::ostream& out);

} // namespace roofline::report
