#include "core/instruction_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace roofline::core {
namespace {

constexpr double kNaN = InstructionModel::kUnknown;

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

InstructionCounts instructionCounts(const ChipProfile& profile, const MetricValues& values) {
    const InstructionCounters& c = profile.instructions;
    InstructionCounts n;
    if (c.empty())
        return n;
    bool all = true;
    const auto v = [&](const std::string& m) {
        const double x = valueOf(values, m);
        all = all && !std::isnan(x);
        return std::isnan(x) ? 0.0 : x;
    };
    n.warp = v(c.warpInstructions);
    n.thread = v(c.threadInstructions);
    n.threadPredicatedOn = v(c.threadInstructionsPredicated);
    for (std::size_t k = 0; k < kInstructionClassCount; ++k)
        n.byClass[k] = v(c.threadClasses[k]);
    n.globalLoad = {v(c.globalLoadRequests), v(c.globalLoadSectors), v(c.globalLoadBytes)};
    n.globalStore = {v(c.globalStoreRequests), v(c.globalStoreSectors), v(c.globalStoreBytes)};
    // A request's wavefronts: one, and one more per bank conflict.
    const double loads = v(c.sharedLoadRequests), stores = v(c.sharedStoreRequests);
    n.sharedLoad = {loads, loads + v(c.sharedLoadConflicts), v(c.sharedLoadBytes)};
    n.sharedStore = {stores, stores + v(c.sharedStoreConflicts), v(c.sharedStoreBytes)};
    n.l2Sectors = v(c.l2Sectors);
    n.dramSectors = v(c.dramSectors);
    if (!all)
        return InstructionCounts{};
    n.measured = true;
    return n;
}

InstructionModel instructionModel(const InstructionCounts& c, double time) {
    InstructionModel m; // every field unknown
    if (!c.measured)
        return m;
    m.rate = ratio(c.warp, time);
    const double globalSectors = c.globalLoad.transactions + c.globalStore.transactions;
    const double sharedWavefronts = c.sharedLoad.transactions + c.sharedStore.transactions;
    m.intensity = {ratio(c.warp, globalSectors + sharedWavefronts), ratio(c.warp, c.l2Sectors),
                   ratio(c.warp, c.dramSectors)};
    m.loadSectorsPerRequest = ratio(c.globalLoad.transactions, c.globalLoad.requests);
    m.loadIdealSectors = ideal(c.globalLoad.bytes, 32, c.globalLoad.requests);
    m.storeSectorsPerRequest = ratio(c.globalStore.transactions, c.globalStore.requests);
    m.storeIdealSectors = ideal(c.globalStore.bytes, 32, c.globalStore.requests);
    m.sharedLoadWavefrontsPerRequest = ratio(c.sharedLoad.transactions, c.sharedLoad.requests);
    m.sharedLoadIdealWavefronts = ideal(c.sharedLoad.bytes, 128, c.sharedLoad.requests);
    m.sharedStoreWavefrontsPerRequest = ratio(c.sharedStore.transactions, c.sharedStore.requests);
    m.sharedStoreIdealWavefronts = ideal(c.sharedStore.bytes, 128, c.sharedStore.requests);
    m.threadEfficiency = ratio(c.threadPredicatedOn, 32 * c.warp);
    return m;
}

InstructionModel instructionModel(const ChipProfile& profile, const MetricValues& values,
                                  double time) {
    return instructionModel(instructionCounts(profile, values), time);
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
    const auto conflicts = [&](const char* what, double actual, double best) {
        if (wasteful(actual, best, 0.5))
            out.push_back(fixed(std::round(actual / best), 0) +
                          "-way shared-memory bank conflicts on " + what + " (" + fixed(actual, 1) +
                          " wavefronts per request, ideal " + fixed(best, 1) + ")");
    };
    conflicts("loads", m.sharedLoadWavefrontsPerRequest, m.sharedLoadIdealWavefronts);
    conflicts("stores", m.sharedStoreWavefrontsPerRequest, m.sharedStoreIdealWavefronts);
    if (!std::isnan(m.threadEfficiency) && m.threadEfficiency < 0.9)
        out.push_back("predicated: " + fixed(100 * m.threadEfficiency, 0) + "% of threads active");
    const double share = ratio(m.rate, issueCeiling);
    if (!std::isnan(share) && share >= 0.6)
        out.push_back("issue-bound at " + fixed(100 * share, 0) + "% of the warp-issue ceiling");
    return out;
}

std::vector<std::string> instructionVerdicts(const InstructionCounts& counts, double time,
                                             const Ceilings& ceilings, bool passesDiffer) {
    if (passesDiffer && counts.measured)
        return {kPassesDiffer};
    return instructionVerdicts(
        instructionModel(counts, time),
        ceilings.warpInstructionsPerSecond > 0 ? ceilings.warpInstructionsPerSecond : kNaN);
}

void addCounts(InstructionCounts& sum, const InstructionCounts& add) {
    if (!sum.measured || !add.measured) {
        sum = InstructionCounts{};
        return;
    }
    sum.warp += add.warp;
    sum.thread += add.thread;
    sum.threadPredicatedOn += add.threadPredicatedOn;
    for (std::size_t k = 0; k < kInstructionClassCount; ++k)
        sum.byClass[k] += add.byClass[k];
    for (auto [s, a] : {std::pair{&sum.globalLoad, &add.globalLoad},
                        {&sum.globalStore, &add.globalStore},
                        {&sum.sharedLoad, &add.sharedLoad},
                        {&sum.sharedStore, &add.sharedStore}}) {
        s->requests += a->requests;
        s->transactions += a->transactions;
        s->bytes += a->bytes;
    }
    sum.l2Sectors += add.l2Sectors;
    sum.dramSectors += add.dramSectors;
}

} // namespace roofline::core
