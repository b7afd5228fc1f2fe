#include "seer/boosted.hpp"
#include "seer/model.hpp"
#include "seer/sample.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace roofline::seer {

std::vector<double> configFeatures(const ConvParams& c) {
    const double n = c.batch, in = c.inChannels, w = c.inWidth, k = c.outChannels, q = c.outWidth,
                 r = c.kernelWidth;
    const double fft = std::exp2(std::ceil(std::log2(std::max(1.0, w + 2 * c.padding))));
    const double rows = n * q * q, depth = in * r * r;
    const double fftWork =
        n * (in + k) * fft * fft * std::max(1.0, std::log2(fft)) + k * in * fft * fft;
    auto lg = [](double v) { return std::log(std::max(v, 1.0)); };
    return {lg(c.macs()),
            lg(n),
            lg(in),
            lg(k),
            lg(w),
            lg(q),
            lg(termValue(Term::Input, c)),
            lg(termValue(Term::Output, c)),
            lg(termValue(Term::Filter, c)),
            r == 1 ? 1.0 : 0.0,
            r == 3 ? 1.0 : 0.0,
            r == 5 ? 1.0 : 0.0,
            r == 7 ? 1.0 : 0.0,
            c.stride == 2 ? 1.0 : 0.0,
            c.padding,
            lg(fft),
            lg(rows),
            lg(depth),
            lg(termValue(Term::Tiles, c, Tiling{128, 64})),
            lg(fftWork)};
}

namespace {

// Each feature cut at up to `bins` quantiles of its training values: the candidate thresholds,
// and every row's bin per feature.
struct Binned {
    std::vector<std::vector<double>> cuts; // per feature, ascending; bin b holds values <= cuts[b]
    std::vector<std::vector<std::uint8_t>> bin; // [row][feature]
};

Binned binRows(const std::vector<std::vector<double>>& x, std::size_t bins) {
    Binned b;
    const std::size_t features = x.empty() ? 0 : x[0].size();
    b.cuts.resize(features);
    for (std::size_t f = 0; f < features; ++f) {
        std::vector<double> v;
        v.reserve(x.size());
        for (const auto& row : x)
            v.push_back(row[f]);
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
        if (v.size() <= bins) {
            b.cuts[f] = v;
        } else {
            for (std::size_t i = 1; i <= bins; ++i)
                b.cuts[f].push_back(v[std::min(v.size() - 1, i * v.size() / bins - 1)]);
            b.cuts[f].erase(std::unique(b.cuts[f].begin(), b.cuts[f].end()), b.cuts[f].end());
        }
    }
    b.bin.assign(x.size(), std::vector<std::uint8_t>(features, 0));
    for (std::size_t i = 0; i < x.size(); ++i)
        for (std::size_t f = 0; f < features; ++f) {
            const auto& c = b.cuts[f];
            const auto it = std::lower_bound(c.begin(), c.end(), x[i][f]);
            b.bin[i][f] = static_cast<std::uint8_t>(std::min<std::size_t>(
                static_cast<std::size_t>(it - c.begin()), c.empty() ? 0 : c.size() - 1));
        }
    return b;
}

// One regression tree on the residuals of `rows`, grown depth-first to `depth` levels.
class TreeBuilder {
public:
    TreeBuilder(const Binned& b, const std::vector<double>& residual, const BoostOptions& o)
        : b_(b), residual_(residual), o_(o) {}

