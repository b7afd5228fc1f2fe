#include "seer/splits.hpp"

#include "seer/evaluate.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <random>
#include <set>
#include <thread>

namespace roofline::seer {

double percentile(std::vector<double> v, double p) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const double at = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(at));
    const auto hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (at - static_cast<double>(lo));
}

std::vector<std::string> heldOutConfigs(const std::vector<SeerRow>& rows, double testShare,
                                        std::uint64_t seed) {
    std::set<std::string> unique;
    for (const auto& r : rows)
        unique.insert(r.conv.key());
    std::vector<std::string> configs(unique.begin(), unique.end()); // sorted: deterministic
    std::mt19937_64 random(seed);
    std::shuffle(configs.begin(), configs.end(), random);
    const auto held =
        static_cast<std::size_t>(std::lround(testShare * static_cast<double>(configs.size())));
    configs.resize(std::min(held, configs.size()));
    return configs;
}

SplitsSummary evaluateSplits(const std::vector<SeerRow>& rows, const Roofs& roofs,
                             const SplitsOptions& options) {
    SplitsSummary summary;
    summary.options = options;
    summary.splits.resize(options.splits);
    // The splits are independent: each worker takes the next one (results in split order).
    std::atomic<std::size_t> next{0};
    auto work = [&] {
        for (std::size_t s = next++; s < options.splits; s = next++)
            summary.splits[s] = evaluateSplit(rows, roofs, options, s);
    };
    const std::size_t workers = std::clamp<std::size_t>(
        options.threads ? options.threads : std::thread::hardware_concurrency(), 1,
        std::max<std::size_t>(options.splits, 1));
    std::vector<std::thread> pool;
    for (std::size_t w = 1; w < workers; ++w)
        pool.emplace_back(work);
    work();
    for (auto& t : pool)
        t.join();
    return summary;
}

SplitFigures evaluateSplit(const std::vector<SeerRow>& rows, const Roofs& roofs,
                           const SplitsOptions& options, std::size_t s) {
    const auto held = heldOutConfigs(rows, options.testShare, options.seed + s);
    const std::set<std::string> test(held.begin(), held.end());
    std::vector<SeerRow> trainRows, testRows;
    std::set<std::string> trainConfigs;
    for (const auto& r : rows) {
        const bool isTest = test.count(r.conv.key()) > 0;
        (isTest ? testRows : trainRows).push_back(r);
        if (!isTest)
            trainConfigs.insert(r.conv.key());
    }
    const Model model = Model::fit(trainRows, roofs, options.select);
    const RowEvaluation e = evaluateRows(model, testRows);
    const ChoiceEvaluation c = evaluateChoices(model, testRows);
    SplitFigures f;
    f.trainConfigs = trainConfigs.size();
    f.testConfigs = test.size();
    std::vector<double> ape;
    double squared = 0;
    for (const auto& p : e.points)
        if (p.measured > 0) {
            const double err = (p.predicted - p.measured) / p.measured;
            ape.push_back(std::abs(err));
            squared += err * err;
        }
    f.testRows = ape.size();
    if (!ape.empty()) {
        f.rmspe = std::sqrt(squared / static_cast<double>(ape.size()));
        double sum = 0;
        for (double a : ape)
            sum += a;
        f.mape = sum / static_cast<double>(ape.size());
        f.medianApe = percentile(ape, 50);
    }
    for (const auto& eng : e.engines)
        f.engineMedianApe[eng.engine] = eng.medianApe;
    f.within10 = c.within10;
    f.top1 = c.top1;
    f.meanLost = c.meanLost;
    f.errorRate = c.configs.empty() ? 0 : 1 - c.within10;
    f.heuristicKnown = c.withHeuristic > 0;
    f.heuristicWithin10 = c.heuristicWithin10;
    f.heuristicMeanLost = c.heuristicMeanLost;
    f.heuristicErrorRate = f.heuristicKnown ? 1 - c.heuristicWithin10 : 0;
    return f;
}

void printSplitsSummary(const SplitsSummary& s, std::ostream& out) {
    const auto& o = s.options;
    std::size_t configs = 0;
    if (!s.splits.empty())
        configs = s.splits.front().trainConfigs + s.splits.front().testConfigs;
    char line[256];
    std::snprintf(line, sizeof line,
                  "%zu random splits (seeds %llu..%llu) of %zu configurations, %.0f%% held out "
                  "each, every engine of a configuration on the same side\n",
                  s.splits.size(), static_cast<unsigned long long>(o.seed),
                  static_cast<unsigned long long>(o.seed + (o.splits ? o.splits - 1 : 0)), configs,
                  100 * o.testShare);
    out << line;
    std::snprintf(line, sizeof line, "%-34s %8s %8s %8s %8s\n", "figure (over the splits)", "p10",
                  "median", "p90", "mean");
    out << line;
    const auto row = [&](const char* name, auto get) {
        std::vector<double> v;
        for (const auto& f : s.splits)
            v.push_back(get(f));
        double mean = 0;
        for (double x : v)
            mean += x;
        mean = v.empty() ? 0 : mean / static_cast<double>(v.size());
        std::snprintf(line, sizeof line, "%-34s %7.1f%% %7.1f%% %7.1f%% %7.1f%%\n", name,
                      100 * percentile(v, 10), 100 * percentile(v, 50), 100 * percentile(v, 90),
                      100 * mean);
        out << line;
    };
    row("RMSPE, every test row", [](const SplitFigures& f) { return f.rmspe; });
    row("MAPE, every test row", [](const SplitFigures& f) { return f.mape; });
    row("median error, every test row", [](const SplitFigures& f) { return f.medianApe; });
    row("pick within 10% of the best", [](const SplitFigures& f) { return f.within10; });
    row("pick is the best", [](const SplitFigures& f) { return f.top1; });
    row("error rate (pick >10% slower)", [](const SplitFigures& f) { return f.errorRate; });
    row("mean time lost by the pick", [](const SplitFigures& f) { return f.meanLost; });
    const bool heuristic = std::any_of(s.splits.begin(), s.splits.end(),
                                       [](const SplitFigures& f) { return f.heuristicKnown; });
    if (heuristic) {
        row("heuristic within 10% of the best",
            [](const SplitFigures& f) { return f.heuristicWithin10; });
        row("heuristic error rate", [](const SplitFigures& f) { return f.heuristicErrorRate; });
        row("heuristic mean time lost", [](const SplitFigures& f) { return f.heuristicMeanLost; });
    }
    std::set<std::string> engines;
    for (const auto& f : s.splits)
        for (const auto& [e, v] : f.engineMedianApe)
            engines.insert(e);
    if (!engines.empty())
        out << "median error per engine (splits where it has test rows):\n";
    for (const auto& e : engines) {
        std::vector<double> v;
        for (const auto& f : s.splits)
            if (const auto it = f.engineMedianApe.find(e); it != f.engineMedianApe.end())
                v.push_back(it->second);
        std::snprintf(line, sizeof line, "  %-32s %7.1f%% %7.1f%% %7.1f%%   (%zu splits)\n",
                      e.c_str(), 100 * percentile(v, 10), 100 * percentile(v, 50),
                      100 * percentile(v, 90), v.size());
        out << line;
    }
    std::size_t meets = 0;
    for (const auto& f : s.splits)
        meets += f.within10 >= 0.9 ? 1 : 0;
    std::snprintf(line, sizeof line,
                  "splits where the pick is within 10%% of the best on >= 90%% of the held-out "
                  "configurations: %zu of %zu\n",
                  meets, s.splits.size());
    out << line;
}

} // namespace roofline::seer
