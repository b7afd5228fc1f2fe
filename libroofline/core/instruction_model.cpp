#include "core/instruction_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace roofline::core {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double valueOf(const MetricValues& values, const std::string& metric) {
    if (metric.empty())
        return kNaN;
    const auto it = values.find(metric);
    return it == values.end() ? kNaN : it->second;
}

// a / b, NaN where b is 0 or either is missing.
double ratio(double a, double b) {
    return std::isnan(a) || std::isnan(b) || b <= 0 ? kNaN : a / b;
}

// A request touches at least one sector (or wavefront), whatever its bytes.
double ideal(double bytes, double unit, double requests) {
    const double r = ratio(bytes / unit, requests);
    return std::isnan(r) ? kNaN : std::max(1.0, r);
}

std::string fixed(double v, int decimals) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", decimals, v);
    return text;
}

// Well above what the threads' bytes need: a quarter more, and at least `slack` more.
bool wasteful(double actual, double best, double slack) {
    return !std::isnan(actual) && !std::isnan(best) && actual > 1.25 * best &&
           actual - best >= slack;
}

} // namespace

InstructionModel instructionModel(const ChipProfile& profile, const MetricValues& values,
                                  double time) {
    const InstructionCounters& c = profile.instructions;
    const auto v = [&](const std::string& m) { return valueOf(values, m); };
    InstructionModel m;
    m.warpInstructions = v(c.warpInstructions);
    m.threadInstructionsPredicated = v(c.threadInstructionsPredicated);
    m.rate = ratio(m.warpInstructions, time);
    const double globalSectors = v(c.globalLoadSectors) + v(c.globalStoreSectors);
    const double sharedWavefronts = v(c.sharedLoadWavefronts) + v(c.sharedStoreWavefronts);
    m.intensity = {ratio(m.warpInstructions, globalSectors + sharedWavefronts),
                   ratio(m.warpInstructions, v(c.l2Sectors)),
                   ratio(m.warpInstructions, v(c.dramSectors))};
    m.loadSectorsPerRequest = ratio(v(c.globalLoadSectors), v(c.globalLoadRequests));
    m.loadIdealSectors = ideal(v(c.globalLoadBytes), 32, v(c.globalLoadRequests));
    m.storeSectorsPerRequest = ratio(v(c.globalStoreSectors), v(c.globalStoreRequests));
    m.storeIdealSectors = ideal(v(c.globalStoreBytes), 32, v(c.globalStoreRequests));
    const double sharedRequests = v(c.sharedLoadRequests) + v(c.sharedStoreRequests);
    m.sharedWavefrontsPerRequest = ratio(sharedWavefronts, sharedRequests);
    m.sharedIdealWavefronts =
        ideal(v(c.sharedLoadBytes) + v(c.sharedStoreBytes), 128, sharedRequests);
    m.threadEfficiency = ratio(m.threadInstructionsPredicated, 32 * m.warpInstructions);
    return m;
}

std::vector<std::string> instructionVerdicts(const InstructionModel& m, double issueCeiling) {
    std::vector<std::string> out;
    const auto uncoalesced = [&](const char* what, double actual, double best) {
        if (wasteful(actual, best, 1.0))
            out.push_back(std::string("uncoalesced ") + what + ": " + fixed(actual, 1) +
                          " sectors per request (ideal " + fixed(best, 1) + ")");
    };
    uncoalesced("loads", m.loadSectorsPerRequest, m.loadIdealSectors);
    uncoalesced("stores", m.storeSectorsPerRequest, m.storeIdealSectors);
    if (wasteful(m.sharedWavefrontsPerRequest, m.sharedIdealWavefronts, 0.5))
        out.push_back(fixed(std::round(m.sharedWavefrontsPerRequest / m.sharedIdealWavefronts), 0) +
                      "-way shared-memory bank conflicts (" +
                      fixed(m.sharedWavefrontsPerRequest, 1) + " wavefronts per request, ideal " +
                      fixed(m.sharedIdealWavefronts, 1) + ")");
    if (!std::isnan(m.threadEfficiency) && m.threadEfficiency < 0.9)
        out.push_back("predicated: " + fixed(100 * m.threadEfficiency, 0) + "% of threads active");
    const double share = ratio(m.rate, issueCeiling);
    if (!std::isnan(share) && share >= 0.6)
        out.push_back("issue-bound at " + fixed(100 * share, 0) + "% of the warp-issue ceiling");
    return out;
}

double warpIssueCeiling(int multiprocessors, double smClockHz) {
    return multiprocessors > 0 && smClockHz > 0 ? 4.0 * multiprocessors * smClockHz : kNaN;
}

} // namespace roofline::core
