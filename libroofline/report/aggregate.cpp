#include "report/aggregate.hpp"

#include "core/instruction_model.hpp"
#include "core/roofline_model.hpp"
#include "core/scope_names.hpp"

#include <roofline/error.hpp>

#include <algorithm>
#include <map>
#include <unordered_map>

namespace roofline::report {

const char* toString(Family family) noexcept {
    switch (family) {
    case Family::FP64:
        return "FP64";
    case Family::FP32:
        return "FP32";
    case Family::FP16:
        return "FP16";
    case Family::Tensor:
        return "tensor";
    }
    return "?";
}

bool inFamily(FlopKind kind, Family family) noexcept {
    switch (family) {
    case Family::FP64:
        return kind == FlopKind::FP64;
    case Family::FP32:
        return kind == FlopKind::FP32;
    case Family::FP16:
        return kind == FlopKind::FP16;
    case Family::Tensor:
        return isTensor(kind) && isFloatingPoint(kind);
    }
    return false;
}

double KernelGroup::totalFlops() const noexcept {
    double sum = 0;
    for (std::size_t k = 0; k < kFlopKindCount; ++k)
        if (isFloatingPoint(static_cast<FlopKind>(k)))
            sum += flops[k];
    return sum;
}

double KernelGroup::tensorShare() const noexcept {
    const double total = totalFlops();
    return total > 0 ? flopsIn(Family::Tensor) / total : 0.0;
}

double KernelGroup::flopsIn(Family family) const noexcept {
    double sum = 0;
    for (std::size_t k = 0; k < kFlopKindCount; ++k)
        if (inFamily(static_cast<FlopKind>(k), family))
            sum += flops[k];
    return sum;
}

bool KernelGroup::dominantFamily(Family& family) const noexcept {
    double best = 0;
    for (std::size_t f = 0; f < kFamilyCount; ++f) {
        const double v = flopsIn(static_cast<Family>(f));
        if (v > best)
            best = v, family = static_cast<Family>(f);
    }
    return best > 0 && floatingPointWork(totalFlops(), bytes.data(), kMemoryLevelCount);
}

Bound KernelGroup::bound(const Ceilings& ceilings) const noexcept {
    KernelRecord r;
    r.measured = launches > unmeasured;
    r.timeSeconds = seconds;
    r.flops = flops;
    r.bytes = bytes;
    return core::belowEveryRoof(core::classify(r, ceilings), limiter);
}

std::string mergeLacks(const std::string& a, const std::string& b) {
    std::vector<std::string> all;
    for (const std::string* list : {&a, &b})
        for (std::size_t start = 0; start < list->size();) {
            const std::size_t end = std::min(list->find(", ", start), list->size());
            std::string what = list->substr(start, end - start);
            if (std::find(all.begin(), all.end(), what) == all.end())
                all.push_back(std::move(what));
            start = end + 2;
        }
    std::string out;
    for (const auto& w : all)
        out += (out.empty() ? "" : ", ") + w;
    return out;
}

std::string mergedInstances(const std::string& scopePath) {
    std::string out;
    std::size_t start = 0;
    while (start <= scopePath.size()) {
        const std::size_t end = std::min(scopePath.find('/', start), scopePath.size());
        const std::string part = scopePath.substr(start, end - start);
        out += (start ? "/" : "") +
               (core::separatedInstance(part) ? core::uniformInstance(part) : part);
        start = end + 1;
    }
    return out;
}

std::string opLabel(const KernelRecord& r) {
    if (r.op.empty())
        return "(no operator)";
    return r.phase == "backward" ? r.op + " [backward]" : r.op;
}

std::string moduleLabel(const KernelRecord& r) {
    return r.module.empty() ? "(no module)" : r.module;
}

std::vector<KernelGroup> aggregate(const std::vector<KernelRecord>& records, GroupBy by) {
    std::vector<KernelGroup> groups;
    std::unordered_map<std::string, std::size_t> index;
    std::vector<std::map<std::string, double>> perName; // GroupBy::Scope: time per kernel name
    std::map<std::string, std::uint32_t> idOf;          // GroupBy::Scope: kernel id per name
    for (const auto& r : records) {
        const std::string scope =
            by == GroupBy::Kernel ? mergedInstances(r.scopePath) : r.scopePath;
        std::string key = by == GroupBy::Name     ? r.name
                          : by == GroupBy::Scope  ? scope
                          : by == GroupBy::Op     ? opLabel(r)
                          : by == GroupBy::Module ? moduleLabel(r)
                          : by == GroupBy::Launch ? std::to_string(groups.size())
                                                  : r.name + '\t' + scope;
        auto [it, added] = index.emplace(key, groups.size());
        if (added) {
            KernelGroup g;
            g.key = std::move(key);
            const bool framework = frameworkRows(by);
            g.name = framework ? g.key : r.name;
            g.kernelId = framework ? static_cast<std::uint32_t>(groups.size()) : r.kernelId;
            g.scope = by == GroupBy::Name || framework ? std::string() : scope;
            groups.push_back(std::move(g));
            perName.emplace_back();
        }
        KernelGroup& g = groups[it->second];
        ++g.launches;
        g.differing += r.replay == ReplayStatus::Differs ? 1 : 0;
        g.unmatched += r.replay == ReplayStatus::Unmatched ? 1 : 0;
        g.reused += r.reusedSamples > 0 ? 1 : 0;
        if (!r.measured) {
            ++g.unmeasured;
            continue;
        }
        if (g.launches - g.unmeasured == 1) // the group's first measured record
            g.instructions = r.instructions;
        else
            core::addCounts(g.instructions, r.instructions);
        g.seconds += r.timeSeconds > 0.0 ? r.timeSeconds : 0.0;
        if (r.timeSeconds > 0.0) {
            g.minSeconds =
                g.minSeconds > 0.0 ? std::min(g.minSeconds, r.timeSeconds) : r.timeSeconds;
            if (r.timeSeconds > g.maxSeconds) // the longest launch so far gives the limiter
                g.maxSeconds = r.timeSeconds, g.limiter = r.bound.limiter;
        }
        if (!r.lacks.empty())
            g.lacks = mergeLacks(g.lacks, r.lacks);
        g.gpuSeconds += r.gpuDurationSeconds;
        g.clockTimesSeconds += r.timeSeconds > 0.0 ? r.smClockHz * r.timeSeconds : 0.0;
        for (std::size_t k = 0; k < kFlopKindCount; ++k)
            g.flops[k] += r.flops[k];
        for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
            g.bytes[l] += r.bytes[l];
        if (by == GroupBy::Scope) {
            perName[it->second][r.name] += r.timeSeconds;
            idOf[r.name] = r.kernelId;
        }
    }
    // a scope group carries the name of its longest-running kernel
    for (std::size_t i = 0; i < perName.size(); ++i) {
        double best = -1;
        for (const auto& [name, seconds] : perName[i])
            if (seconds > best)
                best = seconds, groups[i].name = name, groups[i].kernelId = idOf[name];
    }
    return groups;
}

double totalSeconds(const std::vector<KernelGroup>& groups) noexcept {
    double sum = 0;
    for (const auto& g : groups)
        sum += g.seconds;
    return sum;
}

} // namespace roofline::report