    std::vector<BoostedTrees::Node> build(std::vector<std::size_t> rows) {
        nodes_.clear();
        grow(rows, 0);
        return nodes_;
    }

private:
    int grow(std::vector<std::size_t>& rows, std::size_t level) {
        const int index = static_cast<int>(nodes_.size());
        nodes_.emplace_back();
        double sum = 0;
        for (std::size_t r : rows)
            sum += residual_[r];
        nodes_[static_cast<std::size_t>(index)].value =
            rows.empty() ? 0.0 : sum / static_cast<double>(rows.size());
        if (level >= o_.depth || rows.size() < 2 * o_.minLeaf)
            return index;
        // The split that most reduces the squared error: per feature, a histogram of the
        // residuals' sums and counts per bin, scanned left to right.
        double bestGain = 1e-12;
        int bestFeature = -1;
        std::size_t bestBin = 0;
        const double total = static_cast<double>(rows.size());
        for (std::size_t f = 0; f < b_.cuts.size(); ++f) {
            const std::size_t bins = b_.cuts[f].size();
            if (bins < 2)
                continue;
            sums_.assign(bins, 0.0);
            counts_.assign(bins, 0);
            for (std::size_t r : rows) {
                sums_[b_.bin[r][f]] += residual_[r];
                ++counts_[b_.bin[r][f]];
            }
            double leftSum = 0;
            std::size_t leftCount = 0;
            for (std::size_t bin = 0; bin + 1 < bins; ++bin) {
                leftSum += sums_[bin];
                leftCount += counts_[bin];
                const std::size_t rightCount = rows.size() - leftCount;
                if (leftCount < o_.minLeaf || rightCount < o_.minLeaf)
                    continue;
                const double l = static_cast<double>(leftCount),
                             rr = static_cast<double>(rightCount);
                const double rightSum = sum - leftSum;
                const double gain =
                    leftSum * leftSum / l + rightSum * rightSum / rr - sum * sum / total;
                if (gain > bestGain) {
                    bestGain = gain;
                    bestFeature = static_cast<int>(f);
                    bestBin = bin;
                }
            }
        }
        if (bestFeature < 0)
            return index;
        std::vector<std::size_t> left, right;
        const auto f = static_cast<std::size_t>(bestFeature);
        for (std::size_t r : rows)
            (b_.bin[r][f] <= bestBin ? left : right).push_back(r);
        rows.clear();
        rows.shrink_to_fit();
        const int l = grow(left, level + 1);
        const int r = grow(right, level + 1);
        auto& node = nodes_[static_cast<std::size_t>(index)];
        node.feature = bestFeature;
        node.threshold = b_.cuts[f][bestBin];
        node.left = l;
        node.right = r;
        return index;
    }

    const Binned& b_;
    const std::vector<double>& residual_;
    const BoostOptions& o_;
    std::vector<BoostedTrees::Node> nodes_;
    std::vector<double> sums_;
    std::vector<std::size_t> counts_;
};

double treeValue(const std::vector<BoostedTrees::Node>& tree, const std::vector<double>& x) {
    std::size_t i = 0;
    while (tree[i].feature >= 0)
        i = static_cast<std::size_t>(
            x[static_cast<std::size_t>(tree[i].feature)] <= tree[i].threshold ? tree[i].left
                                                                              : tree[i].right);
    return tree[i].value;
}

} // namespace

double BoostedTrees::predict(const std::vector<double>& x) const {
    double v = base;
    for (const auto& t : trees)
        v += treeValue(t, x);
    return v;
}

BoostedTrees BoostedTrees::fit(const std::vector<std::vector<double>>& x,
                               const std::vector<double>& y, const BoostOptions& o) {
    BoostedTrees model;
    if (x.empty() || x.size() != y.size())
        return model;
    model.base = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(y.size());
    const Binned binned = binRows(x, std::clamp<std::size_t>(o.bins, 2, 255));
    std::vector<double> prediction(y.size(), model.base), residual(y.size());
    std::uint64_t state = o.seed;
    TreeBuilder builder(binned, residual, o);
    const auto take = static_cast<std::uint64_t>(std::clamp(o.subsample, 0.0, 1.0) * 1e6);
    for (std::size_t t = 0; t < o.trees; ++t) {
        for (std::size_t i = 0; i < y.size(); ++i)
            residual[i] = y[i] - prediction[i];
        std::vector<std::size_t> rows;
        for (std::size_t i = 0; i < y.size(); ++i)
            if (splitMix64(state) % 1000000 < take) // the same subsamples everywhere
                rows.push_back(i);
        auto tree = builder.build(std::move(rows));
        for (auto& node : tree)
            node.value *= o.rate;
        for (std::size_t i = 0; i < y.size(); ++i)
            prediction[i] += treeValue(tree, x[i]);
        model.trees.push_back(std::move(tree));
    }
    return model;
}

