#include "replay/samples.hpp"
#include "collect/notes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace roofline::collect {
namespace {

// Counters of work done (instructions, operations, L1 traffic): equal for launches doing the same
// work, whatever ran before them.
bool isWorkCounter(const std::string& metric) {
    return metric.rfind("sm__sass_thread_inst_executed", 0) == 0 ||
           metric.rfind("sm__ops_path_tensor", 0) == 0 ||
           metric.rfind("sm__inst_executed_pipe_tensor", 0) == 0 ||
           metric.rfind("l1tex__t_bytes", 0) == 0;
}

} // namespace

std::vector<std::size_t> workCounters(const std::vector<std::string>& metricNames) {
    std::vector<std::size_t> out;
    for (std::size_t m = 0; m < metricNames.size(); ++m)
        if (isWorkCounter(metricNames[m]))
            out.push_back(m);
    return out;
}

std::vector<std::size_t> flopCounters(const std::vector<std::string>& metricNames) {
    std::vector<std::size_t> out;
    for (std::size_t m = 0; m < metricNames.size(); ++m)
        if (metricNames[m].rfind("sm__sass_thread_inst_executed_op_", 0) == 0)
            out.push_back(m);
    return out;
}

bool sameFlops(const std::vector<double>& a, const std::vector<double>& b,
               const std::vector<std::size_t>& flopMetrics) {
    for (std::size_t m : flopMetrics)
        if (m < a.size() && m < b.size() && !std::isnan(a[m]) && !std::isnan(b[m]) && a[m] != b[m])
            return false;
    return true;
}

bool sameWork(const std::vector<double>& a, const std::vector<double>& b,
              const std::vector<std::size_t>& workMetrics) {
    for (std::size_t m : workMetrics) {
        if (m >= a.size() || m >= b.size() || std::isnan(a[m]) || std::isnan(b[m]))
            continue;
        if (std::fabs(a[m] - b[m]) > 1e-3 * std::max(std::fabs(a[m]), std::fabs(b[m])))
            return false;
    }
    return true;
}

bool sameWorkAll(const std::vector<const core::LaunchInfo*>& samples,
                 const std::vector<std::size_t>& workMetrics) {
    for (const core::LaunchInfo* s : samples)
        if (!sameWork(samples[0]->values, s->values, workMetrics))
            return false;
    return true;
}

void takeSampleMean(const std::vector<const core::LaunchInfo*>& samples, const std::string& which,
                    const std::vector<std::string>& metricNames, core::LaunchInfo& info) {
    const std::size_t n = samples.size(), metrics = n > 0 ? samples[0]->values.size() : 0;
    info.values.assign(metrics, 0.0);
    double worst = 0;
    std::size_t worstAt = 0;
    for (std::size_t m = 0; m < metrics; ++m) {
        // The samples that have a value: one of a group the stop cut short lacks the counters
        // of the passes it missed (NaN); none has it: NaN.
        double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
        std::size_t k = 0;
        for (const auto* x : samples) {
            const double v = m < x->values.size() ? x->values[m] : 0.0;
            if (std::isnan(v))
                continue;
            ++k;
            sum += v;
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        info.values[m] =
            k > 0 ? sum / static_cast<double>(k) : std::numeric_limits<double>::quiet_NaN();
        if (k == 0)
            continue;
        const double mean = std::fabs(info.values[m]);
        const double spread = mean > 0 ? (hi - lo) / mean : 0.0;
        if (spread > worst) {
            worst = spread;
            worstAt = m;
        }
    }
    char spread[64];
    std::snprintf(spread, sizeof spread, "%.1f%%", 100.0 * worst);
    appendNote(info.note,
               "reused: mean of " + std::to_string(n) +
                   " measured launches of the same signature (" + which + ")" +
                   (n > 1 ? std::string("; they spread by up to ") + spread +
                                (worstAt < metricNames.size() ? " (" + metricNames[worstAt] + ")"
                                                              : std::string())
                          : std::string()));
    info.reusedSamples = static_cast<std::uint32_t>(n);
}

} // namespace roofline::collect
