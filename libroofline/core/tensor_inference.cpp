#include "core/tensor_inference.hpp"

#include <algorithm>
#include <cmath>

namespace roofline::core {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

bool detecting(const ChipProfile& p, MetricSet set, bool detect) {
    return detect && set == MetricSet::Full && !p.tensorDetection.empty();
}

} // namespace

std::vector<std::string> sessionMetrics(const ChipProfile& p, MetricSet set, bool detect) {
    std::vector<std::string> out = requiredMetrics(p, set);
    if (detecting(p, set, detect))
        for (const auto& m : p.tensorDetection.counters)
            if (!contains(out, m))
                out.push_back(m);
    return out;
}

std::vector<std::string> initialMetrics(const ChipProfile& p, MetricSet set, bool detect) {
    std::vector<std::string> out;
    const bool on = detecting(p, set, detect);
    for (const auto& m : sessionMetrics(p, set, detect)) {
        const bool inferred =
            on &&
            std::any_of(p.tensorDetection.inferences.begin(), p.tensorDetection.inferences.end(),
                        [&](const TensorInference& i) { return i.metric == m; });
        if (!inferred)
            out.push_back(m);
    }
    return out;
}

std::vector<std::string> inferTensorMetrics(const ChipProfile& p,
                                            const std::vector<std::string>& metrics,
                                            std::vector<double>& values) {
    std::vector<std::string> unknown;
    const auto valueOf = [&](const std::string& m) {
        const auto it = std::find(metrics.begin(), metrics.end(), m);
        const std::size_t at = static_cast<std::size_t>(it - metrics.begin());
        return it == metrics.end() || at >= values.size() ? std::nan("") : values[at];
    };
    for (const TensorInference& inf : p.tensorDetection.inferences) {
        const auto it = std::find(metrics.begin(), metrics.end(), inf.metric);
        if (it == metrics.end())
            continue;
        const std::size_t at = static_cast<std::size_t>(it - metrics.begin());
        if (at >= values.size() || !std::isnan(values[at]))
            continue; // collected
        // Instruction counts: zero is exact (NaN: a detection counter is missing).
        const bool zero =
            std::all_of(inf.zeroWhen.begin(), inf.zeroWhen.end(), [&](const Formula& f) {
                double z = 0;
                for (const Term& t : f.terms)
                    z += t.coefficient * valueOf(t.metric);
                return !std::isnan(z) && std::fabs(z) < 0.5;
            });
        if (zero) {
            const double v = inf.from.empty() ? 0.0 : valueOf(inf.from);
            if (!std::isnan(v)) {
                values[at] = v;
                continue;
            }
        }
        unknown.push_back(inf.metric);
    }
    return unknown;
}

} // namespace roofline::core