std::string BoostedTrees::toJson() const {
    nlohmann::json forest = nlohmann::json::array();
    for (const auto& t : trees) {
        nlohmann::json tree = nlohmann::json::array();
        for (const auto& n : t)
            tree.push_back(n.feature < 0
                               ? nlohmann::json::array({n.value})
                               : nlohmann::json::array({n.feature, n.threshold, n.left, n.right}));
        forest.push_back(std::move(tree));
    }
    return nlohmann::json{{"base", base}, {"trees", std::move(forest)}}.dump();
}

BoostedTrees BoostedTrees::fromJson(const std::string& text, std::size_t features) {
    BoostedTrees m;
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
        m.base = j.at("base").get<double>();
    } catch (const std::exception& e) {
        throw SeerError(std::string("boosted trees: ") + e.what());
    }
    const auto& forest = j.at("trees");
    if (!forest.is_array() || forest.size() > 100000)
        throw SeerError("boosted trees: 'trees' is not an array of at most 100,000 trees");
    for (const auto& tree : forest) {
        if (!tree.is_array() || tree.empty() || tree.size() > 65536)
            throw SeerError("boosted trees: a tree is not an array of 1 to 65,536 nodes");
        std::vector<Node> nodes;
        for (std::size_t i = 0; i < tree.size(); ++i) {
            const auto& n = tree[i];
            Node node;
            if (n.is_array() && n.size() == 1 && n[0].is_number()) {
                node.value = n[0].get<double>();
            } else if (n.is_array() && n.size() == 4 && n[0].is_number_integer() &&
                       n[1].is_number() && n[2].is_number_integer() && n[3].is_number_integer()) {
                const auto f = n[0].get<long long>(), l = n[2].get<long long>(),
                           r = n[3].get<long long>();
                const auto size = static_cast<long long>(tree.size());
                const auto self = static_cast<long long>(i);
                if (f < 0 || f >= static_cast<long long>(features) || l <= self || r <= self ||
                    l >= size || r >= size)
                    throw SeerError("boosted trees: node " + std::to_string(i) +
                                    " names a feature or a child out of range");
                node.feature = static_cast<int>(f);
                node.threshold = n[1].get<double>();
                node.left = static_cast<int>(l);
                node.right = static_cast<int>(r);
            } else {
                throw SeerError("boosted trees: node " + std::to_string(i) +
                                " is neither [value] nor [feature, threshold, left, right]");
            }
            nodes.push_back(node);
        }
        m.trees.push_back(std::move(nodes));
    }
    return m;
}

std::vector<double> correctionFeatures(const ConvParams& c, double structuralSeconds) {
    auto f = configFeatures(c);
    f.push_back(std::log(std::max(structuralSeconds, 1e-9)));
    return f;
}

double correctedSeconds(const BoostedTrees& trees, const ConvParams& c, double structuralSeconds) {
    return std::max(structuralSeconds, 1e-9) *
           std::exp(
               std::clamp(trees.predict(correctionFeatures(c, structuralSeconds)), -30.0, 30.0));
}

// The trees predict log(seconds per multiply-accumulate): a configuration beyond the training
// configurations' work gets the time per MAC of the largest ones like it, not their time (a
// tree's leaves are constants: on log seconds, a 20x larger layer would be predicted as fast as
// the largest trained one).
double boostedSeconds(const BoostedTrees& trees, const ConvParams& c) {
    return std::max(c.macs(), 1.0) *
           std::exp(std::clamp(trees.predict(configFeatures(c)), -80.0, 40.0));
}

double boostedTarget(const ConvParams& c, double seconds) {
    return std::log(seconds / std::max(c.macs(), 1.0));
}

} // namespace roofline::seer
