#pragma once
/// \file splits.hpp
/// The model evaluated over many random held-out sets of configurations, not one: each split
/// holds out `testShare` of the configurations (every engine of a configuration on the same
/// side), fits on the rest and measures Test-set-I (per-row errors: RMSPE, MAPE, median) and
/// Test-set-II (the engine picked against the measured best and cuDNN's heuristic). The figures'
/// spread over the splits says how much one split's figure is worth. Pure C++.
#include "seer/model.hpp"

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace roofline::seer {

struct SplitsOptions {
    std::size_t splits = 100;
    double testShare = 0.3;
    std::uint64_t seed = 1;
    bool select = true;      ///< Model::fit's cross-validated choice of each engine's time model
    std::size_t threads = 0; ///< splits evaluated at once; 0: one per hardware thread
};

/// One split's figures (fractions).
struct SplitFigures {
    std::size_t trainConfigs = 0, testConfigs = 0, testRows = 0;
    double rmspe = 0, mape = 0, medianApe = 0; ///< over every modelled test row
    double within10 = 0, top1 = 0, meanLost = 0;
    double errorRate = 0; ///< SEER's: share of picks more than 10% slower than the best
    double heuristicWithin10 = 0, heuristicMeanLost = 0, heuristicErrorRate = 0;
    bool heuristicKnown = false;
    std::map<std::string, double> engineMedianApe; ///< engines with test rows
};

struct SplitsSummary {
    SplitsOptions options;
    std::vector<SplitFigures> splits;
};

/// The configurations of `rows` shuffled with `seed` (deterministic), `testShare` of them held out.
std::vector<std::string> heldOutConfigs(const std::vector<SeerRow>& rows, double testShare,
                                        std::uint64_t seed);

/// Every split, on `options.threads` threads; the summary lists them in split order.
SplitsSummary evaluateSplits(const std::vector<SeerRow>& rows, const Roofs& roofs,
                             const SplitsOptions& options);
/// Split `index` (seed options.seed + index): the model fitted on its training configurations
/// and evaluated on the held-out ones.
SplitFigures evaluateSplit(const std::vector<SeerRow>& rows, const Roofs& roofs,
                           const SplitsOptions& options, std::size_t index);

/// Percentiles (10th, 50th, 90th) and the mean of each figure over the splits, per engine too.
void printSplitsSummary(const SplitsSummary& s, std::ostream& out);

/// The p-th percentile (0..100) of `values`, linearly interpolated; 0 when empty.
double percentile(std::vector<double> values, double p);

} // namespace roofline::seer
