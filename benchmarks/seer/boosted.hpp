#pragma once
/// \file boosted.hpp
/// Gradient-boosted regression trees on log time: the third time model an engine may be given
/// (seer/selection.hpp). Where an engine's time bends with the configuration -- a cuBLAS GEMM
/// tile switching inside an FFT engine, the implicit and precomputed variants of one GEMM
/// engine, Winograd's transform sizes -- a sum of shallow trees on the configuration's features
/// follows the bends that one power law cannot: each split is a regime boundary (compute,
/// memory, latency; kernel variant), as SEER's classification tree is, learnt from the training
/// configurations instead of set by hand. Histogram-based (features cut at up to 64 quantiles of
/// the training rows), deterministic for a seed. Pure C++.
#include "seer/dataset.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace roofline::seer {

/// The configuration's features the trees split on: log MACs, log batch, channels, filters,
/// input and output widths, log input/output/filter sizes, the kernel width (1, 3, 5, 7 as 0/1
/// columns), stride 2, padding, log FFT size (the padded input width rounded up to a power of
/// two), log GEMM rows (N Q^2) and depth (C R^2), log 128x64 tiles, log FFT work.
inline constexpr std::size_t kConfigFeatures = 20;
std::vector<double> configFeatures(const ConvParams& c);

struct BoostOptions {
    std::size_t trees = 300;
    std::size_t depth = 4;
    double rate = 0.05;      ///< shrinkage of each tree
    double subsample = 0.8;  ///< share of the rows each tree is fitted on
    std::size_t minLeaf = 5; ///< fewest rows in a leaf
    std::size_t bins = 64;   ///< quantile cuts per feature
    std::uint64_t seed = 1;
};

struct BoostedTrees {
    /// A node: a split (feature >= 0: x[feature] <= threshold goes left) or a leaf (value).
    struct Node {
        int feature = -1;
        double threshold = 0;
        int left = -1, right = -1;
        double value = 0;
    };
    double base = 0; ///< the training rows' mean of the target
    std::vector<std::vector<Node>> trees;

    bool empty() const noexcept { return trees.empty(); }
    double predict(const std::vector<double>& x) const;
    /// Least squares on `y` (one row of `x` each).
    static BoostedTrees fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
                            const BoostOptions& options = {});
    /// [[feature, threshold, left, right, value], ...] per tree.
    std::string toJson() const;
    /// Throws SeerError on a malformed forest (out-of-range features or children, children that
    /// do not come after their parent, more than 100,000 trees or 65,536 nodes in one).
    static BoostedTrees fromJson(const std::string& text, std::size_t features);
};

/// configFeatures(c) and log(structuralSeconds): what trees that correct a model split on.
std::vector<double> correctionFeatures(const ConvParams& c, double structuralSeconds);

/// A structural time corrected by trees fitted on log(measured / structural):
/// max(structural, 1 ns) x exp(trees.predict(correctionFeatures(c, structural))).
double correctedSeconds(const BoostedTrees& trees, const ConvParams& c, double structuralSeconds);

/// Trees fitted on boostedTarget(): MACs x exp(trees.predict(configFeatures(c))), the predicted
/// seconds. Scaled by the work, so a layer larger than every trained one is not predicted as fast
/// as the largest of them.
double boostedSeconds(const BoostedTrees& trees, const ConvParams& c);

/// What trees that predict a time alone are fitted on: log(seconds per multiply-accumulate).
double boostedTarget(const ConvParams& c, double seconds);

} // namespace roofline::seer
