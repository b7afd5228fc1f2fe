#include "core/merge.hpp"

#include "core/launch.hpp"
#include "core/utc.hpp"

#include <roofline/error.hpp>
#include <roofline/version.hpp>

#include <algorithm>
#include <map>

namespace roofline::core {
namespace {

[[noreturn]] void refuse(const std::string& why) {
    throw Error(ErrorCode::InvalidArgument, "roofline merge: " + why);
}

void requireSame(const MergeInput& first, const MergeInput& other, const std::string& field,
                 const std::string& a, const std::string& b) {
    if (a != b)
        refuse("'" + other.name + "' was recorded with " + field + " '" + b + "', '" + first.name +
               "' with '" + a + "': only recordings of one job with the same settings merge");
}

std::string joined(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v)
        s += (s.empty() ? "" : ",") + x;
    return s;
}

// A recording's metrics as a merge error shows them: how many, and those the other lacks.
std::string metricSummary(const Recording& a, const Recording& b) {
    if (a.metrics == b.metrics)
        return joined(a.metrics);
    std::vector<std::string> only;
    for (const auto& m : a.metrics)
        if (std::find(b.metrics.begin(), b.metrics.end(), m) == b.metrics.end())
            only.push_back(m);
    std::string s = std::to_string(a.metrics.size()) + " metrics";
    if (!only.empty())
        s += ", among them " + joined(only);
    return s;
}

// The launch's kernel, grid and block.
std::string kernelGridBlock(const LaunchInfo& l) {
    return l.mangledName + '|' + dimText(l.grid) + '|' + dimText(l.block);
}
// The launch's place in its iteration: position, kernel and block (a grid may follow the data).
std::string place(const LaunchInfo& l) {
    return std::to_string(l.position) + '|' + l.mangledName + '|' + dimText(l.block);
}

// Ranks that shared the profile: each launch another rank measured takes that rank's values.
void fillSharedCounters(Recording& merged) {
    // per rank: its own measured launches by place and by kernel, grid, block and scope
    std::map<int, std::map<std::string, const LaunchInfo*>> byPlace;
    std::map<int, std::map<std::string, std::vector<const LaunchInfo*>>> byKernel;
    // a launch outside every step takes the mean of the rank's step launches of its kernel, grid
    // and block (it has no place in a step, nor its scope)
    std::map<int, std::map<std::string, std::vector<const LaunchInfo*>>> stepByKernel;
    std::map<int, bool> present;
    for (const LaunchInfo& l : merged.launches) {
        present[l.rank] = true;
        if (l.values.empty() || l.countersRank >= 0)
            continue;
        if (l.position >= 0)
            byPlace[l.rank].emplace(place(l), &l);
        byKernel[l.rank][kernelGridBlock(l) + '|' + l.scopePath].push_back(&l);
        if (l.iteration >= 0)
            stepByKernel[l.rank][kernelGridBlock(l)].push_back(&l);
    }
    for (LaunchInfo& l : merged.launches) {
        if (!l.values.empty() || l.countersRank < 0)
            continue;
        const int from = l.countersRank;
        const std::string awaiting = awaitingCountersNote(from);
        const auto at = l.note.find(awaiting);
        std::string why;
        const bool outside = l.iteration < 0;
        const auto& kernels = outside ? stepByKernel[from] : byKernel[from];
        const std::string kernelKey =
            outside ? kernelGridBlock(l) : kernelGridBlock(l) + '|' + l.scopePath;
        const auto& places = byPlace[from];
        if (const auto p = outside ? places.end() : places.find(place(l)); p != places.end()) {
            l.values = p->second->values;
            why = "counters from rank " + std::to_string(from) +
                  "'s launch at the same place (the ranks shared the profile)";
            if (!sameDim(p->second->grid, l.grid))
                why += "; its grid there was " + dimText(p->second->grid) + ", here " +
                       dimText(l.grid) + " (a grid that follows the data)";
        } else if (const auto k = kernels.find(kernelKey); k != kernels.end()) {
            l.values.assign(k->second.front()->values.size(), 0.0);
            for (const LaunchInfo* x : k->second)
                for (std::size_t m = 0; m < l.values.size() && m < x->values.size(); ++m)
                    l.values[m] += x->values[m] / static_cast<double>(k->second.size());
            why = "counters: the mean of rank " + std::to_string(from) + "'s " +
                  std::to_string(k->second.size()) +
                  (outside ? " launches of this kernel, grid and block in its step (the ranks "
                             "shared the profile)"
                           : " launches of this kernel, grid, block and scope (none at its place; "
                             "the ranks shared the profile)");
        } else {
            why = present[from] ? "no counters: rank " + std::to_string(from) +
                                      " measured no launch like it (the ranks shared the "
                                      "profile, and launched different kernels?)"
                                : "no counters: they were measured on rank " +
                                      std::to_string(from) + ", whose recording was not merged";
        }
        if (at != std::string::npos)
            l.note.replace(at, awaiting.size(), why);
        else
            l.note += (l.note.empty() ? "" : "; ") + why;
    }
}

} // namespace

