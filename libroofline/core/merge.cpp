#include "core/merge.hpp"

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

} // namespace

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
        requireSame(inputs[0], in, "metrics", joined(inputs[0].recording.metrics),
                    joined(in.recording.metrics));
        requireSame(inputs[0], in, "byte definition", inputs[0].recording.bytes,
                    in.recording.bytes);
        requireSame(inputs[0], in, "mode", inputs[0].recording.mode, in.recording.mode);
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
    return merged;
}

} // namespace roofline::core
