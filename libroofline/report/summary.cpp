// Grouping and filtering records for reports (public API in roofline/report.hpp).
#include "core/instruction_model.hpp"
#include "core/pattern.hpp"
#include "core/roofline_model.hpp"
#include "report/aggregate.hpp"

#include <roofline/error.hpp>
#include <roofline/report.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>

namespace roofline {

GroupBy parseGroupBy(const std::string& text) {
    if (text == "kernel")
        return GroupBy::Kernel;
    if (text == "name+scope")
        return GroupBy::NameScope;
    if (text == "name")
        return GroupBy::Name;
    if (text == "scope")
        return GroupBy::Scope;
    if (text == "launch")
        return GroupBy::Launch;
    if (text == "op")
        return GroupBy::Op;
    if (text == "module" || (text.rfind("module:", 0) == 0 && moduleDepthOf(text) > 0))
        return GroupBy::Module;
    throw Error(ErrorCode::InvalidArgument,
                "unknown grouping '" + text +
                    "': use kernel, name+scope, name, scope, launch, op, module or module:DEPTH "
                    "(DEPTH 1 to 64)");
}

std::size_t moduleDepthOf(const std::string& text) {
    if (text.rfind("module:", 0) != 0 || text.size() == 7 || text.size() > 9)
        return 0;
    std::size_t depth = 0;
    for (std::size_t i = 7; i < text.size(); ++i) {
        if (text[i] < '0' || text[i] > '9')
            return 0;
        depth = depth * 10 + static_cast<std::size_t>(text[i] - '0');
    }
    return depth <= 64 ? depth : 0;
}

std::vector<KernelRecord> cutModules(std::vector<KernelRecord> records, std::size_t depth) {
    if (depth == 0)
        return records;
    for (auto& r : records) {
        std::size_t end = 0; // the '.' after the depth-th name
        for (std::size_t d = 0; d < depth && end != std::string::npos; ++d)
            end = r.module.find('.', d == 0 ? 0 : end + 1);
        if (end != std::string::npos)
            r.module.resize(end);
    }
    return records;
}

const char* toString(GroupBy by) noexcept {
    switch (by) {
    case GroupBy::Kernel:
        return "kernel";
    case GroupBy::NameScope:
        return "name+scope";
    case GroupBy::Name:
        return "name";
    case GroupBy::Scope:
        return "scope";
    case GroupBy::Launch:
        return "launch";
    case GroupBy::Op:
        return "op";
    case GroupBy::Module:
        return "module";
    }
    return "?";
}

std::vector<KernelRecord> groupRecords(const std::vector<KernelRecord>& records, GroupBy by,
                                       const Ceilings& ceilings) {
    if (by == GroupBy::Launch)
        return records;
    const std::vector<report::KernelGroup> groups = report::aggregate(records, by);
    std::vector<KernelRecord> out;
    out.reserve(groups.size());
    for (std::size_t i = 0; i < groups.size(); ++i) {
        const report::KernelGroup& g = groups[i];
        KernelRecord r;
        r.launchIndex = i;
        r.kernelId = g.kernelId;
        r.name = g.name;
        r.scopePath = by == GroupBy::Name ? std::string() : g.scope;
        r.kernels = static_cast<std::uint32_t>(std::min<std::size_t>(g.launches, UINT32_MAX));
        r.measured = g.launches > g.unmeasured;
        r.timeSeconds = g.seconds;
        r.gpuDurationSeconds = g.gpuSeconds;
        r.smClockHz = g.seconds > 0 ? g.clockTimesSeconds / g.seconds : 0.0;
        r.flops = g.flops;
        r.bytes = g.bytes;
        r.lacks = g.lacks;
        r.replay = g.unmatched   ? ReplayStatus::Unmatched
                   : g.differing ? ReplayStatus::Differs
                                 : ReplayStatus::Clean;
        std::string note;
        const auto add = [&](std::size_t n, const char* what) {
            if (n)
                note += (note.empty() ? "" : "; ") + std::to_string(n) + " of " +
                        std::to_string(g.launches) + what;
        };
        add(g.unmeasured, " launches not measured (not in the totals)");
        add(g.differing, " launches ran another grid or block in some replay pass (values kept)");
        add(g.unmatched, " launches without values: replay passes could not be matched");
        add(g.reused, " launches reuse the mean of measured launches of the same signature");
        if (g.minSeconds > 0 && g.maxSeconds > 1.5 * g.minSeconds) { // a spread worth saying
            char spread[96];
            std::snprintf(spread, sizeof spread, "launches took %.3g..%.3g us", 1e6 * g.minSeconds,
                          1e6 * g.maxSeconds);
            note += (note.empty() ? "" : "; ") + std::string(spread);
        }
        r.note = note;
        r.bound = g.bound(ceilings);
        r.instructions = g.instructions;
        r.instructionVerdicts =
            core::instructionVerdicts(g.instructions, g.seconds, ceilings, g.differing > 0);
        out.push_back(std::move(r));
    }
    return out;
}

namespace {

bool matches(const std::string& text, const std::string& pattern,
             const std::optional<core::Pattern>& re) {
    if (pattern.empty())
        return true;
    return re ? re->search(text) : text.find(pattern) != std::string::npos;
}

std::optional<core::Pattern> compile(const std::string& pattern, const char* what) {
    if (pattern.rfind("regex:", 0) != 0)
        return std::nullopt;
    try {
        return core::Pattern(pattern.substr(6));
    } catch (const std::invalid_argument& e) {
        throw Error(ErrorCode::InvalidArgument, std::string("bad ") + what + ": " + e.what());
    }
}

} // namespace

std::vector<KernelRecord> filterRecords(const std::vector<KernelRecord>& records,
                                        const std::string& name, const std::string& scope) {
    const auto nameRe = compile(name, "--name");
    const auto scopeRe = compile(scope, "--scope");
    std::vector<KernelRecord> out;
    for (const auto& r : records)
        if (matches(r.name, name, nameRe) && matches(r.scopePath, scope, scopeRe))
            out.push_back(r);
    return out;
}

} // namespace roofline