std::string awaitingCountersNote(int rank) {
    return "counters measured on rank " + std::to_string(rank) +
           " (the ranks share the profile): `roofline merge` of the ranks' recordings fills them "
           "in";
}

int mergeRank(const Recording& recording, std::size_t position) noexcept {
    return recording.process.rank >= 0 ? recording.process.rank : static_cast<int>(position);
}

Recording mergeRecordings(std::vector<MergeInput> inputs) {
    if (inputs.size() < 2)
        refuse("give at least two recordings (one per rank)");
    std::map<int, std::size_t> byRank; // rank -> input: merged in rank order
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const MergeInput& in = inputs[i];
        if (in.recording.version < 2)
            refuse("'" + in.name + "' is a format v1 recording (no evaluated values): record it " +
                   "again with this libroofline");
        for (const auto& l : in.recording.launches)
            if (l.rank >= 0)
                refuse("'" + in.name + "' is already a merged recording: merge the per-rank " +
                       "recordings it came from");
        requireSame(inputs[0], in, "chip", inputs[0].recording.chip, in.recording.chip);
        requireSame(inputs[0], in, "metrics", metricSummary(inputs[0].recording, in.recording),
                    metricSummary(in.recording, inputs[0].recording));
        requireSame(inputs[0], in, "byte definition", inputs[0].recording.bytes,
                    in.recording.bytes);
        requireSame(inputs[0], in, "mode", inputs[0].recording.mode, in.recording.mode);
        // DRAM bytes from a cold cache and from the cache the program left are different
        // quantities: ranks with different flushes do not compare.
        requireSame(inputs[0], in, "cache flush", inputs[0].recording.cacheFlush,
                    in.recording.cacheFlush);
        requireSame(inputs[0], in, "ranks sharing the profile",
                    std::to_string(inputs[0].recording.shareCount),
                    std::to_string(in.recording.shareCount));
        // The same recording twice (by content: another path, a copy) is one rank, not two.
        for (std::size_t k = 0; k < i; ++k) {
            const Recording& a = inputs[k].recording;
            const Recording& b = in.recording;
            if (a.createdUtc == b.createdUtc && a.process.host == b.process.host &&
                a.process.pid == b.process.pid && a.launches.size() == b.launches.size())
                refuse("'" + inputs[k].name + "' and '" + in.name +
                       "' are the same recording (made at " + a.createdUtc +
                       (a.process.pid != 0 ? " by " + describe(a.process) : std::string()) +
                       "): give each rank's recording once");
        }
        // A rank from the launcher for some inputs and input order for others could collide.
        const int rank = mergeRank(in.recording, i);
        const auto [it, fresh] = byRank.emplace(rank, i);
        if (!fresh)
            refuse("'" + inputs[it->second].name + "' and '" + in.name + "' are both rank " +
                   std::to_string(rank) + " (the same file twice, or two runs' recordings)");
    }

    Recording merged;
    const Recording& first = inputs[byRank.begin()->second].recording;
    merged.libraryVersion = ROOFLINE_VERSION_STRING;
    merged.createdUtc = utcNow();
    merged.mode = first.mode;
    merged.status = first.status;
    merged.cacheFlush = first.cacheFlush;
    merged.device = first.device;
    merged.chip = first.chip;
    merged.metrics = first.metrics;
    merged.bytes = first.bytes;
    merged.configImage = first.configImage;
    merged.devicePeaks = first.devicePeaks; // constants of the chip, the same on every rank
    for (const auto& [rank, i] : byRank) {
        Recording& r = inputs[i].recording;
        if (merged.devicePeaks.empty())
            merged.devicePeaks = r.devicePeaks;
        merged.passes = std::max(merged.passes, r.passes);
        for (const auto& [key, value] : r.framework) // the same program on every rank
            merged.framework.emplace(key, value);
        merged.droppedRanges += r.droppedRanges;
        if (merged.status == "counters" && r.status != "counters")
            merged.status = r.status + " (rank " + std::to_string(rank) + ")";
        for (LaunchInfo& l : r.launches) {
            l.rank = rank;
            l.chunk = -1; // raw images are not carried over; the values are
            l.range = 0;
            merged.launches.push_back(std::move(l));
        }
    }
    if (first.shareCount > 1)
        fillSharedCounters(merged);
    return merged;
}

} // namespace roofline::core
